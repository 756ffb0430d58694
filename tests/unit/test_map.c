/* Mapping algorithms: the paper's worked examples, TMGP's rules, the objective recomputed
 * independently, refinement and auto never worse than what they start from. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hc_map.h"
#include "hc_test.h"

static const double paper_matrix[49] = {
    0, 6, 2, 2, 2, 2, 2, /**/ 6, 0, 2, 2, 2, 2, 2, /**/ 2, 2, 0, 8, 2, 2, 2, /**/
    2, 2, 8, 0, 2, 2, 2, /**/ 2, 2, 2, 2, 0, 8, 6, /**/ 2, 2, 2, 2, 8, 0, 6, /**/
    2, 2, 2, 2, 6, 6, 0};

/* Fig. 11: the 2 x 3 grid, rows weigh 10, columns 4. */
static void paper_grid(hc_graph *g)
{
    int s[] = {0, 1, 3, 4, 0, 1, 2}, d[] = {1, 2, 4, 5, 3, 4, 5};
    double w[] = {10, 10, 10, 10, 4, 4, 4};
    HC_CHECK_EQ_INT(hc_graph_from_triples(g, 6, 7, s, d, w), 0);
}

/* Formula (4) straight from its definition: x_ip x_jq d_ij / b_pq over all i, j, p, q. */
static double paper_T(const hc_graph *g, const hc_machine *m, const int *map, double *sum)
{
    int M = g->n, N = m->ncores;
    double T = 0, S = 0;
    for (int i = 0; i < M; i++) {
        double t = 0;
        for (int j = 0; j < M; j++)
            for (int p = 0; p < N; p++)
                for (int q = 0; q < N; q++) {
                    if (map[i] != p || map[j] != q || i == j)
                        continue;
                    double d = hc_graph_weight(g, i, j);
                    if (d > 0)
                        t += d / hc_machine_bw(m, p, q);
                }
        T = t > T ? t : T;
        S += t;
    }
    *sum = S / 2;
    return T;
}

HC_TEST(tmgt_paper_example_matrix)
{
    hc_graph g;
    hc_machine m;
    char err[200];
    paper_grid(&g);
    HC_CHECK_EQ_INT(hc_machine_from_matrix(&m, 7, paper_matrix, err, sizeof err), 0);
    int map[6];
    HC_CHECK_EQ_INT(hc_map_tmgt(&g, &m, map), 0);
    /* published X = {x_16, x_25, x_37, x_44, x_53, x_61}, 1-based */
    int want[6] = {5, 4, 6, 3, 2, 0};
    for (int i = 0; i < 6; i++)
        HC_CHECK_MSG(map[i] == want[i], "rank %d on core %d, paper says %d", i + 1, map[i] + 1,
                     want[i] + 1);
    double t[6], pub[6] = {13. / 4, 59. / 12, 11. / 3, 13. / 4, 33. / 4, 7};
    hc_map_rank_costs(&g, &m, map, t);
    for (int i = 0; i < 6; i++)
        HC_CHECK_NEAR(t[i], pub[i], 1e-12);
    hc_map_cost c = hc_map_cost_eval(&g, &m, map);
    HC_CHECK_NEAR(c.max, 33. / 4, 1e-12);
    double s;
    HC_CHECK_NEAR(paper_T(&g, &m, map, &s), 33. / 4, 1e-12);
    HC_CHECK_NEAR(c.sum, s, 1e-12);
    hc_machine_free(&m);
    hc_graph_free(&g);
}

