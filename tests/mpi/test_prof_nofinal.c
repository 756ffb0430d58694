/* Profiler bad cases (tests/e2e/prof_badcases.sh): a ring, then MPI_Finalize, or with the
 * argument "nofinalize" a return from main without it (nothing may be written then).
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char out[100] = {0}, in[100];
    MPI_Sendrecv(out, 100, MPI_BYTE, (rank + 1) % size, 0, in, 100, MPI_BYTE,
                 (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (argc > 1 && strcmp(argv[1], "nofinalize") == 0) {
        printf("rank %d leaves without MPI_Finalize\n", rank);
        return 0;
    }
    MPI_Finalize();
    return 0;
}
