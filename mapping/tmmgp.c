/* TMGP/TMMGP (seed 000, Listings 1-2) with METIS as the multilevel partitioner (HEM
 * coarsening, recursive bisection, boundary KL refinement: the paper's scheme is METIS's).
 * hc_map_tmmgp_paper is the paper's single pass into the lowest-level groups;
 * hc_map_tmmgp applies the partitioning recursively down every level, so the edges cut at a
 * slow level are minimised before those at a faster one, and handles unavailable cores. It
 * always bisects: METIS's k-way parts are ragged (against Scotch, its sum was 5% worse in 22
 * of 54 cases with k-way, 7 with bisection; docs/algorithms-mapping.md).
 * hc_map_tmmgp_bisect does the bisections itself, to choose among equal cuts by the max. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hc_map.h"
#include "hc_partitioners.h"

void hc_map_tmgp_params(int M, int cL1, int *k, int *s)
{
    *k = (M - 1) / cL1 + 1;
    *s = cL1;
}

/* A subgraph induced by a list of ranks, in METIS's arrays. */
typedef struct {
    idx_t n;
    idx_t *xadj, *adjncy, *adjwgt;
} hc_sub;

static void sub_free(hc_sub *s)
{
    free(s->xadj);
    free(s->adjncy);
    free(s->adjwgt);
    memset(s, 0, sizeof *s);
}

/* local[v] must be -1 for every vertex outside ranks; it is restored before returning.
 * Weights are scaled to integers whose total fits METIS's 32-bit idx_t. */
static int sub_build(const hc_graph *g, const int *ranks, int n, int *local, hc_sub *s)
{
    memset(s, 0, sizeof *s);
    long long ne = 0;
    double total = 0;
    for (int a = 0; a < n; a++)
        local[ranks[a]] = a;
    for (int a = 0; a < n; a++)
        for (long long e = g->xadj[ranks[a]]; e < g->xadj[ranks[a] + 1]; e++)
            if (local[g->adjncy[e]] >= 0) {
                ne++;
                total += g->adjwgt[e];
            }
    double scale = total > 1e9 ? 1e9 / total : 1;
    s->n = n;
    s->xadj = malloc(sizeof(idx_t) * ((size_t)n + 1));
    s->adjncy = malloc(sizeof(idx_t) * (size_t)(ne ? ne : 1));
    s->adjwgt = malloc(sizeof(idx_t) * (size_t)(ne ? ne : 1));
    int ok = s->xadj && s->adjncy && s->adjwgt;
    if (ok) {
        idx_t k = 0;
        s->xadj[0] = 0;
        for (int a = 0; a < n; a++) {
            for (long long e = g->xadj[ranks[a]]; e < g->xadj[ranks[a] + 1]; e++) {
                int b = local[g->adjncy[e]];
                if (b < 0)
                    continue;
                double w = g->adjwgt[e] * scale;
                s->adjncy[k] = b;
                s->adjwgt[k] = w < 1 ? 1 : (idx_t)llround(w);
                k++;
            }
            s->xadj[a + 1] = k;
        }
    }
    for (int a = 0; a < n; a++)
        local[ranks[a]] = -1;
    if (!ok)
        sub_free(s);
    return ok ? 0 : -1;
}

/* Moves vertices out of parts over their capacity, each time the vertex and destination with
 * the least loss of internal weight (METIS balances only approximately). */
static void enforce_caps(const hc_sub *s, idx_t *part, int k, const int *cap)
{
    int *size = calloc((size_t)k, sizeof(int));
    double *conn = calloc((size_t)k, sizeof(double));
    if (!size || !conn)
        goto out;
    for (idx_t v = 0; v < s->n; v++)
        size[part[v]]++;
    for (int p = 0; p < k; p++) {
        while (size[p] > cap[p]) {
            double best = -1e300;
            idx_t bv = -1;
            int bq = -1;
            for (idx_t v = 0; v < s->n; v++) {
                if (part[v] != p)
                    continue;
                for (idx_t e = s->xadj[v]; e < s->xadj[v + 1]; e++)
                    conn[part[s->adjncy[e]]] += s->adjwgt[e];
                double own = conn[p];
                int q = -1;
                double cq = -1;
                for (idx_t e = s->xadj[v]; e < s->xadj[v + 1]; e++) {
                    int r = part[s->adjncy[e]];
                    if (r != p && size[r] < cap[r] && conn[r] > cq) {
                        cq = conn[r];
                        q = r;
                    }
                }
                for (idx_t e = s->xadj[v]; e < s->xadj[v + 1]; e++)
                    conn[part[s->adjncy[e]]] = 0;
                if (q < 0) { /* no neighbouring part has room: the emptiest one */
                    cq = 0;
                    for (int r = 0; r < k; r++)
                        if (r != p && size[r] < cap[r] && (q < 0 || size[r] < size[q]))
                            q = r;
                }
                if (q >= 0 && cq - own > best) {
                    best = cq - own;
                    bv = v;
                    bq = q;
                }
            }
            if (bv < 0)
                break; /* cannot happen when sum(cap) >= n */
            part[bv] = bq;
            size[p]--;
            size[bq]++;
        }
    }
out:
    free(size);
    free(conn);
}

