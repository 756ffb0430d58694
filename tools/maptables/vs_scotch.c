/* hiercoll-maptables --vs-scotch: hiercoll's `auto` against Scotch's gmap on the families of
 * families.c, several sizes and machine shapes, both scored with hiercoll's cost model
 * (mapping/cost.c). gmap runs deterministically with every strategy of hc_scotch_strategies;
 * the reference is its best strategy in hiercoll's order (lowest max, then sum), with the
 * lowest sum any strategy reached beside it. A Scotch mapping that puts two ranks on one core
 * is reported and not counted. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <scotch.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "families.h"
#include "hc_map.h"
#include "gmap.h"
#include "vs_scotch.h"

/* Scotch's strategies are libscotch's (hc_scotch_strategies), given to gmap as options; -Cd
 * makes gmap deterministic, with the random seed libscotch gets from hiercoll's seed 1. */
enum { NSTRAT = 16 };

static void gmap_options(const hc_scotch_strategy *st, char *buf, size_t len)
{
    static const struct {
        int flag;
        char letter;
    } letters[] = {{SCOTCH_STRATQUALITY, 'q'}, {SCOTCH_STRATBALANCE, 'b'},
                   {SCOTCH_STRATRECURSIVE, 'r'}, {SCOTCH_STRATSPEED, 's'},
                   {SCOTCH_STRATSAFETY, 't'}};
    size_t o = (size_t)snprintf(buf, len, "-Cd -c");
    for (size_t i = 0; i < sizeof letters / sizeof letters[0] && o + 1 < len; i++)
        if (st->flags & letters[i].flag)
            buf[o++] = letters[i].letter, buf[o] = 0;
    snprintf(buf + o, len - o, " -b%g", st->balance);
}

#define MAX_LIST 32
#define SUM_SLACK 1.05 /* the sum may be this much above Scotch's best */

typedef struct {
    const char *gmap, *keep;
    const hc_family *fam[MAX_LIST];
    int nfam, size[MAX_LIST], nsize, nmach, strat[NSTRAT], nstrat, markdown;
    hc_map_algo algo;
    char mach[MAX_LIST][128];
    unsigned seed;
} hc_opts;

/* Bandwidths per level from the top: 100 Gb/s network, then the shared caches and memory
 * paths inside a node. */
static const double bw_by_levels[5][4] = {
    {0}, {5e10}, {1.25e10, 5e10}, {1.25e10, 2.5e10, 5e10}, {1.25e10, 2.5e10, 4e10, 5e10}};

static const char *const default_machines[] = {
    "node:* core:16", "node:* package:2 core:16", "node:* package:2 numa:2 core:4"};

typedef struct {
    hc_map_cost hc, best; /* best: Scotch's best strategy, in hiercoll's order */
    double lowest_sum;     /* the lowest sum of any Scotch strategy */
    double bound;          /* no mapping has a lower max (hc_map_max_lower_bound) */
    const char *by;
    char algo[64], shared[64];
    double hc_cpu, sc_cpu;
    int found;
} hc_result;

/* "node:* core:16" for M ranks: as many nodes as the ranks fill. */
static int machine_for(const char *shape, int M, char *spec, size_t len, hc_machine *m,
                       char *err, size_t errlen)
{
    const char *star = strchr(shape, '*');
    if (star) {
        hc_machine per;
        double bw[HC_MACHINE_MAX_LEVELS];
        for (int l = 0; l < HC_MACHINE_MAX_LEVELS; l++)
            bw[l] = 1;
        int nl = 0;
        for (const char *p = shape; *p; p++)
            nl += *p == ':';
        char below[128];
        snprintf(below, sizeof below, "x:1%s", star + 1);
        if (hc_machine_from_synthetic(&per, below, bw, nl, err, errlen) != 0)
            return -1;
        int nodes = (M + per.ncores - 1) / per.ncores;
        hc_machine_free(&per);
        snprintf(spec, len, "%.*s%d%s", (int)(star - shape), shape, nodes, star + 1);
    } else
        snprintf(spec, len, "%s", shape);
    int nl = 0;
    for (const char *p = spec; *p; p++)
        nl += *p == ':';
    if (nl < 1 || nl > 4) {
        snprintf(err, errlen, "machine '%s': 1 to 4 levels", shape);
        return -1;
    }
    return hc_machine_from_synthetic(m, spec, bw_by_levels[nl], nl, err, errlen);
}

