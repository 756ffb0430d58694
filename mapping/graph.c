/* Task graph: construction from directed triples, METIS-format reader and writer. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hc_graph.h"

static int cmp_adj(const void *a, const void *b)
{
    int x = ((const hc_adj_ent *)a)->v, y = ((const hc_adj_ent *)b)->v;
    return (x > y) - (x < y);
}

static int heavier_first(const void *a, const void *b)
{
    const hc_adj_ent *x = a, *y = b;
    if (x->w != y->w)
        return x->w < y->w ? 1 : -1;
    return (x->v > y->v) - (x->v < y->v);
}

hc_adj_ent *hc_graph_heaviest_first(const hc_graph *g)
{
    long long n = g->xadj[g->n];
    hc_adj_ent *a = malloc(sizeof *a * (size_t)(n ? n : 1));
    if (!a)
        return NULL;
    for (long long e = 0; e < n; e++)
        a[e] = (hc_adj_ent){g->adjncy[e], g->adjwgt[e]};
    for (int i = 0; i < g->n; i++)
        qsort(a + g->xadj[i], (size_t)(g->xadj[i + 1] - g->xadj[i]), sizeof *a, heavier_first);
    return a;
}

void hc_graph_free(hc_graph *g)
{
    if (!g)
        return;
    free(g->xadj);
    free(g->adjncy);
    free(g->adjwgt);
    memset(g, 0, sizeof *g);
}

/* Builds the CSR from per-vertex buckets of (v, w) (row u is ent[off[u] .. off[u+1])): sorts
 * each row and merges duplicates by summing. */
static int build_csr(hc_graph *g, int n, const long long *off, hc_adj_ent *ent)
{
    long long total = 0;
    long long *len_after = malloc(sizeof(long long) * ((size_t)n + 1));
    if (!len_after)
        return -1;
    for (int u = 0; u < n; u++) {
        hc_adj_ent *row = ent + off[u];
        long long len = off[u + 1] - off[u], k = 0;
        qsort(row, (size_t)len, sizeof *row, cmp_adj);
        for (long long e = 0; e < len; e++) {
            if (k > 0 && row[k - 1].v == row[e].v)
                row[k - 1].w += row[e].w;
            else
                row[k++] = row[e];
        }
        len_after[u] = k;
        total += k;
    }
    g->n = n;
    g->xadj = malloc(sizeof(long long) * ((size_t)n + 1));
    g->adjncy = malloc(sizeof(int) * (size_t)(total ? total : 1));
    g->adjwgt = malloc(sizeof(double) * (size_t)(total ? total : 1));
    if (!g->xadj || !g->adjncy || !g->adjwgt) {
        free(len_after);
        hc_graph_free(g);
        return -1;
    }
    long long pos = 0;
    g->xadj[0] = 0;
    for (int u = 0; u < n; u++) {
        const hc_adj_ent *row = ent + off[u];
        for (long long e = 0; e < len_after[u]; e++) {
            g->adjncy[pos] = row[e].v;
            g->adjwgt[pos] = row[e].w;
            pos++;
        }
        g->xadj[u + 1] = pos;
    }
    free(len_after);
    return 0;
}

int hc_graph_from_triples(hc_graph *g, int n, long long count, const int *src, const int *dst,
                          const double *bytes)
{
    memset(g, 0, sizeof *g);
    if (n < 0)
        return -1;
    long long *off = calloc((size_t)n + 2, sizeof *off);
    if (!off)
        return -1;
    long long kept = 0;
    for (long long t = 0; t < count; t++) {
        int s = src[t], d = dst[t];
        if (s == d || !(bytes[t] > 0) || s < 0 || d < 0 || s >= n || d >= n)
            continue;
        off[s + 2]++;
        off[d + 2]++;
        kept++;
    }
    for (int u = 0; u < n; u++)
        off[u + 2] += off[u + 1];
    hc_adj_ent *ent = malloc(sizeof *ent * (size_t)(2 * kept + 1));
    if (!ent) {
        free(off);
        return -1;
    }
    /* off[u + 1] is the fill cursor of row u; after filling, off[u] is row u's start. */
    for (long long t = 0; t < count; t++) {
        int s = src[t], d = dst[t];
        if (s == d || !(bytes[t] > 0) || s < 0 || d < 0 || s >= n || d >= n)
            continue;
        ent[off[s + 1]++] = (hc_adj_ent){d, bytes[t]};
        ent[off[d + 1]++] = (hc_adj_ent){s, bytes[t]};
    }
    int rc = build_csr(g, n, off, ent);
    free(ent);
    free(off);
    return rc;
}