/* Partitions the subgraph into k parts of at most cap[p] vertices, sizes proportional to
 * cap, by recursive bisection if bisect, else by METIS's k-way scheme; of `tries`
 * partitionings METIS keeps the one cutting least. part[] receives 0..k-1. */
static int partition(const hc_sub *s, int k, const int *cap, unsigned seed, int tries,
                     int bisect, idx_t *part)
{
    long long capsum = 0;
    for (int p = 0; p < k; p++)
        capsum += cap[p];
    if (k == 1 || s->n == 0 || s->xadj[s->n] == 0) {
        /* nothing to optimise: fill parts in order */
        for (idx_t v = 0, p = 0, used = 0; v < s->n; v++) {
            while (used >= cap[p]) {
                p++;
                used = 0;
            }
            part[v] = p;
            used++;
        }
        return 0;
    }
    const hc_metis_fns *metis = hc_metis();
    if (!metis)
        return -1;
    idx_t n = s->n, ncon = 1, nparts = k, objval;
    real_t *tpw = malloc(sizeof(real_t) * (size_t)k);
    if (!tpw)
        return -1;
    for (int p = 0; p < k; p++)
        tpw[p] = (real_t)((double)cap[p] / (double)capsum);
    real_t ub = 1.001f;
    idx_t opt[METIS_NOPTIONS];
    metis->METIS_SetDefaultOptions(opt);
    opt[METIS_OPTION_SEED] = (idx_t)(seed & 0x7fffffff);
    opt[METIS_OPTION_NUMBERING] = 0;
    opt[METIS_OPTION_NCUTS] = tries;
    int rc = bisect ? metis->METIS_PartGraphRecursive(&n, &ncon, s->xadj, s->adjncy, NULL,
                                                      NULL, s->adjwgt, &nparts, tpw, &ub, opt,
                                                      &objval, part)
                    : metis->METIS_PartGraphKway(&n, &ncon, s->xadj, s->adjncy, NULL, NULL,
                                                 s->adjwgt, &nparts, tpw, &ub, opt, &objval, part);
    free(tpw);
    if (rc != METIS_OK)
        return -1;
    enforce_caps(s, part, k, cap);
    return 0;
}

int hc_map_tmmgp_paper(const hc_graph *g, const hc_machine *m, unsigned seed, int *map)
{
    int M = g->n, L = m->nlevels;
    if (m->matrix || L == 0 || hc_machine_navail(m) != m->ncores || M > m->ncores)
        return -1;
    int cL1 = m->arity[L - 1], k, s;
    hc_map_tmgp_params(M, cL1, &k, &s);
    int *ranks = malloc(sizeof(int) * (size_t)(M ? M : 1));
    int *local = malloc(sizeof(int) * (size_t)(M ? M : 1));
    int *cap = malloc(sizeof(int) * (size_t)k), *used = calloc((size_t)k, sizeof(int));
    idx_t *part = malloc(sizeof(idx_t) * (size_t)(M ? M : 1));
    hc_sub sub = {0};
    int rc = -1;
    if (!ranks || !local || !cap || !used || !part)
        goto out;
    for (int i = 0; i < M; i++) {
        ranks[i] = i;
        local[i] = -1;
    }
    for (int p = 0; p < k; p++)
        cap[p] = s;
    if (sub_build(g, ranks, M, local, &sub) != 0 ||
        partition(&sub, k, cap, seed, 1, k <= 8, part) != 0)
        goto out;
    /* Dequeue(C_{p_i}): part p goes to the p-th lowest-level group, cores in order */
    for (int i = 0; i < M; i++)
        map[i] = (int)part[i] * cL1 + used[part[i]]++;
    rc = 0;
out:
    sub_free(&sub);
    free(ranks);
    free(local);
    free(cap);
    free(used);
    free(part);
    return rc;
}

