/* How auto chooses: costs compared with a tolerance (maxima that differ in their last bit are
 * equal, so the sum decides), the traffic a lower max may cost, the hold of Scotch's best
 * strategy on the choice, Scotch's candidate (its tleaf target, partly occupied machines,
 * repeatability) and shared cores repaired. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hc_map.h"
#include "hc_test.h"

/* Rank 0's time summed in two orders: the same maximum, different in the last bit. */
static void maxima_a_bit_apart(double *lo, double *hi)
{
    volatile double a = 0.1, b = 0.2, c = 0.3;
    double x = (a + b) + c, y = a + (b + c);
    *lo = x < y ? x : y;
    *hi = x < y ? y : x;
}

HC_TEST(maxima_differing_in_the_last_bit_are_equal)
{
    double lo, hi;
    maxima_a_bit_apart(&lo, &hi);
    HC_CHECK_MSG(lo != hi && nextafter(lo, 1) == hi, "%.17g and %.17g", lo, hi);
    HC_CHECK(!hc_map_cost_less(lo, hi) && !hc_map_cost_less(hi, lo));
    HC_CHECK(hc_map_cost_less(lo, lo * (1 + 1e-6)) && !hc_map_cost_less(lo * (1 + 1e-6), lo));
    /* the 16x16 grid of the report: the same max, sums 0.204 and 0.096 */
    hc_map_cost a = {lo, 0.204}, b = {hi, 0.096};
    HC_CHECK(hc_map_cost_better(b, a));
    HC_CHECK(!hc_map_cost_better(a, b));
    HC_CHECK(!hc_map_cost_better(a, a));
    hc_map_cost c[2] = {a, b};
    int ok[2] = {1, 1};
    HC_CHECK_EQ_INT(hc_map_cost_pick(c, ok, 2, NULL), 1);
    /* a max lower beyond rounding still wins over a lower sum within the slack */
    hc_map_cost d[2] = {{lo * 0.99, 0.100}, {hi, 0.096}};
    HC_CHECK_EQ_INT(hc_map_cost_pick(d, ok, 2, NULL), 0);
}

HC_TEST(a_lower_max_may_cost_only_so_much_traffic)
{
    double L = 100;
    hc_map_cost c[4] = {{10, L}, {9, L * (1 + HC_MAP_SUM_SLACK) * 0.999},
                        {5, L * (1 + HC_MAP_SUM_SLACK) * 1.001}, {1, 1e9}};
    int ok[4] = {1, 1, 1, 0};
    HC_CHECK_EQ_INT(hc_map_cost_pick(c, ok, 4, NULL), 1); /* 2 costs too much, 3 is not a candidate */
    ok[1] = 0;
    HC_CHECK_EQ_INT(hc_map_cost_pick(c, ok, 4, NULL), 0);
    int none[4] = {0};
    HC_CHECK_EQ_INT(hc_map_cost_pick(c, none, 4, NULL), -1);
}

HC_TEST(a_reference_holds_the_choice_to_its_max_and_5pc_over_its_sum)
{
    /* 0 is the reference; 1 is 12.5% lower on the max for 5.6% more traffic */
    hc_map_cost c[4] = {{10, 100}, {8.75, 105.6}, {9.5, 104}, {7, 300}};
    int ok[4] = {1, 1, 0, 1};
    HC_CHECK_EQ_INT(hc_map_cost_pick(c, ok, 4, NULL), 1);
    HC_CHECK_EQ_INT(hc_map_cost_pick(c, ok, 4, &c[0]), 0);
    ok[2] = 1; /* a lower max within 5% of the reference's sum is still taken */
    HC_CHECK_EQ_INT(hc_map_cost_pick(c, ok, 4, &c[0]), 2);
    /* a choice that already keeps to the reference stands, even with a lower sum elsewhere */
    hc_map_cost r = {9, 200};
    HC_CHECK_EQ_INT(hc_map_cost_pick(c, ok, 4, &r), 1);
    /* no candidate keeps to it: the choice without one */
    hc_map_cost out = {1, 1};
    HC_CHECK_EQ_INT(hc_map_cost_pick(c, ok, 4, &out), 1);
}