static double cpu_now(void) { return (double)clock() / CLOCKS_PER_SEC; }

/* Cores holding more than one rank, or -1 if a rank is off the machine. */
static int shared_cores(const int *map, int M, int N)
{
    char *seen = calloc((size_t)N, 1);
    int shared = 0;
    if (!seen)
        return -1;
    for (int i = 0; i < M; i++) {
        if (map[i] < 0 || map[i] >= N) {
            shared = -1;
            break;
        }
        shared += seen[map[i]]++ == 1;
    }
    free(seen);
    return shared;
}

static int write_map(const char *path, const int *map, int M)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "%d\n", M);
    for (int i = 0; i < M; i++)
        fprintf(f, "%d\t%d\n", i, map[i]);
    return fclose(f);
}

/* The case's directory: under --keep, named after the case and holding its graph and
 * machine (the files a reader needs to recompute every cost), else a temporary one. */
static int case_dir(const hc_opts *o, const hc_family *fam, int M, const char *spec,
                    const hc_graph *g, const hc_machine *m, char *dir, size_t len)
{
    if (!o->keep) {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, len, "%s/hc-vs-scotch-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (mkdtemp(dir))
            return 0;
        fprintf(stderr, "hiercoll-maptables: cannot create a directory in %s\n",
                tmp && *tmp ? tmp : "/tmp");
        return -1;
    }
    /* "grid2d-64-node4_core16" */
    size_t n = (size_t)snprintf(dir, len, "%s/%s-%d-", o->keep, fam->name, M);
    for (const char *p = spec; *p && n + 1 < len; p++)
        if (*p != ':')
            dir[n++] = *p == ' ' ? '_' : *p;
    dir[n < len ? n : len - 1] = 0;
    mkdir(o->keep, 0777);
    char path[4200];
    snprintf(path, sizeof path, "%s/graph.metis", dir);
    FILE *f = mkdir(dir, 0777) == 0 || access(dir, W_OK) == 0 ? fopen(path, "w") : NULL;
    int bad = !f || hc_graph_write_metis(g, f) != 0;
    if (f)
        bad |= fclose(f) != 0;
    snprintf(path, sizeof path, "%s/machine.txt", dir);
    if (!bad && (f = fopen(path, "w"))) {
        fprintf(f, "%s\n", spec);
        for (int l = 0; l < m->nlevels; l++)
            fprintf(f, "%s%g", l ? "," : "", m->bw[l]);
        fprintf(f, "\n");
        bad |= fclose(f) != 0;
    } else
        bad = 1;
    if (bad)
        fprintf(stderr, "hiercoll-maptables: cannot write the files of %s\n", dir);
    return bad ? -1 : 0;
}

