/* Scotch's static mapping (libscotch 7: dual recursive bipartitioning of graph and machine,
 * multilevel k-way refinement) onto the tree as a tleaf target: one candidate of `auto`.
 * Scotch minimises the sum of weight x distance only; hiercoll's refinement and choice
 * take it from there. Scotch's own random state is kept in a context seeded from the seed,
 * so results repeat, and it runs in the calling thread. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hc_map.h"
#include "hc_partitioners.h"

/* gmap's default (quality first, 5% imbalance, which sometimes shares a core), the same
 * without imbalance, balance enforced, recursive bipartitioning only, and the last two with
 * each level's own cost. Every one of them wins somewhere (docs/algorithms-mapping.md). */
const hc_scotch_strategy hc_scotch_strategies[] = {
    {"q", SCOTCH_STRATQUALITY, 0.05, 1},   {"q0", SCOTCH_STRATQUALITY, 0, 1},
    {"b0", SCOTCH_STRATBALANCE, 0, 1},     {"r0", SCOTCH_STRATRECURSIVE, 0, 1},
    {"qa0", SCOTCH_STRATQUALITY, 0, 0},    {"ra0", SCOTCH_STRATRECURSIVE, 0, 0},
};
const int hc_nscotch_strategies = sizeof hc_scotch_strategies / sizeof hc_scotch_strategies[0];

int hc_map_tleaf(const hc_machine *m, int cumulative, hc_tleaf *t)
{
    memset(t, 0, sizeof *t);
    if (m->matrix || m->nlevels == 0)
        return -1;
    double fastest = 0;
    int lev[HC_MACHINE_MAX_LEVELS];
    for (int l = 0; l < m->nlevels; l++)
        if (m->arity[l] > 1) { /* Scotch wants at least 2; a level of 1 joins nothing */
            lev[t->n++] = l;
            fastest = m->bw[l] > fastest ? m->bw[l] : fastest;
        }
    for (int k = 0; k < t->n; k++) {
        /* cost 10 at the fastest level: integers with a resolution of 10% */
        double c = 10 * fastest / m->bw[lev[k]];
        double below = cumulative && k + 1 < t->n ? 10 * fastest / m->bw[lev[k + 1]] : 0;
        long long v = llround(c - below);
        t->size[k] = m->arity[lev[k]];
        t->link[k] = v < 1 ? 1 : (int)v;
        t->dist += cumulative ? t->link[k] : 0;
        if (!cumulative && t->link[k] > t->dist)
            t->dist = t->link[k];
    }
    return t->n > 0 ? 0 : -1;
}

double hc_map_scotch_scale(const hc_graph *g, const hc_machine *m)
{
    hc_tleaf own, summed;
    int dist = 1;
    if (hc_map_tleaf(m, 0, &own) == 0 && hc_map_tleaf(m, 1, &summed) == 0)
        dist = own.dist > summed.dist ? own.dist : summed.dist;
    double wmax = 0, total = 0;
    for (long long e = 0; e < g->xadj[g->n]; e++) {
        wmax = g->adjwgt[e] > wmax ? g->adjwgt[e] : wmax;
        total += g->adjwgt[e];
    }
    if (wmax <= 0)
        return 1;
    /* resolution of 1e-4 of the heaviest edge, unless Scotch's 32-bit sums of weight x
     * distance could overflow */
    double scale = 10000 / wmax, limit = 1e9 / ((double)dist * total);
    return scale < limit ? scale : limit;
}

long long hc_map_scotch_weight(double w, double scale)
{
    long long v = llround(w * scale);
    return v < 1 ? 1 : v;
}