int hc_graph_write_metis(const hc_graph *g, FILE *out)
{
    long long m = g->xadj[g->n] / 2;
    if (fprintf(out, "%% hiercoll taskgraph v1\n%d %lld 001\n", g->n, m) < 0)
        return -1;
    for (int u = 0; u < g->n; u++) {
        for (long long e = g->xadj[u]; e < g->xadj[u + 1]; e++)
            fprintf(out, "%s%d %.0f", e > g->xadj[u] ? " " : "", g->adjncy[e] + 1,
                    g->adjwgt[e] < 1 ? 1.0 : g->adjwgt[e]);
        fputc('\n', out);
    }
    return ferror(out) ? -1 : 0;
}

double hc_graph_weight(const hc_graph *g, int i, int j)
{
    long long lo = g->xadj[i], hi = g->xadj[i + 1];
    while (lo < hi) {
        long long mid = lo + (hi - lo) / 2;
        if (g->adjncy[mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (lo < g->xadj[i + 1] && g->adjncy[lo] == j) ? g->adjwgt[lo] : 0;
}

/* --- reader ------------------------------------------------------------------------------ */

typedef struct {
    const char *path;
    char *err;
    size_t errlen;
} hc_rd;

static int rd_fail(hc_rd *r, long line, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (r->err && r->errlen)
        snprintf(r->err, r->errlen, "%s:%ld: %s", r->path, line, msg);
    return -1;
}

/* Parses one number from *p; 0 or -1 if there is none / it is malformed. */
static int next_num(char **p, double *val)
{
    char *s = *p;
    while (*s == ' ' || *s == '\t' || *s == '\r')
        s++;
    if (!*s || *s == '\n')
        return 1; /* end of line */
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || (*end && *end != ' ' && *end != '\t' && *end != '\r' && *end != '\n'))
        return -1;
    *val = v;
    *p = end;
    return 0;
}

static int is_blank(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t' && *s != '\r' && *s != '\n')
            return 0;
    return 1;
}

int hc_graph_read_metis(hc_graph *g, const char *path, char *err, size_t errlen)
{
    hc_rd r = {path, err, errlen};
    memset(g, 0, sizeof *g);
    FILE *f = fopen(path, "r");
    if (!f)
        return rd_fail(&r, 0, "cannot open: %s", strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    int rc = -1, n = -1, has_vsize = 0, has_vwgt = 0, has_ewgt = 0, ncon = 0, u = 0;
    long long m = 0, fill = 0;
    long long *off = NULL;
    long *vline = NULL;
    hc_adj_ent *ent = NULL;

    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        if (line[0] == '%')
            continue;
        char *p = line;
        if (n < 0) { /* header: n m [fmt [ncon]] */
            if (is_blank(line))
                continue;
            char fmt[8] = "0";
            long long nn, mm;
            int k = sscanf(line, "%lld %lld %7s %d", &nn, &mm, fmt, &ncon);
            if (k < 2 || nn < 0 || nn > 100000000 || mm < 0) {
                rd_fail(&r, lineno, "header must be 'n m [fmt [ncon]]' with n, m >= 0");
                goto out;
            }
            size_t fl = strlen(fmt);
            if (fl > 3 || strspn(fmt, "01") != fl) {
                rd_fail(&r, lineno, "format '%s' must be up to three 0/1 digits", fmt);
                goto out;
            }
            char f3[4] = "000";
            memcpy(f3 + 3 - fl, fmt, fl);
            has_vsize = f3[0] == '1';
            has_vwgt = f3[1] == '1';
            has_ewgt = f3[2] == '1';
            if (k < 4)
                ncon = has_vwgt ? 1 : 0;
            else if (ncon < 1 || !has_vwgt) {
                rd_fail(&r, lineno, "ncon must be >= 1 and needs vertex weights");
                goto out;
            }
            /* A file lists every edge twice (once per end, at least 2 bytes each) and every
             * vertex on a line of its own: refuse sizes the file cannot hold before allocating. */
            struct stat st;
            if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
                ((double)nn > (double)st.st_size || 4.0 * (double)mm > (double)st.st_size)) {
                rd_fail(&r, lineno, "%lld vertices and %lld edges cannot fit in a file of %lld bytes",
                        nn, mm, (long long)st.st_size);
                goto out;
            }
            if (mm > nn * (nn - 1) / 2) {
                /* Also bounds the edge buffer below before anything is allocated. */
                rd_fail(&r, lineno, "%lld edges are more than %lld vertices can have", mm, nn);
                goto out;
            }
            n = (int)nn;
            m = mm;
            off = calloc((size_t)n + 2, sizeof *off);
            vline = calloc((size_t)n + 1, sizeof *vline);
            ent = malloc(sizeof *ent * (size_t)(2 * m + 1));
            if (!off || !vline || !ent) {
                rd_fail(&r, lineno, "out of memory for %d vertices, %lld edges", n, m);
                goto out;
            }
            continue;
        }
        if (u >= n) {
            if (is_blank(line))
                continue;
            rd_fail(&r, lineno, "more vertex lines than the %d the header declares", n);
            goto out;
        }
        vline[u] = lineno;
        double v;
        int skip = has_vsize + ncon, st;
        for (int s = 0; s < skip; s++) {
            if ((st = next_num(&p, &v)) != 0) {
                rd_fail(&r, lineno, "vertex %d: missing or malformed vertex size/weight", u + 1);
                goto out;
            }
        }
        off[u + 1] = fill;
        while ((st = next_num(&p, &v)) == 0) {
            double w = 1;
            if (v != floor(v) || v < 1 || v > n) {
                rd_fail(&r, lineno, "vertex %d: neighbour '%g' is not an integer in 1..%d", u + 1,
                        v, n);
                goto out;
            }
            if ((int)v - 1 == u) {
                rd_fail(&r, lineno, "vertex %d: self loop", u + 1);
                goto out;
            }
            if (has_ewgt) {
                if ((st = next_num(&p, &w)) != 0) {
                    rd_fail(&r, lineno, st < 0 ? "vertex %d: malformed weight of neighbour %d"
                                               : "vertex %d: neighbour %d has no weight",
                            u + 1, (int)v);
                    goto out;
                }
                if (!(w > 0) || !isfinite(w)) {
                    rd_fail(&r, lineno, "vertex %d: weight of edge to %d must be positive",
                            u + 1, (int)v);
                    goto out;
                }
            }
            if (fill >= 2 * m) {
                rd_fail(&r, lineno, "more edges than the %lld the header declares", m);
                goto out;
            }
            ent[fill++] = (hc_adj_ent){(int)v - 1, w};
        }
        if (st < 0) {
            rd_fail(&r, lineno, "vertex %d: malformed number", u + 1);
            goto out;
        }
        /* rows must be duplicate-free: sort now and check */
        hc_adj_ent *row = ent + off[u + 1];
        long long len = fill - off[u + 1];
        qsort(row, (size_t)len, sizeof *row, cmp_adj);
        for (long long e = 1; e < len; e++)
            if (row[e].v == row[e - 1].v) {
                rd_fail(&r, lineno, "vertex %d: neighbour %d listed twice", u + 1, row[e].v + 1);
                goto out;
            }
        u++;
    }
    if (n < 0) {
        rd_fail(&r, lineno, "empty file: no header line");
        goto out;
    }
    if (u < n) {
        rd_fail(&r, lineno, "%d vertex lines, the header declares %d", u, n);
        goto out;
    }
    if (fill != 2 * m) {
        rd_fail(&r, lineno, "%lld edge entries, the header declares %lld edges (%lld entries)",
                fill, m, 2 * m);
        goto out;
    }
    /* off[u + 1] holds row starts shifted by one; make off[u] the start, off[n] the end */
    for (int i = 0; i < n; i++)
        off[i] = off[i + 1];
    off[n] = fill;
    if (build_csr(g, n, off, ent) != 0) {
        rd_fail(&r, lineno, "out of memory");
        goto out;
    }
    for (int i = 0; i < n; i++)
        for (long long e = g->xadj[i]; e < g->xadj[i + 1]; e++) {
            double back = hc_graph_weight(g, g->adjncy[e], i);
            if (back != g->adjwgt[e]) {
                rd_fail(&r, vline[i], back == 0 ? "edge %d-%d has no reverse entry"
                                                : "edge %d-%d weight differs from its reverse",
                        i + 1, g->adjncy[e] + 1);
                hc_graph_free(g);
                goto out;
            }
        }
    rc = 0;
out:
    free(line);
    free(off);
    free(vline);
    free(ent);
    fclose(f);
    return rc;
}