/* The same subsystem as a tree with unavailable cores gives the same matrix and mapping. */
HC_TEST(tmgt_paper_example_tree)
{
    hc_graph g;
    hc_machine m;
    char err[200];
    double bw[3] = {2, 6, 8};
    paper_grid(&g);
    HC_CHECK_EQ_INT(hc_machine_from_synthetic(&m, "node:3 package:2 core:2", bw, 3, err,
                                              sizeof err), 0);
    HC_CHECK_EQ_INT(hc_machine_set_unavailable(&m, "1,3,6-7,11", err, sizeof err), 0);
    int avail[7] = {0, 2, 4, 5, 8, 9, 10};
    for (int p = 0; p < 7; p++)
        for (int q = 0; q < 7; q++)
            if (p != q)
                HC_CHECK_NEAR(hc_machine_bw(&m, avail[p], avail[q]), paper_matrix[p * 7 + q], 0);
    int map[6], want[6] = {9, 8, 10, 5, 4, 0};
    HC_CHECK_EQ_INT(hc_map_tmgt(&g, &m, map), 0);
    for (int i = 0; i < 6; i++)
        HC_CHECK_EQ_INT(map[i], want[i]);
    HC_CHECK_NEAR(hc_map_cost_eval(&g, &m, map).max, 33. / 4, 1e-12);
    /* auto is never worse than TMGT here */
    char name[64];
    int best[6];
    HC_CHECK_EQ_INT(hc_map_compute(&g, &m, HC_MAPALGO_AUTO, 1, best, name, sizeof name, err,
                                   sizeof err), 0);
    HC_CHECK(hc_map_cost_eval(&g, &m, best).max <= 33. / 4 + 1e-12);
    hc_machine_free(&m);
    hc_graph_free(&g);
}

HC_TEST(tmgp_k_and_s)
{
    int k, s;
    hc_map_tmgp_params(16, 4, &k, &s);
    HC_CHECK(k == 4 && s == 4);
    hc_map_tmgp_params(12, 4, &k, &s); /* Fig. 5 */
    HC_CHECK(k == 3 && s == 4);
    hc_map_tmgp_params(13, 4, &k, &s);
    HC_CHECK(k == 4 && s == 4);
    hc_map_tmgp_params(512, 4, &k, &s);
    HC_CHECK(k == 128 && s == 4);
    hc_map_tmgp_params(1, 8, &k, &s);
    HC_CHECK(k == 1 && s == 8);
}

/* NPB CG on 16 processes: a 4 x 4 process grid, heavy reduction exchanges within a row of 4
 * consecutive ranks (partners at distance 1 and 2), lighter transpose exchanges. */
static void cg_graph(hc_graph *g)
{
    int s[64], d[64], n = 0;
    double w[64];
    for (int r = 0; r < 16; r++) {
        int row = r / 4, col = r % 4;
        int p1 = row * 4 + (col ^ 1), p2 = row * 4 + (col ^ 2), tr = col * 4 + row;
        s[n] = r, d[n] = p1, w[n++] = 3e8;
        s[n] = r, d[n] = p2, w[n++] = 3e8;
        if (tr != r)
            s[n] = r, d[n] = tr, w[n++] = 1.5e8;
    }
    HC_CHECK_EQ_INT(hc_graph_from_triples(g, 16, n, s, d, w), 0);
}

HC_TEST(tmmgp_cg_example_keeps_blocks)
{
    hc_graph g;
    hc_machine m;
    char err[200];
    double bw[2] = {1.25e8, 4e9};
    cg_graph(&g);
    HC_CHECK_EQ_INT(hc_machine_from_synthetic(&m, "node:4 core:4", bw, 2, err, sizeof err), 0);
    int map[16];
    for (int variant = 0; variant < 2; variant++) {
        int rc = variant ? hc_map_tmmgp(&g, &m, 7, 1, map) : hc_map_tmmgp_paper(&g, &m, 7, map);
        HC_CHECK_EQ_INT(rc, 0);
        int used[16] = {0};
        for (int r = 0; r < 16; r++) {
            HC_CHECK(map[r] >= 0 && map[r] < 16);
            HC_CHECK(!used[map[r]]++);
            HC_CHECK_MSG(map[r] / 4 == map[r - r % 4] / 4, "variant %d: rank %d on node %d, "
                         "rank %d on node %d", variant, r, map[r] / 4, r - r % 4,
                         map[r - r % 4] / 4);
        }
    }
    /* the blocks beat round robin by a wide margin */
    int rr[16];
    HC_CHECK_EQ_INT(hc_map_tmrr(&g, &m, rr), 0);
    HC_CHECK(hc_map_cost_eval(&g, &m, map).max * 2 < hc_map_cost_eval(&g, &m, rr).max);
    hc_machine_free(&m);
    hc_graph_free(&g);
}

