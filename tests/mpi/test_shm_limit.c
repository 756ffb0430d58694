/* HIERCOLL_SHM_LIMIT bounds the shared memory of a node, not of each process. Run by
 * tests/e2e/shm_limit.sh (no hc-test line: the script reads the verbose output) at 4 ranks
 * on one node with a limit that holds one 2-rank broadcast queue and not two:
 *   1. ranks 0-1 broadcast on their half first: admitted;
 *   2. then ranks 2-3 on the other half: refused, since the node already holds the first
 *      queue (a per-process count would admit it: no process of 2-3 maps anything yet);
 *   3. ranks 0-1 free their half, which returns its share; a new communicator of ranks 2-3
 *      is then admitted.
 * Every broadcast is checked byte for byte, admitted or not. */
#include "hc_mpitest.h"

#define BYTES (64 * 1024)

static void checked_bcast(MPI_Comm comm, uint64_t seed)
{
    static unsigned char want[BYTES], got[BYTES];
    int r;
    MPI_Comm_rank(comm, &r);
    hc_t_fill(want, BYTES, seed);
    if (r == 0)
        memcpy(got, want, BYTES);
    else
        memset(got, 0, BYTES);
    MPI_Bcast(got, BYTES, MPI_BYTE, 0, comm);
    long d = hc_t_first_diff(got, want, BYTES);
    HC_T_CHECK(d < 0, "seed %llu: byte %ld differs", (unsigned long long)seed, d);
}

int main(int argc, char **argv)
{
    hc_t_init(&argc, &argv);
    /* Synchronisation and the tally go through the vendor: they must not map anything. */
    MPI_Comm vendor = hc_t_vendor_dup(MPI_COMM_WORLD), half;
    int side = hc_t_rank < 2 ? 0 : 1;
    MPI_Comm_split(MPI_COMM_WORLD, side, hc_t_rank, &half);
    if (side == 0)
        checked_bcast(half, 1);
    MPI_Barrier(vendor);
    if (side == 1)
        checked_bcast(half, 2);
    MPI_Barrier(vendor);
    if (side == 0)
        MPI_Comm_free(&half);
    MPI_Barrier(vendor);
    if (side == 1) {
        MPI_Comm again;
        MPI_Comm_dup(half, &again);
        checked_bcast(again, 3);
        MPI_Comm_free(&again);
        MPI_Comm_free(&half);
    }
    long counts[2] = {hc_t_checks, hc_t_failures}, all[2];
    MPI_Allreduce(counts, all, 2, MPI_LONG, MPI_SUM, vendor);
    if (hc_t_rank == 0)
        printf("%ld checks on %d ranks, %ld failed\n", all[0], hc_t_size, all[1]);
    MPI_Comm_free(&vendor);
    MPI_Finalize();
    return all[1] ? 1 : 0;
}
