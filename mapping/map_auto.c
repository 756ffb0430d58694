/* Algorithm selection: names, and `auto` = every applicable algorithm, each refined, the
 * lowest maximum (then sum) wins. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hc_map.h"

static const char *const names[] = {"auto", "tmmgp", "tmgt", "tml", "tmrr", "tmmgp-paper"};

int hc_map_algo_parse(const char *s)
{
    for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
        if (!strcmp(s, names[i]))
            return i;
    return -1;
}

const char *hc_map_algo_name(hc_map_algo a) { return names[a]; }

static int run_one(const hc_graph *g, const hc_machine *m, hc_map_algo a, unsigned seed,
                   int *map)
{
    switch (a) {
    case HC_MAPALGO_TMMGP: return hc_map_tmmgp(g, m, seed, map);
    case HC_MAPALGO_TMMGP_PAPER: return hc_map_tmmgp_paper(g, m, seed, map);
    case HC_MAPALGO_TMGT: return hc_map_tmgt(g, m, map);
    case HC_MAPALGO_TML: return hc_map_tml(g, m, map);
    case HC_MAPALGO_TMRR: return hc_map_tmrr(g, m, map);
    default: return -1;
    }
}

int hc_map_compute(const hc_graph *g, const hc_machine *m, hc_map_algo algo, unsigned seed,
                   int *map, char *name, size_t namelen, char *err, size_t errlen)
{
    int M = g->n, navail = hc_machine_navail(m);
    if (navail < M) {
        snprintf(err, errlen, "%d ranks but only %d available cores", M, navail);
        return -1;
    }
    if (algo != HC_MAPALGO_AUTO) {
        if (run_one(g, m, algo, seed, map) != 0) {
            snprintf(err, errlen, "%s is not applicable to this machine%s", names[algo],
                     m->matrix ? " (a bandwidth matrix has no tree to partition)" : "");
            return -1;
        }
        snprintf(name, namelen, "%s", names[algo]);
        return 0;
    }
    /* Every applicable algorithm; those with the lowest maxima are refined (all of them on
     * small graphs, where refinement is cheap; two, then one, on large ones), then the
     * lowest max, then sum, wins. */
    static const hc_map_algo tries[] = {HC_MAPALGO_TMMGP, HC_MAPALGO_TMMGP_PAPER,
                                        HC_MAPALGO_TMGT, HC_MAPALGO_TML, HC_MAPALGO_TMRR};
    enum { NT = sizeof tries / sizeof tries[0] };
    int *cand[NT] = {0};
    hc_map_cost raw[NT];
    int ok[NT] = {0}, found = 0;
    int nrefine = g->xadj[M] <= 200000 ? NT : g->xadj[M] <= 1000000 ? 2 : 1;
    hc_map_cost best = {0, 0};
    for (int t = 0; t < NT; t++) {
        cand[t] = malloc(sizeof(int) * (size_t)(M ? M : 1));
        if (!cand[t])
            break;
        ok[t] = run_one(g, m, tries[t], seed, cand[t]) == 0;
        if (ok[t])
            raw[t] = hc_map_cost_eval(g, m, cand[t]);
    }
    for (int t = 0; t < NT; t++) {
        if (!ok[t])
            continue;
        int better = 0; /* candidates with a lower raw max (earlier ones win ties) */
        for (int u = 0; u < NT; u++)
            better += ok[u] && (raw[u].max < raw[t].max || (raw[u].max == raw[t].max && u < t));
        int refined = better < nrefine;
        hc_map_cost c = raw[t];
        if (refined) {
            hc_map_refine(g, m, seed, cand[t]);
            c = hc_map_cost_eval(g, m, cand[t]);
        }
        if (!found || c.max < best.max || (c.max == best.max && c.sum < best.sum)) {
            best = c;
            found = 1;
            memcpy(map, cand[t], sizeof(int) * (size_t)M);
            snprintf(name, namelen, "%s%s", names[tries[t]], refined ? "+refine" : "");
        }
    }
    for (int t = 0; t < NT; t++)
        free(cand[t]);
    if (!found) {
        snprintf(err, errlen, "no algorithm could map this graph");
        return -1;
    }
    return 0;
}
