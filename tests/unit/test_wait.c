/* How long hiercoll's waits spin (common/hc_wait.c): HIERCOLL_WAIT_SPIN against the node's
 * ranks and cores and Open MPI's mpi_yield_when_idle, read from a real environment. */
#include <stdlib.h>
#include <unistd.h>

#include "hc_config.h"
#include "hc_test.h"
#include "hc_wait.h"

extern char **environ;

/* Loads the configuration with HIERCOLL_WAIT_SPIN=spin (NULL: unset) and Open MPI's yield
 * variable (NULL: unset), then chooses for node_ranks ranks on this node under Open MPI
 * (open_mpi) or MPICH. */
static int spins_under(int open_mpi, const char *spin, const char *yield, int node_ranks)
{
    spin ? setenv("HIERCOLL_WAIT_SPIN", spin, 1) : unsetenv("HIERCOLL_WAIT_SPIN");
    yield ? setenv("OMPI_MCA_mpi_yield_when_idle", yield, 1)
          : unsetenv("OMPI_MCA_mpi_yield_when_idle");
    char err[512], warn[1024];
    HC_CHECK_EQ_INT(hc_config_load(&hc_cfg, environ, err, sizeof err, warn, sizeof warn), 0);
    int s = hc_wait_choose_spin(node_ranks, open_mpi);
    HC_CHECK_EQ_INT((int)hc_wait_spin, s ? HC_SPIN_ITERS : 0);
    return s;
}
static int spins(const char *spin, const char *yield, int node_ranks)
{
    return spins_under(1, spin, yield, node_ranks);
}

HC_TEST(wait_spins_unless_ranks_outnumber_cores_or_mpi_yields)
{
    int cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
    HC_CHECK(spins(NULL, NULL, 1) == 1);
    HC_CHECK(spins(NULL, NULL, cores) == 1);
    HC_CHECK(spins(NULL, NULL, cores + 1) == 0);
    HC_CHECK(spins("auto", "1", 1) == 0);
    HC_CHECK(spins("auto", "true", 1) == 0);
    HC_CHECK(spins("auto", "0", 1) == 1);
    HC_CHECK(spins("auto", "false", 1) == 1);
    HC_CHECK(spins("on", "1", cores + 1) == 1);
    HC_CHECK(spins("off", NULL, 1) == 0);
    /* MPICH reads no such variable: exported for every family (as make apps does), it
     * changes nothing there. */
    HC_CHECK(spins_under(0, "auto", "1", 1) == 1);
    HC_CHECK(spins_under(0, "auto", "1", cores + 1) == 0);
}

/* A value outside auto|on|off stops the load with the variable's name. */
HC_TEST(wait_spin_rejects_other_values)
{
    setenv("HIERCOLL_WAIT_SPIN", "sometimes", 1);
    char err[512] = "", warn[1024];
    HC_CHECK(hc_config_load(&hc_cfg, environ, err, sizeof err, warn, sizeof warn) == -1);
    HC_CHECK_MSG(strstr(err, "HIERCOLL_WAIT_SPIN") != NULL, "error: %s\n", err);
    unsetenv("HIERCOLL_WAIT_SPIN");
}

int main(void) { return hc_test_main(); }
