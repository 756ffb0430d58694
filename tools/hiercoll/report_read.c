/* hiercoll report: reading a profile directory. Every malformed line is reported as
 * FILE:LINE: reason; columns are found by their header name, so columns added later (the
 * profiler's "rma", "incomplete", "stack") are ignored. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hc_config.h"
#include "hc_tuning_file.h"
#include "report.h"

#define MAXCOLS 32

typedef struct csv {
    FILE *f;
    char path[4200];
    long line;
    char buf[16384];
    char *fld[MAXCOLS];
    int nf, ncols;
    int col[16]; /* required column k -> field index */
    const char *const *names;
} csv;

static int bad(const csv *c, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s:%ld: ", c->path, c->line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return -1;
}

static int split(csv *c)
{
    c->nf = 0;
    char *s = c->buf;
    s[strcspn(s, "\r\n")] = 0;
    for (;;) {
        if (c->nf == MAXCOLS)
            return bad(c, "more than %d columns", MAXCOLS);
        c->fld[c->nf++] = s;
        s = strchr(s, ',');
        if (!s)
            break;
        *s++ = 0;
    }
    return 0;
}

static int read_line(csv *c)
{
    if (!fgets(c->buf, sizeof c->buf, c->f))
        return 0;
    c->line++;
    if (!strchr(c->buf, '\n') && !feof(c->f))
        return bad(c, "line longer than %zu bytes", sizeof c->buf - 1);
    return 1;
}

/* Opens DIR/NAME: first line "# hiercoll KIND v1", then a header holding every required name.
 * Returns 1 if open, 0 if absent and optional, -1 on error. */
static int csv_open(csv *c, const char *dir, const char *name, const char *kind,
                    const char *const *names, int optional)
{
    memset(c, 0, sizeof *c);
    snprintf(c->path, sizeof c->path, "%s/%s", dir, name);
    c->names = names;
    c->f = fopen(c->path, "r");
    if (!c->f) {
        if (optional && errno == ENOENT)
            return 0;
        fprintf(stderr, "%s: %s\n", c->path, strerror(errno));
        return -1;
    }
    char magic[64];
    snprintf(magic, sizeof magic, "# hiercoll %s v1", kind);
    int r = read_line(c);
    if (r <= 0)
        return r < 0 ? -1 : (c->line = 1, bad(c, "empty file (expected '%s')", magic));
    c->buf[strcspn(c->buf, "\r\n")] = 0;
    if (strcmp(c->buf, magic) != 0)
        return bad(c, "expected '%s', found '%.60s'", magic, c->buf);
    r = read_line(c);
    if (r <= 0)
        return r < 0 ? -1 : (c->line = 2, bad(c, "missing header line"));
    if (split(c) != 0)
        return -1;
    c->ncols = c->nf;
    for (int k = 0; names[k]; k++) {
        c->col[k] = -1;
        for (int i = 0; i < c->nf; i++)
            if (strcmp(c->fld[i], names[k]) == 0)
                c->col[k] = i;
        if (c->col[k] < 0)
            return bad(c, "header lacks column '%s'", names[k]);
    }
    return 1;
}

/* 1 with the row split, 0 at the end, -1 on error. */
static int csv_next(csv *c)
{
    int r;
    while ((r = read_line(c)) > 0) {
        if (c->buf[strspn(c->buf, " \t\r\n")] == 0)
            continue;
        if (split(c) != 0)
            return -1;
        if (c->nf != c->ncols)
            return bad(c, "%d fields, the header has %d", c->nf, c->ncols);
        return 1;
    }
    return r;
}

static const char *get(const csv *c, int k) { return c->fld[c->col[k]]; }

static int get_ll(const csv *c, int k, long long lo, long long hi, long long *out)
{
    const char *s = get(c, k);
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi)
        return bad(c, "%s: '%s' is not an integer in %lld..%lld", c->names[k], s, lo, hi);
    *out = v;
    return 0;
}

