/* What the bench prints: one table per pattern, as text or CSV. Only rank 0 calls these (or
 * --merge, with no MPI at all). summary.c: the summary across patterns and the tuning file. */
#include <stdlib.h>
#include <string.h>

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

void half_label(const row *x, char *out, size_t len)
{
    snprintf(out, len, "%s", x->half == 1 ? "1st" : x->half == 2 ? "2nd" : "");
}

/* Column widths: a name, or what the column holds, whichever is wider. */
static int width(const char *name, int least)
{
    int n = (int)strlen(name);
    return n > least ? n : least;
}

static int peer_width(const report *r, enum coll which, int q)
{
    return width(r->algo[which][q], 7) + 3; /* "NAME us" */
}

static int plan_width(const report *r, enum coll which)
{
    int w = 10;
    for (int q = 0; q < r->npaths[which]; q++)
        w = width(r->algo[which][q], w);
    return w;
}

static const char *csv_columns =
    "collective,pattern,algorithm,ranks,bytes,iterations,vendor_median_us,vendor_min_us,"
    "vendor_max_us,hiercoll_median_us,hiercoll_min_us,hiercoll_max_us,ratio,memcpy_us,xcopy_us,"
    "half,ran,peer,nodes,run,vendor_link_bytes,hiercoll_link_bytes,errors\n";

void report_header(report *r, enum coll which, pattern p)
{
    if (r->csv) {
        if (!r->csv_header_done)
            fputs(csv_columns, r->out);
        r->csv_header_done = 1;
        return;
    }
    char name[64];
    pattern_name(p, name, sizeof name);
    const char *change = p.root == ROOT_SWITCH
                             ? ": root 0, then the last rank, from half of each path's calls"
                         : p.buf == BUF_WARM2STRIDE
                             ? ": buffers warm, then stride, from half of each path's calls"
                             : "";
    fprintf(r->out, "\n%s, %d ranks, %s, pattern %s%s\n", coll_names[which], r->nranks,
            which == COLL_BCAST ? "MPI_BYTE" : "MPI_DOUBLE MPI_SUM", name, change);
    int np = r->npaths[which], npeers = r->npeers[which], a = path_auto(r, which);
    fprintf(r->out, "%10s%s %6s", "size", pattern_midrun(p) ? "  half" : "", "iters");
    for (int q = 0; q < npeers; q++) {
        char h[64];
        snprintf(h, sizeof h, "%s us", r->algo[which][q]);
        fprintf(r->out, " %*s", peer_width(r, which, q), h);
    }
    if (npeers > 1)
        fprintf(r->out, " %-*s", plan_width(r, which), "best");
    for (int q = npeers; q < np; q++)
        fprintf(r->out, " %*s", width(r->algo[which][q], 7), r->algo[which][q]);
    if (a >= 0)
        fprintf(r->out, "  %-16s %-*s %9s", "auto ran", plan_width(r, which), "best fixed",
                "auto/best");
    fprintf(r->out, " %10s %8s %9s %7s %9s\n", "memcpy us", "/memcpy", "xcopy us", "/xcopy",
            "verified");
}

void report_keep(report *r, const row *x)
{
    if (r->nrows == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->rows = realloc(r->rows, sizeof *r->rows * (size_t)r->cap);
    }
    r->rows[r->nrows++] = *x;
}

/* One line per pair of a peer and a hiercoll path measured in the same run: the pair's times
 * and their ratio, as in one run without peers. Columns added since come before the errors,
 * which stay last (tests/e2e/choices.sh reads them there). */
static void csv_row(report *r, const row *x)
{
    char name[64];
    pattern_name(x->p, name, sizeof name);
    enum coll c = x->which;
    for (int v = 0; v < r->npeers[c]; v++) {
        if (x->s[v].median <= 0)
            continue;
        for (int q = r->npeers[c]; q < r->npaths[c]; q++)
            fprintf(r->out, "%s,%s,%s,%d,%lld,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,"
                            "%d,%s,%s,%d,%d,%.0f,%.0f,%ld\n",
                    coll_names[c], name, r->algo[c][q], r->nranks, x->bytes, x->iters,
                    x->s[v].median, x->s[v].min, x->s[v].max, x->s[q].median, x->s[q].min,
                    x->s[q].max, x->s[q].median / x->s[v].median, x->memcpy_us, x->xcopy_us,
                    x->half, *x->ran[q] ? x->ran[q] : "-", r->algo[c][v], r->nnodes, x->run,
                    x->link[v], x->link[q], x->s[v].errors + x->s[q].errors + (x->xcopy_us < 0));
    }
    fflush(r->out);
}

