/* Rank 0 at finalize: the human-facing files of the profile (call sites, time per function,
 * summary), from the rows and the text lines every rank sent. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hc_config.h"
#include "prof.h"

#define TOP_PAIRS 10

typedef struct site {
    char *fn, *frames;
    uint64_t calls, bytes;
    double ns;
} site;

typedef struct fn_total {
    uint64_t calls, bytes;
    double ns;
} fn_total;

static int site_key_cmp(const void *a, const void *b)
{
    const site *x = a, *y = b;
    int c = strcmp(x->fn, y->fn);
    return c ? c : strcmp(x->frames, y->frames);
}

static int site_time_cmp(const void *a, const void *b)
{
    const site *x = a, *y = b;
    if (x->ns != y->ns)
        return x->ns > y->ns ? -1 : 1;
    return site_key_cmp(a, b);
}

static int fn_index(const char *name)
{
    for (int f = 0; f < HC_PF_COUNT; f++)
        if (strcmp(hc_prof_fn_name[f], name) == 0)
            return f;
    return -1;
}

/* Splits line at tabs into at most max fields; returns the count. */
static int split(char *line, char **field, int max)
{
    int n = 0;
    while (line && n < max) {
        field[n++] = line;
        line = strchr(line, '\t');
        if (line)
            *line++ = 0;
    }
    return n;
}

/* The first frame "module|0xoff|symbol" split into its three parts (in a copy). */
static void first_frame(const char *frames, char *buf, size_t len, char **module, char **off,
                        char **sym)
{
    snprintf(buf, len, "%s", frames);
    char *semi = strchr(buf, ';');
    if (semi)
        *semi = 0;
    *module = buf;
    *off = strchr(buf, '|');
    *off = *off ? (*(*off)++ = 0, *off) : (char *)"0x0";
    *sym = strchr(*off, '|');
    *sym = *sym ? (*(*sym)++ = 0, *sym) : (char *)"?";
}

static int write_sites(const char *dir, site *s, size_t n, double total_ns)
{
    FILE *csv = hc_prof_open(dir, "callsites.csv"), *txt = csv ? hc_prof_open(dir, "callsites.txt") : NULL;
    if (!txt) {
        if (csv)
            fclose(csv);
        return -1;
    }
    fprintf(csv, "# hiercoll callsites v1\nsite,function,calls,bytes,time_us,module,offset,symbol,"
                 "stack\n");
    fprintf(txt, "# hiercoll callsites v1\n");
    fprintf(txt, "%-5s %-24s %12s %16s %14s %6s  %s\n", "site", "function", "calls", "bytes",
            "time_us", "time%", "symbol  module+offset");
    for (size_t i = 0; i < n; i++) {
        char buf[1024], *module, *off, *sym;
        first_frame(s[i].frames, buf, sizeof buf, &module, &off, &sym);
        fprintf(csv, "%zu,%s,%llu,%llu,%.3f,%s,%s,%s,%s\n", i + 1, s[i].fn,
                (unsigned long long)s[i].calls, (unsigned long long)s[i].bytes, s[i].ns / 1e3,
                module, off, sym, s[i].frames);
        fprintf(txt, "%-5zu %-24s %12llu %16llu %14.1f %6.2f  %s  %s+%s\n", i + 1, s[i].fn,
                (unsigned long long)s[i].calls, (unsigned long long)s[i].bytes, s[i].ns / 1e3,
                total_ns > 0 ? 100.0 * s[i].ns / total_ns : 0.0, sym, module, off);
    }
    int rc = hc_prof_close(csv);
    return hc_prof_close(txt) | rc;
}

typedef struct level_sum {
    const char *name;
    uint64_t p2p, coll;
} level_sum;

static uint64_t row_total(const hc_prof_row *r)
{
    return r->bytes[HC_PK_P2P] + r->bytes[HC_PK_RMA] + r->bytes[HC_PK_COLL];
}

static int pair_cmp(const void *a, const void *b)
{
    uint64_t x = row_total(*(const hc_prof_row *const *)a);
    uint64_t y = row_total(*(const hc_prof_row *const *)b);
    return x > y ? -1 : x < y;
}