static unsigned lcg(unsigned *s) { return *s = *s * 1103515245u + 12345u, (*s >> 8); }

static void random_graph(hc_graph *g, int n, int edges, unsigned seed)
{
    int *s = malloc(sizeof(int) * edges), *d = malloc(sizeof(int) * edges);
    double *w = malloc(sizeof(double) * edges);
    for (int e = 0; e < edges; e++) {
        s[e] = (int)(lcg(&seed) % n);
        d[e] = (int)(lcg(&seed) % n);
        w[e] = 1 + lcg(&seed) % 1000;
    }
    HC_CHECK_EQ_INT(hc_graph_from_triples(g, n, edges, s, d, w), 0);
    free(s);
    free(d);
    free(w);
}

static int valid(const hc_graph *g, const hc_machine *m, const int *map)
{
    char *used = calloc((size_t)m->ncores, 1);
    int ok = 1;
    for (int i = 0; i < g->n; i++) {
        if (map[i] < 0 || map[i] >= m->ncores || !m->avail[map[i]] || used[map[i]]++)
            ok = 0;
    }
    free(used);
    return ok;
}

HC_TEST(objective_and_algorithms_on_random_graphs)
{
    double bw[3] = {1, 3, 8};
    for (unsigned seed = 1; seed <= 6; seed++) {
        hc_graph g;
        hc_machine m;
        char err[200], name[64];
        random_graph(&g, 20, 60, seed);
        HC_CHECK_EQ_INT(hc_machine_from_synthetic(&m, "node:3 package:2 core:4", bw, 3, err,
                                                  sizeof err), 0);
        if (seed % 2)
            HC_CHECK_EQ_INT(hc_machine_set_unavailable(&m, "0,5-6,17", err, sizeof err), 0);
        int map[20], ref[20];
        for (int a = HC_MAPALGO_AUTO; a <= HC_MAPALGO_SCOTCH; a++) {
            int rc = hc_map_compute(&g, &m, a, seed, map, name, sizeof name, err, sizeof err);
            if (a == HC_MAPALGO_TMMGP_PAPER && seed % 2) {
                HC_CHECK_EQ_INT(rc, -1); /* the paper's TMMGP needs the whole machine */
                continue;
            }
            HC_CHECK_MSG(rc == 0, "%s: %s", hc_map_algo_name(a), err);
            HC_CHECK_MSG(valid(&g, &m, map), "%s: invalid mapping", hc_map_algo_name(a));
            hc_map_cost c = hc_map_cost_eval(&g, &m, map);
            double s, T = paper_T(&g, &m, map, &s);
            HC_CHECK_NEAR(c.max, T, 1e-9 * T);
            HC_CHECK_NEAR(c.sum, s, 1e-9 * s);
            memcpy(ref, map, sizeof map);
            hc_map_refine(&g, &m, seed, ref);
            HC_CHECK(valid(&g, &m, ref));
            hc_map_cost r = hc_map_cost_eval(&g, &m, ref);
            HC_CHECK_MSG(r.max <= c.max * (1 + 1e-9) && r.sum <= c.sum * (1 + 1e-9),
                         "%s: refine %g/%g -> %g/%g", hc_map_algo_name(a), c.max, c.sum, r.max,
                         r.sum);
        }
        /* a refined candidate (TML here) with a lower max than auto's must cost more
         * traffic: were its sum no higher, auto could not have passed it over */
        int best[20], lin[20];
        hc_map_compute(&g, &m, HC_MAPALGO_AUTO, seed, best, name, sizeof name, err, sizeof err);
        hc_map_tml(&g, &m, lin);
        hc_map_refine(&g, &m, seed, lin);
        hc_map_cost a = hc_map_cost_eval(&g, &m, best), t = hc_map_cost_eval(&g, &m, lin);
        HC_CHECK_MSG(!hc_map_cost_less(t.max, a.max) || t.sum > a.sum,
                     "auto %g/%g, tml+refine %g/%g", a.max, a.sum, t.max, t.sum);
        /* deterministic for a seed */
        int again[20];
        hc_map_compute(&g, &m, HC_MAPALGO_AUTO, seed, again, name, sizeof name, err, sizeof err);
        HC_CHECK(!memcmp(best, again, sizeof best));
        hc_machine_free(&m);
        hc_graph_free(&g);
    }
}

