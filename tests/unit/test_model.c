/* The model of a job's hosts and the mapping recommended on it: where every placement costs
 * the same the launch order is kept without a search; elsewhere the search runs, and its
 * mapping is kept only where a fit to either half of the run's traffic also beats the launch
 * order on the other half. */
#include <stdio.h>
#include <string.h>

#include "hc_map.h"
#include "hc_model.h"
#include "hc_test.h"

/* A ring of n ranks, heavier between even and odd neighbours. */
static void ring(hc_graph *g, int n)
{
    int src[16], dst[16];
    double bytes[16];
    for (int r = 0; r < n; r++) {
        src[r] = r;
        dst[r] = (r + 1) % n;
        bytes[r] = r % 2 ? 1e6 : 4e6;
    }
    HC_CHECK_EQ_INT(hc_graph_from_triples(g, n, n, src, dst, bytes), 0);
}

/* A graph of 4 ranks from the upper triangle of w. */
static void graph4(hc_graph *g, const double w[4][4])
{
    int src[6], dst[6], k = 0;
    double bytes[6];
    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++)
            src[k] = i, dst[k] = j, bytes[k++] = w[i][j];
    HC_CHECK_EQ_INT(hc_graph_from_triples(g, 4, k, src, dst, bytes), 0);
}

/* Recommends g (a ring of n ranks if NULL; halves may be NULL) for ranks launched on
 * hosts[host[r]], OS core cpu[r]. */
static int recommend_graph(const hc_graph *given, const hc_graph *halves, hc_model_host *hosts,
                           int nhosts, const int *host, const int *cpu, int n, hc_mapfile *f,
                           hc_model *md)
{
    hc_graph g;
    char warn[512], err[512];
    int launched[16];
    if (given)
        g = *given;
    else
        ring(&g, n);
    int built = hc_model_build(md, hosts, nhosts, n, "1e9,2e10", "", warn, sizeof warn, err,
                               sizeof err);
    HC_CHECK_MSG(built == 0, "%s", err);
    if (built != 0) {
        if (!given)
            hc_graph_free(&g);
        return -1;
    }
    hc_model_launched(md, host, cpu, n, launched);
    int rc = hc_model_recommend(&g, halves, md, HC_MAPALGO_AUTO, launched, f, err, sizeof err);
    HC_CHECK_MSG(rc == 0, "%s", err);
    if (!given)
        hc_graph_free(&g);
    return rc;
}

static int recommend(hc_model_host *hosts, int nhosts, const int *host, const int *cpu, int n,
                     hc_mapfile *f, hc_model *md)
{
    return recommend_graph(NULL, NULL, hosts, nhosts, host, cpu, n, f, md);
}

static double cost_of(const hc_mapfile *f, const char *label)
{
    for (int c = 0; c < f->ncosts; c++)
        if (!strcmp(f->cost[c].label, label))
            return f->cost[c].max;
    return -1;
}

static void host_of(hc_model_host *h, const char *name, const char *cores, int ranks)
{
    memset(h, 0, sizeof *h);
    snprintf(h->name, sizeof h->name, "%s", name);
    HC_CHECK_EQ_INT(hc_host_topo_parse(&h->topo, cores), 0);
    snprintf(h->topo.host, sizeof h->topo.host, "%s", name);
    h->ranks = ranks;
}

/* Hosts a and b of two cores each, two ranks launched on each. */
static void two_hosts(hc_model_host h[2])
{
    host_of(&h[0], "a", "1 0;1", 2);
    host_of(&h[1], "b", "1 0;1", 2);
}

HC_TEST(one_host_one_package_keeps_the_launch_order)
{
    hc_model_host h;
    hc_model md;
    hc_mapfile f = {0};
    host_of(&h, "a", "1 0;1;2;3", 4);
    int host[4] = {0, 0, 0, 0}, cpu[4] = {2, 0, 3, 1};
    if (recommend(&h, 1, host, cpu, 4, &f, &md) == 0) {
        HC_CHECK_EQ_STR(f.algorithm, "launch-order");
        for (int r = 0; r < 4; r++) {
            HC_CHECK_EQ_STR(f.host[r], "a");
            HC_CHECK_EQ_INT(f.core[r], cpu[r]);
        }
        HC_CHECK_EQ_STR(f.cost[0].label, "launched");
        HC_CHECK_EQ_STR(f.cost[f.ncosts - 1].label, "mapped");
        HC_CHECK_NEAR(f.cost[f.ncosts - 1].max, f.cost[0].max, 0);
        HC_CHECK_NEAR(f.cost[f.ncosts - 1].sum, f.cost[0].sum, 0);
    }
    hc_mapfile_free(&f);
    hc_model_free(&md);
    hc_host_topo_free(&h.topo);
}