static int write_summary(const char *dir, const hc_prof_data *d, const fn_total *fn)
{
    FILE *f = hc_prof_open(dir, "summary.txt");
    if (!f)
        return -1;
    int n = d->nranks, incomplete = 0;
    uint64_t p2p = 0, coll = 0, msgs = 0, odd = 0;
    uint64_t *sent = calloc((size_t)n, sizeof *sent);
    const hc_prof_row **top = malloc(sizeof *top * (size_t)(d->nrows + 1));
    level_sum lv[3] = {{"between nodes", 0, 0},
                       {"within a node, across NUMA domains", 0, 0},
                       {"within a NUMA domain", 0, 0}};
    long long ntop = 0;
    for (long long i = 0; i < d->nrows; i++) {
        const hc_prof_row *r = &d->rows[i];
        uint64_t p = r->bytes[HC_PK_P2P] + r->bytes[HC_PK_RMA], c = r->bytes[HC_PK_COLL];
        p2p += p;
        coll += c;
        msgs += r->msgs[HC_PK_P2P] + r->msgs[HC_PK_RMA] + r->msgs[HC_PK_COLL];
        odd += r->odd[HC_PK_P2P] + r->odd[HC_PK_RMA] + r->odd[HC_PK_COLL];
        if (r->src >= (uint64_t)n || r->dst >= (uint64_t)n)
            continue;
        if (sent)
            sent[r->src] += p + c;
        if (top && p + c)
            top[ntop++] = r;
        const hc_prof_rank *a = &d->ranks[r->src], *b = &d->ranks[r->dst];
        int l = strcmp(a->host, b->host) != 0 ? 0 : (a->numa != b->numa ? 1 : 2);
        lv[l].p2p += p;
        lv[l].coll += c;
    }
    double tmax = 0, tsum = 0, smax = 0, ssum = 0;
    int tmax_r = 0, smax_r = 0;
    for (int r = 0; r < n; r++) {
        double t = (double)d->ranks[r].mpi_ns, s = sent ? (double)sent[r] : 0;
        incomplete |= d->ranks[r].incomplete;
        tsum += t;
        ssum += s;
        if (t > tmax)
            tmax = t, tmax_r = r;
        if (s > smax)
            smax = s, smax_r = r;
    }
    fprintf(f, "# hiercoll summary v1\n");
    if (incomplete)
        fprintf(f, "WARNING: some rank ran out of memory while recording: counts are lower "
                   "bounds (ranks.csv, column incomplete)\n");
    fprintf(f, "ranks %d, pairs with traffic %lld, messages %llu\n", n, ntop,
            (unsigned long long)msgs);
    fprintf(f, "bytes: p2p %llu (one-sided included), collective %llu (model), total %llu\n",
            (unsigned long long)p2p, (unsigned long long)coll, (unsigned long long)(p2p + coll));
    fprintf(f, "bytes in the odd epochs: %llu, %.1f%% (the mapping's fit is checked on the run's "
               "two halves)\n",
            (unsigned long long)odd, p2p + coll ? 100.0 * (double)odd / (double)(p2p + coll) : 0.0);
    fprintf(f, "collectives in the task graph: %s\n", hc_cfg.profile_collectives.i ? "yes" : "no");
    fprintf(f, "time in MPI: mean %.1f us, max %.1f us (rank %d), imbalance max/mean %.2f\n",
            tsum / n / 1e3, tmax / 1e3, tmax_r, tsum > 0 ? tmax * n / tsum : 0.0);
    fprintf(f, "bytes sent per rank: mean %.0f, max %.0f (rank %d), imbalance max/mean %.2f\n",
            ssum / n, smax, smax_r, ssum > 0 ? smax * n / ssum : 0.0);

    fprintf(f, "\nbytes per level of the hierarchy as run (p2p, collective, share of total)\n");
    for (int l = 0; l < 3; l++)
        fprintf(f, "  %-36s %16llu %16llu %6.1f%%\n", lv[l].name, (unsigned long long)lv[l].p2p,
                (unsigned long long)lv[l].coll,
                p2p + coll ? 100.0 * (double)(lv[l].p2p + lv[l].coll) / (double)(p2p + coll) : 0.0);

    if (top) {
        qsort(top, (size_t)ntop, sizeof *top, pair_cmp);
        fprintf(f, "\ntop pairs by bytes (sender -> receiver: p2p, collective, total)\n");
        for (long long i = 0; i < ntop && i < TOP_PAIRS; i++)
            fprintf(f, "  %6llu -> %-6llu %16llu %16llu %16llu\n",
                    (unsigned long long)top[i]->src, (unsigned long long)top[i]->dst,
                    (unsigned long long)(top[i]->bytes[HC_PK_P2P] + top[i]->bytes[HC_PK_RMA]),
                    (unsigned long long)top[i]->bytes[HC_PK_COLL],
                    (unsigned long long)row_total(top[i]));
    }
    fprintf(f, "\ntime per MPI function, all ranks (calls, bytes, time)\n");
    for (int k = 0; k < HC_PF_COUNT; k++)
        if (fn[k].calls)
            fprintf(f, "  %-26s %12llu %16llu %14.1f us\n", hc_prof_fn_name[k],
                    (unsigned long long)fn[k].calls, (unsigned long long)fn[k].bytes,
                    fn[k].ns / 1e3);
    free(sent);
    free(top);
    return hc_prof_close(f);
}

