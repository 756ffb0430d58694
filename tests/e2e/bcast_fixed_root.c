/* A fixed root's broadcasts and nothing else (choices.sh): BYTES from rank 0, CALLS times, on
 * MPI_COMM_WORLD, the root rewriting its buffer before each. A communicator whose only
 * broadcasts are these has run none of the vendor's before the learner's first round.
 * Every reader checks every byte; exit status 1 on any difference.
 *   bcast_fixed_root BYTES CALLS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    size_t bytes = argc > 2 ? strtoul(argv[1], NULL, 10) : 1 << 20;
    int calls = argc > 2 ? atoi(argv[2]) : 100;
    unsigned char *buf = malloc(bytes);
    long bad = 0;
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int c = 0; c < calls; c++) {
        for (size_t i = 0; rank == 0 && i < bytes; i++)
            buf[i] = (unsigned char)(i * 7 + (size_t)c);
        MPI_Bcast(buf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
        for (size_t i = 0; rank != 0 && i < bytes; i++)
            bad += buf[i] != (unsigned char)(i * 7 + (size_t)c);
    }
    long total = 0;
    MPI_Reduce(&bad, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%ld bytes differ\n", total);
    free(buf);
    MPI_Finalize();
    return total != 0;
}
