/* Broadcasts for e2e/bcast_direct.sh: buffers from malloc (the shared heap in an MPI rank)
 * sent 5 times unchanged by a fixed root, then a static array (never in the heap) 3 times.
 * Every reader checks every byte each call; exit status 1 on any difference. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char in_static[1 << 20];

static unsigned char expected(size_t i, size_t n) { return (unsigned char)(i * 131 + n / 7 + 3); }

static long send_and_check(unsigned char *buf, size_t n, int rank, int calls)
{
    long bad = 0;
    for (size_t i = 0; i < n; i++)
        buf[i] = rank == 0 ? expected(i, n) : 0;
    for (int k = 0; k < calls; k++) {
        if (rank != 0)
            memset(buf, 0x5a, n);
        MPI_Bcast(buf, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD);
        for (size_t i = 0; i < n; i++)
            bad += buf[i] != expected(i, n);
    }
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    static const size_t sizes[] = {65536, 1 << 20, 3 << 20};
    long bad = 0;
    for (int s = 0; s < 3; s++) {
        unsigned char *buf = malloc(sizes[s]);
        bad += send_and_check(buf, sizes[s], rank, 5);
        free(buf);
    }
    bad += send_and_check(in_static, sizeof in_static, rank, 3);
    long all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%ld bytes differ\n", all);
    MPI_Finalize();
    return all != 0;
}
