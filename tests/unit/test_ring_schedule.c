/* The ring schedule simulated without MPI: for many lattices and vector lengths, every rank
 * runs the reduce-scatter and allgather of collectives/ring_schedule.h on sets of
 * contributions (one bit per rank); every element must be reduced exactly once per
 * contribution and delivered everywhere, sends must match receives step by step. */
#include <stdint.h>
#include <string.h>

#include "hc_test.h"
#include "ring_schedule.h"

/* Simulates the whole allreduce on lat for m elements; 0 when every check holds. */
static int simulate(const hc_lattice *lat, int n, int64_t m)
{
    int bad = 0;
    uint64_t *v = calloc((size_t)(n * m + 1), sizeof(uint64_t));
    uint64_t *nv = calloc((size_t)(n * m + 1), sizeof(uint64_t));
    int(*co)[HC_RING_MAXD] = calloc((size_t)n, sizeof *co);
    for (int p = 0; p < n; p++) {
        hc_lattice_coords(lat, p, co[p]);
        for (int64_t e = 0; e < m; e++)
            v[p * m + e] = 1ull << p;
    }
    uint64_t all = n == 64 ? ~0ull : (1ull << n) - 1;
    /* Reduce-scatter, dimension by dimension, all ranks in lock step. */
    for (int k = 0; k < lat->d; k++) {
        int r = lat->dims[k];
        for (int s = 0; s < r - 1; s++) {
            memcpy(nv, v, sizeof(uint64_t) * (size_t)(n * m));
            for (int p = 0; p < n; p++) {
                int prev = hc_lattice_shift(lat, co[p], k, -1);
                int64_t so, sl, ro, rl, bo, bl, po, pl;
                hc_ring_segment(lat, co[p], 0, k, 0, m, &so, &sl);
                hc_ring_segment(lat, co[prev], 0, k, 0, m, &po, &pl);
                bad |= po != so || pl != sl; /* ring members share the segment */
                hc_ring_block(so, sl, r, hc_ring_rs_recv(co[p][k], r, s), &ro, &rl);
                hc_ring_block(po, pl, r, hc_ring_rs_send(co[prev][k], r, s), &bo, &bl);
                bad |= ro != bo || rl != bl;
                for (int64_t e = ro; e < ro + rl; e++) {
                    bad |= (v[prev * m + e] & v[p * m + e]) != 0; /* reduced twice */
                    nv[p * m + e] = v[prev * m + e] | v[p * m + e];
                }
            }
            memcpy(v, nv, sizeof(uint64_t) * (size_t)(n * m));
        }
    }
    /* Each rank's final segment is fully reduced; together they tile [0, m) once. */
    int *owners = calloc((size_t)m + 1, sizeof(int));
    for (int p = 0; p < n; p++) {
        int64_t so, sl;
        hc_ring_segment(lat, co[p], 0, lat->d, 0, m, &so, &sl);
        for (int64_t e = so; e < so + sl; e++) {
            bad |= v[p * m + e] != all;
            owners[e]++;
        }
    }
    for (int64_t e = 0; e < m; e++)
        bad |= owners[e] != 1;
    /* Allgather in reverse dimension order: copy, and only ever copy complete elements. */
    for (int k = lat->d - 1; k >= 0; k--) {
        int r = lat->dims[k];
        for (int s = 0; s < r - 1; s++) {
            memcpy(nv, v, sizeof(uint64_t) * (size_t)(n * m));
            for (int p = 0; p < n; p++) {
                int prev = hc_lattice_shift(lat, co[p], k, -1);
                int64_t so, sl, ro, rl, bo, bl;
                hc_ring_segment(lat, co[p], 0, k, 0, m, &so, &sl);
                hc_ring_block(so, sl, r, hc_ring_ag_recv(co[p][k], r, s), &ro, &rl);
                hc_ring_block(so, sl, r, hc_ring_ag_send(co[prev][k], r, s), &bo, &bl);
                bad |= ro != bo || rl != bl;
                for (int64_t e = ro; e < ro + rl; e++) {
                    bad |= v[prev * m + e] != all;
                    nv[p * m + e] = v[prev * m + e];
                }
            }
            memcpy(v, nv, sizeof(uint64_t) * (size_t)(n * m));
        }
    }
    for (int64_t i = 0; i < n * m; i++)
        bad |= v[i] != all;
    free(v), free(nv), free(co), free(owners);
    return bad;
}

HC_TEST(blocks_tile_segment)
{
    for (int64_t len = 0; len < 40; len++)
        for (int r = 1; r < 9; r++) {
            int64_t next = 5, o, l, mx = 0, mn = len;
            for (int i = 0; i < r; i++) {
                hc_ring_block(5, len, r, i, &o, &l);
                HC_CHECK_EQ_INT(o, next);
                next = o + l;
                mx = l > mx ? l : mx;
                mn = l < mn ? l : mn;
            }
            HC_CHECK_EQ_INT(next, 5 + len);
            HC_CHECK(mx - mn <= 1); /* balanced */
        }
}

