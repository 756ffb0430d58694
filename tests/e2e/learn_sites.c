/* Learning's two passes (learn_two_pass.sh): a fixed root broadcasting 256 KiB from one line
 * with a few entries rewritten each call, a rotating root broadcasting 4 KiB from another, and
 * an allreduce of 1 KiB. Every result is checked; with --first each site is called once and
 * the root says which algorithm its first call ran. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static void last_ran(const char *key, char *out)
{
    MPI_Info info;
    int flag = 0;
    strcpy(out, "-");
    MPI_Comm_get_info(MPI_COMM_WORLD, &info);
    MPI_Info_get(info, key, 63, out, &flag);
    MPI_Info_free(&info);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int first = argc > 1 && strcmp(argv[1], "--first") == 0, calls = first ? 1 : 400;
    long n = 32768, bad = 0;
    double *big = malloc(sizeof(double) * (size_t)n), small[512], v[128], sum[128];
    for (long i = 0; i < n; i++)
        big[i] = (double)i;
    for (int k = 0; k < calls; k++) {
        if (rank == 0)
            for (long i = k % 64; i < n; i += 64)
                big[i] = (double)(i + k);
        MPI_Bcast(big, (int)n, MPI_DOUBLE, 0, MPI_COMM_WORLD); /* the fixed root's site */
        for (long i = k % 64; i < n; i += 64)
            bad += big[i] != (double)(i + k);
    }
    char ran[64];
    if (first && rank == 0) {
        last_ran("hiercoll_bcast_last", ran);
        printf("first call ran %s\n", ran);
    }
    for (int k = 0; k < calls; k++) {
        int root = k % size;
        for (int i = 0; i < 512; i++)
            small[i] = rank == root ? (double)(k * 512 + i) : -1;
        MPI_Bcast(small, 512, MPI_DOUBLE, root, MPI_COMM_WORLD); /* the rotating root's site */
        for (int i = 0; i < 512; i++)
            bad += small[i] != (double)(k * 512 + i);
    }
    for (int k = 0; k < calls; k++) {
        for (int i = 0; i < 128; i++)
            v[i] = (double)(rank + i + k);
        MPI_Allreduce(v, sum, 128, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        for (int i = 0; i < 128; i++)
            bad += sum[i] != (double)size * (i + k) + (double)size * (size - 1) / 2;
    }
    long all;
    MPI_Reduce(&bad, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%ld wrong\n", all);
    free(big);
    MPI_Finalize();
    return 0;
}
