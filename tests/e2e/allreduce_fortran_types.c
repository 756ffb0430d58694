/* MPI_Allreduce on the Fortran named datatypes, called from C as a Fortran program's
 * MPI_ALLREDUCE reaches the library (MPI_INTEGER, MPI_REAL, MPI_DOUBLE_PRECISION, the sized
 * MPI_INTEGER4/8, MPI_REAL4/8, MPI_LOGICAL), 100 calls of 1000 elements each, results checked;
 * then controls: MPI_INT and MPI_DOUBLE (hiercoll's kernels) and MPI_C_DOUBLE_COMPLEX (no
 * kernel: the vendor's by design, so the shim must see it). tests/e2e/allreduce_fortran_types.sh
 * counts which calls reached the vendor. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 1000
#define CALLS 100

static int check_sum(MPI_Datatype dt, int size, int is_float, int rank, int np)
{
    unsigned char *in = malloc((size_t)N * size), *out = malloc((size_t)N * size);
    int bad = 0;
    for (int call = 0; call < CALLS && !bad; call++) {
        for (int i = 0; i < N; i++) {
            long v = (long)(rank + 1) * (i % 7 + call % 3);
            if (is_float && size == 4) ((float *)in)[i] = (float)v;
            else if (is_float) ((double *)in)[i] = (double)v;
            else if (size == 4) ((int32_t *)in)[i] = (int32_t)v;
            else ((int64_t *)in)[i] = v;
        }
        MPI_Allreduce(in, out, N, dt, MPI_SUM, MPI_COMM_WORLD);
        for (int i = 0; i < N; i++) {
            double want = (double)np * (np + 1) / 2 * (i % 7 + call % 3), got;
            if (is_float && size == 4) got = ((float *)out)[i];
            else if (is_float) got = ((double *)out)[i];
            else if (size == 4) got = ((int32_t *)out)[i];
            else got = (double)((int64_t *)out)[i];
            if (got != want) { bad = 1; break; }
        }
    }
    free(in);
    free(out);
    return bad;
}

int main(int argc, char **argv)
{
    int rank, np, bad = 0, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    struct { MPI_Datatype dt; const char *name; int is_float; } types[] = {
        {MPI_INTEGER, "MPI_INTEGER", 0}, {MPI_REAL, "MPI_REAL", 1},
        {MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", 1},
        {MPI_INTEGER4, "MPI_INTEGER4", 0}, {MPI_INTEGER8, "MPI_INTEGER8", 0},
        {MPI_REAL4, "MPI_REAL4", 1}, {MPI_REAL8, "MPI_REAL8", 1},
        {MPI_INT, "MPI_INT", 0}, {MPI_DOUBLE, "MPI_DOUBLE", 1},
    };
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        MPI_Type_size(types[t].dt, &size);
        int b = check_sum(types[t].dt, size, types[t].is_float, rank, np);
        if (b && rank == 0)
            printf("wrong sum with %s\n", types[t].name);
        bad |= b;
    }
    /* MPI_LOGICAL with MPI_LAND: a Fortran LOGICAL is an int-sized 0/1 here */
    int lin[N], lout[N];
    for (int call = 0; call < CALLS; call++) {
        for (int i = 0; i < N; i++) lin[i] = (i % 2) || rank != np - 1;
        MPI_Allreduce(lin, lout, N, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD);
        for (int i = 0; i < N; i++)
            if (!lout[i] != !(i % 2)) { if (!rank) printf("wrong LAND with MPI_LOGICAL\n"); bad = 1; break; }
    }
    /* control: no kernel for complex numbers, so this reaches the vendor by design */
    double cz[2 * 4] = {1, 2, 3, 4, 5, 6, 7, 8}, czo[2 * 4];
    MPI_Allreduce(cz, czo, 4, MPI_C_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD);
    if (czo[0] != np * 1.0) { if (!rank) printf("wrong complex sum\n"); bad = 1; }
    if (!rank)
        printf("results %s\n", bad ? "WRONG" : "right");
    MPI_Finalize();
    return bad;
}