int hc_map_scotch(const hc_graph *g, const hc_machine *m, unsigned seed, int strategy, int *map)
{
    int M = g->n, N = m->ncores, navail = hc_machine_navail(m), rc = -1;
    hc_tleaf t;
    if (strategy < 0 || strategy >= hc_nscotch_strategies)
        return -1;
    const hc_scotch_strategy *st = &hc_scotch_strategies[strategy];
    if (navail < M || hc_map_tleaf(m, st->cumulative, &t) != 0)
        return -1;
    if (M == 0)
        return 0;
    const hc_scotch_fns *scotch = hc_scotch();
    if (!scotch)
        return -1;
    long long nadj = g->xadj[M];
    double scale = hc_map_scotch_scale(g, m);
    SCOTCH_Num *vert = malloc(sizeof(SCOTCH_Num) * ((size_t)M + 1));
    SCOTCH_Num *edge = malloc(sizeof(SCOTCH_Num) * (size_t)(nadj ? nadj : 1));
    SCOTCH_Num *wgt = malloc(sizeof(SCOTCH_Num) * (size_t)(nadj ? nadj : 1));
    SCOTCH_Num *part = malloc(sizeof(SCOTCH_Num) * (size_t)M);
    SCOTCH_Num *cores = malloc(sizeof(SCOTCH_Num) * (size_t)N);
    SCOTCH_Num sizes[HC_MACHINE_MAX_LEVELS], links[HC_MACHINE_MAX_LEVELS];
    if (!vert || !edge || !wgt || !part || !cores || nadj > 0x7fffffff)
        goto out;
    for (int v = 0; v <= M; v++)
        vert[v] = (SCOTCH_Num)g->xadj[v];
    for (long long e = 0; e < nadj; e++) {
        edge[e] = g->adjncy[e];
        wgt[e] = (SCOTCH_Num)hc_map_scotch_weight(g->adjwgt[e], scale);
    }
    for (int k = 0; k < t.n; k++) {
        sizes[k] = t.size[k];
        links[k] = t.link[k];
    }
    int navailable = 0;
    for (int c = 0; c < N; c++)
        if (m->avail[c])
            cores[navailable++] = c;

    SCOTCH_Context ctx;
    SCOTCH_Graph graph, bound;
    SCOTCH_Arch tree, sub;
    SCOTCH_Strat strat;
    int have_ctx = scotch->SCOTCH_contextInit(&ctx) == 0, have_graph = 0, have_bound = 0;
    int have_tree = 0, have_sub = 0, have_strat = 0;
    if (!have_ctx)
        goto out;
    scotch->SCOTCH_contextOptionSetNum(&ctx, SCOTCH_OPTIONNUMDETERMINISTIC, 1);
    scotch->SCOTCH_contextRandomSeed(&ctx, (SCOTCH_Num)(seed & 0x7fffffff));
    have_graph = scotch->SCOTCH_graphInit(&graph) == 0;
    have_tree = have_graph && scotch->SCOTCH_archInit(&tree) == 0;
    have_strat = have_tree && scotch->SCOTCH_stratInit(&strat) == 0;
    if (!have_strat || scotch->SCOTCH_contextThreadSpawn(&ctx, 1, NULL) != 0 ||
        scotch->SCOTCH_graphBuild(&graph, 0, M, vert, NULL, NULL, NULL, (SCOTCH_Num)nadj, edge,
                                  wgt) != 0 ||
        scotch->SCOTCH_graphInit(&bound) != 0)
        goto done;
    have_bound = 1;
    if (scotch->SCOTCH_contextBindGraph(&ctx, &graph, &bound) != 0 ||
        scotch->SCOTCH_archTleaf(&tree, t.n, sizes, links) != 0)
        goto done;
    SCOTCH_Arch *target = &tree;
    if (navailable < N) { /* a partly occupied machine: the free cores only */
        if (scotch->SCOTCH_archInit(&sub) != 0)
            goto done;
        have_sub = 1;
        if (scotch->SCOTCH_archSub(&sub, &tree, navailable, cores) != 0)
            goto done;
        target = &sub;
    }
    if (scotch->SCOTCH_stratGraphMapBuild(&strat, st->flags, navailable, st->balance) != 0 ||
        scotch->SCOTCH_graphMap(&bound, target, &strat, part) != 0)
        goto done;
    rc = 0;
    for (int v = 0; v < M && rc == 0; v++) {
        if (part[v] < 0 || part[v] >= navailable)
            rc = -1;
        else
            map[v] = cores[part[v]];
    }
    if (rc == 0)
        rc = hc_map_make_injective(m, map, M);
done:
    if (have_bound)
        scotch->SCOTCH_graphExit(&bound);
    if (have_sub)
        scotch->SCOTCH_archExit(&sub);
    if (have_strat)
        scotch->SCOTCH_stratExit(&strat);
    if (have_tree)
        scotch->SCOTCH_archExit(&tree);
    if (have_graph)
        scotch->SCOTCH_graphExit(&graph);
    scotch->SCOTCH_contextExit(&ctx);
out:
    free(vert);
    free(edge);
    free(wgt);
    free(part);
    free(cores);
    return rc;
}
