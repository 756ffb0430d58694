/* Local refinement of a mapping on the true objective: a rank moves to a core near one of its
 * heavy neighbours, or to that neighbour's own (swapping with the rank there, if any), when
 * that lowers the number of ranks at the maximum T, or the sum, without making either worse;
 * of the moves open to a rank, the one taking most ranks off T, then saving most, is made.
 * Capped, a move taking ranks off T may raise the sum up to the cap instead.
 * Costs are compared with hc_map_cost_less. Deterministic: a fixed visiting order and a work
 * budget counted in edge visits, never in time. */
#include <stdlib.h>
#include <string.h>

#include "hc_map.h"

#define HC_REFINE_BUDGET 300000000LL /* edge visits, at most */
#define HC_REFINE_BUDGET_PER_EDGE 40 /* and at most this many per adjacency entry, */
#define HC_REFINE_BUDGET_MIN 20000000LL /* but small graphs get this much */
#define HC_REFINE_PASSES 30
#define HC_REFINE_NEIGHBOURS 6      /* heaviest neighbours whose cores are tried */
#define HC_REFINE_NEAR 8            /* cores tried per neighbour */
#define HC_REFINE_CANDS (HC_REFINE_NEIGHBOURS * (HC_REFINE_NEAR + 1))

typedef struct {
    const hc_graph *g;
    const hc_machine *m;
    int *map, *occ, *stamp, *touched, ntouched, cur;
    double *t, *nt, T, sum, T0, sum0; /* T0, sum0: where they started */
    double sum_cap; /* a move taking ranks off the maximum may raise the sum up to this */
    int cntT;
    long long work;
    int *near;   /* matrix machines: [ncores * HC_REFINE_NEAR] fastest cores from each core */
    int *cseen, cgen; /* [ncores]: cgen when the core is already a candidate */
} hc_ref;

static void touch(hc_ref *r, int v)
{
    if (r->stamp[v] != r->cur) {
        r->stamp[v] = r->cur;
        r->nt[v] = r->t[v];
        r->touched[r->ntouched++] = v;
    }
}

static double inv_bw(const hc_machine *m, int p, int q) { return 1.0 / hc_machine_bw(m, p, q); }

/* Fills nt[] for every rank the move a -> core cb changes; returns the change of the sum. */
static double eval_move(hc_ref *r, int a, int cb)
{
    const hc_graph *g = r->g;
    const hc_machine *m = r->m;
    int ca = r->map[a], b = r->occ[cb];
    r->cur++;
    r->ntouched = 0;
    touch(r, a);
    if (b >= 0)
        touch(r, b);
    double ta = 0, tb = 0;
    for (long long e = g->xadj[a]; e < g->xadj[a + 1]; e++) {
        int j = g->adjncy[e];
        double w = g->adjwgt[e];
        if (j == b) {
            ta += w * inv_bw(m, cb, ca);
            continue;
        }
        ta += w * inv_bw(m, cb, r->map[j]);
        touch(r, j);
        r->nt[j] += w * (inv_bw(m, r->map[j], cb) - inv_bw(m, r->map[j], ca));
    }
    if (b >= 0) {
        for (long long e = g->xadj[b]; e < g->xadj[b + 1]; e++) {
            int j = g->adjncy[e];
            double w = g->adjwgt[e];
            if (j == a) {
                tb += w * inv_bw(m, ca, cb);
                continue;
            }
            tb += w * inv_bw(m, ca, r->map[j]);
            touch(r, j);
            r->nt[j] += w * (inv_bw(m, r->map[j], ca) - inv_bw(m, r->map[j], cb));
        }
        r->nt[b] = tb;
        r->work += g->xadj[b + 1] - g->xadj[b];
    }
    r->nt[a] = ta;
    r->work += g->xadj[a + 1] - g->xadj[a];
    double d = 0;
    for (int k = 0; k < r->ntouched; k++)
        d += r->nt[r->touched[k]] - r->t[r->touched[k]];
    return d / 2;
}

static int at_max(const hc_ref *r, double t) { return !hc_map_cost_less(t, r->T); }

/* Score of the evaluated move: 1 + ranks taken off the maximum, or 1 for a sum gain; 0 if
 * it is not acceptable. */
static int judge(const hc_ref *r, double dsum, int *left_max)
{
    int was = 0, now = 0;
    for (int k = 0; k < r->ntouched; k++) {
        int v = r->touched[k];
        int at = at_max(r, r->t[v]), will = at_max(r, r->nt[v]);
        if (will && !(at && !hc_map_cost_less(r->t[v], r->nt[v]) &&
                      !hc_map_cost_less(r->T0, r->nt[v])))
            return 0; /* would raise the maximum (or where it started) or add a rank to it */
        was += at;
        now += will;
    }
    *left_max = was - now;
    if (was > now && r->sum_cap > 0)
        return hc_map_cost_less(r->sum_cap, r->sum + dsum) ? 0 : 1 + was - now;
    /* the sum may not grow; held to where it started too, so rounding cannot drift it up */
    if (hc_map_cost_less(r->sum, r->sum + dsum) || hc_map_cost_less(r->sum0, r->sum + dsum))
        return 0;
    if (was > now)
        return 1 + was - now;
    return hc_map_cost_less(r->sum + dsum, r->sum) ? 1 : 0;
}

