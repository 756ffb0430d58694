/* TMGT (seed 000, Listing 3): greedy traversal of the task graph for partly occupied
 * machines. Cores are taken in order of the geometric mean B_p of their bandwidths to the
 * other available cores, ranks in order of the geometric mean D_i of their edge weights;
 * each rank not yet placed brings its neighbours, heaviest edge first (the order that
 * reproduces the paper's worked example). Sorts are stable: ties keep index order. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "hc_map.h"

/* Keys are quantised so that equal means computed in a different summation order tie. */
typedef struct {
    long long key;
    int id;
} hc_keyed;

static int cmp_keyed_desc(const void *a, const void *b)
{
    const hc_keyed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? 1 : -1;
    return (x->id > y->id) - (x->id < y->id);
}

static long long quantise(double v) { return llround(v * 1e9); }

/* Mean of ln b_pq over the other available cores q, for every available core p. */
static void core_scores(const hc_machine *m, const int *cores, int N, double *B)
{
    if (m->matrix) {
        for (int a = 0; a < N; a++) {
            double s = 0;
            for (int b = 0; b < N; b++)
                if (b != a)
                    s += log(hc_machine_bw(m, cores[a], cores[b]));
            B[a] = N > 1 ? s / (N - 1) : 0;
        }
        return;
    }
    /* On a tree the cores meeting p at level l number A_l(p) - A_{l+1}(p), A_l(p) being the
     * available cores under p's ancestor at depth l: O(N L) instead of O(N^2). */
    int L = m->nlevels;
    int *cnt[HC_MACHINE_MAX_LEVELS + 1];
    for (int l = 0; l <= L; l++) {
        int span = l == 0 ? m->ncores : m->stride[l - 1];
        cnt[l] = calloc((size_t)(m->ncores / span), sizeof(int));
    }
    for (int l = 0; l <= L; l++) {
        int span = l == 0 ? m->ncores : m->stride[l - 1];
        if (!cnt[l])
            continue;
        for (int a = 0; a < N; a++)
            cnt[l][cores[a] / span]++;
    }
    for (int a = 0; a < N; a++) {
        double s = 0;
        for (int l = 0; l < L; l++) {
            int span = l == 0 ? m->ncores : m->stride[l - 1];
            int here = cnt[l] ? cnt[l][cores[a] / span] : 0;
            int below = cnt[l + 1] ? cnt[l + 1][cores[a] / m->stride[l]] : 0;
            s += (here - below) * log(m->bw[l]);
        }
        B[a] = N > 1 ? s / (N - 1) : 0;
    }
    for (int l = 0; l <= L; l++)
        free(cnt[l]);
}

int hc_map_tmgt(const hc_graph *g, const hc_machine *m, int *map)
{
    int M = g->n, N = hc_machine_navail(m), rc = -1;
    if (N < M)
        return -1;
    int *cores = malloc(sizeof(int) * (size_t)(N ? N : 1));
    double *B = malloc(sizeof(double) * (size_t)(N ? N : 1));
    hc_keyed *C = malloc(sizeof(hc_keyed) * (size_t)(N ? N : 1));
    hc_keyed *Q = malloc(sizeof(hc_keyed) * (size_t)(M ? M : 1));
    hc_adj_ent *adj = hc_graph_heaviest_first(g);
    int *queue = malloc(sizeof(int) * (size_t)(M ? M : 1));
    if (!cores || !B || !C || !Q || !adj || !queue)
        goto out;
    for (int p = 0, a = 0; p < m->ncores; p++)
        if (m->avail[p])
            cores[a++] = p;
    core_scores(m, cores, N, B);
    for (int a = 0; a < N; a++)
        C[a] = (hc_keyed){quantise(B[a]), cores[a]};
    qsort(C, (size_t)N, sizeof *C, cmp_keyed_desc);
    for (int i = 0; i < M; i++) {
        long long deg = g->xadj[i + 1] - g->xadj[i];
        double s = 0;
        for (long long e = g->xadj[i]; e < g->xadj[i + 1]; e++)
            s += log(g->adjwgt[e]);
        /* ln D_i; ranks without edges come last */
        Q[i] = (hc_keyed){deg ? quantise(s / (double)deg) : LLONG_MIN / 2, i};
        map[i] = -1;
    }
    qsort(Q, (size_t)M, sizeof *Q, cmp_keyed_desc);
    int nextc = 0;
    for (int qi = 0; qi < M; qi++) {
        int i = Q[qi].id;
        if (map[i] >= 0)
            continue;
        int qlen = 0;
        queue[qlen++] = i;
        for (long long e = g->xadj[i]; e < g->xadj[i + 1]; e++)
            if (map[adj[e].v] < 0)
                queue[qlen++] = adj[e].v;
        for (int k = 0; k < qlen; k++)
            if (map[queue[k]] < 0)
                map[queue[k]] = C[nextc++].id;
    }
    rc = 0;
out:
    free(cores);
    free(B);
    free(C);
    free(Q);
    free(adj);
    free(queue);
    return rc;
}
