/* Many communicators alive at once, each used by a broadcast and an allreduce: what the
 * vendor can create must work under the preload too. MPICH gives a process 2 046 context
 * ids; a communicator on one node costs the preload none of its own while its segments fit
 * HIERCOLL_SHM_LIMIT (its node's communicator is the communicator itself, and the
 * allreduce's private one is made only for engines that send messages) and one beyond, where
 * it once cost three and the program's 586th MPI_Comm_dup failed. Creation errors return
 * (MPI_ERRORS_RETURN) so a failure is counted, not fatal. HC_MANY_COMMS sets the number
 * (default 1000). Across (virtual) nodes a communicator takes two to four of its own, so
 * that run keeps 300. Two ranks only: with more ranks than cores MPICH's polling makes each
 * of the thousands of collectives wait for the scheduler (80 s at 3 ranks).
 * hc-test: np=2 preload=both timeout=300
 * hc-test: np=2 preload=yes timeout=300 env=HIERCOLL_VIRTUAL_NODE_SIZE=1,HC_MANY_COMMS=300
 */
#include "hc_mpitest.h"

int main(int argc, char **argv)
{
    hc_t_init(&argc, &argv);
    const char *env = getenv("HC_MANY_COMMS");
    int want = env ? atoi(env) : 1000, made = 0;
    MPI_Comm *comms = calloc((size_t)want, sizeof *comms);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int i = 0; i < want; i++) {
        /* Duplicates and splits in reverse rank order: both ways programs make them. */
        int rc = i % 2 ? MPI_Comm_split(MPI_COMM_WORLD, 0, hc_t_size - hc_t_rank, &comms[i])
                       : MPI_Comm_dup(MPI_COMM_WORLD, &comms[i]);
        if (rc != MPI_SUCCESS)
            break;
        made++;
        int rank, root = i % hc_t_size;
        MPI_Comm_rank(comms[i], &rank);
        int words[4] = {-1, -1, -1, -1};
        if (rank == root)
            for (int k = 0; k < 4; k++)
                words[k] = i * 4 + k;
        MPI_Bcast(words, 4, MPI_INT, root, comms[i]);
        for (int k = 0; k < 4; k++)
            HC_T_CHECK(words[k] == i * 4 + k, "communicator %d: bcast word %d is %d", i, k,
                       words[k]);
        long mine = (long)rank + i, sum = 0;
        MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, comms[i]);
        long expect = (long)hc_t_size * (hc_t_size - 1) / 2 + (long)hc_t_size * i;
        HC_T_CHECK(sum == expect, "communicator %d: allreduce %ld, expected %ld", i, sum, expect);
    }
    HC_T_CHECK(made == want, "made %d communicators of %d (the vendor alone makes them all)",
               made, want);
    for (int i = 0; i < made; i++)
        MPI_Comm_free(&comms[i]);
    free(comms);
    return hc_t_finish();
}
