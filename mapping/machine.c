/* Machine model: synthetic-string and matrix constructors, unavailable cores. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hc_machine.h"

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err && errlen)
        vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

void hc_machine_free(hc_machine *m)
{
    free(m->avail);
    free(m->matrix);
    memset(m, 0, sizeof *m);
}

static int alloc_avail(hc_machine *m)
{
    m->avail = malloc((size_t)m->ncores);
    if (!m->avail)
        return -1;
    memset(m->avail, 1, (size_t)m->ncores);
    return 0;
}

int hc_machine_from_synthetic(hc_machine *m, const char *spec, const double *bw, int nbw,
                              char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    const char *p = spec;
    long long total = 1;
    while (*p) {
        while (isspace((unsigned char)*p))
            p++;
        if (!*p)
            break;
        if (m->nlevels == HC_MACHINE_MAX_LEVELS)
            return fail(err, errlen, "machine '%s': more than %d levels", spec,
                        HC_MACHINE_MAX_LEVELS);
        size_t len = 0;
        while (isalnum((unsigned char)p[len]) || p[len] == '_' || p[len] == '#')
            len++;
        if (len == 0 || len >= sizeof m->name[0] || p[len] != ':')
            return fail(err, errlen, "machine '%s': expected 'name:count' at '%s'", spec, p);
        memcpy(m->name[m->nlevels], p, len);
        m->name[m->nlevels][len] = 0;
        p += len + 1;
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno || v < 1 || (*end && !isspace((unsigned char)*end)))
            return fail(err, errlen, "machine '%s': count of '%s' must be a positive integer",
                        spec, m->name[m->nlevels]);
        if (v > HC_MACHINE_MAX_CORES || (total *= v) > HC_MACHINE_MAX_CORES)
            return fail(err, errlen, "machine '%s': more than %d cores", spec,
                        HC_MACHINE_MAX_CORES);
        m->arity[m->nlevels++] = (int)v;
        p = end;
    }
    if (m->nlevels == 0)
        return fail(err, errlen, "machine '%s': no levels", spec);
    if (nbw != m->nlevels)
        return fail(err, errlen, "machine '%s' has %d levels but %d bandwidths were given", spec,
                    m->nlevels, nbw);
    for (int l = 0; l < m->nlevels; l++) {
        if (!(bw[l] > 0) || !isfinite(bw[l]))
            return fail(err, errlen, "bandwidth %d must be a positive number", l + 1);
        m->bw[l] = bw[l];
    }
    m->ncores = (int)total;
    int s = 1;
    for (int l = m->nlevels - 1; l >= 0; l--) {
        m->stride[l] = s;
        s *= m->arity[l];
    }
    if (alloc_avail(m) != 0)
        return fail(err, errlen, "out of memory");
    return 0;
}

int hc_machine_from_matrix(hc_machine *m, int n, const double *bw, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    if (n < 1 || n > 65536)
        return fail(err, errlen, "matrix size %d out of range 1..65536", n);
    m->ncores = n;
    m->matrix = malloc(sizeof(double) * (size_t)n * (size_t)n);
    if (!m->matrix || alloc_avail(m) != 0) {
        hc_machine_free(m);
        return fail(err, errlen, "out of memory");
    }
    memcpy(m->matrix, bw, sizeof(double) * (size_t)n * (size_t)n);
    for (int p = 0; p < n; p++)
        m->matrix[(size_t)p * n + p] = 0;
    return 0;
}

int hc_machine_read_matrix(hc_machine *m, const char *path, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    FILE *f = fopen(path, "r");
    if (!f)
        return fail(err, errlen, "%s:0: cannot open: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0, *rowline = NULL;
    int n = -1, row = 0, rc = -1;
    double *bw = NULL;
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        char *p = line;
        while (isspace((unsigned char)*p))
            p++;
        if (*p == '#' || !*p)
            continue;
        if (n < 0) {
            char *end;
            long v = strtol(p, &end, 10);
            while (isspace((unsigned char)*end))
                end++;
            if (end == p || *end || v < 1 || v > 65536) {
                fail(err, errlen, "%s:%ld: expected the matrix size N (1..65536)", path, lineno);
                goto out;
            }
            /* N rows of N numbers take at least a byte a number: refuse before allocating
             * N x N for a file that cannot hold them. */
            struct stat st;
            if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
                (double)st.st_size < (double)v * (double)v) {
                fail(err, errlen, "%s:%ld: a %ld x %ld matrix cannot fit in a file of %lld bytes",
                     path, lineno, v, v, (long long)st.st_size);
                goto out;
            }
            n = (int)v;
            bw = calloc((size_t)n * (size_t)n, sizeof *bw);
            rowline = calloc((size_t)n, sizeof *rowline);
            if (!bw || !rowline) {
                fail(err, errlen, "%s:%ld: out of memory", path, lineno);
                goto out;
            }
            continue;
        }
        if (row >= n) {
            fail(err, errlen, "%s:%ld: more than %d rows", path, lineno, n);
            goto out;
        }
        rowline[row] = lineno;
        for (int c = 0; c < n; c++) {
            char *end;
            errno = 0;
            double v = strtod(p, &end);
            if (end == p || errno || (*end && !isspace((unsigned char)*end))) {
                fail(err, errlen, "%s:%ld: row %d: %s at column %d", path, lineno, row + 1,
                     end == p ? "too few numbers" : "malformed number", c + 1);
                goto out;
            }
            if (c != row && (!(v > 0) || !isfinite(v))) {
                fail(err, errlen, "%s:%ld: row %d column %d: bandwidth must be positive", path,
                     lineno, row + 1, c + 1);
                goto out;
            }
            bw[(size_t)row * n + c] = v;
            p = end;
        }
        while (isspace((unsigned char)*p))
            p++;
        if (*p) {
            fail(err, errlen, "%s:%ld: row %d: more than %d numbers", path, lineno, row + 1, n);
            goto out;
        }
        row++;
    }
    if (n < 0) {
        fail(err, errlen, "%s:%ld: no matrix size line", path, lineno);
        goto out;
    }
    if (row < n) {
        fail(err, errlen, "%s:%ld: %d rows, expected %d", path, lineno, row, n);
        goto out;
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (bw[(size_t)i * n + j] != bw[(size_t)j * n + i]) {
                fail(err, errlen, "%s:%ld: not symmetric: (%d,%d) differs from (%d,%d)", path,
                     rowline[i], i + 1, j + 1, j + 1, i + 1);
                goto out;
            }
    rc = hc_machine_from_matrix(m, n, bw, err, errlen);
out:
    free(line);
    free(bw);
    free(rowline);
    fclose(f);
    return rc;
}