HC_TEST(tleaf_costs_follow_the_bandwidths)
{
    hc_machine m;
    char err[200];
    double bw[4] = {1.25e10, 1e11, 2.5e10, 5e10};
    HC_CHECK_EQ_INT(hc_machine_from_synthetic(&m, "node:4 board:1 package:2 core:8", bw, 4, err,
                                              sizeof err), 0);
    hc_tleaf t;
    HC_CHECK_EQ_INT(hc_map_tleaf(&m, 0, &t), 0);
    /* the board level joins nothing: left out; 10 for the fastest level that is kept */
    HC_CHECK_EQ_INT(t.n, 3);
    int size[3] = {4, 2, 8}, own[3] = {40, 20, 10}, summed[3] = {20, 10, 10};
    for (int k = 0; k < 3; k++) {
        HC_CHECK_EQ_INT(t.size[k], size[k]);
        HC_CHECK_EQ_INT(t.link[k], own[k]);
    }
    HC_CHECK_EQ_INT(t.dist, 40);
    HC_CHECK_EQ_INT(hc_map_tleaf(&m, 1, &t), 0);
    for (int k = 0; k < 3; k++)
        HC_CHECK_EQ_INT(t.link[k], summed[k]);
    HC_CHECK_EQ_INT(t.dist, 40); /* a route between nodes climbs all three */
    hc_machine_free(&m);
    double mat[4] = {0, 1, 1, 0};
    HC_CHECK_EQ_INT(hc_machine_from_matrix(&m, 2, mat, err, sizeof err), 0);
    HC_CHECK_EQ_INT(hc_map_tleaf(&m, 1, &t), -1);
    hc_machine_free(&m);
}

/* A rows x cols grid, cell (r, c) numbered label[r * cols + c] (NULL: in row order). */
static void grid_labelled(hc_graph *g, int rows, int cols, const int *label)
{
    int n = 0, *s = malloc(sizeof(int) * 2 * (size_t)(rows * cols));
    int *d = malloc(sizeof(int) * 2 * (size_t)(rows * cols));
    double *w = malloc(sizeof(double) * 2 * (size_t)(rows * cols));
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            if (c + 1 < cols)
                s[n] = r * cols + c, d[n] = s[n] + 1, w[n++] = 1e6;
            if (r + 1 < rows)
                s[n] = r * cols + c, d[n] = s[n] + cols, w[n++] = 1e6;
        }
    for (int e = 0; label && e < n; e++)
        s[e] = label[s[e]], d[e] = label[d[e]];
    HC_CHECK_EQ_INT(hc_graph_from_triples(g, rows * cols, n, s, d, w), 0);
    free(s);
    free(d);
    free(w);
}

static void grid(hc_graph *g, int rows, int cols) { grid_labelled(g, rows, cols, NULL); }

static int valid(const hc_machine *m, const int *map, int M)
{
    char *used = calloc((size_t)m->ncores, 1);
    int ok = 1;
    for (int i = 0; i < M; i++)
        if (map[i] < 0 || map[i] >= m->ncores || !m->avail[map[i]] || used[map[i]]++)
            ok = 0;
    free(used);
    return ok;
}

/* Cores cut by an edge at the node level (the slowest), counted once per edge. */
static int cut_at_top(const hc_graph *g, const hc_machine *m, const int *map)
{
    int cut = 0;
    for (int i = 0; i < g->n; i++)
        for (long long e = g->xadj[i]; e < g->xadj[i + 1]; e++)
            cut += g->adjncy[e] > i && hc_machine_level(m, map[i], map[g->adjncy[e]]) == 0;
    return cut;
}

