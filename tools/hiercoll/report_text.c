/* hiercoll report: the text summary and its --json form. */
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "report.h"

#define TOP_PAIRS 10
#define TOP_SITES 15
#define TOP_RANKS 16

typedef struct totals {
    double p2p, coll, level[REP_NLEVELS];
    double mapped_network; /* bytes between hosts with the mapping's placement, -1 if none */
    double tmin, tmed, tmax, tmean;
    int rmin, rmax;
} totals;

static int dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void compute(const rep_profile *p, totals *t)
{
    memset(t, 0, sizeof *t);
    t->mapped_network = p->has_mapping ? 0 : -1;
    for (long long i = 0; i < p->npairs; i++) {
        const rep_pair *x = &p->pairs[i];
        t->p2p += (double)x->p2p;
        t->coll += (double)x->coll;
        t->level[rep_level(p, x->s, x->r)] += (double)x->total;
        if (p->has_mapping && strcmp(p->map.host[x->s], p->map.host[x->r]) != 0)
            t->mapped_network += (double)x->total;
    }
    double *v = malloc(sizeof(double) * (size_t)p->nranks), sum = 0;
    for (int r = 0; r < p->nranks; r++) {
        v[r] = p->ranks[r].mpi_us;
        sum += v[r];
        if (v[r] < p->ranks[t->rmin].mpi_us)
            t->rmin = r;
        if (v[r] > p->ranks[t->rmax].mpi_us)
            t->rmax = r;
    }
    qsort(v, (size_t)p->nranks, sizeof *v, dbl_cmp);
    t->tmin = v[0];
    t->tmax = v[p->nranks - 1];
    t->tmed = v[p->nranks / 2];
    t->tmean = sum / p->nranks;
    free(v);
}

/* Ranks by MPI time, descending (caller frees). */
static const rep_profile *rank_base;
static int rank_time_cmp(const void *a, const void *b)
{
    double x = rank_base->ranks[*(const int *)a].mpi_us, y = rank_base->ranks[*(const int *)b].mpi_us;
    if (x != y)
        return x > y ? -1 : 1;
    return *(const int *)a - *(const int *)b;
}
static int *ranks_by_time(const rep_profile *p)
{
    int *o = malloc(sizeof(int) * (size_t)p->nranks);
    for (int r = 0; r < p->nranks; r++)
        o[r] = r;
    rank_base = p;
    qsort(o, (size_t)p->nranks, sizeof *o, rank_time_cmp);
    return o;
}

