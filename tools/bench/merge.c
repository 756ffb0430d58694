/* --merge: the rows of several runs, read back from their CSV (one file per run), so that
 * `hiercoll bench` can show Open MPI's peers, each measured in runs of its own, in one table.
 * No MPI: it runs without mpiexec. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

enum { C_COLL, C_PATTERN, C_ALGO, C_RANKS, C_BYTES, C_ITERS, C_VMED, C_VMIN, C_VMAX, C_HMED,
       C_HMIN, C_HMAX, C_MEMCPY, C_XCOPY, C_ERRORS, C_HALF, C_RAN, C_PEER, C_NODES, C_VLINK,
       C_HLINK, NCOLS };
static const char *const columns[NCOLS] = {
    "collective", "pattern", "algorithm", "ranks", "bytes", "iterations", "vendor_median_us",
    "vendor_min_us", "vendor_max_us", "hiercoll_median_us", "hiercoll_min_us",
    "hiercoll_max_us", "memcpy_us", "xcopy_us", "errors", "half", "ran", "peer", "nodes",
    "vendor_link_bytes", "hiercoll_link_bytes"};

typedef struct line {
    int run;
    char *f[NCOLS];
} line;

/* Splits a CSV line (no quoting: the bench writes none) into the columns named by `at`. */
static int split(char *text, const int *at, char **f)
{
    char *cells[64];
    int n = 0;
    for (char *p = text; n < 64;) {
        cells[n++] = p;
        p = strchr(p, ',');
        if (!p)
            break;
        *p++ = 0;
    }
    for (int c = 0; c < NCOLS; c++) {
        if (at[c] < 0 || at[c] >= n)
            return -1;
        f[c] = cells[at[c]];
    }
    return 0;
}

static int name_index(const char **names, int *n, const char *name)
{
    for (int i = 0; i < *n; i++)
        if (!strcmp(names[i], name))
            return i;
    if (*n == MAX_PATHS)
        return -1;
    names[*n] = strdup(name);
    return (*n)++;
}

static int read_file(const char *file, int run, line **lines, int *n, int *cap)
{
    FILE *f = fopen(file, "r");
    if (!f)
        return fprintf(stderr, "hiercoll-bench: --merge: cannot read %s\n", file), -1;
    char buf[4096];
    int at[NCOLS], header = 0;
    while (fgets(buf, sizeof buf, f)) {
        buf[strcspn(buf, "\r\n")] = 0;
        if (!header) {
            char *save = NULL;
            for (int c = 0; c < NCOLS; c++)
                at[c] = -1;
            int i = 0;
            for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save), i++)
                for (int c = 0; c < NCOLS; c++)
                    if (!strcmp(t, columns[c]))
                        at[c] = i;
            header = 1;
            continue;
        }
        if (*n == *cap)
            *lines = realloc(*lines, sizeof **lines * (size_t)(*cap = *cap ? 2 * *cap : 256));
        line *l = &(*lines)[*n];
        char *text = strdup(buf);
        if (split(text, at, l->f) != 0) {
            fclose(f);
            return fprintf(stderr, "hiercoll-bench: --merge: %s: not the bench's CSV\n", file), -1;
        }
        l->run = run;
        (*n)++;
    }
    fclose(f);
    return 0;
}

static row *row_for(report *r, const row *key)
{
    for (int i = 0; i < r->nrows; i++) {
        row *x = &r->rows[i];
        if (x->run == key->run && x->which == key->which && x->bytes == key->bytes &&
            x->half == key->half && x->p.root == key->p.root && x->p.buf == key->p.buf &&
            x->p.timing == key->p.timing)
            return x;
    }
    report_keep(r, key);
    return &r->rows[r->nrows - 1];
}

static stats stats_at(char **f, int median)
{
    return (stats){atof(f[median]), atof(f[median + 1]), atof(f[median + 2]), 0};
}

int merge_runs(report *r, char **files, int nfiles)
{
    line *lines = NULL;
    int n = 0, cap = 0;
    for (int i = 0; i < nfiles; i++)
        if (read_file(files[i], i, &lines, &n, &cap) != 0)
            return -1;
    /* Names first: every peer of a collective before its hiercoll paths. */
    const char *peers[2][MAX_PATHS], *algos[2][MAX_PATHS];
    int np[2] = {0, 0}, na[2] = {0, 0};
    for (int i = 0; i < n; i++) {
        int c = strcmp(lines[i].f[C_COLL], coll_names[COLL_BCAST]) ? COLL_ALLREDUCE : COLL_BCAST;
        if (name_index(peers[c], &np[c], lines[i].f[C_PEER]) < 0 ||
            name_index(algos[c], &na[c], lines[i].f[C_ALGO]) < 0 || np[c] + na[c] > MAX_PATHS)
            return fprintf(stderr, "hiercoll-bench: --merge: more than %d paths\n", MAX_PATHS), -1;
    }
    for (int c = 0; c < 2; c++) {
        r->npeers[c] = np[c];
        r->npaths[c] = np[c] + na[c];
        memcpy(r->algo[c], peers[c], sizeof(char *) * (size_t)np[c]);
        memcpy(r->algo[c] + np[c], algos[c], sizeof(char *) * (size_t)na[c]);
    }
    r->runs = nfiles;
    for (int i = 0; i < n; i++) {
        char **f = lines[i].f, err[256];
        pattern p[MAX_PATTERNS];
        int npat = 0;
        if (pattern_parse_one(f[C_PATTERN], p, &npat, err, sizeof err) != 0 || npat != 1)
            return fprintf(stderr, "hiercoll-bench: --merge: pattern %s\n", f[C_PATTERN]), -1;
        int c = strcmp(f[C_COLL], coll_names[COLL_BCAST]) ? COLL_ALLREDUCE : COLL_BCAST;
        row key = {.which = (enum coll)c, .p = p[0], .bytes = atoll(f[C_BYTES]),
                   .half = atoi(f[C_HALF]), .iters = atoi(f[C_ITERS]), .run = lines[i].run,
                   .memcpy_us = atof(f[C_MEMCPY]), .xcopy_us = atof(f[C_XCOPY])};
        row *x = row_for(r, &key);
        int v = name_index(r->algo[c], &r->npeers[c], f[C_PEER]);
        int q = np[c] + name_index(algos[c], &na[c], f[C_ALGO]);
        x->s[v] = stats_at(f, C_VMED);
        x->s[q] = stats_at(f, C_HMED);
        x->s[q].errors = atol(f[C_ERRORS]);
        snprintf(x->ran[q], sizeof x->ran[q], "%s", strcmp(f[C_RAN], "-") ? f[C_RAN] : "");
        x->link[v] = atof(f[C_VLINK]);
        x->link[q] = atof(f[C_HLINK]);
        r->net |= x->link[v] > 0 || x->link[q] > 0;
        r->nranks = atoi(f[C_RANKS]);
        r->nnodes = atoi(f[C_NODES]);
    }
    report_print_all(r);
    return 0;
}
