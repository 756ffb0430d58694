/* The ring schedule simulated without MPI: for many lattices and vector lengths, every rank
 * runs the reduce-scatter and allgather of collectives/ring_schedule.h on sets of
 * contributions (one bit per rank); every element must be reduced exactly once per
 * contribution and delivered everywhere, sends must match receives step by step. Also from
 * dimension k0 > 0 on a segment at an offset, as the node engines run it. */
#include <stdint.h>
#include <string.h>

#include "hc_test.h"
#include "ring_schedule.h"

/* Simulates hc_ring_run on lat from dimension k0, rank p starting from the segment
 * [off[p], off[p] + len[p]) of a vector of m elements (the node engines pass k0 = 1 and the
 * rank's node slice of the current chunk). Ranks that share coordinates 0 .. k0-1 form one
 * group, which must agree on the segment; each group's elements must be reduced exactly once
 * per member, the owners' segments must tile the group's segment, every member must end with
 * the whole segment reduced over the group, and nothing outside it may change. 0 when all
 * holds. */
static int simulate_from(const hc_lattice *lat, int n, int k0, int64_t m, const int64_t *off,
                         const int64_t *len)
{
    int bad = 0;
    uint64_t *v = calloc((size_t)(n * m + 1), sizeof(uint64_t));
    uint64_t *nv = calloc((size_t)(n * m + 1), sizeof(uint64_t));
    uint64_t *group = calloc((size_t)n, sizeof(uint64_t)); /* contributions a rank must get */
    int(*co)[HC_RING_MAXD] = calloc((size_t)n, sizeof *co);
    for (int p = 0; p < n; p++) {
        hc_lattice_coords(lat, p, co[p]);
        for (int64_t e = 0; e < m; e++)
            v[p * m + e] = 1ull << p;
    }
    for (int p = 0; p < n; p++)
        for (int q = 0; q < n; q++) {
            int same = 1;
            for (int j = 0; j < k0; j++)
                same &= co[p][j] == co[q][j];
            if (same) {
                group[p] |= 1ull << q;
                bad |= off[p] != off[q] || len[p] != len[q];
            }
        }
    /* Reduce-scatter, dimension by dimension, all ranks in lock step. */
    for (int k = k0; k < lat->d; k++) {
        int r = lat->dims[k];
        for (int s = 0; s < r - 1; s++) {
            memcpy(nv, v, sizeof(uint64_t) * (size_t)(n * m));
            for (int p = 0; p < n; p++) {
                int prev = hc_lattice_shift(lat, co[p], k, -1);
                int64_t so, sl, ro, rl, bo, bl, po, pl;
                hc_ring_segment(lat, co[p], k0, k, off[p], len[p], &so, &sl);
                hc_ring_segment(lat, co[prev], k0, k, off[prev], len[prev], &po, &pl);
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
    /* Each rank's final segment is fully reduced; in each group they tile its segment once. */
    int *owners = calloc((size_t)(n * m + 1), sizeof(int));
    for (int p = 0; p < n; p++) {
        int64_t so, sl;
        hc_ring_segment(lat, co[p], k0, lat->d, off[p], len[p], &so, &sl);
        bad |= so < off[p] || so + sl > off[p] + len[p];
        for (int64_t e = so; e < so + sl && e < m; e++) {
            bad |= v[p * m + e] != group[p];
            for (int q = 0; q < n; q++) /* counted at every member of the group */
                if (group[p] >> q & 1)
                    owners[q * m + e]++;
        }
    }
    for (int p = 0; p < n; p++)
        for (int64_t e = 0; e < m; e++)
            bad |= owners[p * m + e] != (e >= off[p] && e < off[p] + len[p]);
    /* Allgather in reverse dimension order: copy, and only ever copy complete elements. */
    for (int k = lat->d - 1; k >= k0; k--) {
        int r = lat->dims[k];
        for (int s = 0; s < r - 1; s++) {
            memcpy(nv, v, sizeof(uint64_t) * (size_t)(n * m));
            for (int p = 0; p < n; p++) {
                int prev = hc_lattice_shift(lat, co[p], k, -1);
                int64_t so, sl, po, pl, ro, rl, bo, bl;
                hc_ring_segment(lat, co[p], k0, k, off[p], len[p], &so, &sl);
                hc_ring_segment(lat, co[prev], k0, k, off[prev], len[prev], &po, &pl);
                hc_ring_block(so, sl, r, hc_ring_ag_recv(co[p][k], r, s), &ro, &rl);
                hc_ring_block(po, pl, r, hc_ring_ag_send(co[prev][k], r, s), &bo, &bl);
                bad |= ro != bo || rl != bl;
                for (int64_t e = ro; e < ro + rl; e++) {
                    bad |= v[prev * m + e] != group[p];
                    nv[p * m + e] = v[prev * m + e];
                }
            }
            memcpy(v, nv, sizeof(uint64_t) * (size_t)(n * m));
        }
    }
    for (int p = 0; p < n; p++)
        for (int64_t e = 0; e < m; e++)
            bad |= v[p * m + e] != (e >= off[p] && e < off[p] + len[p] ? group[p] : 1ull << p);
    free(v), free(nv), free(group), free(co), free(owners);
    return bad;
}

/* The whole allreduce on lat for m elements: every rank starts from [0, m) at dimension 0. */
static int simulate(const hc_lattice *lat, int n, int64_t m)
{
    int64_t off[64] = {0}, len[64];
    for (int p = 0; p < n; p++)
        len[p] = m;
    return simulate_from(lat, n, 0, m, off, len);
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

/* The node engines' calls: dimension 0 (the node) is done in shared memory, chunk by chunk;
 * each rank passes its slice of the chunk (hc_ring_block of the chunk over the node's ranks)
 * with k0 = 1. Every chunk size, including slices shorter than the ring and empty ones. */
HC_TEST(schedule_from_node_slices)
{
    static const hc_lattice lats[] = {
        {2, {2, 2}}, {2, {2, 3}}, {2, {3, 4}}, {3, {2, 2, 2}}, {3, {4, 3, 2}}, {2, {5, 7}},
        {4, {2, 3, 2, 2}}, {2, {1, 8}}, {3, {2, 1, 4}},
    };
    static const int64_t chunks[][2] = {{0, 1}, {0, 5}, {3, 17}, {64, 97}, {100, 24}, {7, 200}};
    int64_t off[64], len[64];
    for (size_t i = 0; i < sizeof lats / sizeof lats[0]; i++) {
        hc_lattice lat = lats[i];
        int n = (int)hc_lattice_normalize(&lat);
        for (size_t j = 0; j < sizeof chunks / sizeof chunks[0]; j++) {
            int64_t start = chunks[j][0], cn = chunks[j][1];
            for (int p = 0; p < n; p++) {
                int co[HC_RING_MAXD];
                hc_lattice_coords(&lat, p, co);
                hc_ring_block(start, cn, lat.dims[0], co[0], &off[p], &len[p]);
            }
            HC_CHECK_MSG(simulate_from(&lat, n, 1, start + cn + 3, off, len) == 0,
                         "lattice %zu, n=%d, chunk [%lld, +%lld)", i, n, (long long)start,
                         (long long)cn);
        }
    }
}

/* k0 = 1 and 2 with segments that owe nothing to the lattice: each group picks its own offset
 * and length in a longer vector; ring members only need to agree. */
HC_TEST(schedule_from_any_segment)
{
    static const hc_lattice lats[] = {
        {2, {2, 2}}, {2, {3, 5}}, {3, {2, 3, 2}}, {3, {3, 2, 4}}, {4, {2, 2, 2, 2}}, {3, {4, 4, 4}},
    };
    static const int64_t lens[] = {0, 1, 2, 3, 6, 11, 40, 129};
    int64_t off[64], len[64];
    for (size_t i = 0; i < sizeof lats / sizeof lats[0]; i++) {
        hc_lattice lat = lats[i];
        int n = (int)hc_lattice_normalize(&lat);
        for (int k0 = 1; k0 <= 2 && k0 < lat.d; k0++)
            for (size_t j = 0; j < sizeof lens / sizeof lens[0]; j++) {
                int64_t m = 0;
                for (int p = 0; p < n; p++) {
                    int co[HC_RING_MAXD], g = 0;
                    hc_lattice_coords(&lat, p, co);
                    for (int t = k0 - 1; t >= 0; t--)
                        g = g * lat.dims[t] + co[t];
                    off[p] = 5 + 13 * g % 7;
                    len[p] = lens[(j + (size_t)g) % (sizeof lens / sizeof lens[0])];
                    m = off[p] + len[p] > m ? off[p] + len[p] : m;
                }
                HC_CHECK_MSG(simulate_from(&lat, n, k0, m + 2, off, len) == 0,
                             "lattice %zu, n=%d, k0=%d, lengths from %zu", i, n, k0, j);
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
