/* Across patterns: the summary per size (worst and median ratio of each hiercoll path, and
 * where the worst was), and the tuning file that follows from it. Each half of a pattern that
 * changes mid-run counts as a pattern of its own. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The first row of every key of a collective at one size (every pattern and half). */
static int keys_at(const report *r, enum coll which, long long bytes, const row **out, int max)
{
    int n = 0;
    for (int i = 0; i < r->nrows; i++) {
        const row *x = &r->rows[i];
        if (x->which != which || x->bytes != bytes)
            continue;
        int seen = 0;
        for (int j = 0; j < n && !seen; j++)
            seen = out[j]->half == x->half && out[j]->p.root == x->p.root &&
                   out[j]->p.buf == x->p.buf && out[j]->p.timing == x->p.timing;
        if (!seen && n < max)
            out[n++] = x;
    }
    return n;
}

/* Across the keys at one size: path q's worst ratio (and its key), its median ratio, and its
 * worst time against xcopy. q below the peers: the vendor, 1 everywhere. */
typedef struct spread {
    double worst, median, worst_xcopy;
    const row *worst_row;
    int n;
} spread;

static spread spread_of(const report *r, enum coll which, long long bytes, int q)
{
    spread s = {0, 0, 0, NULL, 0};
    const row *keys[2 * MAX_PATTERNS];
    double v[2 * MAX_PATTERNS];
    int nk = keys_at(r, which, bytes, keys, 2 * MAX_PATTERNS);
    for (int i = 0; i < nk; i++) {
        cell c;
        cell_of(r, keys[i], &c);
        double ratio = q >= r->npeers[which] ? c.ratio[q] : 1.0;
        v[s.n++] = ratio;
        if (!s.worst_row || ratio > s.worst)
            s.worst = ratio, s.worst_row = keys[i];
        double t = c.best >= 0 ? ratio * c.peer_us[c.best] : 0;
        if (c.xcopy_us > 0 && t / c.xcopy_us > s.worst_xcopy)
            s.worst_xcopy = t / c.xcopy_us;
    }
    if (s.n) {
        qsort(v, (size_t)s.n, sizeof *v, cmp_double);
        s.median = s.n % 2 ? v[s.n / 2] : (v[s.n / 2 - 1] + v[s.n / 2]) / 2;
    }
    return s;
}

/* The sizes measured for a collective, in the order first seen. */
static int sizes_of(const report *r, enum coll which, long long *out, int max)
{
    int n = 0;
    for (int i = 0; i < r->nrows; i++) {
        if (r->rows[i].which != which)
            continue;
        int seen = 0;
        for (int j = 0; j < n; j++)
            seen |= out[j] == r->rows[i].bytes;
        if (!seen && n < max)
            out[n++] = r->rows[i].bytes;
    }
    return n;
}

/* A path's column: its name, or "worst median" ("1.02 0.85"), whichever is wider. */
static int pair_width(const char *name)
{
    return strlen(name) > 11 ? (int)strlen(name) : 11;
}

void report_summary(report *r, enum coll which)
{
    long long sizes[256];
    int ns = sizes_of(r, which, sizes, 256);
    int np = r->npaths[which], npeers = r->npeers[which];
    int y = path_auto(r, which) >= 0 ? path_auto(r, which) : npeers;
    if (r->csv || !ns || np <= npeers)
        return;
    int npat = spread_of(r, which, sizes[0], y).n;
    if (npat < 2)
        return;
    fprintf(r->out, "\n%s, %d ranks: summary over %d patterns (halves of a pattern that changes "
                    "mid-run count apart)\nper path: the worst and the median ratio to %s; "
                    "/xcopy: %s / one copy of the message from the other core\n",
            coll_names[which], r->nranks, npat, npeers > 1 ? "the best peer" : "the vendor",
            r->algo[which][y]);
    fprintf(r->out, "%10s", "size");
    for (int q = npeers; q < np; q++)
        fprintf(r->out, "  %*s", pair_width(r->algo[which][q]), r->algo[which][q]);
    fprintf(r->out, "  %12s  worst pattern (%s)\n", "worst/xcopy", r->algo[which][y]);
    for (int i = 0; i < ns; i++) {
        char label[32], name[64] = "-", half[8] = "", xc[16] = "-";
        size_label(sizes[i], label, sizeof label);
        fprintf(r->out, "%10s", label);
        for (int q = npeers; q < np; q++) {
            spread s = spread_of(r, which, sizes[i], q);
            char pair[40];
            snprintf(pair, sizeof pair, "%.2f %.2f", s.worst, s.median);
            fprintf(r->out, "  %*s", pair_width(r->algo[which][q]), pair);
        }
        spread s = spread_of(r, which, sizes[i], y);
        if (s.worst_xcopy > 0)
            snprintf(xc, sizeof xc, "%.2f", s.worst_xcopy);
        if (s.worst_row) {
            pattern_name(s.worst_row->p, name, sizeof name);
            half_label(s.worst_row, half, sizeof half);
        }
        fprintf(r->out, "  %12s  %s%s%s%s\n", xc, name, *half ? " (" : "", half,
                *half ? " half)" : "");
    }
    fflush(r->out);
}

