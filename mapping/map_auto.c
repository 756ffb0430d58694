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
    static const hc_map_algo tries[] = {HC_MAPALGO_TMMGP, HC_MAPALGO_TMMGP_PAPER,
                                        HC_MAPALGO_TMGT, HC_MAPALGO_TML, HC_MAPALGO_TMRR};
    int *cand = malloc(sizeof(int) * (size_t)(M ? M : 1));
    hc_map_cost best = {0, 0};
    int found = 0;
    if (!cand) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t t = 0; t < sizeof tries / sizeof tries[0]; t++) {
        if (run_one(g, m, tries[t], seed, cand) != 0)
            continue;
        hc_map_refine(g, m, seed, cand);
        hc_map_cost c = hc_map_cost_eval(g, m, cand);
        if (!found || c.max < best.max || (c.max == best.max && c.sum < best.sum)) {
            best = c;
            found = 1;
            memcpy(map, cand, sizeof(int) * (size_t)M);
            snprintf(name, namelen, "%s+refine", names[tries[t]]);
        }
    }
    free(cand);
    if (!found) {
        snprintf(err, errlen, "no algorithm could map this graph");
        return -1;
    }
    return 0;
}