int hc_machine_set_unavailable(hc_machine *m, const char *list, char *err, size_t errlen)
{
    const char *p = list;
    while (*p) {
        char *end;
        errno = 0;
        long a = strtol(p, &end, 10), b;
        if (end == p || errno)
            return fail(err, errlen, "unavailable cores '%s': expected a number at '%s'", list, p);
        b = a;
        p = end;
        if (*p == '-') {
            p++;
            b = strtol(p, &end, 10);
            if (end == p || errno)
                return fail(err, errlen, "unavailable cores '%s': bad range end at '%s'", list,
                            p);
            p = end;
        }
        if (a < 0 || b < a || b >= m->ncores)
            return fail(err, errlen, "unavailable cores '%s': %ld-%ld outside 0..%d", list, a, b,
                        m->ncores - 1);
        for (long c = a; c <= b; c++)
            m->avail[c] = 0;
        if (*p == ',')
            p++;
        else if (*p)
            return fail(err, errlen, "unavailable cores '%s': unexpected '%c'", list, *p);
    }
    return 0;
}

int hc_machine_navail(const hc_machine *m)
{
    int k = 0;
    for (int c = 0; c < m->ncores; c++)
        k += m->avail[c];
    return k;
}

int hc_machine_uniform(const hc_machine *m)
{
    if (m->matrix || m->nlevels < 1)
        return 0;
    /* Pairs of available cores meet at the first level that separates any two of them or
     * below: uniform when those levels all have one bandwidth. */
    int first = -1, top = m->nlevels - 1;
    for (int c = 0; c < m->ncores; c++) {
        if (!m->avail[c])
            continue;
        if (first < 0)
            first = c;
        else if (hc_machine_level(m, first, c) < top)
            top = hc_machine_level(m, first, c);
    }
    for (int l = top + 1; l < m->nlevels; l++)
        if (m->bw[l] != m->bw[top])
            return 0;
    return 1;
}

int hc_machine_node_level(const hc_machine *m)
{
    for (int l = 0; l < m->nlevels; l++)
        if (!strcmp(m->name[l], "node") || !strcmp(m->name[l], "machine") ||
            !strcmp(m->name[l], "host"))
            return l;
    return 0;
}

int hc_machine_node_of(const hc_machine *m, int p)
{
    if (m->matrix || m->nlevels == 0)
        return p;
    return p / m->stride[hc_machine_node_level(m)];
}

void hc_machine_format(const hc_machine *m, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = 0;
    for (int l = 0; l < m->nlevels && o < len; l++)
        o += (size_t)snprintf(buf + o, len - o, "%s%s:%d", l ? " " : "", m->name[l], m->arity[l]);
}