static void recount(hc_ref *r)
{
    r->T = 0;
    r->sum = 0;
    for (int i = 0; i < r->g->n; i++) {
        if (r->t[i] > r->T)
            r->T = r->t[i];
        r->sum += r->t[i];
    }
    r->sum /= 2;
    r->cntT = 0;
    for (int i = 0; i < r->g->n; i++)
        r->cntT += at_max(r, r->t[i]);
}

static void apply_move(hc_ref *r, int a, int cb, double dsum, int left)
{
    int ca = r->map[a], b = r->occ[cb];
    r->map[a] = cb;
    r->occ[cb] = a;
    r->occ[ca] = b;
    if (b >= 0)
        r->map[b] = ca;
    for (int k = 0; k < r->ntouched; k++)
        r->t[r->touched[k]] = r->nt[r->touched[k]];
    r->sum += dsum;
    r->cntT -= left;
    if (r->cntT <= 0)
        recount(r);
}

/* Cores tried for a rank next to neighbour core c: its lowest-level group on a tree, the
 * fastest cores from c on a matrix machine. */
static int near_cores(const hc_ref *r, int c, int *out)
{
    const hc_machine *m = r->m;
    int k = 0;
    if (m->matrix) {
        for (int i = 0; i < HC_REFINE_NEAR && r->near[(size_t)c * HC_REFINE_NEAR + i] >= 0; i++)
            out[k++] = r->near[(size_t)c * HC_REFINE_NEAR + i];
        return k;
    }
    int span = m->arity[m->nlevels - 1];
    int first = c - c % span;
    int last = first + span;
    if (span > HC_REFINE_NEAR) { /* a window around c inside its group */
        int lo = c - HC_REFINE_NEAR / 2;
        first = lo < first ? first : (lo + HC_REFINE_NEAR > last ? last - HC_REFINE_NEAR : lo);
        last = first + HC_REFINE_NEAR;
    }
    for (int q = first; q < last; q++)
        if (q != c && m->avail[q])
            out[k++] = q;
    return k;
}

typedef struct {
    double key;
    int id;
} hc_order;

static int cmp_order(const void *x, const void *y)
{
    const hc_order *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? 1 : -1;
    return (a->id > b->id) - (a->id < b->id);
}

static int build_near(hc_ref *r)
{
    const hc_machine *m = r->m;
    int n = m->ncores;
    r->near = malloc(sizeof(int) * (size_t)n * HC_REFINE_NEAR);
    hc_order *o = malloc(sizeof(hc_order) * (size_t)n);
    if (!r->near || !o) {
        free(o);
        return -1;
    }
    for (int p = 0; p < n; p++) {
        int k = 0;
        for (int q = 0; q < n; q++)
            if (q != p && m->avail[q])
                o[k++] = (hc_order){m->matrix[(size_t)p * n + q], q};
        qsort(o, (size_t)k, sizeof *o, cmp_order);
        for (int i = 0; i < HC_REFINE_NEAR; i++)
            r->near[(size_t)p * HC_REFINE_NEAR + i] = i < k ? o[i].id : -1;
    }
    free(o);
    return 0;
}

static void add_cand(hc_ref *r, int *cand, int *n, int core, int own)
{
    if (core != own && r->cseen[core] != r->cgen) {
        r->cseen[core] = r->cgen;
        cand[(*n)++] = core;
    }
}

long hc_map_refine(const hc_graph *g, const hc_machine *m, unsigned seed, int *map)
{
    return hc_map_refine_capped(g, m, seed, 0, map);
}