HC_TEST(scotch_candidate_on_whole_and_partly_occupied_machines)
{
    hc_graph g;
    hc_machine m;
    char err[200];
    double bw[3] = {1.25e10, 2.5e10, 5e10};
    grid(&g, 8, 8);
    HC_CHECK_EQ_INT(hc_machine_from_synthetic(&m, "node:4 package:2 core:8", bw, 3, err,
                                              sizeof err), 0);
    int map[64], again[64];
    for (int s = 0; s < hc_nscotch_strategies; s++) {
        HC_CHECK(hc_map_scotch(&g, &m, 1, s, map) >= 0);
        HC_CHECK_MSG(valid(&m, map, 64), "strategy %s", hc_scotch_strategies[s].label);
        /* four 4x4 blocks cut 16 edges; any strategy stays close */
        HC_CHECK_MSG(cut_at_top(&g, &m, map) <= 24, "strategy %s cuts %d",
                     hc_scotch_strategies[s].label, cut_at_top(&g, &m, map));
        HC_CHECK(hc_map_scotch(&g, &m, 1, s, again) >= 0);
        HC_CHECK(!memcmp(map, again, sizeof map));
    }
    HC_CHECK_EQ_INT(hc_map_scotch(&g, &m, 1, hc_nscotch_strategies, map), -1);
    hc_machine_free(&m);
    /* a partly occupied machine: the free cores only, and no more ranks than they hold */
    HC_CHECK_EQ_INT(hc_machine_from_synthetic(&m, "node:5 package:2 core:8", bw, 3, err,
                                              sizeof err), 0);
    HC_CHECK_EQ_INT(hc_machine_set_unavailable(&m, "0-7,20,33-40,63", err, sizeof err), 0);
    HC_CHECK_EQ_INT(hc_map_scotch(&g, &m, 1, 0, map), -1); /* 62 free cores, 64 ranks */
    hc_machine_free(&m);
    HC_CHECK_EQ_INT(hc_machine_from_synthetic(&m, "node:5 package:2 core:8", bw, 3, err,
                                              sizeof err), 0);
    HC_CHECK_EQ_INT(hc_machine_set_unavailable(&m, "0-7,20,33-38", err, sizeof err), 0);
    for (int s = 0; s < hc_nscotch_strategies; s++) {
        HC_CHECK(hc_map_scotch(&g, &m, 1, s, map) >= 0);
        HC_CHECK_MSG(valid(&m, map, 64), "strategy %s", hc_scotch_strategies[s].label);
    }
    hc_machine_free(&m);
    hc_graph_free(&g);
}

/* The 8x8 grid on two nodes of two packages: strips of rows (TML) have a 12.5% lower max
 * than Scotch's blocks for 5.6% more traffic, within HC_MAP_SUM_SLACK of the lowest sum.
 * auto keeps to Scotch's best strategy: no higher max, at most 5% more traffic. */
HC_TEST(auto_keeps_to_scotchs_best_strategy)
{
    hc_graph g;
    hc_machine m;
    char err[200], name[64];
    double bw[3] = {1.25e10, 2.5e10, 5e10};
    grid(&g, 8, 8);
    HC_CHECK_EQ_INT(hc_machine_from_synthetic(&m, "node:2 package:2 core:16", bw, 3, err,
                                              sizeof err), 0);
    int map[64], found = 0;
    hc_map_cost best = {0, 0};
    for (int s = 0; s < hc_nscotch_strategies; s++)
        if (hc_map_scotch(&g, &m, 1, s, map) == 0) { /* Scotch's own mapping, no core shared */
            hc_map_cost c = hc_map_cost_eval(&g, &m, map);
            if (!found++ || hc_map_cost_better(c, best))
                best = c;
        }
    HC_CHECK(found > 0);
    HC_CHECK_EQ_INT(hc_map_tml(&g, &m, map), 0);
    hc_map_cost strips = hc_map_cost_eval(&g, &m, map);
    HC_CHECK_MSG(hc_map_cost_less(strips.max, best.max) &&
                     strips.sum > best.sum * (1 + HC_MAP_REF_SUM_SLACK) &&
                     strips.sum <= best.sum * (1 + HC_MAP_SUM_SLACK),
                 "strips max %g sum %g, Scotch max %g sum %g: not the trade this test is about",
                 strips.max, strips.sum, best.max, best.sum);
    HC_CHECK_EQ_INT(hc_map_compute(&g, &m, HC_MAPALGO_AUTO, 1, map, name, sizeof name, err,
                                   sizeof err), 0);
    HC_CHECK(valid(&m, map, 64));
    hc_map_cost a = hc_map_cost_eval(&g, &m, map);
    HC_CHECK_MSG(!hc_map_cost_less(best.max, a.max) &&
                     a.sum <= best.sum * (1 + HC_MAP_REF_SUM_SLACK) * (1 + HC_MAP_COST_RTOL),
                 "auto (%s) max %g sum %g, Scotch max %g sum %g", name, a.max, a.sum, best.max,
                 best.sum);
    hc_machine_free(&m);
    hc_graph_free(&g);
}

