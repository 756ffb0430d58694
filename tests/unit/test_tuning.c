/* The tuning file: rules parsed back and matched by size, ranks and nodes; malformed files
 * are ignored whole. */
#include <stdio.h>
#include <unistd.h>

#include "hc_config.h"
#include "hc_test.h"
#include "hc_tuning.h"

static int file_no;

/* Writes text to a fresh file and points HIERCOLL_TUNING at it. */
static void use_file(const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/hc-tuning-test-%d-%d", (int)getpid(), file_no++);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    hc_cfg.tuning.s = path;
}

static hc_comm comm_of(int size, int nodes)
{
    hc_comm c;
    memset(&c, 0, sizeof c);
    c.size = size;
    c.num_nodes = nodes;
    return c;
}

HC_TEST(no_file_keeps_builtin)
{
    hc_cfg.tuning.s = "";
    hc_comm c = comm_of(4, 1);
    HC_CHECK_EQ_INT(hc_tuning_choose("bcast", 100, &c, HC_BCAST_SHM), HC_BCAST_SHM);
}

HC_TEST(rules_match_in_order)
{
    use_file("hiercoll-tuning 1\n"
             "# collective bytes ranks nodes algorithm\n"
             "bcast 0-64K * 1 shm   # small, one node\n"
             "bcast 64K- 2-8 * shm-cma\n"
             "bcast * * * vendor\n"
             "allreduce 1M- 4 2 ring1d\n");
    hc_comm one = comm_of(4, 1), two = comm_of(4, 2), big = comm_of(16, 2);
    HC_CHECK_EQ_INT(hc_tuning_choose("bcast", 0, &one, -7), HC_BCAST_SHM);
    HC_CHECK_EQ_INT(hc_tuning_choose("bcast", 65535, &one, -7), HC_BCAST_SHM);
    HC_CHECK_EQ_INT(hc_tuning_choose("bcast", 65536, &one, -7), HC_BCAST_SHM_CMA);
    HC_CHECK_EQ_INT(hc_tuning_choose("bcast", 100, &two, -7), HC_BCAST_VENDOR);
    HC_CHECK_EQ_INT(hc_tuning_choose("bcast", 1 << 20, &big, -7), HC_BCAST_VENDOR);
    HC_CHECK_EQ_INT(hc_tuning_choose("allreduce", 1 << 20, &two, -7), HC_ALLREDUCE_RING1D);
    HC_CHECK_EQ_INT(hc_tuning_choose("allreduce", (1 << 20) - 1, &two, -7), -7);
    HC_CHECK_EQ_INT(hc_tuning_choose("allreduce", 1 << 20, &one, -7), -7);
}

/* `auto` in a rule hands its range back to the built-in rule, and still stops the search:
 * a later catch-all must not take that range. */
HC_TEST(auto_rule_means_builtin)
{
    use_file("hiercoll-tuning 1\n"
             "allreduce -1M * * auto\n"
             "allreduce * * * vendor\n"
             "bcast 0-4K * * auto\n"
             "bcast * * * hier\n");
    hc_comm c = comm_of(4, 2);
    HC_CHECK_EQ_INT(hc_tuning_choose("allreduce", 1000, &c, HC_ALLREDUCE_RING),
                    HC_ALLREDUCE_RING);
    HC_CHECK_EQ_INT(hc_tuning_choose("allreduce", 1 << 20, &c, HC_ALLREDUCE_RING),
                    HC_ALLREDUCE_VENDOR);
    HC_CHECK_EQ_INT(hc_tuning_choose("bcast", 100, &c, HC_BCAST_SHM), HC_BCAST_SHM);
    HC_CHECK_EQ_INT(hc_tuning_choose("bcast", 4096, &c, HC_BCAST_SHM), HC_BCAST_HIER);
}

HC_TEST(exact_size_rule)
{
    use_file("hiercoll-tuning 1\nbcast 8 2 * hier\n");
    hc_comm c = comm_of(2, 1);
    HC_CHECK_EQ_INT(hc_tuning_choose("bcast", 8, &c, -1), HC_BCAST_HIER);
    HC_CHECK_EQ_INT(hc_tuning_choose("bcast", 9, &c, -1), -1);
    HC_CHECK_EQ_INT(hc_tuning_choose("bcast", 7, &c, -1), -1);
}

HC_TEST(malformed_files_are_ignored_whole)
{
    static const char *bad[] = {
        "bcast * * * shm\n",                               /* no version line */
        "hiercoll-tuning 1\nbcast * * * shm\nbcast * * * nosuch\n",
        "hiercoll-tuning 1\nbcast 64K-8K * * shm\n",        /* empty range */
        "hiercoll-tuning 1\nreduce * * * shm\n",
        "hiercoll-tuning 1\nbcast * 0 * shm\n",
        "hiercoll-tuning 1\nbcast * * * shm extra\n",
        "",
    };
    hc_comm c = comm_of(2, 1);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        use_file(bad[i]);
        HC_CHECK_MSG(hc_tuning_choose("bcast", 100, &c, -3) == -3, "file %zu applied", i);
    }
    hc_cfg.tuning.s = "/nonexistent/tuning";
    HC_CHECK_EQ_INT(hc_tuning_choose("bcast", 100, &c, -3), -3);
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