static int run_case(const hc_opts *o, const hc_family *fam, int M, const char *shape,
                    char *spec, size_t speclen, long long *edges, hc_result *r)
{
    char err[512], dir[4096], grf[4200] = "", tgt[4200], out[4200];
    hc_graph g;
    hc_machine m;
    int rc = -1;
    memset(r, 0, sizeof *r);
    if (machine_for(shape, M, spec, speclen, &m, err, sizeof err) != 0) {
        fprintf(stderr, "hiercoll-maptables: %s\n", err);
        return -1;
    }
    if (fam->build(&g, M, o->seed) != 0) {
        fprintf(stderr, "hiercoll-maptables: %s at %d ranks: out of memory\n", fam->name, M);
        hc_machine_free(&m);
        return -1;
    }
    *edges = g.xadj[M] / 2;
    r->bound = hc_map_max_lower_bound(&g, &m);
    int *map = malloc(sizeof(int) * (size_t)M);
    if (!map)
        goto out;
    if (case_dir(o, fam, M, spec, &g, &m, dir, sizeof dir) != 0)
        goto out;
    double c0 = cpu_now();
    if (hc_map_compute(&g, &m, o->algo, o->seed, map, r->algo, sizeof r->algo, err,
                       sizeof err) != 0) {
        fprintf(stderr, "hiercoll-maptables: %s at %d ranks on %s: %s\n", fam->name, M, spec, err);
        goto clean;
    }
    r->hc_cpu = cpu_now() - c0;
    r->hc = hc_map_cost_eval(&g, &m, map);
    if (o->keep) {
        snprintf(out, sizeof out, "%s/hiercoll.map", dir);
        write_map(out, map, M);
    }
    snprintf(grf, sizeof grf, "%s/graph.grf", dir);
    if (hc_gmap_write_graph(&g, &m, grf) != 0) {
        fprintf(stderr, "hiercoll-maptables: cannot write %s\n", grf);
        goto clean;
    }
    for (int k = 0; k < o->nstrat; k++) {
        const hc_scotch_strategy *s = &hc_scotch_strategies[o->strat[k]];
        char options[64];
        double cpu;
        gmap_options(s, options, sizeof options);
        snprintf(tgt, sizeof tgt, "%s/%s.tgt", dir, s->cumulative ? "cumulative" : "level");
        snprintf(out, sizeof out, "%s/scotch-%s.map", dir, s->label);
        if (hc_gmap_write_target(&m, s->cumulative, tgt) != 0 ||
            hc_gmap_run(o->gmap, grf, tgt, options, out, &cpu, err, sizeof err) != 0 ||
            hc_gmap_read_mapping(out, M, m.ncores, map, err, sizeof err) != 0) {
            fprintf(stderr, "hiercoll-maptables: %s at %d ranks on %s: Scotch: %s\n", fam->name,
                    M, spec, err);
            goto clean;
        }
        r->sc_cpu += cpu;
        int sh = shared_cores(map, M, m.ncores);
        if (sh != 0) { /* not a valid mapping: noted, not counted */
            size_t l = strlen(r->shared);
            snprintf(r->shared + l, sizeof r->shared - l, "%s%s:%d", l ? "," : "", s->label, sh);
            continue;
        }
        hc_map_cost c = hc_map_cost_eval(&g, &m, map);
        if (!r->found || hc_map_cost_better(c, r->best)) {
            r->best = c;
            r->by = s->label;
        }
        if (!r->found || c.sum < r->lowest_sum)
            r->lowest_sum = c.sum;
        r->found = 1;
    }
    rc = 0;
clean:
    if (!o->keep) {
        for (int k = 0; k < o->nstrat; k++) {
            snprintf(out, sizeof out, "%s/scotch-%s.map", dir,
                     hc_scotch_strategies[o->strat[k]].label);
            unlink(out);
        }
        snprintf(out, sizeof out, "%s/cumulative.tgt", dir);
        unlink(out);
        snprintf(out, sizeof out, "%s/level.tgt", dir);
        unlink(out);
        unlink(grf);
        rmdir(dir);
    }
out:
    free(map);
    hc_graph_free(&g);
    hc_machine_free(&m);
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void header(const hc_opts *o)
{
    if (o->markdown)
        printf("| family | ranks | machine | edges | hiercoll | max | sum | Scotch | max | sum | "
               "max hc/S | sum hc/S | lowest Scotch sum | hc/lowest | S max/bound | CPU s hc | "
               "CPU s Scotch | notes |\n|---|---:|---|---:|---|---:|---:|---|---:|---:|---:|---:|"
               "---:|---:|---:|---:|---:|---|\n");
    else
        printf("%-11s %5s %-31s %6s  %-18s %10s %10s  %-3s %10s %10s  %6s %6s  %10s %6s  %7s"
               "  %6s %6s  %s\n", "family", "ranks", "machine", "edges", "hiercoll", "max", "sum",
               "S", "S max", "S sum", "max/S", "sum/S", "S low sum", "hc/low", "S/bound", "CPU hc",
               "S", "notes");
}

static void row(const hc_opts *o, const char *fam, int M, const char *spec, long long edges,
                const hc_result *r, const char *note)
{
    double rmax = r->hc.max / r->best.max, rsum = r->hc.sum / r->best.sum;
    double rlow = r->hc.sum / r->lowest_sum, rbound = r->bound > 0 ? r->best.max / r->bound : NAN;
    if (o->markdown)
        printf("| %s | %d | %s | %lld | %s | %.4g | %.4g | %s | %.4g | %.4g | %.3f | %.3f | %.4g | "
               "%.3f | %.3f | %.2f | %.2f | %s |\n", fam, M, spec, edges, r->algo, r->hc.max,
               r->hc.sum, r->by, r->best.max, r->best.sum, rmax, rsum, r->lowest_sum, rlow,
               rbound, r->hc_cpu, r->sc_cpu, note);
    else
        printf("%-11s %5d %-31s %6lld  %-18s %10.4g %10.4g  %-3s %10.4g %10.4g  %6.3f %6.3f  "
               "%10.4g %6.3f  %7.3f  %6.2f %6.2f  %s\n", fam, M, spec, edges, r->algo, r->hc.max,
               r->hc.sum, r->by, r->best.max, r->best.sum, rmax, rsum, r->lowest_sum, rlow,
               rbound, r->hc_cpu, r->sc_cpu, note);
    fflush(stdout);
}

static int split_list(char *s, const char *sep, char **items, int max)
{
    int n = 0;
    for (char *tok = strtok(s, sep); tok && n < max; tok = strtok(NULL, sep))
        items[n++] = tok;
    return n;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: hiercoll-maptables --vs-scotch [--families LIST] [--sizes LIST] "
            "[--machines LIST]\n"
            "           [--strategies LIST] [--algo NAME] [--gmap PROG] [--keep DIR] [--seed N]\n"
            "           [--markdown]\n"
            "  --families LIST    comma-separated, default all:");
    for (int i = 0; i < hc_nfamilies; i++)
        fprintf(out, "%s%s", i ? "," : " ", hc_families[i].name);
    fprintf(out, "\n  --sizes LIST       ranks, multiples of 8 (default 64,256,1024,4096)\n"
                 "  --machines LIST    ';'-separated synthetic specs, '*' = as many as the ranks "
                 "fill\n                     (default 'node:* core:16;node:* package:2 core:16;"
                 "node:* package:2 numa:2 core:4')\n"
                 "  --strategies LIST  gmap strategies, default all:");
    for (int i = 0; i < hc_nscotch_strategies; i++) {
        char options[64];
        gmap_options(&hc_scotch_strategies[i], options, sizeof options);
        fprintf(out, "%s\n                     %-4s %s%s", i ? "," : "",
                hc_scotch_strategies[i].label, options,
                hc_scotch_strategies[i].cumulative ? "" : ", each level's own cost");
    }
    fprintf(out, "\n  --algo NAME        hiercoll's algorithm (default auto)\n"
                 "  --gmap PROG        Scotch's gmap (default gmap or scotch_gmap on PATH)\n"
                 "  --keep DIR         keep every case's graph, target and mappings in DIR\n"
                 "Families:\n");
    for (int i = 0; i < hc_nfamilies; i++)
        fprintf(out, "  %-12s %s\n", hc_families[i].name, hc_families[i].what);
    fprintf(out, "Column S/bound: Scotch's max over a lower bound on the max of every mapping "
                 "(mapping/bound.c);\n1.000 means no mapping has a lower max.\n");
    fprintf(out, "Exit status: 0 if on every case hiercoll's max is no worse than Scotch's best, "
                 "its sum\nwithin 5%% of Scotch's best and its max below Scotch's in the median; "
                 "1 if not; 2 usage\nerror or Scotch missing.\n");
}

