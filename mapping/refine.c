/* Local refinement of a mapping on the true objective: a rank moves to a core near one of its
 * heavy neighbours (swapping with the rank there, if any) when that lowers the number of
 * ranks at the maximum T, or the sum, without making either worse. Deterministic: a fixed
 * visiting order and a work budget counted in edge visits, never in time. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hc_map.h"

#define HC_REFINE_BUDGET 300000000LL /* edge visits, at most */
#define HC_REFINE_BUDGET_PER_EDGE 40 /* and at most this many per adjacency entry, */
#define HC_REFINE_BUDGET_MIN 20000000LL /* but small graphs get this much */
#define HC_REFINE_PASSES 30
#define HC_REFINE_NEIGHBOURS 6      /* heaviest neighbours whose cores are tried */
#define HC_REFINE_NEAR 8            /* cores tried per neighbour */

typedef struct {
    const hc_graph *g;
    const hc_machine *m;
    int *map, *occ, *stamp, *touched, ntouched, cur;
    double *t, *nt, T, sum;
    int cntT;
    long long work;
    int *near;   /* matrix machines: [ncores * HC_REFINE_NEAR] fastest cores from each core */
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

/* Score of the evaluated move: 1 + ranks taken off the maximum, or 1 for a sum gain; 0 if
 * it is not acceptable. */
static int judge(const hc_ref *r, double dsum, int *left_max)
{
    double hi = r->T * (1 - 1e-12);
    int was = 0, now = 0;
    for (int k = 0; k < r->ntouched; k++) {
        int v = r->touched[k];
        int at = r->t[v] >= hi, will = r->nt[v] >= hi;
        if (will && !(at && r->nt[v] <= r->t[v]))
            return 0; /* would raise the maximum or add a rank to it */
        was += at;
        now += will;
    }
    *left_max = was - now;
    if (dsum > 1e-12 * fabs(r->sum))
        return 0;
    if (was > now)
        return 1 + was - now;
    return dsum < -1e-9 * fabs(r->sum) ? 1 : 0;
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
        r->cntT += r->t[i] >= r->T * (1 - 1e-12);
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

long hc_map_refine(const hc_graph *g, const hc_machine *m, unsigned seed, int *map)
{
    int M = g->n, N = m->ncores;
    long moves = 0;
    hc_ref r = {.g = g, .m = m, .map = map};
    r.occ = malloc(sizeof(int) * (size_t)N);
    r.stamp = calloc((size_t)(M ? M : 1), sizeof(int));
    r.touched = malloc(sizeof(int) * (size_t)(M ? M : 1));
    r.t = malloc(sizeof(double) * (size_t)(M ? M : 1));
    r.nt = malloc(sizeof(double) * (size_t)(M ? M : 1));
    hc_order *ord = malloc(sizeof(hc_order) * (size_t)(M ? M : 1));
    hc_order *nb = NULL;
    long long maxdeg = 0;
    for (int i = 0; i < M; i++)
        if (g->xadj[i + 1] - g->xadj[i] > maxdeg)
            maxdeg = g->xadj[i + 1] - g->xadj[i];
    nb = malloc(sizeof(hc_order) * (size_t)(maxdeg ? maxdeg : 1));
    if (!r.occ || !r.stamp || !r.touched || !r.t || !r.nt || !ord || !nb ||
        (m->matrix && build_near(&r) != 0))
        goto out;
    for (int c = 0; c < N; c++)
        r.occ[c] = -1;
    for (int i = 0; i < M; i++)
        r.occ[map[i]] = i;
    hc_map_rank_costs(g, m, map, r.t);
    recount(&r);
    unsigned rnd = seed * 2654435761u + 12345u;
    long long budget = HC_REFINE_BUDGET_PER_EDGE * (g->xadj[M] + M);
    if (budget < HC_REFINE_BUDGET_MIN)
        budget = HC_REFINE_BUDGET_MIN;
    if (budget > HC_REFINE_BUDGET)
        budget = HC_REFINE_BUDGET;
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
            if (deg == 0)
                continue;
            for (long long e = 0; e < deg; e++)
                nb[e] = (hc_order){g->adjwgt[g->xadj[a] + e], g->adjncy[g->xadj[a] + e]};
            qsort(nb, (size_t)deg, sizeof *nb, cmp_order);
            int best_score = 0, best_core = -1, cand[HC_REFINE_NEAR];
            for (long long e = 0; e < deg && e < HC_REFINE_NEIGHBOURS; e++) {
                int nc = near_cores(&r, map[nb[e].id], cand);
                for (int k = 0; k < nc; k++) {
                    if (cand[k] == map[a])
                        continue;
                    int left;
                    double d = eval_move(&r, a, cand[k]);
                    int sc = judge(&r, d, &left);
                    if (sc > best_score) {
                        best_score = sc;
                        best_core = cand[k];
                    }
                }
            }
            if (best_core >= 0) {
                int left;
                double d = eval_move(&r, a, best_core);
                if (judge(&r, d, &left) > 0) {
                    apply_move(&r, a, best_core, d, left);
                    moves++;
                }
            }
        }
        hc_map_rank_costs(g, m, map, r.t); /* no drift from incremental updates */
        recount(&r);
        if (moves == before)
            break;
    }
out:
    free(r.occ);
    free(r.stamp);
    free(r.touched);
    free(r.t);
    free(r.nt);
    free(r.near);
    free(ord);
    free(nb);
    return moves;
}
