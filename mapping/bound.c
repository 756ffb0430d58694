/* A lower bound on the max objective: no mapping gives rank i a lower time than one that puts
 * its heaviest partners on the cores nearest to its own. Where a mapping's max equals the bound,
 * no mapping has a lower max, so the bound tells a tie that cannot be broken from one that
 * a better algorithm might. */
#include <stdlib.h>

#include "hc_map.h"

typedef struct {
    double bw;   /* bandwidth of this kind of neighbouring core */
    long long n; /* how many such cores some core may have */
} hc_slot;

static int by_bw_desc(const void *a, const void *b)
{
    double x = ((const hc_slot *)a)->bw, y = ((const hc_slot *)b)->bw;
    return (x < y) - (x > y);
}

static int by_value_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

/* The neighbour slots of the best-placed core, fastest first: on a tree, every core has
 * stride[l-1] - stride[l] cores meeting it at level l (counted whether available or not, which
 * only lowers the bound); on a matrix, the k-th slot is the highest k-th bandwidth of any
 * available core. NULL with no memory. */
static hc_slot *neighbour_slots(const hc_machine *m, int *nslots)
{
    if (!m->matrix) {
        hc_slot *s = malloc(sizeof *s * (size_t)(m->nlevels ? m->nlevels : 1));
        if (!s)
            return NULL;
        for (int l = 0; l < m->nlevels; l++) {
            long long above = l ? m->stride[l - 1] : m->ncores;
            s[l].bw = m->bw[l];
            s[l].n = above - m->stride[l];
        }
        qsort(s, (size_t)m->nlevels, sizeof *s, by_bw_desc);
        *nslots = m->nlevels;
        return s;
    }
    int N = m->ncores;
    hc_slot *s = calloc((size_t)(N > 1 ? N - 1 : 1), sizeof *s);
    double *row = malloc(sizeof *row * (size_t)N);
    if (!s || !row) {
        free(s);
        free(row);
        return NULL;
    }
    for (int p = 0; p < N; p++) {
        if (m->avail && !m->avail[p])
            continue;
        int k = 0;
        for (int q = 0; q < N; q++)
            if (q != p && (!m->avail || m->avail[q]))
                row[k++] = m->matrix[(size_t)p * (size_t)N + (size_t)q];
        qsort(row, (size_t)k, sizeof *row, by_value_desc);
        for (int j = 0; j < k; j++)
            if (row[j] > s[j].bw)
                s[j].bw = row[j];
    }
    int navail = hc_machine_navail(m);
    for (int j = 0; j < navail - 1; j++)
        s[j].n = 1;
    free(row);
    *nslots = navail > 1 ? navail - 1 : 0;
    return s;
}

/* The least time rank v can take when its edges to the ranks in cut[] cross the network (at
 * bw_cut) and every other partner sits as near as the slots allow. ends: the graph's edges
 * heaviest first (hc_graph_heaviest_first). */
static double rank_time(const hc_graph *g, const hc_adj_ent *ends, int v, const hc_slot *slot,
                        int nslots, const int *cut, int ncut, double bw_cut)
{
    double t = 0;
    long long used = 0;
    int s = 0;
    for (long long k = g->xadj[v]; k < g->xadj[v + 1]; k++) {
        int forced = 0;
        for (int c = 0; c < ncut && !forced; c++)
            forced = ends[k].v == cut[c];
        if (forced) {
            t += ends[k].w / bw_cut;
            continue;
        }
        while (s < nslots && used == slot[s].n)
            s++, used = 0;
        if (s == nslots)
            break; /* more partners than cores: cannot be mapped anyway */
        t += ends[k].w / slot[s].bw;
        used++;
    }
    return t;
}

/* Ranks connected to r (through any edges), marked comp[] = id; returns how many. */
static int mark_component(const hc_graph *g, int r, int id, int *comp, int *stack)
{
    int top = 0, size = 0;
    comp[r] = id;
    stack[top++] = r;
    while (top) {
        int v = stack[--top];
        size++;
        for (long long e = g->xadj[v]; e < g->xadj[v + 1]; e++)
            if (comp[g->adjncy[e]] < 0) {
                comp[g->adjncy[e]] = id;
                stack[top++] = g->adjncy[e];
            }
    }
    return size;
}

