/* mapping.txt round trip and diagnostics, launcher files, machine-perf reader. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hc_mapfile.h"
#include "hc_perffile.h"
#include "hc_test.h"
#include "test_map_util.h"

static char *slurp(const char *name)
{
    static char buf[4096];
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[n] = 0;
    if (f)
        fclose(f);
    return buf;
}

HC_TEST(round_trip_and_launchers)
{
    hc_mapfile f, g;
    char err[300];
    HC_CHECK_EQ_INT(hc_mapfile_alloc(&f, 5), 0);
    const char *hosts[5] = {"a#1", "a#1", "b", "a#0", "a#0"};
    int cores[5] = {3, 1, 0, 2, 5};
    for (int r = 0; r < 5; r++) {
        strcpy(f.host[r], hosts[r]);
        f.core[r] = cores[r];
    }
    strcpy(f.algorithm, "tmmgp+refine");
    strcpy(f.machine, "node:3 core:6");
    strcpy(f.bandwidths, "1e9,2e10");
    f.cost[f.ncosts++] = (hc_mapfile_cost){"launched", 2.5, 7};
    f.cost[f.ncosts++] = (hc_mapfile_cost){"mapped", 1.25, 3};
    char path[256];
    snprintf(path, sizeof path, "%s/mapping.txt", tmpdir);
    FILE *out = fopen(path, "w");
    HC_CHECK_EQ_INT(hc_mapfile_write(&f, out), 0);
    fclose(out);
    HC_CHECK_EQ_INT(hc_mapfile_read(&g, path, err, sizeof err), 0);
    HC_CHECK_EQ_INT(g.nranks, 5);
    for (int r = 0; r < 5; r++) {
        HC_CHECK_EQ_STR(g.host[r], hosts[r]);
        HC_CHECK_EQ_INT(g.core[r], cores[r]);
    }
    HC_CHECK_EQ_STR(g.algorithm, "tmmgp+refine");
    HC_CHECK_EQ_STR(g.machine, "node:3 core:6");
    HC_CHECK_EQ_INT(g.ncosts, 2);
    HC_CHECK_EQ_STR(g.cost[1].label, "mapped");
    HC_CHECK_NEAR(g.cost[1].max, 1.25, 0);
    HC_CHECK_NEAR(g.cost[0].sum, 7, 0);
    HC_CHECK_EQ_INT(hc_mapfile_write_launchers(&f, tmpdir, err, sizeof err), 0);
    /* one machinefile line per run of ranks on one physical host */
    HC_CHECK(strstr(slurp("machinefile"), "\na:2 binding=user:3,1\nb:1 binding=user:0\n"
                                          "a:2 binding=user:2,5\n") != NULL);
    HC_CHECK(strstr(slurp("rankfile"), "rank 2=b slot=0\nrank 3=a slot=2\n") != NULL);
    HC_CHECK_EQ_STR(slurp("slurm.hostfile"), "a\na\nb\na\na\n");
    hc_mapfile_free(&f);
    hc_mapfile_free(&g);
}

/* A host whose ranks share a core binds them to all its mapped cores; other hosts (and virtual
 * nodes of one machine, which model hosts of their own) keep one core a rank. */
