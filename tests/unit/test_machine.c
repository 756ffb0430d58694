/* Machine model: synthetic strings, levels and bandwidths, the matrix reader's diagnostics,
 * unavailable cores. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hc_machine.h"
#include "hc_test.h"
#include "test_map_util.h"

HC_TEST(synthetic_levels)
{
    hc_machine m;
    char err[200], buf[200];
    double bw[3] = {2e9, 6e9, 8e9};
    HC_CHECK_EQ_INT(hc_machine_from_synthetic(&m, "node:4 package:2 core:4", bw, 3, err,
                                              sizeof err), 0);
    HC_CHECK_EQ_INT(m.ncores, 32);
    HC_CHECK_EQ_INT(hc_machine_navail(&m), 32);
    HC_CHECK_EQ_INT(hc_machine_level(&m, 0, 1), 2);  /* same package */
    HC_CHECK_EQ_INT(hc_machine_level(&m, 0, 4), 1);  /* same node, other package */
    HC_CHECK_EQ_INT(hc_machine_level(&m, 3, 8), 0);  /* other node */
    HC_CHECK_NEAR(hc_machine_bw(&m, 31, 24), 6e9, 0);
    HC_CHECK_NEAR(hc_machine_bw(&m, 31, 30), 8e9, 0);
    HC_CHECK_NEAR(hc_machine_bw(&m, 31, 0), 2e9, 0);
    HC_CHECK_EQ_INT(hc_machine_node_of(&m, 17), 2);
    hc_machine_format(&m, buf, sizeof buf);
    HC_CHECK_EQ_STR(buf, "node:4 package:2 core:4");
    HC_CHECK_EQ_INT(hc_machine_set_unavailable(&m, "0-3,31", err, sizeof err), 0);
    HC_CHECK_EQ_INT(hc_machine_navail(&m), 27);
    HC_CHECK_EQ_INT(hc_machine_set_unavailable(&m, "32", err, sizeof err), -1);
    HC_CHECK(strstr(err, "outside 0..31"));
    HC_CHECK_EQ_INT(hc_machine_set_unavailable(&m, "3-1", err, sizeof err), -1);
    HC_CHECK_EQ_INT(hc_machine_set_unavailable(&m, "1;2", err, sizeof err), -1);
    hc_machine_free(&m);
}

HC_TEST(uniform_where_every_pair_of_free_cores_meets_alike)
{
    hc_machine m;
    char err[200];
    double bw3[3] = {1e9, 1e10, 2e10}, bw2[2] = {1e9, 2e10}, same[2] = {5e9, 5e9};
    HC_CHECK_EQ_INT(hc_machine_from_synthetic(&m, "node:1 core:4", bw2, 2, err, sizeof err), 0);
    HC_CHECK_EQ_INT(hc_machine_uniform(&m), 1);
    hc_machine_free(&m);
    HC_CHECK_EQ_INT(hc_machine_from_synthetic(&m, "node:2 core:2", bw2, 2, err, sizeof err), 0);
    HC_CHECK_EQ_INT(hc_machine_uniform(&m), 0);
    HC_CHECK_EQ_INT(hc_machine_set_unavailable(&m, "2-3", err, sizeof err), 0);
    HC_CHECK_EQ_INT(hc_machine_uniform(&m), 1); /* the free cores are one node's */
    hc_machine_free(&m);
    HC_CHECK_EQ_INT(hc_machine_from_synthetic(&m, "node:1 package:2 core:2", bw3, 3, err,
                                              sizeof err), 0);
    HC_CHECK_EQ_INT(hc_machine_uniform(&m), 0);
    HC_CHECK_EQ_INT(hc_machine_set_unavailable(&m, "0,1", err, sizeof err), 0);
    HC_CHECK_EQ_INT(hc_machine_uniform(&m), 1);
    HC_CHECK_EQ_INT(hc_machine_set_unavailable(&m, "3", err, sizeof err), 0);
    HC_CHECK_EQ_INT(hc_machine_uniform(&m), 1); /* one core left */
    hc_machine_free(&m);
    /* two levels, one bandwidth: a slot shares its core's */
    HC_CHECK_EQ_INT(hc_machine_from_synthetic(&m, "core:2 slot:2", same, 2, err, sizeof err), 0);
    HC_CHECK_EQ_INT(hc_machine_uniform(&m), 1);
    hc_machine_free(&m);
    double mat[4] = {0, 1e9, 1e9, 0};
    HC_CHECK_EQ_INT(hc_machine_from_matrix(&m, 2, mat, err, sizeof err), 0);
    HC_CHECK_EQ_INT(hc_machine_uniform(&m), 0); /* no levels to tell */
    hc_machine_free(&m);
}

