/* Algorithm selection: names, and `auto` = every applicable algorithm, refined, the one
 * hc_map_cost_pick prefers, held to Scotch's best strategy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hc_map.h"
#include "hc_partitioners.h"
#include "hc_util.h"

static const char *const names[] = {"auto", "tmmgp", "tmgt", "tml",
                                    "tmrr", "tmmgp-paper", "tmmgp-bisect", "scotch"};

int hc_map_algo_parse(const char *s)
{
    for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
        if (!strcmp(s, names[i]))
            return i;
    return -1;
}

const char *hc_map_algo_name(hc_map_algo a) { return names[a]; }

static int run_one(const hc_graph *g, const hc_machine *m, hc_map_algo a, unsigned seed,
                   int variant, int *map)
{
    switch (a) {
    case HC_MAPALGO_TMMGP: return hc_map_tmmgp(g, m, seed, variant, map);
    case HC_MAPALGO_TMMGP_PAPER: return hc_map_tmmgp_paper(g, m, seed, map);
    case HC_MAPALGO_TMMGP_BISECT: return hc_map_tmmgp_bisect(g, m, seed, variant, map);
    case HC_MAPALGO_TMGT: return hc_map_tmgt(g, m, map);
    case HC_MAPALGO_TML: return hc_map_tml(g, m, map);
    case HC_MAPALGO_TMRR: return hc_map_tmrr(g, m, map);
    case HC_MAPALGO_SCOTCH: return hc_map_scotch(g, m, seed, variant, map);
    default: return -1;
    }
}

/* Why an algorithm's library cannot be opened (NULL: it needs none, or it opened). */
static const char *missing_library(hc_map_algo a)
{
    if (a == HC_MAPALGO_TMMGP || a == HC_MAPALGO_TMMGP_PAPER || a == HC_MAPALGO_TMMGP_BISECT)
        return hc_metis() ? NULL : hc_metis_error();
    return a == HC_MAPALGO_SCOTCH && !hc_scotch() ? hc_scotch_error() : NULL;
}

/* The winner refined once more, a move that takes ranks off the maximum now free to raise the
 * sum up to the reference's allowance (HC_MAP_REF_SUM_SLACK above Scotch's): on irregular
 * graphs the max drops by up to 16% (docs/algorithms-mapping.md, "The trade"). Refined on a
 * copy, since moves that raise the sum may still leave the max where it was; kept only if the
 * max is lower, and then 1 is returned. */
static int trade_for_max(const hc_graph *g, const hc_machine *m, unsigned seed, hc_map_cost ref,
                         int *map, hc_map_cost *cost)
{
    int *traded = malloc(sizeof(int) * (size_t)(g->n ? g->n : 1));
    if (!traded)
        return 0;
    memcpy(traded, map, sizeof(int) * (size_t)g->n);
    hc_map_refine_capped(g, m, seed, ref.sum * (1 + HC_MAP_REF_SUM_SLACK), traded);
    hc_map_cost c = hc_map_cost_eval(g, m, traded);
    int lower = hc_map_cost_less(c.max, cost->max);
    if (lower) {
        memcpy(map, traded, sizeof(int) * (size_t)g->n);
        *cost = c;
    }
    free(traded);
    return lower;
}

/* One way to map: an algorithm, its seed and (Scotch) its strategy. */
typedef struct {
    hc_map_algo algo;
    unsigned seed;
    int variant;
} hc_candidate;