HC_TEST(baselines)
{
    hc_graph g;
    hc_machine m;
    char err[200];
    double bw[2] = {1, 10};
    random_graph(&g, 6, 10, 3);
    HC_CHECK_EQ_INT(hc_machine_from_synthetic(&m, "node:3 core:4", bw, 2, err, sizeof err), 0);
    HC_CHECK_EQ_INT(hc_machine_set_unavailable(&m, "1,4", err, sizeof err), 0);
    int map[6], tml[6] = {0, 2, 3, 5, 6, 7}, tmrr[6] = {0, 5, 8, 2, 6, 9};
    HC_CHECK_EQ_INT(hc_map_tml(&g, &m, map), 0);
    for (int i = 0; i < 6; i++)
        HC_CHECK_EQ_INT(map[i], tml[i]);
    HC_CHECK_EQ_INT(hc_map_tmrr(&g, &m, map), 0);
    for (int i = 0; i < 6; i++)
        HC_CHECK_EQ_INT(map[i], tmrr[i]);
    HC_CHECK_EQ_INT(hc_machine_set_unavailable(&m, "0-9", err, sizeof err), 0);
    HC_CHECK_EQ_INT(hc_map_tml(&g, &m, map), -1); /* 2 cores left for 6 ranks */
    HC_CHECK_EQ_INT(hc_map_compute(&g, &m, HC_MAPALGO_AUTO, 1, map, err, sizeof err, err,
                                   sizeof err), -1);
    hc_machine_free(&m);
    hc_graph_free(&g);
}

/* Capped, refinement may buy a lower max with traffic, never past the cap; uncapped (or with
 * a cap of 0) it never raises the sum. Random graphs of 64 ranks on 4 nodes of 16 cores, each
 * starting from TML refined to where plain refinement stops; auto, whose winner is refined
 * the same way, trades too. */
HC_TEST(capped_refine_trades_traffic_for_the_max_within_the_cap)
{
    double bw[2] = {1.25e10, 5e10};
    int traded = 0, auto_traded = 0;
    for (unsigned seed = 1; seed <= 6; seed++) {
        hc_graph g;
        hc_machine m;
        char err[200];
        random_graph(&g, 64, 200, seed);
        HC_CHECK_EQ_INT(hc_machine_from_synthetic(&m, "node:4 core:16", bw, 2, err, sizeof err),
                        0);
        int start[64], plain[64], capped[64];
        HC_CHECK_EQ_INT(hc_map_tml(&g, &m, start), 0);
        while (hc_map_refine(&g, &m, seed, start) > 0)
            ;
        hc_map_cost s = hc_map_cost_eval(&g, &m, start);
        memcpy(plain, start, sizeof start);
        HC_CHECK_EQ_INT(hc_map_refine_capped(&g, &m, seed, 0, plain), 0);
        HC_CHECK(!memcmp(plain, start, sizeof start));
        double cap = s.sum * 1.05;
        memcpy(capped, start, sizeof start);
        hc_map_refine_capped(&g, &m, seed, cap, capped);
        HC_CHECK(valid(&g, &m, capped));
        hc_map_cost c = hc_map_cost_eval(&g, &m, capped);
        HC_CHECK_MSG(c.max <= s.max * (1 + 1e-9) && c.sum <= cap * (1 + 1e-9),
                     "seed %u: %g/%g -> %g/%g, cap %g", seed, s.max, s.sum, c.max, c.sum, cap);
        /* where plain refinement had stopped, only a move that raised the sum lowers the max */
        if (hc_map_cost_less(c.max, s.max)) {
            traded++;
            HC_CHECK_MSG(c.sum > s.sum, "seed %u: max %g -> %g with no more traffic", seed,
                         s.max, c.max);
        }
        /* auto makes the same trade on its winner, up to 5% over Scotch's traffic */
        char name[64];
        HC_CHECK_EQ_INT(hc_map_compute(&g, &m, HC_MAPALGO_AUTO, seed, capped, name, sizeof name,
                                       err, sizeof err), 0);
        auto_traded += strstr(name, "+trade") != NULL;
        hc_machine_free(&m);
        hc_graph_free(&g);
    }
    HC_CHECK_MSG(traded >= 3, "the max went down on %d graphs of 6", traded);
    HC_CHECK_MSG(auto_traded >= 3, "auto traded on %d graphs of 6", auto_traded);
}