/* A 32x32 grid numbered at random (splitmix64 from `seed`, as hiercoll-maptables numbers its
 * grid2d-rand family) on 64 nodes of 16 cores: 4x4 blocks cut 448 edges and leave at most 2 of
 * a rank's 4 partners off its node. On these two numberings one METIS partitioning per split
 * and every Scotch strategy leave ragged parts (a rank with 3 partners off its node, 502-520
 * edges cut); the TMMGP candidates keeping the least cutting of several partitionings find
 * the blocks. */
static void check_random_grid_in_blocks(uint64_t seed)
{
    enum { SIDE = 32, M = SIDE * SIDE };
    hc_graph g;
    hc_machine m;
    char err[200], name[64];
    double bw[2] = {1.25e10, 5e10};
    int label[M], map[M];
    uint64_t state = seed;
    for (int i = 0; i < M; i++)
        label[i] = i;
    for (int i = M - 1; i > 0; i--) { /* Fisher-Yates */
        uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        int j = (int)((z ^ (z >> 31)) % (uint64_t)(i + 1)), t = label[i];
        label[i] = label[j];
        label[j] = t;
    }
    grid_labelled(&g, SIDE, SIDE, label);
    HC_CHECK_EQ_INT(hc_machine_from_synthetic(&m, "node:64 core:16", bw, 2, err, sizeof err),
                    0);
    HC_CHECK_EQ_INT(hc_map_compute(&g, &m, HC_MAPALGO_AUTO, 1, map, name, sizeof name, err,
                                   sizeof err), 0);
    HC_CHECK(valid(&m, map, M));
    int most_off = 0;
    for (int i = 0; i < M; i++) {
        int off = 0;
        for (long long e = g.xadj[i]; e < g.xadj[i + 1]; e++)
            off += hc_machine_level(&m, map[i], map[g.adjncy[e]]) == 0;
        most_off = off > most_off ? off : most_off;
    }
    int cut = cut_at_top(&g, &m, map);
    HC_CHECK_MSG(most_off <= 2 && cut <= 448 * 105 / 100,
                 "numbering %llu, auto (%s): a rank with %d partners off its node, %d edges cut",
                 (unsigned long long)seed, name, most_off, cut);
    hc_machine_free(&m);
    hc_graph_free(&g);
}

HC_TEST(auto_lays_a_randomly_numbered_grid_out_in_blocks)
{
    check_random_grid_in_blocks(7920); /* hiercoll-maptables --seed 1 */
    check_random_grid_in_blocks(2);
}