/* Bytes in a column of 7 or more: as they are up to 9999999, then in MiB. */
static void bytes_text(double b, char *out, size_t len)
{
    if (b < 1e7)
        snprintf(out, len, "%.0f", b);
    else
        snprintf(out, len, "%.1fM", b / (1 << 20));
}

/* --net-bytes: under a table line, each peer's and path's bytes per call over the busiest
 * link, in its own column. */
static void link_line(report *r, const cell *c)
{
    const row *x = c->first;
    enum coll which = x->which;
    char b[32];
    fprintf(r->out, "%*s", pattern_midrun(x->p) ? 23 : 17, "link bytes/call");
    for (int q = 0; q < r->npaths[which]; q++) {
        if (q == r->npeers[which] && r->npeers[which] > 1)
            fprintf(r->out, " %-*s", plan_width(r, which), "");
        bytes_text(c->link[q], b, sizeof b);
        fprintf(r->out, " %*s", q < r->npeers[which] ? peer_width(r, which, q)
                                                      : width(r->algo[which][q], 7), b);
    }
    fputc('\n', r->out);
}

void report_line(report *r, const row *key)
{
    cell c;
    cell_of(r, key, &c);
    const row *x = c.first;
    enum coll which = x->which;
    int np = r->npaths[which], npeers = r->npeers[which], a = path_auto(r, which);
    char label[32], half[8];
    size_label(x->bytes, label, sizeof label);
    half_label(x, half, sizeof half);
    fprintf(r->out, "%10s", label);
    if (pattern_midrun(x->p))
        fprintf(r->out, " %5s", half);
    fprintf(r->out, " %6d", x->iters);
    for (int q = 0; q < npeers; q++) {
        if (c.peer_us[q] > 0)
            fprintf(r->out, " %*.2f", peer_width(r, which, q), c.peer_us[q]);
        else
            fprintf(r->out, " %*s", peer_width(r, which, q), "-");
    }
    if (npeers > 1)
        fprintf(r->out, " %-*s", plan_width(r, which), c.best >= 0 ? r->algo[which][c.best] : "-");
    for (int q = npeers; q < np; q++)
        fprintf(r->out, " %*.2f", width(r->algo[which][q], 7), c.ratio[q]);
    if (a >= 0) {
        char ab[16] = "-";
        if (c.auto_best > 0)
            snprintf(ab, sizeof ab, "%.2f", c.auto_best);
        fprintf(r->out, "  %-16s %-*s %9s", *c.ran ? c.ran : "-", plan_width(r, which),
                c.best_fixed >= 0 ? r->algo[which][c.best_fixed] : "-", ab);
    }
    /* The references against the yardstick: auto, else the first hiercoll path. */
    double h = c.yard_us > 0 ? c.yard_us : c.peer_us[0];
    char xs[16] = "-", xr[16] = "-", ok[32] = "yes";
    if (c.xcopy_us > 0)
        snprintf(xs, sizeof xs, "%.2f", c.xcopy_us), snprintf(xr, sizeof xr, "%.2f", h / c.xcopy_us);
    else if (c.xcopy_us < 0)
        snprintf(xs, sizeof xs, "BAD");
    if (c.errors)
        snprintf(ok, sizeof ok, "%ld BAD", c.errors);
    fprintf(r->out, " %10.2f %8.1f %9s %7s %9s\n", c.memcpy_us,
            c.memcpy_us > 0 ? h / c.memcpy_us : 0, xs, xr, ok);
    if (r->net)
        link_line(r, &c);
    fflush(r->out);
}

void report_row(report *r, const row *x)
{
    report_keep(r, x);
    if (r->csv)
        csv_row(r, x);
    else if (r->runs <= 1)
        report_line(r, x);
}

/* Every kept row: the CSV lines, or each collective's tables (a line per key, in the order
 * the keys were measured) and its summary. For runs merged after the fact. */
void report_print_all(report *r)
{
    if (r->csv) {
        report_header(r, COLL_BCAST, (pattern){0, 0, 0});
        for (int i = 0; i < r->nrows; i++)
            csv_row(r, &r->rows[i]);
        return;
    }
    for (enum coll c = COLL_BCAST; c <= COLL_ALLREDUCE; c++) {
        for (int i = 0; i < r->nrows; i++) {
            const row *x = &r->rows[i];
            int new_pattern = x->which == c, new_key = x->which == c;
            for (int j = 0; j < i && new_key; j++) {
                const row *y = &r->rows[j];
                int same_p = y->which == c && y->p.root == x->p.root && y->p.buf == x->p.buf &&
                             y->p.timing == x->p.timing;
                new_pattern &= !same_p;
                new_key = !(same_p && y->bytes == x->bytes && y->half == x->half);
            }
            if (new_pattern)
                report_header(r, c, x->p);
            if (new_key)
                report_line(r, x);
        }
        report_summary(r, c);
    }
}
