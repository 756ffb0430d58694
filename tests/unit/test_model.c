/* The model of a job's hosts and the mapping recommended on it: where every placement costs
 * the same the launch order is kept without a search; elsewhere the search runs. */
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

/* Recommends for ranks launched on hosts[host[r]], OS core cpu[r]. */
static int recommend(hc_model_host *hosts, int nhosts, const int *host, const int *cpu, int n,
                     hc_mapfile *f, hc_model *md)
{
    hc_graph g;
    char warn[512], err[512];
    int launched[16];
    ring(&g, n);
    HC_CHECK_EQ_INT(hc_model_build(md, hosts, nhosts, n, "1e9,2e10", "", warn, sizeof warn,
                                   err, sizeof err), 0);
    hc_model_launched(md, host, cpu, n, launched);
    int rc = hc_model_recommend(&g, md, HC_MAPALGO_AUTO, launched, f, err, sizeof err);
    HC_CHECK_MSG(rc == 0, "%s", err);
    hc_graph_free(&g);
    return rc;
}

static void host_of(hc_model_host *h, const char *name, const char *cores, int ranks)
{
    memset(h, 0, sizeof *h);
    snprintf(h->name, sizeof h->name, "%s", name);
    HC_CHECK_EQ_INT(hc_host_topo_parse(&h->topo, cores), 0);
    snprintf(h->topo.host, sizeof h->topo.host, "%s", name);
    h->ranks = ranks;
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
    host_of(&h[0], "a", "1 0;1", 2);
    host_of(&h[1], "b", "1 0;1", 2);
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

int main(void)
{
    return hc_test_main();
}