typedef struct {
    const hc_graph *g;
    const hc_machine *m;
    const int *availsum; /* prefix sums of avail: available cores in [a, b) */
    int *local;
    unsigned seed;
    int tries;
    int *map;
    int bisections; /* > 0: split each level by max-aware bisection (bisect_level) */
    double *acc;    /* [M] each rank's cost of the edges cut so far (bisections > 0) */
    int *part;      /* [M] the part bisect_level gave each rank */
} hc_rec;

static int avail_in(const hc_rec *r, int first, int count)
{
    return r->availsum[first + count] - r->availsum[first];
}

/* The weight a bisection (side[a] for ranks[a]) cuts, every edge counted from both ends (it is
 * only compared), and in *max the highest cost a rank would have with its cut edges at `unit`
 * per byte added to what it has so far; charge: add them to it. */
static double cut_edges(hc_rec *r, const int *ranks, int n, const idx_t *side, double unit,
                        int charge, double *max)
{
    const hc_graph *g = r->g;
    double cut = 0;
    *max = 0;
    for (int a = 0; a < n; a++)
        r->local[ranks[a]] = a;
    for (int a = 0; a < n; a++) {
        double own = 0;
        for (long long e = g->xadj[ranks[a]]; e < g->xadj[ranks[a] + 1]; e++) {
            int b = r->local[g->adjncy[e]];
            if (b >= 0 && side[b] != side[a])
                own += g->adjwgt[e];
        }
        cut += own;
        *max = fmax(*max, r->acc[ranks[a]] + own * unit);
        if (charge)
            r->acc[ranks[a]] += own * unit;
    }
    for (int a = 0; a < n; a++)
        r->local[ranks[a]] = -1;
    return cut;
}

/* Splits ranks[0..n) into parts p0..p0+k-1 of capacities cap[0..k) by recursive bisection,
 * writing r->part. Each bisection is the least cutting of r->bisections METIS bisections from
 * different seeds and, among those that cut as little, the one leaving the lowest maximum of
 * a rank's cut edges: on a grid the blocks then come out as columns through the short axis
 * rather than cubes whose corners talk to three other nodes (docs/algorithms-mapping.md). */
static int bisect_level(hc_rec *r, int l, int *ranks, int n, const int *cap, int k, int p0)
{
    if (k == 1 || n == 0) {
        for (int a = 0; a < n; a++)
            r->part[ranks[a]] = p0;
        return 0;
    }
    int k1 = k / 2, half[2] = {0, 0};
    for (int p = 0; p < k; p++)
        half[p >= k1] += cap[p];
    double unit = 1 / r->m->bw[l];
    hc_sub sub = {0};
    idx_t *side = malloc(sizeof(idx_t) * (size_t)n), *best = malloc(sizeof(idx_t) * (size_t)n);
    int *order = malloc(sizeof(int) * (size_t)n), rc = -1;
    if (!side || !best || !order || sub_build(r->g, ranks, n, r->local, &sub) != 0)
        goto out;
    double bcut = 0, bmax = 0, max;
    for (int t = 0; t < r->bisections; t++) {
        unsigned seed = r->seed + 7919u * (unsigned)l + 104729u * (unsigned)t + (unsigned)n;
        if (partition(&sub, 2, half, seed, 1, 1, side) != 0)
            goto out;
        double cut = cut_edges(r, ranks, n, side, unit, 0, &max);
        if (t == 0 || hc_map_cost_less(cut, bcut) ||
            (!hc_map_cost_less(bcut, cut) && hc_map_cost_less(max, bmax))) {
            bcut = cut;
            bmax = max;
            memcpy(best, side, sizeof(idx_t) * (size_t)n);
        }
    }
    cut_edges(r, ranks, n, best, unit, 1, &max);
    int n0 = 0;
    for (int a = 0; a < n; a++)
        if (best[a] == 0)
            order[n0++] = ranks[a];
    for (int a = 0, i = n0; a < n; a++)
        if (best[a] == 1)
            order[i++] = ranks[a];
    sub_free(&sub);
    rc = bisect_level(r, l, order, n0, cap, k1, p0);
    if (rc == 0)
        rc = bisect_level(r, l, order + n0, n - n0, cap + k1, k - k1, p0 + k1);
out:
    sub_free(&sub);
    free(side);
    free(best);
    free(order);
    return rc;
}

