/* The one hook of the waiting loops, and how long they spin (hc_wait.h). */
#include "hc_wait.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hc_config.h"
#include "hc_util.h"

void (*hc_wait_progress)(void);
unsigned hc_wait_spin = HC_SPIN_ITERS;

/* Open MPI's mpi_yield_when_idle as its processes see it (mpirun hands MCA parameters down
 * as OMPI_MCA_* variables): the user, or mpirun seeing more ranks than slots, asked every
 * idle rank to give its core away. MPICH reads no such variable, whoever exported it. */
static int told_to_yield(int open_mpi)
{
    if (!open_mpi)
        return 0;
    const char *v = getenv("OMPI_MCA_mpi_yield_when_idle");
    return v && *v && strcmp(v, "0") != 0 && strcasecmp(v, "false") != 0 &&
           strcasecmp(v, "no") != 0;
}

/* A rank that spins holds its core; where ranks outnumber cores the rank it waits for may be
 * the one waiting for that core. On 2 hosts x 2 ranks sharing 2 cores (the namespace
 * cluster, Open MPI yielding when idle) the spin made an 8-byte broadcast after a barrier
 * take 38-42 us, HAN 19-23, the same broadcast without it 17-26; at 4 ranks on 2 cores it
 * cut 64 KiB broadcasts and allreduces by a third (docs/algorithms.md). */
int hc_wait_choose_spin(int node_ranks, int open_mpi)
{
    int spin = hc_cfg.wait_spin.i == HC_SPIN_ON ||
               (hc_cfg.wait_spin.i == HC_SPIN_AUTO && !told_to_yield(open_mpi) &&
                !hc_ranks_outnumber_cores(node_ranks));
    hc_wait_spin = spin ? HC_SPIN_ITERS : 0;
    return spin;
}