HC_TEST(oversubscribed_host_binds_to_its_cores)
{
    hc_mapfile f;
    char err[300];
    HC_CHECK_EQ_INT(hc_mapfile_alloc(&f, 6), 0);
    const char *hosts[6] = {"h0", "h0", "h0", "h1", "h1#0", "h1#1"};
    int cores[6] = {3, 1, 3, 0, 2, 2};
    for (int r = 0; r < 6; r++) {
        strcpy(f.host[r], hosts[r]);
        f.core[r] = cores[r];
    }
    int got[8];
    for (int r = 0; r < 3; r++) {
        HC_CHECK_EQ_INT(hc_mapfile_rank_cores(&f, r, got, 8), 2);
        HC_CHECK(got[0] == 1 && got[1] == 3);
    }
    HC_CHECK_EQ_INT(hc_mapfile_rank_cores(&f, 1, got, 1), 1); /* what fits */
    for (int r = 3; r < 6; r++) {
        HC_CHECK_EQ_INT(hc_mapfile_rank_cores(&f, r, got, 8), 1);
        HC_CHECK_EQ_INT(got[0], cores[r]);
    }
    HC_CHECK_EQ_INT(hc_mapfile_write_launchers(&f, tmpdir, err, sizeof err), 0);
    HC_CHECK(strstr(slurp("machinefile"), "\nh0:3 binding=user:1+3,1+3,1+3\n"
                                          "h1:3 binding=user:0,2,2\n") != NULL);
    HC_CHECK(strstr(slurp("rankfile"), "\nrank 0=h0 slot=1,3\nrank 1=h0 slot=1,3\n"
                                       "rank 2=h0 slot=1,3\nrank 3=h1 slot=0\n") != NULL);
    hc_mapfile_free(&f);
}

HC_TEST(mapping_rejects_malformed)
{
    struct {
        const char *text, *where;
    } bad[] = {
        {"hiercoll mapping\n", ":1: first line"},
        {"# hiercoll mapping v1\nrank 0 host a core 1\n", ":2: 'rank' line before"},
        {"# hiercoll mapping v1\nranks 2\nrank 0 host a core 1\n", ":3: 1 rank lines"},
        {"# hiercoll mapping v1\nranks 1\nrank 1 host a core 1\n", ":3: rank 1 outside"},
        {"# hiercoll mapping v1\nranks 1\nrank 0 host a core x\n", ":3: expected 'rank R"},
        {"# hiercoll mapping v1\nranks 1\nrank 0 host a core 1 extra\n", ":3: expected"},
        {"# hiercoll mapping v1\nranks 1\nspeed 3\n", ":3: unknown keyword 'speed'"},
        {"# hiercoll mapping v1\nranks 1\ncost x max 1\n", ":3: expected 'cost"},
        {"# hiercoll mapping v1\nranks 0\n", ":2: 'ranks' needs"},
        {"", ":0: empty file"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        hc_mapfile f;
        char err[300], name[32];
        snprintf(name, sizeof name, "bad%zu.txt", i);
        const char *p = write_tmp(name, bad[i].text);
        HC_CHECK_EQ_INT(hc_mapfile_read(&f, p, err, sizeof err), -1);
        HC_CHECK_MSG(!strncmp(err, p, strlen(p)) && strstr(err, bad[i].where), "case %zu: '%s'",
                     i, err);
    }
}

HC_TEST(machine_perf_file)
{
    hc_perf p;
    char err[300];
    const char *path = write_tmp("perf.txt", "# hiercoll machine-perf v1\n# comment\n"
                                             "level network latency_us 2.5 bandwidth_Bps 4e9\n"
                                             "level package latency_us 0.4 bandwidth_Bps 2e10\n");
    HC_CHECK_EQ_INT(hc_perf_read(&p, path, err, sizeof err), 0);
    HC_CHECK_EQ_INT(p.nlevels, 2);
    HC_CHECK_NEAR(hc_perf_bandwidth(&p, "network"), 4e9, 0);
    HC_CHECK_NEAR(hc_perf_bandwidth(&p, "node,package,numa"), 2e10, 0);
    HC_CHECK_NEAR(hc_perf_bandwidth(&p, "numa"), 0, 0);
    path = write_tmp("perf2.txt", "# hiercoll machine-perf v1\nlevel network 4e9\n");
    HC_CHECK_EQ_INT(hc_perf_read(&p, path, err, sizeof err), -1);
    HC_CHECK(strstr(err, "perf2.txt:2: expected 'level NAME"));
    path = write_tmp("perf3.txt", "# machine v0\n");
    HC_CHECK_EQ_INT(hc_perf_read(&p, path, err, sizeof err), -1);
    HC_CHECK(strstr(err, "perf3.txt:1: not a"));
}