static int get_int(const csv *c, int k, int lo, int hi, int *out)
{
    long long v;
    if (get_ll(c, k, lo, hi, &v) != 0)
        return -1;
    *out = (int)v;
    return 0;
}

static int get_double(const csv *c, int k, double *out)
{
    const char *s = get(c, k);
    char *end;
    double v = strtod(s, &end);
    if (!*s || *end || !(v >= 0) || v > 1e300)
        return bad(c, "%s: '%s' is not a non-negative number", c->names[k], s);
    *out = v;
    return 0;
}

static void csv_close(csv *c)
{
    if (c->f)
        fclose(c->f);
    c->f = NULL;
}

#define BIG (1LL << 62)

static int load_ranks(rep_profile *p, const char *dir)
{
    static const char *const names[] = {"rank", "host", "core", "numa", "mpi_time_us",
                                        "p2p_bytes_sent", "coll_bytes_sent", "calls", NULL};
    csv c;
    if (csv_open(&c, dir, "ranks.csv", "ranks", names, 0) < 0)
        return csv_close(&c), -1;
    int cap = 0, r, rc = -1;
    while ((r = csv_next(&c)) > 0) {
        int rank;
        if (get_int(&c, 0, 0, 1 << 30, &rank) != 0)
            goto out;
        if (rank != p->nranks) {
            bad(&c, "rank %d where rank %d was expected (rows in rank order)", rank, p->nranks);
            goto out;
        }
        if (p->nranks == cap) {
            cap = cap ? 2 * cap : 64;
            rep_rank *nr = realloc(p->ranks, sizeof *nr * (size_t)cap);
            if (!nr)
                goto out;
            p->ranks = nr;
        }
        rep_rank *k = &p->ranks[p->nranks];
        memset(k, 0, sizeof *k);
        if (!*get(&c, 1) || strlen(get(&c, 1)) >= sizeof k->host) {
            bad(&c, "host: empty or longer than %zu characters", sizeof k->host - 1);
            goto out;
        }
        strcpy(k->host, get(&c, 1));
        if (get_int(&c, 2, -1, 1 << 30, &k->core) || get_int(&c, 3, -1, 1 << 30, &k->numa) ||
            get_double(&c, 4, &k->mpi_us) || get_ll(&c, 5, 0, BIG, &k->p2p) ||
            get_ll(&c, 6, 0, BIG, &k->coll) || get_ll(&c, 7, 0, BIG, &k->calls))
            goto out;
        p->nranks++;
    }
    if (r == 0 && p->nranks == 0) {
        bad(&c, "no ranks");
        goto out;
    }
    rc = r;
out:
    csv_close(&c);
    return rc;
}

static int pair_cmp(const void *a, const void *b)
{
    const rep_pair *x = a, *y = b;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    return (x->r > y->r) - (x->r < y->r);
}

