/* Cross-host probe for tests/e2e/cluster_exits.sh, plain MPI (any MPI library): a ring
 * exchange, a 1 MiB broadcast from the last rank and an allreduce, each checked element by
 * element against values computed here; then MPI_Finalize, whose clean return is the point. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int left = (rank + size - 1) % size, right = (rank + 1) % size, got = -1;
    for (int i = 0; i < 10; i++) {
        int mine = rank * 100 + i;
        MPI_Sendrecv(&mine, 1, MPI_INT, right, i, &got, 1, MPI_INT, left, i, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        bad += got != left * 100 + i;
    }

    enum { N = 1 << 18 };                           /* 1 MiB of int */
    int *buf = malloc(N * sizeof *buf), root = size - 1;
    for (int i = 0; i < N; i++)
        buf[i] = rank == root ? i * 7 + 3 : -1;
    MPI_Bcast(buf, N, MPI_INT, root, MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        bad += buf[i] != i * 7 + 3;

    for (int i = 0; i < N; i++)
        buf[i] = rank + i % 1000;
    MPI_Allreduce(MPI_IN_PLACE, buf, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        bad += buf[i] != size * (size - 1) / 2 + size * (i % 1000);
    free(buf);

    char host[64];
    gethostname(host, sizeof host);
    printf("rank %d host %s %s\n", rank, host, bad ? "WRONG" : "ok");
    MPI_Finalize();
    return bad != 0;
}