HC_TEST(shared_cores_move_to_the_nearest_free_one)
{
    hc_machine m;
    char err[200];
    double bw[2] = {1, 10};
    HC_CHECK_EQ_INT(hc_machine_from_synthetic(&m, "node:2 core:4", bw, 2, err, sizeof err), 0);
    HC_CHECK_EQ_INT(hc_machine_set_unavailable(&m, "2", err, sizeof err), 0);
    /* ranks 1 and 2 share core 0, rank 4 shares core 5 with rank 3 */
    int map[5] = {0, 0, 0, 5, 5};
    HC_CHECK_EQ_INT(hc_map_make_injective(&m, map, 5), 3);
    HC_CHECK(valid(&m, map, 5));
    HC_CHECK_EQ_INT(map[0], 0);
    HC_CHECK_EQ_INT(map[3], 5);
    HC_CHECK(map[1] == 1 && map[2] == 3); /* node 0's free cores, 2 is unavailable */
    HC_CHECK(map[4] / 4 == 1);            /* node 1 */
    int full[9] = {0, 1, 3, 4, 5, 6, 7, 0, 0};
    HC_CHECK_EQ_INT(hc_map_make_injective(&m, full, 9), -1); /* 7 free cores, 9 ranks */
    hc_machine_free(&m);
}

/* The lowest max over all M! mappings of g onto the first M cores (M small). */
static double exhaustive_min_max(const hc_graph *g, const hc_machine *m)
{
    int M = g->n, map[10] = {0}, c[10] = {0};
    for (int i = 0; i < M; i++)
        map[i] = i;
    double best = hc_map_cost_eval(g, m, map).max;
    for (int i = 1; i < M;) { /* Heap's algorithm */
        if (c[i] < i) {
            int j = i % 2 ? c[i] : 0, t = map[j];
            map[j] = map[i], map[i] = t;
            double x = hc_map_cost_eval(g, m, map).max;
            if (x < best)
                best = x;
            c[i]++, i = 1;
        } else {
            c[i++] = 0;
        }
    }
    return best;
}

HC_TEST(max_bound_is_the_optimum_of_a_star_and_below_every_mapping)
{
    hc_graph g;
    hc_machine m;
    char err[200], name[64];
    double bw[2] = {1, 10};
    HC_CHECK_EQ_INT(hc_machine_from_synthetic(&m, "node:2 core:4", bw, 2, err, sizeof err), 0);
    /* rank 0 talks to 1..7 with weights 7..1: 3 fit beside it, 4 cross the network */
    int s[7], d[7];
    double w[7];
    for (int k = 0; k < 7; k++)
        s[k] = 0, d[k] = k + 1, w[k] = 7 - k;
    HC_CHECK_EQ_INT(hc_graph_from_triples(&g, 8, 7, s, d, w), 0);
    double bound = hc_map_max_lower_bound(&g, &m);
    HC_CHECK_NEAR(bound, (7 + 6 + 5) / 10.0 + (4 + 3 + 2 + 1) / 1.0, 1e-12);
    HC_CHECK_NEAR(exhaustive_min_max(&g, &m), bound, 1e-12);
    int map[8];
    HC_CHECK_EQ_INT(hc_map_compute(&g, &m, HC_MAPALGO_AUTO, 1, map, name, sizeof name, err,
                                   sizeof err), 0);
    HC_CHECK_NEAR(hc_map_cost_eval(&g, &m, map).max, bound, 1e-12);
    hc_graph_free(&g);

    /* a 2x4 grid with irregular weights: the bound is below the optimum, which a rank's
     * neighbours crowding one another keeps above it */
    int gs[10], gd[10], n = 0;
    double gw[10];
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 4; c++) {
            if (c + 1 < 4)
                gs[n] = r * 4 + c, gd[n] = gs[n] + 1, gw[n] = 1 + (n * 7) % 5, n++;
            if (r == 0)
                gs[n] = c, gd[n] = c + 4, gw[n] = 1 + (n * 7) % 5, n++;
        }
    HC_CHECK_EQ_INT(hc_graph_from_triples(&g, 8, n, gs, gd, gw), 0);
    double opt = exhaustive_min_max(&g, &m);
    bound = hc_map_max_lower_bound(&g, &m);
    HC_CHECK_MSG(bound > 0 && !hc_map_cost_less(opt, bound), "bound %g, optimum %g", bound, opt);
    hc_machine_free(&m);

    /* the same on a matrix machine, whose cores are not alike */
    double mat[64];
    for (int p = 0; p < 8; p++)
        for (int q = 0; q < 8; q++)
            mat[p * 8 + q] = p == q ? 0 : 1 + (p / 2 == q / 2) * 9 + (p + q) % 3;
    HC_CHECK_EQ_INT(hc_machine_from_matrix(&m, 8, mat, err, sizeof err), 0);
    opt = exhaustive_min_max(&g, &m);
    bound = hc_map_max_lower_bound(&g, &m);
    HC_CHECK_MSG(bound > 0 && !hc_map_cost_less(opt, bound), "matrix: bound %g, optimum %g", bound,
                 opt);
    hc_machine_free(&m);
    hc_graph_free(&g);
}

