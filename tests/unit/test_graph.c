/* Task graph: construction from triples, METIS round trip, reader diagnostics. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hc_graph.h"
#include "hc_test.h"
#include "test_map_util.h"

HC_TEST(triples_merge_symmetric)
{
    int src[] = {0, 1, 0, 2, 2, 3, 1};
    int dst[] = {1, 0, 1, 2, 0, 1, 3};
    double b[] = {10, 5, 1, 99, 7, 0, 3};
    hc_graph g;
    HC_CHECK_EQ_INT(hc_graph_from_triples(&g, 4, 7, src, dst, b), 0);
    HC_CHECK_EQ_INT(g.n, 4);
    HC_CHECK_EQ_INT(g.xadj[4], 6); /* edges 0-1, 0-2, 1-3, each twice */
    HC_CHECK_NEAR(hc_graph_weight(&g, 0, 1), 16, 0);
    HC_CHECK_NEAR(hc_graph_weight(&g, 1, 0), 16, 0);
    HC_CHECK_NEAR(hc_graph_weight(&g, 2, 0), 7, 0);
    HC_CHECK_NEAR(hc_graph_weight(&g, 3, 1), 3, 0);
    HC_CHECK_NEAR(hc_graph_weight(&g, 2, 2), 0, 0); /* self loop dropped */
    HC_CHECK_NEAR(hc_graph_weight(&g, 3, 0), 0, 0);
    for (int u = 0; u < g.n; u++)
        for (long long e = g.xadj[u] + 1; e < g.xadj[u + 1]; e++)
            HC_CHECK(g.adjncy[e] > g.adjncy[e - 1]);
    hc_graph_free(&g);
}

HC_TEST(metis_round_trip)
{
    int src[] = {0, 1, 2, 3, 4, 0};
    int dst[] = {1, 2, 3, 4, 0, 3};
    double b[] = {100, 200, 300, 400, 500, 1e12};
    hc_graph g, h;
    HC_CHECK_EQ_INT(hc_graph_from_triples(&g, 6, 6, src, dst, b), 0);
    char path[256];
    snprintf(path, sizeof path, "%s/rt.graph", tmpdir);
    FILE *f = fopen(path, "w");
    HC_CHECK_EQ_INT(hc_graph_write_metis(&g, f), 0);
    fclose(f);
    char first[64] = "";
    f = fopen(path, "r");
    HC_CHECK(fgets(first, sizeof first, f) != NULL);
    fclose(f);
    HC_CHECK_EQ_STR(first, "% hiercoll taskgraph v1\n");
    char err[256] = "";
    HC_CHECK_EQ_INT(hc_graph_read_metis(&h, path, err, sizeof err), 0);
    HC_CHECK_MSG(err[0] == 0, "%s", err);
    HC_CHECK_EQ_INT(h.n, 6); /* vertex 5 isolated: a blank line */
    HC_CHECK_EQ_INT(h.xadj[6], g.xadj[6]);
    for (long long e = 0; e < g.xadj[6]; e++) {
        HC_CHECK_EQ_INT(h.adjncy[e], g.adjncy[e]);
        HC_CHECK_NEAR(h.adjwgt[e], g.adjwgt[e], 0);
    }
    hc_graph_free(&g);
    hc_graph_free(&h);
}

HC_TEST(metis_plain_formats)
{
    /* unweighted, with a comment and vertex weights variants */
    const char *p = write_tmp("plain.graph", "% comment\n3 2\n2\n1 3\n2\n");
    hc_graph g;
    char err[256];
    HC_CHECK_EQ_INT(hc_graph_read_metis(&g, p, err, sizeof err), 0);
    HC_CHECK_NEAR(hc_graph_weight(&g, 1, 2), 1, 0);
    hc_graph_free(&g);
    p = write_tmp("vw.graph", "3 2 011\n5 2 7\n6 1 7 3 9\n1 2 9\n");
    HC_CHECK_EQ_INT(hc_graph_read_metis(&g, p, err, sizeof err), 0);
    HC_CHECK_NEAR(hc_graph_weight(&g, 2, 1), 9, 0);
    hc_graph_free(&g);
}

static void expect_error(const char *name, const char *text, const char *where, const char *why)
{
    const char *p = write_tmp(name, text);
    hc_graph g;
    char err[256] = "";
    HC_CHECK_MSG(hc_graph_read_metis(&g, p, err, sizeof err) == -1, "%s accepted", name);
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%s:%s: ", p, where);
    HC_CHECK_MSG(strncmp(err, prefix, strlen(prefix)) == 0, "'%s' lacks '%s'", err, prefix);
    HC_CHECK_MSG(strstr(err, why) != NULL, "'%s' lacks '%s'", err, why);
}

HC_TEST(metis_rejects_malformed)
{
    expect_error("empty.graph", "% only a comment\n", "1", "no header");
    expect_error("hdr.graph", "three 2\n", "1", "header");
    expect_error("fmt.graph", "2 1 021\n2 1\n1 1\n", "1", "format");
    expect_error("range.graph", "2 1 001\n3 5\n1 5\n", "2", "not an integer in 1..2");
    expect_error("self.graph", "2 1 001\n1 5\n1 5\n", "2", "self loop");
    expect_error("nowgt.graph", "2 1 001\n2\n1 5\n", "2", "has no weight");
    expect_error("neg.graph", "2 1 001\n2 -5\n1 -5\n", "2", "positive");
    expect_error("asym.graph", "2 1 001\n2 5\n1 6\n", "2", "differs from its reverse");
    expect_error("noreverse.graph", "3 1 001\n2 5\n3 5\n\n", "2", "edge 1-2 has no reverse");
    expect_error("few.graph", "3 1 001\n2 5\n1 5\n", "3", "2 vertex lines, the header declares 3");
    expect_error("many.graph", "2 1 001\n2 5\n1 5\n1 5\n", "4", "more vertex lines");
    expect_error("dup.graph", "2 1 001\n2 5 2 5\n1 5\n", "2", "listed twice");
    expect_error("junk.graph", "2 1 001\n2 5x\n1 5\n", "2", "malformed");
    hc_graph g;
    char err[256];
    HC_CHECK_EQ_INT(hc_graph_read_metis(&g, "/nonexistent/x.graph", err, sizeof err), -1);
    HC_CHECK(strncmp(err, "/nonexistent/x.graph:0: cannot open", 34) == 0);
}