static int parse(int argc, char **argv, hc_opts *o)
{
    static char fam[1024], sizes[1024], mach[4096], strat[256];
    char *items[MAX_LIST];
    memset(o, 0, sizeof *o);
    o->seed = 1;
    snprintf(sizes, sizeof sizes, "64,256,1024,4096");
    fam[0] = mach[0] = strat[0] = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--markdown"))
            o->markdown = 1;
        else if (!strcmp(a, "--help")) {
            usage(stdout);
            exit(0);
        } else if (!v) {
            fprintf(stderr, "hiercoll-maptables: unknown argument or missing value: '%s'\n", a);
            return -1;
        } else {
            i++;
            if (!strcmp(a, "--families"))
                snprintf(fam, sizeof fam, "%s", v);
            else if (!strcmp(a, "--sizes"))
                snprintf(sizes, sizeof sizes, "%s", v);
            else if (!strcmp(a, "--machines"))
                snprintf(mach, sizeof mach, "%s", v);
            else if (!strcmp(a, "--strategies"))
                snprintf(strat, sizeof strat, "%s", v);
            else if (!strcmp(a, "--gmap"))
                o->gmap = v;
            else if (!strcmp(a, "--keep"))
                o->keep = v;
            else if (!strcmp(a, "--algo")) {
                int al = hc_map_algo_parse(v);
                if (al < 0) {
                    fprintf(stderr, "hiercoll-maptables: unknown algorithm '%s'\n", v);
                    return -1;
                }
                o->algo = (hc_map_algo)al;
            }
            else if (!strcmp(a, "--seed"))
                o->seed = (unsigned)strtoul(v, NULL, 10);
            else {
                fprintf(stderr, "hiercoll-maptables: unknown argument '%s'\n", a);
                return -1;
            }
        }
    }
    if (fam[0]) {
        int n = split_list(fam, ",", items, MAX_LIST);
        for (int k = 0; k < n; k++)
            if (!(o->fam[o->nfam++] = hc_family_find(items[k]))) {
                fprintf(stderr, "hiercoll-maptables: unknown family '%s'\n", items[k]);
                return -1;
            }
    } else
        for (int k = 0; k < hc_nfamilies; k++)
            o->fam[o->nfam++] = &hc_families[k];
    int n = split_list(sizes, ",", items, MAX_LIST);
    for (int k = 0; k < n; k++) {
        char *end;
        long v = strtol(items[k], &end, 10);
        if (*end || v < 8 || v > 1 << 20 || v % 8) {
            fprintf(stderr, "hiercoll-maptables: size '%s' must be a multiple of 8 in "
                            "8..1048576\n", items[k]);
            return -1;
        }
        o->size[o->nsize++] = (int)v;
    }
    if (mach[0]) {
        n = split_list(mach, ";", items, MAX_LIST);
        for (int k = 0; k < n; k++)
            snprintf(o->mach[o->nmach++], sizeof o->mach[0], "%s", items[k]);
    } else
        for (size_t k = 0; k < sizeof default_machines / sizeof default_machines[0]; k++)
            snprintf(o->mach[o->nmach++], sizeof o->mach[0], "%s", default_machines[k]);
    if (strat[0]) {
        n = split_list(strat, ",", items, MAX_LIST);
        for (int k = 0; k < n; k++) {
            int found = -1;
            for (int s = 0; s < hc_nscotch_strategies; s++)
                if (!strcmp(items[k], hc_scotch_strategies[s].label))
                    found = s;
            if (found < 0 || o->nstrat == NSTRAT) {
                fprintf(stderr, "hiercoll-maptables: unknown strategy '%s'\n", items[k]);
                return -1;
            }
            o->strat[o->nstrat++] = found;
        }
    } else
        for (int s = 0; s < hc_nscotch_strategies && s < NSTRAT; s++)
            o->strat[o->nstrat++] = s;
    if (!o->gmap && !(o->gmap = hc_gmap_find())) {
        fprintf(stderr, "hiercoll-maptables: Scotch's gmap is not installed (Debian: apt-get "
                        "install scotch)\n");
        return -1;
    }
    return 0;
}