HC_TEST(max_bound_is_below_every_algorithm_on_a_grid)
{
    hc_graph g;
    hc_machine m;
    char err[200], name[64];
    double bw[3] = {1, 4, 10};
    grid(&g, 8, 8);
    HC_CHECK_EQ_INT(hc_machine_from_synthetic(&m, "node:4 package:2 core:8", bw, 3, err,
                                              sizeof err), 0);
    double bound = hc_map_max_lower_bound(&g, &m);
    /* each rank's partners fit in its package, but some edge joins two nodes: at best one of a
     * rank on the grid's edge, whose other two partners share its package */
    HC_CHECK_NEAR(bound, 1e6 / 1 + 2 * 1e6 / 10, 1e-6);
    int map[64];
    for (int a = HC_MAPALGO_AUTO; a <= HC_MAPALGO_SCOTCH; a++) {
        HC_CHECK_EQ_INT(hc_map_compute(&g, &m, (hc_map_algo)a, 1, map, name, sizeof name, err,
                                       sizeof err), 0);
        HC_CHECK_MSG(!hc_map_cost_less(hc_map_cost_eval(&g, &m, map).max, bound), "%s", name);
    }
    hc_machine_free(&m);
    hc_graph_free(&g);
}

HC_TEST(max_bound_sees_that_some_edge_must_leave_the_node)
{
    hc_graph g;
    hc_machine m;
    char err[200], name[64];
    double bw[2] = {1, 10};
    HC_CHECK_EQ_INT(hc_machine_from_synthetic(&m, "node:2 core:4", bw, 2, err, sizeof err), 0);
    /* two triangles joined by the edge 2-3: every rank's partners fit beside it, but six ranks
     * do not fit in a node, and cutting a triangle costs a rank two network edges, so the best
     * is the bridge across the network: rank 2 takes 1 + 2 x 0.1 */
    int s[7] = {0, 0, 1, 3, 3, 4, 2}, d[7] = {1, 2, 2, 4, 5, 5, 3};
    double w[7] = {1, 1, 1, 1, 1, 1, 1};
    HC_CHECK_EQ_INT(hc_graph_from_triples(&g, 6, 7, s, d, w), 0);
    HC_CHECK_NEAR(hc_map_max_lower_bound(&g, &m), 1.2, 1e-12);
    int map[6];
    HC_CHECK_EQ_INT(hc_map_compute(&g, &m, HC_MAPALGO_AUTO, 1, map, name, sizeof name, err,
                                   sizeof err), 0);
    HC_CHECK_NEAR(hc_map_cost_eval(&g, &m, map).max, 1.2, 1e-12);
    hc_graph_free(&g);
    /* apart, the triangles fit a node each: nothing has to cross */
    HC_CHECK_EQ_INT(hc_graph_from_triples(&g, 6, 6, s, d, w), 0);
    HC_CHECK_NEAR(hc_map_max_lower_bound(&g, &m), 0.2, 1e-12);
    hc_graph_free(&g);
    hc_machine_free(&m);
}

int main(void) { return hc_test_main(); }