HC_TEST(coords_round_trip)
{
    hc_lattice lat = {3, {2, 3, 4}};
    for (int p = 0; p < 24; p++) {
        int co[HC_RING_MAXD];
        hc_lattice_coords(&lat, p, co);
        HC_CHECK_EQ_INT(co[0] + 2 * (co[1] + 3 * co[2]), p);
        HC_CHECK_EQ_INT(hc_lattice_shift(&lat, co, 1, 0), p);
        int q = hc_lattice_shift(&lat, co, 2, 1), cq[HC_RING_MAXD];
        hc_lattice_coords(&lat, q, cq);
        HC_CHECK_EQ_INT(cq[2], (co[2] + 1) % 4);
        HC_CHECK_EQ_INT(hc_lattice_shift(&lat, cq, 2, -1), p);
    }
}

HC_TEST(normalize_drops_ones)
{
    hc_lattice lat = {4, {1, 4, 1, 2}};
    HC_CHECK_EQ_INT(hc_lattice_normalize(&lat), 8);
    HC_CHECK_EQ_INT(lat.d, 2);
    HC_CHECK_EQ_INT(lat.dims[0], 4);
    HC_CHECK_EQ_INT(lat.dims[1], 2);
    char buf[32];
    hc_lattice_format(&lat, buf, sizeof buf);
    HC_CHECK_EQ_STR(buf, "4x2");
}

HC_TEST(schedule_many_lattices)
{
    static const hc_lattice lats[] = {
        {1, {2}}, {1, {3}}, {1, {5}}, {1, {8}}, {1, {13}}, {2, {2, 2}}, {2, {2, 4}},
        {2, {4, 2}}, {2, {3, 5}}, {2, {7, 3}}, {3, {2, 2, 2}}, {3, {3, 2, 4}},
        {4, {2, 3, 2, 2}}, {2, {14, 4}}, {3, {4, 4, 4}}, {1, {64}}, {6, {2, 2, 2, 2, 2, 2}},
    };
    static const int64_t ms[] = {0, 1, 2, 3, 7, 8, 9, 31, 64, 65, 100, 257};
    for (size_t i = 0; i < sizeof lats / sizeof lats[0]; i++) {
        hc_lattice lat = lats[i];
        int n = (int)hc_lattice_normalize(&lat);
        for (size_t j = 0; j < sizeof ms / sizeof ms[0]; j++) {
            int64_t m = ms[j] + (j > 3 ? n - 1 : 0); /* around multiples of n too */
            HC_CHECK_MSG(simulate(&lat, n, m) == 0, "lattice %zu, n=%d, m=%lld", i, n,
                         (long long)m);
        }
    }
}

HC_TEST(cost_model_matches_formula)
{
    /* T_1(n, m) = a (n-1) + b (1 - 1/n) m, the paper's one-dimensional time. */
    hc_lattice one = {1, {8}};
    double a[2] = {2, 5}, b[2] = {0.5, 3};
    HC_CHECK_NEAR(hc_ring_cost(&one, a, b, 1000), 2 * 7 + 0.5 * (1 - 1.0 / 8) * 1000, 1e-9);
    /* T_2 = T_1(r1, m) + T_1(r2, m / r1). */
    hc_lattice two = {2, {4, 3}};
    double want = 2 * 3 + 0.5 * 0.75 * 1200 + 5 * 2 + 3 * (2.0 / 3) * 300;
    HC_CHECK_NEAR(hc_ring_cost(&two, a, b, 1200), want, 1e-9);
}

HC_TEST(cost_model_choice)
{
    int fan[2] = {4, 16};
    double alpha[2] = {1e-6, 4e-6}, beta[2] = {0.4e-9, 1e-9};
    hc_lattice lat;
    int lev[HC_RING_MAXD];
    /* Tiny vectors: latency dominates, so the 16 nodes are split (4x4 or 2x2x2x2). */
    double t = hc_ring_choose(2, fan, alpha, beta, 64, 1, &lat, lev);
    HC_CHECK_EQ_INT(lat.dims[0], 4);
    HC_CHECK_EQ_INT(lev[0], 0);
    HC_CHECK(lat.d >= 3);
    hc_lattice flat = {2, {4, 16}};
    double af[2] = {alpha[0], alpha[1]}, bf[2] = {beta[0], beta[1]};
    HC_CHECK(t < hc_ring_cost(&flat, af, bf, 64));
    long prod = 1;
    for (int k = 0; k < lat.d; k++)
        prod *= lat.dims[k];
    HC_CHECK_EQ_INT(prod, 64);
    /* Every candidate costs at least the choice. */
    hc_lattice alt = {3, {4, 2, 8}};
    double aa[3] = {alpha[0], alpha[1], alpha[1]}, ba[3] = {beta[0], beta[1], beta[1]};
    HC_CHECK(t <= hc_ring_cost(&alt, aa, ba, 64) + 1e-15);
    /* Keeping the node whole: level 0's fanout is never split. */
    int fan2[2] = {8, 3};
    hc_ring_choose(2, fan2, alpha, beta, 1e9, 1, &lat, lev);
    HC_CHECK_EQ_INT(lat.dims[0], 8);
    HC_CHECK_EQ_INT(lat.d, 2);
    /* Without keep_first a latency-bound node of 8 is split too. */
    hc_ring_choose(2, fan2, alpha, beta, 8, 0, &lat, lev);
    HC_CHECK(lat.dims[0] < 8);
}

int main(void) { return hc_test_main(); }
