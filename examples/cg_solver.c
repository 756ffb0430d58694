/* A conjugate-gradient solver for the 2-D Poisson problem, the second program `make demo`
 * runs: every iteration exchanges halos with two neighbours and calls MPI_Allreduce twice (dot
 * products); every 10 iterations rank 0 broadcasts the current step sizes with MPI_Bcast (as a
 * solver would broadcast a preconditioner update).
 *
 *   mpiexec.mpich -n 4 ./cg_solver [--n N] [--iters K] [--quick]
 * Rows of an N x N grid are split in blocks over the ranks. Prints the time (slowest rank) and
 * the residual reduction (exit status 1 if it is not a finite number). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, n, rows;
static int up, down;

/* y = A x for the 5-point Laplacian; x has one halo row above and below. */
static void matvec(double *x, double *y)
{
    MPI_Sendrecv(&x[n], n, MPI_DOUBLE, up, 0, &x[(rows + 1) * n], n, MPI_DOUBLE, down, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&x[rows * n], n, MPI_DOUBLE, down, 1, &x[0], n, MPI_DOUBLE, up, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 1; i <= rows; i++)
        for (int j = 0; j < n; j++) {
            double v = 4 * x[i * n + j] - x[(i - 1) * n + j] - x[(i + 1) * n + j];
            if (j > 0)
                v -= x[i * n + j - 1];
            if (j < n - 1)
                v -= x[i * n + j + 1];
            y[i * n + j] = v;
        }
}

static double dot(const double *a, const double *b)
{
    double local = 0, global;
    for (int i = n; i < (rows + 1) * n; i++)
        local += a[i] * b[i];
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return global;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    n = 256;
    int iters = 200;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--n") && i + 1 < argc)
            n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
            iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--quick"))
            n = 64, iters = 40;
    }
    if (n < size || iters < 1) {
        if (rank == 0)
            fprintf(stderr, "cg_solver: needs --n >= ranks and --iters >= 1\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    rows = n / size + (rank < n % size);
    up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    size_t len = (size_t)(rows + 2) * n;
    double *x = calloc(len, sizeof(double)), *r = calloc(len, sizeof(double));
    double *p = calloc(len, sizeof(double)), *q = calloc(len, sizeof(double));
    double params[64] = {0};
    for (int i = n; i < (rows + 1) * n; i++)
        r[i] = p[i] = 1.0 + 0.001 * (double)((i * 7 + rank * 13) % 101); /* b; x0 = 0 */
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    double rr = dot(r, r), rr0 = rr;
    for (int it = 0; it < iters && rr > 1e-20 * rr0; it++) {
        matvec(p, q);
        double alpha = rr / dot(p, q);
        for (int i = n; i < (rows + 1) * n; i++) {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
        }
        double rr_new = dot(r, r);
        double beta = rr_new / rr;
        rr = rr_new;
        for (int i = n; i < (rows + 1) * n; i++)
            p[i] = r[i] + beta * p[i];
        params[it % 64] = alpha;
        if (it % 10 == 9)
            MPI_Bcast(params, 64, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    }
    double elapsed = MPI_Wtime() - t0, slowest;
    MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    double reduction = sqrt(rr / rr0);
    if (rank == 0)
        printf("cg_solver: %d ranks, %dx%d grid, %d iterations: %.3f s (residual reduced to "
               "%.3e)\n",
               size, n, n, iters, slowest, reduction);
    free(x);
    free(r);
    free(p);
    free(q);
    MPI_Finalize();
    return isfinite(reduction) ? 0 : 1;
}