/* The best path at one size: the lowest worst ratio over the patterns, then the lowest
 * median; the vendor (ratio 1 everywhere) competes too, and goes first; auto is no mechanism
 * and does not. A later path must win by TUNE_MARGIN: paths that run the same mechanism at a
 * size (shm and shm-cma inline their smallest messages alike) differ by noise, and the
 * earlier one should keep the range. */
#define TUNE_MARGIN 0.05
static int best_path(const report *r, enum coll which, long long bytes)
{
    int best = 0, a = path_auto(r, which);
    spread bs = spread_of(r, which, bytes, 0);
    for (int q = r->npeers[which]; q < r->npaths[which]; q++) {
        if (q == a)
            continue;
        spread s = spread_of(r, which, bytes, q);
        if (s.worst < bs.worst * (1 - TUNE_MARGIN) ||
            (s.worst <= bs.worst * (1 + TUNE_MARGIN) && s.median < bs.median * (1 - TUNE_MARGIN)))
            best = q, bs = s;
    }
    return best;
}

static void range_text(long long lo, long long hi, char *out, size_t len)
{
    if (lo <= 0 && hi < 0)
        snprintf(out, len, "*");
    else if (hi < 0)
        snprintf(out, len, "%lld-", lo);
    else if (lo <= 0)
        snprintf(out, len, "-%lld", hi);
    else
        snprintf(out, len, "%lld-%lld", lo, hi);
}

int report_tune(const report *r, const char *file, char *err, size_t errlen)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", file, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, errlen, "cannot write %s", tmp);
        return -1;
    }
    time_t now = time(NULL);
    char day[32];
    strftime(day, sizeof day, "%Y-%m-%d", localtime(&now));
    fprintf(f, "hiercoll-tuning 1\n"
               "# Written by hiercoll-bench --tune on %s: %d ranks on %d node(s). At each measured\n"
               "# size, the algorithm whose worst ratio to the vendor over the patterns measured\n"
               "# was lowest; a range runs from one measured size to the next.\n"
               "# collective  bytes  ranks  nodes  algorithm\n",
            day, r->nranks, r->nnodes);
    for (int c = 0; c < 2; c++) {
        long long sizes[256];
        int ns = sizes_of(r, (enum coll)c, sizes, 256);
        if (!ns)
            continue;
        /* sizes ascending */
        for (int i = 1; i < ns; i++)
            for (int j = i; j > 0 && sizes[j - 1] > sizes[j]; j--) {
                long long t = sizes[j];
                sizes[j] = sizes[j - 1];
                sizes[j - 1] = t;
            }
        int cur = best_path(r, (enum coll)c, sizes[0]);
        long long lo = 0;
        for (int i = 1; i <= ns; i++) {
            int next = i < ns ? best_path(r, (enum coll)c, sizes[i]) : -1;
            if (next == cur)
                continue;
            char range[64];
            range_text(lo, i < ns ? sizes[i] : -1, range, sizeof range);
            fprintf(f, "%-12s %-12s %-6d %-6d %s\n", c == COLL_BCAST ? "bcast" : "allreduce",
                    range, r->nranks, r->nnodes, r->algo[c][cur]);
            lo = i < ns ? sizes[i] : 0;
            cur = next;
        }
    }
    if (fclose(f) != 0 || rename(tmp, file) != 0) {
        snprintf(err, errlen, "cannot write %s", file);
        remove(tmp);
        return -1;
    }
    return 0;
}
