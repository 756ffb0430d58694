/* The tuning file: rules parsed back and matched by size, ranks, nodes, site and root;
 * malformed files are ignored whole. */
#include <stdio.h>
#include <unistd.h>

#include "hc_config.h"
#include "hc_test.h"
#include "hc_tuning.h"

static int file_no;

/* Writes text to a fresh file, points HIERCOLL_TUNING at it and reads it as MPI_Init does:
 * 0, or -1 for a file that must be refused. */
static int use_file(const char *text)
{
    static char path[64];
    char err[600];
    snprintf(path, sizeof path, "/tmp/hc-tuning-test-%d-%d", (int)getpid(), file_no++);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    hc_cfg.tuning.s = path;
    return hc_tuning_load(err, sizeof err);
}

static hc_comm comm_of(int size, int nodes)
{
    hc_comm c;
    memset(&c, 0, sizeof c);
    c.size = size;
    c.num_nodes = nodes;
    return c;
}

/* The algorithm of the first rule that matches, or -7 when none does. */
static int algo_for(int coll, long long bytes, const hc_comm *c)
{
    const hc_tuning_rule *r = hc_tuning_rule_for(coll, bytes, c, NULL, -1);
    return r ? r->algo : -7;
}

HC_TEST(no_file_no_rule)
{
    hc_cfg.tuning.s = "";
    hc_comm c = comm_of(4, 1);
    HC_CHECK(hc_tuning_rule_for(HC_COLL_BCAST, 100, &c, NULL, -1) == NULL);
}

HC_TEST(rules_match_in_order)
{
    HC_CHECK(use_file("hiercoll-tuning 1\n"
                      "# collective bytes ranks nodes algorithm\n"
                      "bcast 0-64K * 1 shm   # small, one node\n"
                      "bcast 64K- 2-8 * shm-cma\n"
                      "bcast * * * vendor\n"
                      "allreduce 1M- 4 2 ring1d\n") == 0);
    hc_comm one = comm_of(4, 1), two = comm_of(4, 2), big = comm_of(16, 2);
    HC_CHECK_EQ_INT(algo_for(HC_COLL_BCAST, 0, &one), HC_BCAST_SHM);
    HC_CHECK_EQ_INT(algo_for(HC_COLL_BCAST, 65535, &one), HC_BCAST_SHM);
    HC_CHECK_EQ_INT(algo_for(HC_COLL_BCAST, 65536, &one), HC_BCAST_SHM_CMA);
    HC_CHECK_EQ_INT(algo_for(HC_COLL_BCAST, 100, &two), HC_BCAST_VENDOR);
    HC_CHECK_EQ_INT(algo_for(HC_COLL_BCAST, 1 << 20, &big), HC_BCAST_VENDOR);
    HC_CHECK_EQ_INT(algo_for(HC_COLL_ALLREDUCE, 1 << 20, &two), HC_ALLREDUCE_RING1D);
    HC_CHECK_EQ_INT(algo_for(HC_COLL_ALLREDUCE, (1 << 20) - 1, &two), -7);
    HC_CHECK_EQ_INT(algo_for(HC_COLL_ALLREDUCE, 1 << 20, &one), -7);
}

/* `auto` in a rule hands its range back to the selector, and still stops the search: a
 * later catch-all must not take that range. */
HC_TEST(auto_rule_stops_the_search)
{
    HC_CHECK(use_file("hiercoll-tuning 1\n"
                      "allreduce -1M * * auto\n"
                      "allreduce * * * vendor\n"
                      "bcast 0-4K * * auto\n"
                      "bcast * * * shm-direct\n") == 0);
    hc_comm c = comm_of(4, 2);
    HC_CHECK_EQ_INT(algo_for(HC_COLL_ALLREDUCE, 1000, &c), HC_ALLREDUCE_AUTO);
    HC_CHECK_EQ_INT(algo_for(HC_COLL_ALLREDUCE, 1 << 20, &c), HC_ALLREDUCE_VENDOR);
    HC_CHECK_EQ_INT(algo_for(HC_COLL_BCAST, 100, &c), HC_BCAST_AUTO);
    HC_CHECK_EQ_INT(algo_for(HC_COLL_BCAST, 4096, &c), HC_BCAST_SHM_DIRECT);
}

HC_TEST(exact_size_rule)
{
    HC_CHECK(use_file("hiercoll-tuning 1\nbcast 8 2 * shm-cma\n") == 0);
    hc_comm c = comm_of(2, 1);
    HC_CHECK_EQ_INT(algo_for(HC_COLL_BCAST, 8, &c), HC_BCAST_SHM_CMA);
    HC_CHECK_EQ_INT(algo_for(HC_COLL_BCAST, 9, &c), -7);
    HC_CHECK_EQ_INT(algo_for(HC_COLL_BCAST, 7, &c), -7);
}