HC_TEST(synthetic_rejects)
{
    hc_machine m;
    char err[200];
    double bw[3] = {1, 2, 3}, bad[2] = {1, -2};
    HC_CHECK_EQ_INT(hc_machine_from_synthetic(&m, "node:4 core:2", bw, 3, err, sizeof err), -1);
    HC_CHECK(strstr(err, "2 levels but 3 bandwidths"));
    HC_CHECK_EQ_INT(hc_machine_from_synthetic(&m, "node:4 core:2", bad, 2, err, sizeof err), -1);
    HC_CHECK(strstr(err, "bandwidth 2 must be a positive"));
    HC_CHECK_EQ_INT(hc_machine_from_synthetic(&m, "node:0 core:2", bw, 2, err, sizeof err), -1);
    HC_CHECK(strstr(err, "positive integer"));
    HC_CHECK_EQ_INT(hc_machine_from_synthetic(&m, "node4 core:2", bw, 2, err, sizeof err), -1);
    HC_CHECK(strstr(err, "name:count"));
    HC_CHECK_EQ_INT(hc_machine_from_synthetic(&m, "", bw, 0, err, sizeof err), -1);
    HC_CHECK_EQ_INT(hc_machine_from_synthetic(&m, "a:4096 b:4096", bw, 2, err, sizeof err), -1);
    HC_CHECK(strstr(err, "more than"));
}

HC_TEST(matrix_reader)
{
    hc_machine m;
    char err[300];
    const char *p = write_tmp("ok.txt", "# hiercoll bandwidth-matrix v1\n3\n0 6 2\n6 0 2\n"
                                        "# comment\n2 2 0\n");
    HC_CHECK_EQ_INT(hc_machine_read_matrix(&m, p, err, sizeof err), 0);
    HC_CHECK_EQ_INT(m.ncores, 3);
    HC_CHECK_NEAR(hc_machine_bw(&m, 0, 1), 6, 0);
    HC_CHECK_NEAR(hc_machine_bw(&m, 2, 1), 2, 0);
    HC_CHECK_EQ_INT(hc_machine_level(&m, 0, 1), m.nlevels - 1);
    hc_machine_free(&m);
    struct {
        const char *text, *line, *why;
    } bad[] = {
        {"# only comments\n", "1", "no matrix size"},
        {"x\n", "1", "matrix size"},
        {"2\n0 1\n", "2", "1 rows, expected 2"},
        {"2\n0 1\n1\n", "3", "too few numbers"},
        {"2\n0 1\n1 0 5\n", "3", "more than 2 numbers"},
        {"2\n0 1\n2 0\n", "3", "not symmetric"},
        {"2\n0 -1\n-1 0\n", "2", "must be positive"},
        {"2\n0 1x\n1 0\n", "2", "malformed number"},
        {"2\n0 1\n1 0\n0 0\n", "4", "more than 2 rows"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char name[32], want[300];
        snprintf(name, sizeof name, "bad%zu.txt", i);
        p = write_tmp(name, bad[i].text);
        HC_CHECK_EQ_INT(hc_machine_read_matrix(&m, p, err, sizeof err), -1);
        snprintf(want, sizeof want, "%s:%s: ", p, bad[i].line);
        HC_CHECK_MSG(!strncmp(err, want, strlen(want)) && strstr(err, bad[i].why),
                     "case %zu: '%s'", i, err);
    }
    HC_CHECK_EQ_INT(hc_machine_read_matrix(&m, "/nonexistent", err, sizeof err), -1);
    HC_CHECK(!strncmp(err, "/nonexistent:0: cannot open", 27));
}