int hc_prof_write_report(const char *dir, const hc_prof_data *d)
{
    char *text = malloc(d->text_len + 1);
    site *s = NULL;
    size_t ns = 0, cap = 0;
    fn_total fn[HC_PF_COUNT];
    memset(fn, 0, sizeof fn);
    FILE *fcsv = text ? hc_prof_open(dir, "functions.csv") : NULL;
    if (!fcsv) {
        free(text);
        return -1;
    }
    memcpy(text, d->text, d->text_len);
    text[d->text_len] = 0;
    fprintf(fcsv, "# hiercoll functions v1\nrank,function,calls,bytes,time_us\n");
    double total_ns = 0;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        char *fld[6];
        int nf = split(line, fld, 6);
        if (nf == 6 && strcmp(fld[0], "F") == 0) {
            int k = fn_index(fld[2]);
            double t = strtod(fld[5], NULL);
            fprintf(fcsv, "%s,%s,%s,%s,%.3f\n", fld[1], fld[2], fld[3], fld[4], t / 1e3);
            total_ns += t;
            if (k >= 0) {
                fn[k].calls += strtoull(fld[3], NULL, 10);
                fn[k].bytes += strtoull(fld[4], NULL, 10);
                fn[k].ns += t;
            }
        } else if (nf == 6 && strcmp(fld[0], "S") == 0) {
            if (ns == cap) {
                cap = cap ? 2 * cap : 256;
                site *grown = realloc(s, sizeof *s * cap);
                if (!grown)
                    break;
                s = grown;
            }
            s[ns++] = (site){fld[1], fld[5], strtoull(fld[2], NULL, 10),
                             strtoull(fld[3], NULL, 10), strtod(fld[4], NULL)};
        }
    }
    int rc = hc_prof_close(fcsv);
    /* The same site on many ranks (and threads) is one row. */
    size_t m = 0;
    if (ns) {
        qsort(s, ns, sizeof *s, site_key_cmp);
        for (size_t i = 1; i < ns; i++) {
            if (site_key_cmp(&s[i], &s[m]) == 0) {
                s[m].calls += s[i].calls;
                s[m].bytes += s[i].bytes;
                s[m].ns += s[i].ns;
            } else {
                s[++m] = s[i];
            }
        }
        m++;
        qsort(s, m, sizeof *s, site_time_cmp);
    }
    rc |= write_sites(dir, s, m, total_ns);
    rc |= write_summary(dir, d, fn);
    free(s);
    free(text);
    return rc;
}

static const hc_prof_rank *sort_ranks; /* qsort has no argument for host_cmp */
static int host_cmp(const void *a, const void *b)
{
    return strcmp(sort_ranks[*(const int *)a].host, sort_ranks[*(const int *)b].host);
}