/* comm_bytes.csv into p->pairs, or comm_msgs.csv onto them. */
static int load_matrix(rep_profile *p, const char *dir, int msgs)
{
    static const char *const names[] = {"sender", "receiver", "p2p", "collective", "total", NULL};
    csv c;
    int o = csv_open(&c, dir, msgs ? "comm_msgs.csv" : "comm_bytes.csv",
                     msgs ? "comm_msgs" : "comm_bytes", names, msgs);
    if (o <= 0)
        return csv_close(&c), o;
    long long cap = 0;
    int r, rc = -1, ps = -1, pr = -1;
    while ((r = csv_next(&c)) > 0) {
        rep_pair x = {0};
        if (get_int(&c, 0, 0, p->nranks - 1, &x.s) || get_int(&c, 1, 0, p->nranks - 1, &x.r) ||
            get_ll(&c, 2, 0, BIG, &x.p2p) || get_ll(&c, 3, 0, BIG, &x.coll) ||
            get_ll(&c, 4, 0, BIG, &x.total)) {
            fprintf(stderr, "  (ranks.csv lists %d ranks)\n", p->nranks);
            goto out;
        }
        if (x.total != x.p2p + x.coll) {
            bad(&c, "total %lld is not p2p + collective = %lld", x.total, x.p2p + x.coll);
            goto out;
        }
        if (x.s < ps || (x.s == ps && x.r <= pr)) {
            bad(&c, "pair %d,%d out of order (rows sorted by sender, then receiver)", x.s, x.r);
            goto out;
        }
        ps = x.s;
        pr = x.r;
        if (msgs) {
            rep_pair *q = bsearch(&x, p->pairs, (size_t)p->npairs, sizeof x, pair_cmp);
            if (!q) {
                /* messages without bytes (empty messages): not in the byte matrix */
                continue;
            }
            q->msgs = x.total;
            continue;
        }
        if (p->npairs == cap) {
            cap = cap ? 2 * cap : 256;
            rep_pair *np = realloc(p->pairs, sizeof *np * (size_t)cap);
            if (!np)
                goto out;
            p->pairs = np;
        }
        x.msgs = -1;
        p->pairs[p->npairs++] = x;
    }
    if (msgs && r == 0)
        p->has_msgs = 1;
    rc = r;
out:
    csv_close(&c);
    return rc;
}

static int site_time_cmp(const void *a, const void *b)
{
    const rep_site *x = a, *y = b;
    if (x->time_us != y->time_us)
        return x->time_us > y->time_us ? -1 : 1;
    return x->id - y->id;
}

static int load_sites(rep_profile *p, const char *dir)
{
    static const char *const names[] = {"site", "function", "calls", "bytes", "time_us",
                                        "module", "offset", "symbol", NULL};
    csv c;
    int o = csv_open(&c, dir, "callsites.csv", "callsites", names, 1);
    if (o <= 0)
        return csv_close(&c), o;
    int cap = 0, r, rc = -1;
    while ((r = csv_next(&c)) > 0) {
        if (p->nsites == cap) {
            cap = cap ? 2 * cap : 64;
            rep_site *ns = realloc(p->sites, sizeof *ns * (size_t)cap);
            if (!ns)
                goto out;
            p->sites = ns;
        }
        rep_site *s = &p->sites[p->nsites];
        memset(s, 0, sizeof *s);
        if (get_int(&c, 0, 0, 1 << 30, &s->id) || get_ll(&c, 2, 0, BIG, &s->calls) ||
            get_ll(&c, 3, 0, BIG, &s->bytes) || get_double(&c, 4, &s->time_us))
            goto out;
        const char *fn = get(&c, 1), *off = get(&c, 6);
        if (strncmp(fn, "MPI_", 4) != 0 || strlen(fn) >= sizeof s->fn) {
            bad(&c, "function: '%s' is not an MPI function name", fn);
            goto out;
        }
        char *end;
        errno = 0;
        s->offset = strtoull(off, &end, 16);
        if (strncmp(off, "0x", 2) != 0 || end == off + 2 || *end || errno) {
            bad(&c, "offset: '%s' is not a hexadecimal 0x... offset", off);
            goto out;
        }
        strcpy(s->fn, fn);
        snprintf(s->module, sizeof s->module, "%s", get(&c, 5));
        snprintf(s->symbol, sizeof s->symbol, "%s", get(&c, 7));
        p->nsites++;
    }
    rc = r;
    if (rc == 0)
        qsort(p->sites, (size_t)p->nsites, sizeof *p->sites, site_time_cmp);
out:
    csv_close(&c);
    return rc;
}

