/* A rank waiting inside a hiercoll collective still drives MPI's progress, as MPI promises:
 * rank 1 posts a receive and enters the collective; rank 0 first completes an MPI_Ssend to
 * that receive (which needs rank 1's progress engine), then joins. Without progress in
 * hiercoll's waits rank 1 waits for rank 0 and rank 0 for rank 1: the job hangs (timeout).
 * Each collective and path: broadcast (queue, single copy; root 0 so that rank 1 is a reader)
 * and allreduce (small, staged, single copy), and a vendor broadcast left in flight before an
 * accelerated allreduce.
 * hc-test: np=2,3 preload=both timeout=60
 * hc-test: np=4 preload=yes timeout=60 env=HIERCOLL_VIRTUAL_NODE_SIZE=2
 * hc-test: np=2,4 preload=yes timeout=60 env=HIERCOLL_BCAST=shm-cma,HIERCOLL_ALLREDUCE_CMA_THRESHOLD=0
 * hc-test: np=4 preload=yes timeout=60 env=HIERCOLL_VIRTUAL_NODE_SIZE=2,HIERCOLL_ALLREDUCE=ring,HIERCOLL_RING_PACKET=256
 */
#include <unistd.h>

#include "hc_mpitest.h"

#define BIG (1 << 20)

enum { BCAST_SMALL, BCAST_BIG, ALLREDUCE_SMALL, ALLREDUCE_BIG, NCASES };
static const char *case_names[] = {"bcast 64 B", "bcast 1 MiB", "allreduce 8 ints",
                                   "allreduce 1 MiB"};

/* The collective of case k on comm, checked. */
static void collective(int k, MPI_Comm comm, int round)
{
    static int in[BIG / 4], out[BIG / 4];
    int r, p, n = k == ALLREDUCE_SMALL || k == BCAST_SMALL ? 16 : BIG / 4;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    if (k == BCAST_SMALL || k == BCAST_BIG) {
        for (int i = 0; i < n; i++)
            in[i] = r == 0 ? i * 3 + round : -1;
        MPI_Bcast(in, n, MPI_INT, 0, comm);
        int bad = 0;
        for (int i = 0; i < n; i++)
            bad += in[i] != i * 3 + round;
        HC_T_CHECK(bad == 0, "%s, round %d: %d wrong", case_names[k], round, bad);
    } else {
        for (int i = 0; i < n; i++)
            in[i] = r + i + round;
        MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, comm);
        int bad = 0;
        for (int i = 0; i < n; i++)
            bad += out[i] != p * (i + round) + p * (p - 1) / 2;
        HC_T_CHECK(bad == 0, "%s, round %d: %d wrong", case_names[k], round, bad);
    }
}

int main(int argc, char **argv)
{
    hc_t_init(&argc, &argv);
    MPI_Comm vendor = hc_t_vendor_dup(MPI_COMM_WORLD);
    for (int k = 0; k < NCASES; k++) {
        collective(k, MPI_COMM_WORLD, 0); /* sets the path up: its setup is vendor calls */
        int msg = 100 + k, got = -1;
        MPI_Request req = MPI_REQUEST_NULL;
        if (hc_t_rank == 1)
            MPI_Irecv(&got, 1, MPI_INT, 0, k, MPI_COMM_WORLD, &req);
        if (hc_t_rank == 0) {
            usleep(100000); /* rank 1 is waiting inside the collective by now */
            MPI_Ssend(&msg, 1, MPI_INT, 1, k, MPI_COMM_WORLD);
        }
        collective(k, MPI_COMM_WORLD, 1);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (hc_t_rank == 1)
            HC_T_CHECK(got == msg, "%s: received %d, want %d", case_names[k], got, msg);
    }
    /* A vendor broadcast whose root has returned while the others still need its progress
     * to finish, then an accelerated allreduce. */
    static int w[BIG / 4];
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < BIG / 4; i++)
            w[i] = hc_t_rank == 0 ? i + round : 0;
        MPI_Bcast(w, BIG / 4, MPI_INT, 0, vendor);
        collective(ALLREDUCE_BIG, MPI_COMM_WORLD, round);
        int bad = 0;
        for (int i = 0; i < BIG / 4; i++)
            bad += w[i] != i + round;
        HC_T_CHECK(bad == 0, "vendor bcast before an allreduce, round %d: %d wrong", round, bad);
    }
    MPI_Comm_free(&vendor);
    return hc_t_finish();
}