/* Version 2: parameters after the name, and a learned run's site rules, which only a call
 * from that site (module basename and offset) and root matches. */
HC_TEST(version_2_parameters_sites_and_times)
{
    HC_CHECK(use_file("hiercoll-tuning 2\n"
                      "bcast 64K-128K 2 1 shm-cma site=/opt/app/bin/solver+0x1a2b root=0 from=learned "
                      "calls=1200 times=shm:30.5,shm-cma:21,vendor:34.25\n"
                      "bcast * * * shm:seg=256K,nt_min=8K,direct=always\n"
                      "allreduce * * * ring:dims=2x2,packet=64K from=learned\n") == 0);
    hc_comm c = comm_of(2, 1), four = comm_of(4, 2);
    const hc_tuning_rule *r =
        hc_tuning_rule_for(HC_COLL_BCAST, 70000, &c, "solver+0x1a2b", 0);
    HC_CHECK(r != NULL && r->algo == HC_BCAST_SHM_CMA && r->learned && r->calls == 1200);
    HC_CHECK(r && r->ntimes == 3 && r->time_algo[2] == HC_BCAST_VENDOR && r->time_us[2] == 34.25);
    /* another site, another root, or no site: the next rule */
    HC_CHECK_EQ_INT(hc_tuning_rule_for(HC_COLL_BCAST, 70000, &c, "solver+0x1a2c", 0)->algo,
                    HC_BCAST_SHM);
    HC_CHECK_EQ_INT(hc_tuning_rule_for(HC_COLL_BCAST, 70000, &c, "solver+0x1a2b", 1)->algo,
                    HC_BCAST_SHM);
    r = hc_tuning_rule_for(HC_COLL_BCAST, 70000, &c, NULL, -1);
    HC_CHECK(r && r->algo == HC_BCAST_SHM && r->params.v[HC_BCAST_P_SEG] == 256 << 10 &&
             r->params.v[HC_BCAST_P_NT_MIN] == 8 << 10 &&
             r->params.v[HC_BCAST_P_DIRECT] == 2 && !(r->params.set >> HC_BCAST_P_DIRECT_MIN & 1));
    r = hc_tuning_rule_for(HC_COLL_ALLREDUCE, 1 << 20, &four, NULL, -1);
    HC_CHECK(r && r->algo == HC_ALLREDUCE_RING && r->learned &&
             r->params.v[HC_ALLREDUCE_P_DIMS] == 2 && r->params.dims[0] == 2 &&
             r->params.dims[1] == 2 && r->params.v[HC_ALLREDUCE_P_PACKET] == 64 << 10);
}

HC_TEST(malformed_files_are_ignored_whole)
{
    static const char *bad[] = {
        "bcast * * * shm\n",                               /* no version line */
        "hiercoll-tuning 1\nbcast * * * shm\nbcast * * * nosuch\n",
        "hiercoll-tuning 1\nbcast 64K-8K * * shm\n",        /* empty range */
        "hiercoll-tuning 1\nreduce * * * shm\n",
        "hiercoll-tuning 1\nbcast * 0 * shm\n",
        "hiercoll-tuning 1\nbcast * * * shm extra\n",       /* options are version 2's */
        "hiercoll-tuning 2\nallreduce * * * shm site=a.out+0x10\n",
        "hiercoll-tuning 2\nbcast * * * shm:seg=1\n",       /* below the parameter's range */
        "hiercoll-tuning 2\nbcast * * * shm:speed=9\n",
        "hiercoll-tuning 2\nbcast * * * shm times=shm:fast\n",
        "hiercoll-tuning 2\nbcast * * * shm root=-1\n",
        "hiercoll-tuning 3\nbcast * * * shm\n",
        "",
    };
    hc_comm c = comm_of(2, 1);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        HC_CHECK_MSG(use_file(bad[i]) != 0, "file %zu read without an error", i);
        HC_CHECK_MSG(hc_tuning_rule_for(HC_COLL_BCAST, 100, &c, NULL, -1) == NULL,
                     "file %zu applied", i);
    }
    char err[600];
    hc_cfg.tuning.s = "/nonexistent/tuning";
    HC_CHECK(hc_tuning_load(err, sizeof err) != 0);
    HC_CHECK(hc_tuning_rule_for(HC_COLL_BCAST, 100, &c, NULL, -1) == NULL);
}

int main(void)
{
    char err[256], warn[256];
    char *envp[] = {NULL};
    hc_config_load(&hc_cfg, envp, err, sizeof err, warn, sizeof warn);
    int rc = hc_test_main();
    for (int i = 0; i < file_no; i++) {
        char path[64];
        snprintf(path, sizeof path, "/tmp/hc-tuning-test-%d-%d", (int)getpid(), i);
        unlink(path);
    }
    return rc;
}