static int load_mapping(rep_profile *p, const char *dir)
{
    char path[4200], err[600];
    snprintf(path, sizeof path, "%s/mapping.txt", dir);
    if (access(path, F_OK) != 0)
        return 0;
    if (hc_mapfile_read(&p->map, path, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    if (p->map.nranks != p->nranks) {
        fprintf(stderr, "%s: %d ranks, but ranks.csv lists %d\n", path, p->map.nranks,
                p->nranks);
        hc_mapfile_free(&p->map);
        return -1;
    }
    p->has_mapping = 1;
    return 0;
}

/* "MODULE+0xOFF" into a site to resolve. */
static void site_of(rep_site *s, const char *key)
{
    const char *plus = strrchr(key, '+');
    memset(s, 0, sizeof *s);
    snprintf(s->module, sizeof s->module, "%.*s", plus ? (int)(plus - key) : 0, key);
    s->offset = plus ? strtoull(plus + 1, NULL, 16) : 0;
    /* the site is inside the call instruction; resolving takes a return address */
    s->offset += s->offset ? 1 : 0;
}

/* tuning.txt, when the run learned something: its learned rules (collectives/learn_save.c). */
static int load_learned(rep_profile *p, const char *dir)
{
    char path[4200], err[4400];
    snprintf(path, sizeof path, "%s/tuning.txt", dir);
    if (access(path, F_OK) != 0)
        return 0;
    hc_tuning_rule *rules = NULL;
    int n = 0;
    if (hc_tuning_read(path, &rules, &n, err, sizeof err) != 0) {
        fprintf(stderr, "hiercoll report: %s\n", err);
        return -1;
    }
    p->learned = calloc((size_t)n + 1, sizeof *p->learned);
    for (int i = 0; p->learned && i < n; i++) {
        const hc_tuning_rule *r = &rules[i];
        if (!r->learned)
            continue;
        rep_learned *l = &p->learned[p->nlearned++];
        snprintf(l->coll, sizeof l->coll, "%s", hc_coll_name(r->coll));
        char lo[16], hi[16] = "";
        hc_format_size(r->lo, lo, sizeof lo);
        if (r->hi >= 0)
            hc_format_size(r->hi, hi, sizeof hi);
        snprintf(l->bytes, sizeof l->bytes, "%s-%s", lo, hi);
        snprintf(l->algo, sizeof l->algo, "%s", hc_algo(r->coll, r->algo)->name);
        l->ranks = r->rlo;
        l->nodes = r->nlo;
        l->root = r->root;
        l->calls = r->calls;
        for (int t = 0, at = 0; t < r->ntimes; t++) {
            if (r->time_algo[t] == r->algo)
                l->time_us = r->time_us[t];
            if (r->time_algo[t] == (r->coll == HC_COLL_BCAST ? HC_BCAST_VENDOR : HC_ALLREDUCE_VENDOR))
                l->vendor_us = r->time_us[t];
            at += snprintf(l->others + at, sizeof l->others - (size_t)at, "%s%s %.1f",
                           t ? ", " : "", hc_algo(r->coll, r->time_algo[t])->name, r->time_us[t]);
            if (at >= (int)sizeof l->others)
                break;
        }
        site_of(&l->site, r->site[0] ? r->site : r->seen);
    }
    free(rules);
    return p->learned ? 0 : -1;
}

int rep_load(rep_profile *p, const char *dir)
{
    memset(p, 0, sizeof *p);
    snprintf(p->dir, sizeof p->dir, "%s", dir);
    if (load_ranks(p, dir) != 0 || load_matrix(p, dir, 0) != 0 || load_matrix(p, dir, 1) < 0 ||
        load_sites(p, dir) < 0 || load_mapping(p, dir) != 0 || load_learned(p, dir) != 0) {
        rep_free(p);
        return -1;
    }
    int *order = malloc(sizeof(int) * (size_t)p->nranks);
    if (!order) {
        rep_free(p);
        return -1;
    }
    rep_order_as_run(p, order);
    for (int i = 0; i < p->nranks; i++)
        p->nhosts += i == 0 || strcmp(p->ranks[order[i]].host, p->ranks[order[i - 1]].host) != 0;
    free(order);
    return 0;
}

void rep_free(rep_profile *p)
{
    free(p->ranks);
    free(p->pairs);
    free(p->sites);
    free(p->learned);
    if (p->has_mapping)
        hc_mapfile_free(&p->map);
    memset(p, 0, sizeof *p);
}