HC_TEST(two_ranks_on_one_core_are_not_a_placement_to_keep)
{
    hc_model_host h;
    hc_model md;
    hc_mapfile f = {0};
    host_of(&h, "a", "1 0;1", 2);
    int host[2] = {0, 0}, cpu[2] = {-1, -1}; /* unknown cores: both on the first */
    if (recommend(&h, 1, host, cpu, 2, &f, &md) == 0) {
        HC_CHECK(strcmp(f.algorithm, "launch-order") != 0);
        HC_CHECK(f.core[0] != f.core[1]);
    }
    hc_mapfile_free(&f);
    hc_model_free(&md);
    hc_host_topo_free(&h.topo);
}

HC_TEST(two_hosts_are_searched_and_the_ring_split_where_it_is_light)
{
    hc_model_host h[2];
    hc_model md;
    hc_mapfile f = {0};
    two_hosts(h);
    /* round robin: every heavy pair (0-1, 2-3) crosses the link */
    int host[4] = {0, 1, 0, 1}, cpu[4] = {0, 0, 1, 1};
    if (recommend(h, 2, host, cpu, 4, &f, &md) == 0) {
        HC_CHECK(strcmp(f.algorithm, "launch-order") != 0);
        HC_CHECK_EQ_STR(f.host[0], f.host[1]);
        HC_CHECK_EQ_STR(f.host[2], f.host[3]);
        HC_CHECK(strcmp(f.host[0], f.host[2]) != 0);
        HC_CHECK(f.cost[f.ncosts - 1].max < f.cost[0].max);
    }
    hc_mapfile_free(&f);
    hc_model_free(&md);
    for (int k = 0; k < 2; k++)
        hc_host_topo_free(&h[k].topo);
}

/* Launched by slot on 2 hosts of 2 cores: {0,1} and {2,3}. In one half of the run 0-2 and
 * 1-3 talk, in the other 0-3 and 1-2 (partners drawn anew, as HPCC's random rings): the
 * whole profile makes either pairing look better than the launch order, but a fit to one
 * half puts on the link just what the other half sends, and the launch order stays. */
HC_TEST(a_fit_that_does_not_hold_on_the_other_half_keeps_the_launch_order)
{
    const double a[4][4] = {{0, 3, 10, 0}, {0, 0, 0, 10}, {0, 0, 0, 3}, {0}};
    const double b[4][4] = {{0, 3, 0, 10}, {0, 0, 10, 0}, {0, 0, 0, 3}, {0}};
    double all[4][4];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            all[i][j] = a[i][j] + b[i][j];
    hc_graph g, halves[2];
    graph4(&g, all);
    graph4(&halves[0], a);
    graph4(&halves[1], b);
    hc_model_host h[2];
    hc_model md;
    hc_mapfile f = {0};
    two_hosts(h);
    int host[4] = {0, 0, 1, 1}, cpu[4] = {0, 1, 0, 1};
    if (recommend_graph(&g, halves, h, 2, host, cpu, 4, &f, &md) == 0) {
        HC_CHECK_EQ_STR(f.algorithm, "launch-order");
        for (int r = 0; r < 4; r++) {
            HC_CHECK_EQ_STR(f.host[r], r < 2 ? "a" : "b");
            HC_CHECK_EQ_INT(f.core[r], cpu[r]);
        }
        HC_CHECK(cost_of(&f, "fitted") > 0 && cost_of(&f, "fitted") < cost_of(&f, "launched"));
        HC_CHECK_NEAR(cost_of(&f, "mapped"), cost_of(&f, "launched"), 0);
    }
    hc_mapfile_free(&f);
    hc_model_free(&md);
    /* the same pairs in both halves (a stable pattern): the fit holds, the ranks move */
    hc_mapfile g2 = {0};
    hc_graph_free(&halves[1]);
    graph4(&halves[1], a);
    hc_graph ga;
    graph4(&ga, a);
    if (recommend_graph(&ga, halves, h, 2, host, cpu, 4, &g2, &md) == 0) {
        HC_CHECK(strcmp(g2.algorithm, "launch-order") != 0);
        HC_CHECK_EQ_STR(g2.host[0], g2.host[2]);
        HC_CHECK_EQ_STR(g2.host[1], g2.host[3]);
        HC_CHECK(cost_of(&g2, "fitted") < 0);
    }
    hc_mapfile_free(&g2);
    hc_model_free(&md);
    hc_graph_free(&ga);
    hc_graph_free(&g);
    for (int k = 0; k < 2; k++) {
        hc_graph_free(&halves[k]);
        hc_host_topo_free(&h[k].topo);
    }
}

int main(void)
{
    return hc_test_main();
}
