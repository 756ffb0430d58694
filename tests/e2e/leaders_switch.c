/* For each size in argv (bytes, a multiple of 8): one MPI_Allreduce of doubles (MPI_SUM) on a
 * fresh duplicate of MPI_COMM_WORLD, checked element by element against the exact sum; rank 0
 * then writes "size B done" to stderr, after the library's verbose lines about that
 * communicator (same process, same stream). Exits 1 on a wrong element. Built and run by
 * tests/e2e/allreduce_leaders_switch.sh. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* Small integers: their sum is exact in any order. */
static double input(int rank, long i) { return (double)(rank + 1 + i % 7); }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int a = 1; a < argc; a++) {
        long n = atol(argv[a]) / 8;
        double *in = malloc(sizeof(double) * (size_t)n), *out = malloc(sizeof(double) * (size_t)n);
        for (long i = 0; i < n; i++)
            in[i] = input(rank, i);
        MPI_Comm comm;
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        MPI_Allreduce(in, out, (int)n, MPI_DOUBLE, MPI_SUM, comm);
        for (long i = 0; i < n && !bad; i++) {
            double want = 0;
            for (int r = 0; r < size; r++)
                want += input(r, i);
            if (out[i] != want) {
                fprintf(stderr, "rank %d: size %s: element %ld is %g, want %g\n", rank, argv[a], i,
                        out[i], want);
                bad = 1;
            }
        }
        MPI_Barrier(comm);
        if (rank == 0)
            fprintf(stderr, "size %s done\n", argv[a]);
        MPI_Comm_free(&comm);
        free(in);
        free(out);
    }
    MPI_Finalize();
    return bad;
}