int hc_map_compute(const hc_graph *g, const hc_machine *m, hc_map_algo algo, unsigned seed,
                   int *map, char *name, size_t namelen, char *err, size_t errlen)
{
    int M = g->n, navail = hc_machine_navail(m);
    if (navail < M) {
        snprintf(err, errlen, "%d ranks but only %d available cores", M, navail);
        return -1;
    }
    if (algo != HC_MAPALGO_AUTO) {
        if (run_one(g, m, algo, seed, 0, map) < 0) {
            const char *why = missing_library(algo);
            if (why) {
                snprintf(err, errlen, "%s needs a library that cannot be opened: %s",
                         names[algo], why);
                return -1;
            }
            snprintf(err, errlen, "%s is not applicable to this machine%s", names[algo],
                     m->matrix ? " (a bandwidth matrix has no tree to partition)" : "");
            return -1;
        }
        snprintf(name, namelen, "%s", names[algo]);
        return 0;
    }
    /* Every applicable algorithm: TMMGP from several seeds, once as METIS partitions, once
     * keeping the least cutting of NCUTS partitionings at every split (compact blocks on grids
     * that a single partitioning misses: docs/algorithms-mapping.md) and once by bisections
     * that break ties in the cut by the max (NBISECTIONS tries each), and every Scotch strategy
     * while the graph is small enough; fewer of them on large graphs (16 384 ranks and a
     * million edges stay under 10 s of CPU). The most promising candidates are refined (eight,
     * then two, then one: refining every candidate gained 0.3% on the max for twice the
     * time), then hc_map_cost_pick chooses, held to the best of Scotch's own mappings: no
     * higher max, at most 5% more traffic (the reference's own candidate, refined or not,
     * always qualifies). */
    enum { NSTARTS = 4, NCUTS = 8, NBISECTIONS = 4, NSCOTCH = 8, NT = 3 * NSTARTS + NSCOTCH + 4 };
    hc_candidate c[NT];
    long long adj = g->xadj[M];
    int small = adj <= 200000, nt = 0;
    int nstarts = adj <= 50000 ? NSTARTS : small ? 2 : 1;
    int nbestcut = adj <= 50000 ? NSTARTS : small ? 1 : 0;
    int nscotch = small ? HC_MIN(hc_nscotch_strategies, NSCOTCH) : 1;
    for (int k = 0; k < nstarts; k++)
        c[nt++] = (hc_candidate){HC_MAPALGO_TMMGP, seed + 7919u * (unsigned)k, 1};
    for (int k = 0; k < nbestcut; k++)
        c[nt++] = (hc_candidate){HC_MAPALGO_TMMGP, seed + 104729u * (unsigned)(k + 1), NCUTS};
    for (int k = 0; k < nscotch; k++)
        c[nt++] = (hc_candidate){HC_MAPALGO_SCOTCH, seed, k};
    for (int k = 0; k < nbestcut; k++)
        c[nt++] = (hc_candidate){HC_MAPALGO_TMMGP_BISECT, seed + 15485863u * (unsigned)k,
                                 NBISECTIONS};
    if (small)
        c[nt++] = (hc_candidate){HC_MAPALGO_TMMGP_PAPER, seed, 0};
    c[nt++] = (hc_candidate){HC_MAPALGO_TMGT, seed, 0};
    c[nt++] = (hc_candidate){HC_MAPALGO_TML, seed, 0};
    c[nt++] = (hc_candidate){HC_MAPALGO_TMRR, seed, 0};
    int *cand[NT] = {0};
    hc_map_cost raw[NT], cost[NT];
    hc_map_cost ref = {0, 0};
    int ok[NT] = {0}, pending[NT], refined[NT] = {0}, have_ref = 0;
    int nrefine = small ? 8 : adj <= 1000000 ? 2 : 1;
    for (int t = 0; t < nt; t++) {
        cand[t] = malloc(sizeof(int) * (size_t)(M ? M : 1));
        int moved = cand[t] ? run_one(g, m, c[t].algo, c[t].seed, c[t].variant, cand[t]) : -1;
        ok[t] = moved >= 0;
        if (ok[t])
            raw[t] = cost[t] = hc_map_cost_eval(g, m, cand[t]);
        pending[t] = ok[t];
        /* the reference: Scotch's best strategy as Scotch maps (none that shares a core) */
        if (ok[t] && moved == 0 && c[t].algo == HC_MAPALGO_SCOTCH &&
            (!have_ref || hc_map_cost_better(raw[t], ref)))
            ref = raw[t], have_ref = 1;
    }
    /* the candidates auto would pick unrefined are the ones worth refining */
    for (int k = 0; k < nrefine; k++) {
        int t = hc_map_cost_pick(raw, pending, nt, NULL);
        if (t < 0)
            break;
        pending[t] = 0;
        refined[t] = 1;
        hc_map_refine(g, m, seed, cand[t]);
        cost[t] = hc_map_cost_eval(g, m, cand[t]);
    }
    int win = hc_map_cost_pick(cost, ok, nt, have_ref ? &ref : NULL), found = win >= 0;
    int traded =
        found && have_ref && small && trade_for_max(g, m, seed, ref, cand[win], &cost[win]);
    if (found) {
        memcpy(map, cand[win], sizeof(int) * (size_t)M);
        char variant[32] = "";
        if (c[win].algo == HC_MAPALGO_SCOTCH)
            snprintf(variant, sizeof variant, "-%s", hc_scotch_strategies[c[win].variant].label);
        else if (c[win].algo == HC_MAPALGO_TMMGP && c[win].variant > 1)
            snprintf(variant, sizeof variant, "-ncuts%d", c[win].variant);
        snprintf(name, namelen, "%s%s%s%s", names[c[win].algo], variant,
                 refined[win] ? "+refine" : "", traded ? "+trade" : "");
    }
    for (int t = 0; t < nt; t++)
        free(cand[t]);
    if (!found) {
        snprintf(err, errlen, "no algorithm could map this graph");
        return -1;
    }
    return 0;
}