/* An X x Y x Z grid, cell (x, y, z) numbered (x * Y + y) * Z + z, halos of 1 MB. */
static void grid3d(hc_graph *g, int X, int Y, int Z)
{
    int n = 0, cells = X * Y * Z, *s = malloc(sizeof(int) * 3 * (size_t)cells);
    int *d = malloc(sizeof(int) * 3 * (size_t)cells);
    double *w = malloc(sizeof(double) * 3 * (size_t)cells);
    for (int x = 0; x < X; x++)
        for (int y = 0; y < Y; y++)
            for (int z = 0; z < Z; z++) {
                int c = (x * Y + y) * Z + z;
                if (x + 1 < X)
                    s[n] = c, d[n] = c + Y * Z, w[n++] = 1e6;
                if (y + 1 < Y)
                    s[n] = c, d[n] = c + Z, w[n++] = 1e6;
                if (z + 1 < Z)
                    s[n] = c, d[n] = c + 1, w[n++] = 1e6;
            }
    HC_CHECK_EQ_INT(hc_graph_from_triples(g, cells, n, s, d, w), 0);
    free(s);
    free(d);
    free(w);
}

/* An 8 x 8 x 4 grid on 16 nodes of 16 cores: 2 x 2 x 4 columns through the short axis and
 * 2 x 4 x 2 boxes cut the same 192 edges, but a box's corner talks to 3 other nodes, a
 * column's to 2. The bisections that break ties in the cut by the max find the columns
 * (hiercoll-maptables --vs-scotch: 0.80x Scotch's max at its sum). */
HC_TEST(tmmgp_bisect_lays_a_3d_grid_out_in_columns)
{
    double bw[2] = {1.25e10, 5e10};
    hc_graph g;
    hc_machine m;
    char err[200];
    grid3d(&g, 8, 8, 4);
    HC_CHECK_EQ_INT(hc_machine_from_synthetic(&m, "node:16 core:16", bw, 2, err, sizeof err), 0);
    for (unsigned seed = 1; seed <= 3; seed++) {
        int map[256], most_off = 0, cut = 0;
        HC_CHECK_EQ_INT(hc_map_tmmgp_bisect(&g, &m, seed, 0, map), 0);
        HC_CHECK(valid(&g, &m, map));
        for (int i = 0; i < g.n; i++) {
            int off = 0;
            for (long long e = g.xadj[i]; e < g.xadj[i + 1]; e++)
                off += hc_machine_level(&m, map[i], map[g.adjncy[e]]) == 0;
            most_off = off > most_off ? off : most_off;
            cut += off;
        }
        HC_CHECK_MSG(most_off == 2 && cut / 2 == 192,
                     "seed %u: a rank with %d partners off its node, %d edges cut", seed,
                     most_off, cut / 2);
    }
    hc_machine_free(&m);
    hc_graph_free(&g);
}

int main(void) { return hc_test_main(); }