long hc_map_refine_capped(const hc_graph *g, const hc_machine *m, unsigned seed, double sum_cap,
                          int *map)
{
    int M = g->n, N = m->ncores;
    long moves = 0;
    hc_ref r = {.g = g, .m = m, .map = map, .sum_cap = sum_cap};
    r.occ = malloc(sizeof(int) * (size_t)N);
    r.cseen = calloc((size_t)N, sizeof(int));
    r.stamp = calloc((size_t)(M ? M : 1), sizeof(int));
    r.touched = malloc(sizeof(int) * (size_t)(M ? M : 1));
    r.t = malloc(sizeof(double) * (size_t)(M ? M : 1));
    r.nt = malloc(sizeof(double) * (size_t)(M ? M : 1));
    hc_order *ord = malloc(sizeof(hc_order) * (size_t)(M ? M : 1));
    hc_order *nb = NULL;
    /* after the first pass only ranks whose neighbourhood changed, and those at the max,
     * can have a new move: the others are skipped */
    char *active = malloc((size_t)(M ? M : 1)), *next = calloc((size_t)(M ? M : 1), 1);
    long long maxdeg = 0;
    for (int i = 0; i < M; i++)
        if (g->xadj[i + 1] - g->xadj[i] > maxdeg)
            maxdeg = g->xadj[i + 1] - g->xadj[i];
    nb = malloc(sizeof(hc_order) * (size_t)(maxdeg ? maxdeg : 1));
    int cand[HC_REFINE_CANDS];
    if (!r.occ || !r.cseen || !r.stamp || !r.touched || !r.t || !r.nt || !ord || !nb ||
        !active || !next || (m->matrix && build_near(&r) != 0))
        goto out;
    memset(active, 1, (size_t)M);
    for (int c = 0; c < N; c++)
        r.occ[c] = -1;
    for (int i = 0; i < M; i++)
        r.occ[map[i]] = i;
    hc_map_rank_costs(g, m, map, r.t);
    recount(&r);
    r.T0 = r.T;
    r.sum0 = r.sum;
    unsigned rnd = seed * 2654435761u + 12345u;
    long long budget = HC_REFINE_BUDGET_PER_EDGE * (g->xadj[M] + M);
    if (budget < HC_REFINE_BUDGET_MIN)
        budget = HC_REFINE_BUDGET_MIN;
    if (budget > HC_REFINE_BUDGET)
        budget = HC_REFINE_BUDGET;
    int full = 1; /* the pass visits every rank */
    for (int pass = 0; pass < HC_REFINE_PASSES && r.work < budget; pass++) {
        long before = moves;
        /* slowest ranks first; the seed breaks ties */
        for (int i = 0; i < M; i++) {
            rnd = rnd * 1664525u + 1013904223u;
            ord[i] = (hc_order){r.t[i] + 1e-300 * (rnd >> 8), i};
        }
        qsort(ord, (size_t)M, sizeof *ord, cmp_order);
        for (int oi = 0; oi < M && r.work < budget; oi++) {
            int a = ord[oi].id;
            long long deg = g->xadj[a + 1] - g->xadj[a];
            if (deg == 0 || (!active[a] && !at_max(&r, r.t[a])))
                continue;
            for (long long e = 0; e < deg; e++)
                nb[e] = (hc_order){g->adjwgt[g->xadj[a] + e], g->adjncy[g->xadj[a] + e]};
            qsort(nb, (size_t)deg, sizeof *nb, cmp_order);
            /* cores near each heavy neighbour, and the neighbour's own (a swap with it) */
            int ncand = 0;
            r.cgen++;
            for (long long e = 0; e < deg && e < HC_REFINE_NEIGHBOURS; e++) {
                int j = nb[e].id, near[HC_REFINE_NEAR];
                int nc = near_cores(&r, map[j], near);
                for (int k = 0; k < nc; k++)
                    add_cand(&r, cand, &ncand, near[k], map[a]);
                add_cand(&r, cand, &ncand, map[j], map[a]);
            }
            int best_left = 0, best_core = -1;
            double best_d = 0;
            for (int k = 0; k < ncand; k++) {
                int left;
                double d = eval_move(&r, a, cand[k]);
                if (judge(&r, d, &left) > 0 && (best_core < 0 || left > best_left ||
                                                (left == best_left && d < best_d))) {
                    best_left = left;
                    best_d = d;
                    best_core = cand[k];
                }
            }
            if (best_core >= 0) {
                int left;
                double d = eval_move(&r, a, best_core);
                if (judge(&r, d, &left) > 0) {
                    int b = r.occ[best_core];
                    apply_move(&r, a, best_core, d, left);
                    moves++;
                    for (int k = 0; k < 2; k++) {
                        int v = k ? b : a;
                        if (v < 0)
                            continue;
                        active[v] = next[v] = 1;
                        for (long long e = g->xadj[v]; e < g->xadj[v + 1]; e++)
                            active[g->adjncy[e]] = next[g->adjncy[e]] = 1;
                    }
                }
            }
        }
        hc_map_rank_costs(g, m, map, r.t); /* no drift from incremental updates */
        recount(&r);
        if (moves == before && full)
            break;
        /* when the changed neighbourhoods stop giving moves, one pass over every rank
         * confirms it (a lower maximum can open moves anywhere) */
        full = moves == before;
        if (full)
            memset(active, 1, (size_t)M);
        else
            memcpy(active, next, (size_t)M);
        memset(next, 0, (size_t)M);
    }
out:
    free(r.occ);
    free(r.cseen);
    free(r.stamp);
    free(r.touched);
    free(r.t);
    free(r.nt);
    free(r.near);
    free(ord);
    free(nb);
    free(active);
    free(next);
    return moves;
}