static const char *base(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

void rep_text(const rep_profile *p, FILE *out)
{
    totals t;
    compute(p, &t);
    char b1[32], b2[32], b3[32];
    double all = t.p2p + t.coll;
    fprintf(out, "Profile %s: %d ranks on %d host%s\n", p->dir, p->nranks, p->nhosts,
            p->nhosts == 1 ? "" : "s");
    fprintf(out, "bytes: %s point-to-point, %s collective, %s in all; %lld pairs with traffic\n",
            rep_bytes(t.p2p, b1, sizeof b1), rep_bytes(t.coll, b2, sizeof b2),
            rep_bytes(all, b3, sizeof b3), p->npairs);

    fprintf(out, "\nBytes per hierarchy level, as run\n");
    for (int l = REP_NLEVELS - 1; l >= 0; l--)
        fprintf(out, "  %-24s %12s %6.1f%%\n", rep_level_names[l],
                rep_bytes(t.level[l], b1, sizeof b1), all > 0 ? 100 * t.level[l] / all : 0.0);

    fprintf(out, "\nTop pairs by bytes\n  %6s    %-6s %12s %12s %12s %9s  %s\n", "sender",
            "recv", "total", "p2p", "collective", "messages", "level");
    long long *top = rep_top_pairs(p);
    for (long long i = 0; top && i < p->npairs && i < TOP_PAIRS; i++) {
        const rep_pair *x = &p->pairs[top[i]];
        char m[24] = "-";
        if (x->msgs >= 0)
            snprintf(m, sizeof m, "%lld", x->msgs);
        fprintf(out, "  %6d -> %-6d %12s %12s %12s %9s  %s\n", x->s, x->r,
                rep_bytes((double)x->total, b1, sizeof b1), rep_bytes((double)x->p2p, b2, sizeof b2),
                rep_bytes((double)x->coll, b3, sizeof b3), m, rep_level_names[rep_level(p, x->s, x->r)]);
    }
    free(top);

    fprintf(out, "\nTime in MPI per rank: min %.1f ms (rank %d), median %.1f ms, max %.1f ms "
                 "(rank %d), imbalance max/mean %.2f\n",
            t.tmin / 1e3, t.rmin, t.tmed / 1e3, t.tmax / 1e3, t.rmax,
            t.tmean > 0 ? t.tmax / t.tmean : 0.0);
    int *o = ranks_by_time(p);
    fprintf(out, "  %6s  %-20s %5s %5s %12s %10s\n", "rank", "host", "core", "numa", "mpi_ms",
            "calls");
    for (int i = 0; i < p->nranks && i < TOP_RANKS; i++) {
        const rep_rank *k = &p->ranks[o[i]];
        fprintf(out, "  %6d  %-20s %5d %5d %12.1f %10lld\n", o[i], k->host, k->core, k->numa,
                k->mpi_us / 1e3, k->calls);
    }
    if (p->nranks > TOP_RANKS)
        fprintf(out, "  (%d more ranks in ranks.csv)\n", p->nranks - TOP_RANKS);
    free(o);

    if (p->nsites) {
        fprintf(out, "\nCall sites by time (all ranks)\n  %4s  %-16s %10s %12s %12s  %s\n", "site",
                "MPI function", "calls", "bytes", "time_ms", "caller at file:line");
        for (int i = 0; i < p->nsites && i < TOP_SITES; i++) {
            const rep_site *s = &p->sites[i];
            fprintf(out, "  %4d  %-16s %10lld %12s %12.1f  %s at %s\n", s->id, s->fn, s->calls,
                    rep_bytes((double)s->bytes, b1, sizeof b1), s->time_us / 1e3, s->func,
                    base(s->where));
        }
        if (p->nsites > TOP_SITES)
            fprintf(out, "  (%d more in callsites.csv)\n", p->nsites - TOP_SITES);
    }

    if (p->nlearned) {
        /* What the run learned (tuning.txt): the choice per site, against the vendor's time
         * where the vendor was one of those tried. */
        fprintf(out, "\nLearned choices (tuning.txt; the next run starts from them)\n"
                     "  %-9s %-11s %5s %4s %8s  %-10s %9s %9s %6s  %s\n",
                "coll", "bytes", "ranks", "root", "calls", "algorithm", "time_us", "vendor_us",
                "ratio", "site");
        for (int i = 0; i < p->nlearned; i++) {
            const rep_learned *l = &p->learned[i];
            char root[16] = "-", ratio[16] = "-", vendor[16] = "-";
            if (l->root >= 0)
                snprintf(root, sizeof root, "%d", l->root);
            if (l->vendor_us > 0) {
                snprintf(vendor, sizeof vendor, "%.1f", l->vendor_us);
                snprintf(ratio, sizeof ratio, "%.2f", l->time_us / l->vendor_us);
            }
            fprintf(out, "  %-9s %-11s %5d %4s %8lld  %-10s %9.1f %9s %6s  %s at %s\n", l->coll,
                    l->bytes, l->ranks, root, l->calls, l->algo, l->time_us, vendor, ratio,
                    l->site.module[0] ? l->site.func : "-",
                    l->site.module[0] ? base(l->site.where) : "-");
            fprintf(out, "  %-9s tried: %s\n", "", l->others[0] ? l->others : "-");
        }
    }

    if (p->has_mapping) {
        fprintf(out, "\nRecommended mapping (mapping.txt): algorithm %s\n", p->map.algorithm);
        fprintf(out, "  bytes between nodes: %s as run (%.1f%%), %s with the mapping (%.1f%%)\n",
                rep_bytes(t.level[REP_LVL_NETWORK], b1, sizeof b1),
                all > 0 ? 100 * t.level[REP_LVL_NETWORK] / all : 0.0,
                rep_bytes(t.mapped_network, b2, sizeof b2),
                all > 0 ? 100 * t.mapped_network / all : 0.0);
        fprintf(out, "  %-10s %14s %14s\n", "cost", "max (s)", "sum (s)");
        for (int c = 0; c < p->map.ncosts; c++)
            fprintf(out, "  %-10s %14.6g %14.6g\n", p->map.cost[c].label, p->map.cost[c].max,
                    p->map.cost[c].sum);
    } else {
        fprintf(out, "\nNo mapping.txt in this profile.\n");
    }
}

void rep_json(const rep_profile *p, FILE *out)
{
    totals t;
    compute(p, &t);
    fprintf(out, "{\"dir\": ");
    hc_json_str(out, p->dir);
    fprintf(out, ", \"ranks\": %d, \"hosts\": %d, \"pairs\": %lld,\n", p->nranks, p->nhosts,
            p->npairs);
    fprintf(out, " \"bytes\": {\"p2p\": %.0f, \"collective\": %.0f, \"total\": %.0f},\n", t.p2p,
            t.coll, t.p2p + t.coll);
    fprintf(out, " \"levels\": {\"numa\": %.0f, \"node\": %.0f, \"network\": %.0f},\n",
            t.level[REP_LVL_NUMA], t.level[REP_LVL_NODE], t.level[REP_LVL_NETWORK]);
    fprintf(out, " \"mpi_time_us\": {\"min\": %.3f, \"median\": %.3f, \"max\": %.3f, "
                 "\"max_rank\": %d},\n",
            t.tmin, t.tmed, t.tmax, t.rmax);
    fprintf(out, " \"top_pairs\": [");
    long long *top = rep_top_pairs(p);
    for (long long i = 0; top && i < p->npairs && i < TOP_PAIRS; i++) {
        const rep_pair *x = &p->pairs[top[i]];
        fprintf(out, "%s\n  {\"sender\": %d, \"receiver\": %d, \"total\": %lld, \"p2p\": %lld, "
                     "\"collective\": %lld, \"messages\": %lld}",
                i ? "," : "", x->s, x->r, x->total, x->p2p, x->coll, x->msgs);
    }
    free(top);
    fprintf(out, "],\n \"callsites\": [");
    for (int i = 0; i < p->nsites; i++) {
        const rep_site *s = &p->sites[i];
        fprintf(out, "%s\n  {\"site\": %d, \"function\": ", i ? "," : "", s->id);
        hc_json_str(out, s->fn);
        fprintf(out, ", \"calls\": %lld, \"bytes\": %lld, \"time_us\": %.3f, \"caller\": ",
                s->calls, s->bytes, s->time_us);
        hc_json_str(out, s->func);
        fprintf(out, ", \"where\": ");
        hc_json_str(out, s->where);
        fprintf(out, "}");
    }
    fprintf(out, "],\n \"mapping\": ");
    if (p->has_mapping) {
        fprintf(out, "{\"network_bytes\": %.0f, \"algorithm\": ", t.mapped_network);
        hc_json_str(out, p->map.algorithm);
        fprintf(out, ", \"costs\": [");
        for (int c = 0; c < p->map.ncosts; c++) {
            fprintf(out, "%s{\"label\": ", c ? ", " : "");
            hc_json_str(out, p->map.cost[c].label);
            fprintf(out, ", \"max\": %.9g, \"sum\": %.9g}", p->map.cost[c].max, p->map.cost[c].sum);
        }
        fprintf(out, "]}");
    } else {
        fprintf(out, "null");
    }
    fprintf(out, "\n}\n");
}
