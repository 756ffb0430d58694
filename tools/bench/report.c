/* What the bench prints: one table per pattern, a summary across patterns, and the tuning
 * file that follows from them. Only rank 0 calls these. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

const char *const coll_names[2] = {"MPI_Bcast", "MPI_Allreduce"};

void size_label(long long b, char *out, size_t len)
{
    if (b >= 1 << 20 && b % (1 << 20) == 0)
        snprintf(out, len, "%lld MiB", b >> 20);
    else if (b >= 1024 && b % 1024 == 0)
        snprintf(out, len, "%lld KiB", b >> 10);
    else
        snprintf(out, len, "%lld B", b);
}

static double ratio_of(const row *x, int q)
{
    return x->s[0].median > 0 ? x->s[q].median / x->s[0].median : 0;
}

static long errors_of(const report *r, const row *x)
{
    long e = x->xcopy_us < 0;
    for (int q = 0; q < r->npaths[x->which]; q++)
        e += x->s[q].errors;
    return e;
}

void report_header(report *r, enum coll which, pattern p)
{
    if (r->csv) {
        if (!r->csv_header_done) {
            fprintf(r->out, "collective,pattern,algorithm,ranks,bytes,iterations,vendor_median_us,"
                            "vendor_min_us,vendor_max_us,hiercoll_median_us,hiercoll_min_us,"
                            "hiercoll_max_us,ratio,memcpy_us,xcopy_us,errors\n");
            r->csv_header_done = 1;
        }
        return;
    }
    char name[64];
    pattern_name(p, name, sizeof name);
    fprintf(r->out, "\n%s, %d ranks, %s, pattern %s\n", coll_names[which], r->nranks,
            which == COLL_BCAST ? "MPI_BYTE" : "MPI_DOUBLE MPI_SUM", name);
    fprintf(r->out, "%10s %6s %11s", "size", "iters", "vendor us");
    for (int q = 1; q < r->npaths[which]; q++) {
        char h[48];
        snprintf(h, sizeof h, "%s us", r->algo[which][q]);
        fprintf(r->out, " %11s %7s", h, "ratio");
    }
    fprintf(r->out, " %10s %9s %9s %8s %8s\n", "memcpy us", "/memcpy", "xcopy us", "/xcopy",
            "verified");
}

static void keep(report *r, const row *x)
{
    if (r->nrows == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->rows = realloc(r->rows, sizeof *r->rows * (size_t)r->cap);
    }
    r->rows[r->nrows++] = *x;
}

void report_row(report *r, const row *x)
{
    keep(r, x);
    char name[64], label[32];
    pattern_name(x->p, name, sizeof name);
    int np = r->npaths[x->which];
    if (r->csv) {
        for (int q = 1; q < np; q++)
            fprintf(r->out, "%s,%s,%s,%d,%lld,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%ld\n",
                    coll_names[x->which], name, r->algo[x->which][q], r->nranks, x->bytes, x->iters,
                    x->s[0].median, x->s[0].min, x->s[0].max, x->s[q].median, x->s[q].min,
                    x->s[q].max, ratio_of(x, q), x->memcpy_us, x->xcopy_us,
                    x->s[0].errors + x->s[q].errors + (x->xcopy_us < 0));
        fflush(r->out);
        return;
    }
    size_label(x->bytes, label, sizeof label);
    fprintf(r->out, "%10s %6d %11.2f", label, x->iters, x->s[0].median);
    for (int q = 1; q < np; q++)
        fprintf(r->out, " %11.2f %7.2f", x->s[q].median, ratio_of(x, q));
    /* The references against the first hiercoll path. */
    double h = np > 1 ? x->s[1].median : x->s[0].median;
    char xs[16] = "-", xr[16] = "-", ok[32] = "yes";
    if (x->xcopy_us > 0)
        snprintf(xs, sizeof xs, "%.2f", x->xcopy_us), snprintf(xr, sizeof xr, "%.2f", h / x->xcopy_us);
    else if (x->xcopy_us < 0)
        snprintf(xs, sizeof xs, "BAD");
    long e = errors_of(r, x);
    if (e)
        snprintf(ok, sizeof ok, "%ld BAD", e);
    fprintf(r->out, " %10.2f %9.1f %9s %8s %8s\n", x->memcpy_us,
            x->memcpy_us > 0 ? h / x->memcpy_us : 0, xs, xr, ok);
    fflush(r->out);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Across the patterns measured at one size: path q's worst ratio (and its row), its median
 * ratio, and its worst time against xcopy. */
typedef struct spread {
    double worst, median, worst_xcopy;
    const row *worst_row;
    int n;
} spread;

static spread spread_of(const report *r, enum coll which, long long bytes, int q)
{
    spread s = {0, 0, 0, NULL, 0};
    double v[MAX_PATTERNS];
    for (int i = 0; i < r->nrows; i++) {
        const row *x = &r->rows[i];
        if (x->which != which || x->bytes != bytes || s.n == MAX_PATTERNS)
            continue;
        double ratio = q ? ratio_of(x, q) : 1.0;
        v[s.n++] = ratio;
        if (!s.worst_row || ratio > s.worst)
            s.worst = ratio, s.worst_row = x;
        if (x->xcopy_us > 0 && x->s[q].median / x->xcopy_us > s.worst_xcopy)
            s.worst_xcopy = x->s[q].median / x->xcopy_us;
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

void report_summary(report *r, enum coll which)
{
    long long sizes[256];
    int ns = sizes_of(r, which, sizes, 256);
    int np = r->npaths[which];
    if (r->csv || !ns || np < 2)
        return;
    int npat = spread_of(r, which, sizes[0], 1).n;
    if (npat < 2)
        return;
    fprintf(r->out, "\n%s, %d ranks: summary over %d patterns (ratio = path / vendor; /xcopy = "
                    "path / one copy of the message from the other core)\n",
            coll_names[which], r->nranks, npat);
    fprintf(r->out, "%10s", "size");
    for (int q = 1; q < np; q++) {
        char h[48];
        snprintf(h, sizeof h, "%s worst", r->algo[which][q]);
        fprintf(r->out, " %14s %7s %12s", h, "median", "worst/xcopy");
    }
    fprintf(r->out, "  %s\n", "worst pattern");
    for (int i = 0; i < ns; i++) {
        char label[32], name[64] = "-";
        size_label(sizes[i], label, sizeof label);
        fprintf(r->out, "%10s", label);
        for (int q = 1; q < np; q++) {
            spread s = spread_of(r, which, sizes[i], q);
            char xc[16] = "-";
            if (s.worst_xcopy > 0)
                snprintf(xc, sizeof xc, "%.2f", s.worst_xcopy);
            fprintf(r->out, " %14.2f %7.2f %12s", s.worst, s.median, xc);
            if (q == 1 && s.worst_row)
                pattern_name(s.worst_row->p, name, sizeof name);
        }
        fprintf(r->out, "  %s\n", name);
    }
    fflush(r->out);
}

/* The best path at one size: the lowest worst ratio over the patterns, then the lowest
 * median; the vendor (ratio 1 everywhere) competes too, and goes first. A later path must win
 * by TUNE_MARGIN: paths that run the same mechanism at a size (shm and shm-cma inline their
 * smallest messages alike) differ by noise, and the earlier one should keep the range. */
#define TUNE_MARGIN 0.05
static int best_path(const report *r, enum coll which, long long bytes)
{
    int best = 0;
    spread bs = spread_of(r, which, bytes, 0);
    for (int q = 1; q < r->npaths[which]; q++) {
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