/* Common neighbours of an edge considered: more are left out, which only lowers the bound. */
#define HC_BOUND_MAX_COMMON 8

/* When a connected set of ranks outnumbers a node's cores, some edge (i, j) of it joins two
 * nodes. Each common neighbour of i and j sits on i's node or not (with j, or anywhere else,
 * which cuts as much), and every edge between the two sides crosses the network: the least,
 * over edges and over those choices, of the slowest of these ranks. A clique split across
 * nodes costs someone many network edges, so such a bound sees that the network edge goes
 * where the graph is thin. The search stops once it is at or below floor, which the result is
 * max()ed with anyway. */
static double cut_bound(const hc_graph *g, const hc_machine *m, const hc_slot *slot, int nslots,
                        const hc_adj_ent *ends, double floor)
{
    if (m->matrix || m->nlevels == 0 || m->arity[0] < 2)
        return 0;
    int n = g->n, node = m->stride[0];
    int *comp = malloc(sizeof *comp * (size_t)(n ? n : 1));
    int *stack = malloc(sizeof *stack * (size_t)(n ? n : 1));
    char *big = calloc((size_t)(n ? n : 1), 1);
    double best = -1;
    if (!comp || !stack || !big)
        goto out;
    for (int v = 0; v < n; v++)
        comp[v] = -1;
    for (int v = 0; v < n; v++)
        if (comp[v] < 0)
            big[v] = mark_component(g, v, v, comp, stack) > node;
    for (int i = 0; i < n && (best < 0 || best > floor); i++) {
        if (!big[comp[i]])
            continue;
        for (long long e = g->xadj[i]; e < g->xadj[i + 1] && (best < 0 || best > floor); e++) {
            int j = g->adjncy[e];
            if (j < i)
                continue;
            int set[2 + HC_BOUND_MAX_COMMON] = {i, j}, ns = 2;
            for (long long a = g->xadj[i], b = g->xadj[j];
                 a < g->xadj[i + 1] && b < g->xadj[j + 1] && ns < 2 + HC_BOUND_MAX_COMMON;) {
                if (g->adjncy[a] < g->adjncy[b])
                    a++;
                else if (g->adjncy[a] > g->adjncy[b])
                    b++;
                else
                    set[ns++] = g->adjncy[a], a++, b++;
            }
            double edge_best = -1;
            for (unsigned with_i = 0; with_i < 1u << (ns - 2); with_i++) {
                /* the ranks on i's node and the others; each side's edges to the other cross */
                int side[2][2 + HC_BOUND_MAX_COMMON], nside[2] = {1, 1};
                side[0][0] = i, side[1][0] = j;
                for (int k = 2; k < ns; k++) {
                    int s = !(with_i >> (k - 2) & 1);
                    side[s][nside[s]++] = set[k];
                }
                if (nside[0] > node)
                    continue; /* i's side is one node; j's may be several */
                double worst = 0;
                for (int s = 0; s < 2; s++)
                    for (int k = 0; k < nside[s] && (edge_best < 0 || worst < edge_best); k++) {
                        double t = rank_time(g, ends, side[s][k], slot, nslots, side[!s],
                                             nside[!s], m->bw[0]);
                        if (t > worst)
                            worst = t;
                    }
                if (edge_best < 0 || worst < edge_best)
                    edge_best = worst;
            }
            if (edge_best >= 0 && (best < 0 || edge_best < best))
                best = edge_best;
        }
    }
out:
    free(comp);
    free(stack);
    free(big);
    return best < 0 ? 0 : best;
}

double hc_map_max_lower_bound(const hc_graph *g, const hc_machine *m)
{
    int nslots = 0;
    hc_slot *slot = neighbour_slots(m, &nslots);
    hc_adj_ent *ends = hc_graph_heaviest_first(g);
    if (!slot || !ends) {
        free(slot);
        free(ends);
        return -1;
    }
    double bound = 0;
    for (int v = 0; v < g->n; v++) {
        double t = rank_time(g, ends, v, slot, nslots, NULL, 0, 1);
        if (t > bound)
            bound = t;
    }
    double cut = cut_bound(g, m, slot, nslots, ends, bound);
    free(slot);
    free(ends);
    return cut > bound ? cut : bound;
}