/* Places ranks[0..n) under the element of level l whose first core is first. */
static int place(hc_rec *r, int l, int first, int *ranks, int n)
{
    const hc_machine *m = r->m;
    if (n == 0)
        return 0;
    if (l == m->nlevels) { /* a single core */
        r->map[ranks[0]] = first;
        return 0;
    }
    int a = m->arity[l], span = m->stride[l], rc = -1;
    if (l == m->nlevels - 1) { /* the children are cores: all equal, fill in order */
        for (int c = 0, i = 0; c < a && i < n; c++)
            if (m->avail[first + c])
                r->map[ranks[i++]] = first + c;
        return 0;
    }
    /* Fewest children that hold the ranks: largest capacity first, index order on ties. */
    int *child = malloc(sizeof(int) * (size_t)a), *cap = malloc(sizeof(int) * (size_t)a);
    idx_t *part = malloc(sizeof(idx_t) * (size_t)n);
    int *order = malloc(sizeof(int) * (size_t)n), *start = calloc((size_t)a + 1, sizeof(int));
    hc_sub sub = {0};
    if (!child || !cap || !part || !order || !start)
        goto out;
    int k = 0;
    long long have = 0;
    while (have < n) {
        int best = -1, bc = 0;
        for (int c = 0; c < a; c++) {
            int used = 0;
            for (int j = 0; j < k; j++)
                used |= child[j] == c;
            int cc = used ? 0 : avail_in(r, first + c * span, span);
            if (cc > bc) {
                bc = cc;
                best = c;
            }
        }
        if (best < 0)
            goto out;
        child[k] = best;
        cap[k++] = bc;
        have += bc;
    }
    if (k == 1) {
        rc = place(r, l + 1, first + child[0] * span, ranks, n);
        goto out;
    }
    if (r->bisections > 0) {
        if (bisect_level(r, l, ranks, n, cap, k, 0) != 0)
            goto out;
        for (int i = 0; i < n; i++)
            part[i] = r->part[ranks[i]];
    } else if (sub_build(r->g, ranks, n, r->local, &sub) != 0 ||
               partition(&sub, k, cap, r->seed + (unsigned)l * 7919u + (unsigned)first,
                         r->tries, 1, part) != 0)
        goto out;
    for (int i = 0; i < n; i++)
        start[part[i] + 1]++;
    for (int p = 0; p < k; p++)
        start[p + 1] += start[p];
    for (int i = 0; i < n; i++)
        order[start[part[i]]++] = ranks[i];
    rc = 0;
    for (int p = 0, from = 0; p < k && rc == 0; p++) {
        rc = place(r, l + 1, first + child[p] * span, order + from, start[p] - from);
        from = start[p];
    }
out:
    sub_free(&sub);
    free(child);
    free(cap);
    free(part);
    free(order);
    free(start);
    return rc;
}

static int tmmgp(const hc_graph *g, const hc_machine *m, unsigned seed, int tries,
                 int bisections, int *map)
{
    int M = g->n;
    if (m->matrix || m->nlevels == 0 || hc_machine_navail(m) < M)
        return -1;
    size_t sz = (size_t)(M ? M : 1);
    int *availsum = malloc(sizeof(int) * ((size_t)m->ncores + 1));
    int *local = malloc(sizeof(int) * sz), *ranks = malloc(sizeof(int) * sz);
    double *acc = bisections > 0 ? calloc(sz, sizeof(double)) : NULL;
    int *part = bisections > 0 ? malloc(sizeof(int) * sz) : NULL;
    int rc = -1;
    if (availsum && local && ranks && (bisections <= 0 || (acc && part))) {
        availsum[0] = 0;
        for (int c = 0; c < m->ncores; c++)
            availsum[c + 1] = availsum[c] + m->avail[c];
        for (int i = 0; i < M; i++) {
            local[i] = -1;
            ranks[i] = i;
            map[i] = -1;
        }
        hc_rec r = {g, m, availsum, local, seed, tries > 1 ? tries : 1, map,
                    bisections, acc, part};
        rc = place(&r, 0, 0, ranks, M);
    }
    free(availsum);
    free(local);
    free(ranks);
    free(acc);
    free(part);
    return rc;
}

int hc_map_tmmgp(const hc_graph *g, const hc_machine *m, unsigned seed, int tries, int *map)
{
    return tmmgp(g, m, seed, tries, 0, map);
}

int hc_map_tmmgp_bisect(const hc_graph *g, const hc_machine *m, unsigned seed, int bisections,
                        int *map)
{
    return tmmgp(g, m, seed, 1, bisections > 0 ? bisections : 8, map);
}