/* The profiler's own time, last in summary.txt: what profiling adds to the run, at most.
 * Recording: the busiest rank's, as if it held up every other rank; where a host's ranks
 * outnumber its CPUs they also take turns on them, and the host's recording shared over its
 * CPUs is the bound when larger. Finalize: the slowest rank's own part before the gathers,
 * then rank 0's from the moment every record reached it (the others wait for it); rank 0's
 * wait in between, less the slowest rank's lead over its own part, is shown and not counted.
 * The share's base is rank 0's process, from its start to the end of the profiler's
 * finalize. */
int hc_prof_write_cost(const char *dir, const hc_prof_data *d)
{
    FILE *f = hc_prof_open_mode(dir, "summary.txt", "a");
    if (!f)
        return -1;
    int n = d->nranks, busiest = 0, crowded = -1, crowded_ranks = 0;
    double crowded_ns = 0, crowded_sum = 0;
    /* Ranks in order of their host, so each host is one run of them (n log n: rank 0 does
     * this for every rank of the job). */
    int *by_host = malloc(sizeof(int) * (size_t)n);
    for (int r = 0; by_host && r < n; r++)
        by_host[r] = r;
    if (by_host) {
        sort_ranks = d->ranks;
        qsort(by_host, (size_t)n, sizeof *by_host, host_cmp);
    }
    for (int i = 0, end; by_host && i < n; i = end) {
        const hc_prof_rank *first = &d->ranks[by_host[i]];
        double sum = 0;
        for (end = i; end < n && !strcmp(d->ranks[by_host[end]].host, first->host); end++)
            sum += (double)d->ranks[by_host[end]].record_ns;
        int cpus = HC_MAX(first->host_cpus, 1), on_host = end - i;
        if (on_host > cpus && sum / cpus > crowded_ns)
            crowded = by_host[i], crowded_ns = sum / cpus, crowded_sum = sum, crowded_ranks = on_host;
    }
    free(by_host);
    for (int r = 1; r < n; r++)
        if (d->ranks[r].record_ns > d->ranks[busiest].record_ns)
            busiest = r;
    const hc_prof_rank *b = &d->ranks[busiest];
    uint64_t now = hc_now_ns(), slowest_ns = 0;
    for (int r = 0; r < n; r++)
        slowest_ns = HC_MAX(slowest_ns, d->ranks[r].local_ns);
    double since_began = now > d->finalize_t0_ns ? (double)(now - d->finalize_t0_ns) : 0;
    double after = now > d->gathered_ns ? (double)(now - d->gathered_ns) : 0;
    /* at most: a rank that began early may have had its part while rank 0 still ran */
    double finalize_ns = (double)slowest_ns + after;
    double recording = HC_MAX((double)b->record_ns, crowded_ns);
    double own = recording + finalize_ns, run = (double)d->ranks[0].run_ns + since_began;
    fprintf(f, "\nprofiler's own time (what profiling adds at most; docs/formats-profile.md)\n");
    fprintf(f, "  recording %12.3f ms on the busiest rank (rank %d: %llu calls, %llu ns each, "
               "every %dth timed)\n",
            (double)b->record_ns / 1e6, busiest, (unsigned long long)b->calls,
            (unsigned long long)b->record_per_call_ns, HC_PROF_COST_EVERY);
    if (crowded >= 0)
        fprintf(f, "  shared    %12.3f ms a CPU on %s (its %d ranks' %.3f ms on %d CPUs)\n",
                crowded_ns / 1e6, d->ranks[crowded].host, crowded_ranks, crowded_sum / 1e6,
                d->ranks[crowded].host_cpus);
    fprintf(f, "  finalize  %12.3f ms (the slowest rank's own part %.3f ms, then rank 0 gathering "
               "and writing the profile and the mapping)\n",
            finalize_ns / 1e6, (double)slowest_ns / 1e6);
    fprintf(f, "  waited    %12.3f ms on rank 0 for the last rank to reach MPI_Finalize (the "
               "program's time, not counted)\n",
            HC_MAX(since_began - finalize_ns, 0.0) / 1e6);
    fprintf(f, "  share     %11.2f%%  of rank 0's %.3f s from its process's start to the end "
               "of MPI_Finalize\n",
            run > 0 ? 100.0 * own / run : 0.0, run / 1e9);
    return hc_prof_close(f);
}