int hc_vs_scotch_main(int argc, char **argv)
{
    hc_opts o;
    if (parse(argc, argv, &o) != 0)
        return 2;
    int total = o.nfam * o.nsize * o.nmach, done = 0, nworse_max = 0, nworse_sum = 0, nok = 0;
    int tty = isatty(2), nshared = 0, nabove_lowest = 0, nat_bound = 0, ntie_at_bound = 0;
    double *rmax = malloc(sizeof(double) * (size_t)total);
    double *rsum = malloc(sizeof(double) * (size_t)total);
    double worst_max = 0, worst_sum = 0, hc_cpu = 0, sc_cpu = 0;
    char worst_max_at[200] = "", worst_sum_at[200] = "";
    if (!rmax || !rsum)
        return 2;
    time_t now = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d", localtime(&now));
    printf("%shiercoll %s against Scotch (%s), scored with hiercoll's cost model, %s; seed "
           "%u%s\n\n", o.markdown ? "**" : "", hc_map_algo_name(o.algo), o.gmap, date, o.seed,
           o.markdown ? "**" : "");
    header(&o);
    for (int fi = 0; fi < o.nfam; fi++)
        for (int si = 0; si < o.nsize; si++)
            for (int mi = 0; mi < o.nmach; mi++) {
                char spec[160];
                long long edges = 0;
                hc_result r;
                done++;
                if (tty)
                    fprintf(stderr, "\r[%d/%d] %s, %d ranks, %s ...\033[K", done, total,
                            o.fam[fi]->name, o.size[si], o.mach[mi]);
                if (run_case(&o, o.fam[fi], o.size[si], o.mach[mi], spec, sizeof spec, &edges,
                             &r) != 0)
                    return 2;
                if (tty)
                    fprintf(stderr, "\r\033[K");
                char note[160] = "";
                if (r.shared[0])
                    snprintf(note, sizeof note, "Scotch put two ranks on one core "
                             "(strategy:cores) %s%s", r.shared,
                             r.found ? "" : "; no valid Scotch mapping");
                nshared += r.shared[0] != 0;
                if (!r.found) {
                    printf(o.markdown ? "| %s | %d | %s | %lld | %s | | | | | | | | | | | | %s |\n"
                                      : "%-11s %5d %-31s %6lld  %-18s  %s\n",
                           o.fam[fi]->name, o.size[si], spec, edges, r.algo, note);
                    continue;
                }
                hc_map_cost sc = r.best;
                double a = r.hc.max / sc.max, b = r.hc.sum / sc.sum;
                int worse_max = hc_map_cost_less(sc.max, r.hc.max);
                int worse_sum = r.hc.sum > SUM_SLACK * sc.sum;
                size_t l = strlen(note);
                snprintf(note + l, sizeof note - l, "%s%s%s",
                         l && (worse_max || worse_sum) ? "; " : "", worse_max ? "MAX WORSE " : "",
                         worse_sum ? "SUM >5% WORSE" : "");
                row(&o, o.fam[fi]->name, o.size[si], spec, edges, &r, note);
                /* at the bound, no mapping has a lower max: a tie there cannot be broken */
                int at_bound = r.bound > 0 && !hc_map_cost_less(r.bound, sc.max);
                nat_bound += at_bound;
                ntie_at_bound += at_bound && !hc_map_cost_less(r.hc.max, sc.max);
                rmax[nok] = a;
                rsum[nok++] = b;
                nworse_max += worse_max;
                nworse_sum += worse_sum;
                nabove_lowest += r.hc.sum > SUM_SLACK * r.lowest_sum;
                hc_cpu += r.hc_cpu;
                sc_cpu += r.sc_cpu;
                if (a > worst_max) {
                    worst_max = a;
                    snprintf(worst_max_at, sizeof worst_max_at, "%s, %d ranks, %s",
                             o.fam[fi]->name, o.size[si], spec);
                }
                if (b > worst_sum) {
                    worst_sum = b;
                    snprintf(worst_sum_at, sizeof worst_sum_at, "%s, %d ranks, %s",
                             o.fam[fi]->name, o.size[si], spec);
                }
            }
    double geo_max = 0, geo_sum = 0;
    int nbetter = 0, ntie = 0;
    for (int k = 0; k < nok; k++) {
        geo_max += log(rmax[k]) / nok;
        geo_sum += log(rsum[k]) / nok;
        nbetter += rmax[k] < 1 && hc_map_cost_less(rmax[k], 1);
        ntie += !hc_map_cost_less(rmax[k], 1) && !hc_map_cost_less(1, rmax[k]);
    }
    double med_max = median(rmax, nok), med_sum = median(rsum, nok);
    int ok = nok > 0 && nworse_max == 0 && nworse_sum == 0 && med_max < 1;
    printf("\n%d cases; in %d of them some Scotch strategy put two ranks on one core (that "
           "mapping is not counted).\n"
           "hiercoll/Scotch on the max: median %.3f, geometric mean %.3f, worst %.3f (%s);\n"
           "  better in %d cases, equal in %d, worse in %d.\n"
           "Scotch's max is at the lower bound in %d cases (%d of the equal ones): no mapping has "
           "a lower max there.\n"
           "hiercoll/Scotch on the sum: median %.3f, geometric mean %.3f, worst %.3f (%s);\n"
           "  %d cases more than 5%% worse (%d more than 5%% above the lowest sum of any Scotch "
           "strategy).\n"
           "CPU: hiercoll %.1f s, Scotch %.1f s (all strategies).\n%s\n",
           nok, nshared, med_max, exp(geo_max), worst_max, worst_max_at, nbetter, ntie,
           nworse_max, nat_bound, ntie_at_bound, med_sum, exp(geo_sum), worst_sum, worst_sum_at,
           nworse_sum, nabove_lowest, hc_cpu, sc_cpu,
           ok ? "Verdict: hiercoll is no worse on the max, within 5% on the sum, better on the max "
                "in the median."
              : "Verdict: NOT met (see the rows marked WORSE, or the median).");
    free(rmax);
    free(rsum);
    return ok ? 0 : 1;
}
