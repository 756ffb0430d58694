/* A 2-D Jacobi stencil with halo exchange, one of the two programs `make demo` runs.
 *
 * The ranks form a PX x PY grid of blocks, each NxN doubles plus a one-cell halo. Its default
 * rank order is deliberately bad for a machine whose nodes hold consecutive ranks: rank r sits
 * at cell (r % 2) * (P / 2) + r / 2, so ranks 0 and 1 (same node) are far apart in the grid and
 * almost every halo crosses nodes. The profile shows it; the recommended mapping repairs it.
 * --order natural puts rank r at cell r, as a program that numbers its blocks by rank does:
 * bad where the launcher deals ranks round robin over the nodes (Slurm's cyclic distribution,
 * Open MPI's --map-by node), good where nodes hold consecutive ranks.
 *
 *   mpiexec.mpich -n 8 ./stencil2d [--n N] [--iters K] [--quick] [--order interleaved|natural]
 * Prints the time (slowest rank) and a checksum that does not depend on the rank order. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, px, py, cx, cy, natural;

/* Rank at grid cell (x, y), or MPI_PROC_NULL outside the grid. */
static int rank_at(int x, int y)
{
    if (x < 0 || y < 0 || x >= px || y >= py)
        return MPI_PROC_NULL;
    int c = x * py + y;
    if (natural)
        return c;
    int half = (size + 1) / 2;
    /* inverse of cell(r) = (r % 2) * half + r / 2 */
    return c < half ? 2 * c : 2 * (c - half) + 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = 256, iters = 300;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--n") && i + 1 < argc)
            n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
            iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--quick"))
            n = 64, iters = 30;
        else if (!strcmp(argv[i], "--order") && i + 1 < argc) {
            natural = !strcmp(argv[++i], "natural");
            if (!natural && strcmp(argv[i], "interleaved")) {
                if (rank == 0)
                    fprintf(stderr, "stencil2d: --order is interleaved or natural\n");
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
        }
    }
    if (n < 4 || iters < 1 || (size > 1 && size % 2)) {
        if (rank == 0)
            fprintf(stderr, "stencil2d: needs --n >= 4, --iters >= 1 and an even rank count\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int dims[2] = {0, 0};
    MPI_Dims_create(size, 2, dims);
    px = dims[0];
    py = dims[1];
    int cell = natural ? rank : (rank % 2) * ((size + 1) / 2) + rank / 2;
    if (size == 1)
        cell = 0;
    cx = cell / py;
    cy = cell % py;
    int up = rank_at(cx - 1, cy), down = rank_at(cx + 1, cy);
    int left = rank_at(cx, cy - 1), right = rank_at(cx, cy + 1);

    int w = n + 2;
    double *a = calloc((size_t)w * w, sizeof(double)), *b = calloc((size_t)w * w, sizeof(double));
    double *sendl = malloc(n * sizeof(double)), *sendr = malloc(n * sizeof(double));
    double *recvl = malloc(n * sizeof(double)), *recvr = malloc(n * sizeof(double));
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++)
            a[i * w + j] = (double)((cx * n + i) * 7 + (cy * n + j) * 3) / (double)(n * px);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    double resid = 0;
    for (int it = 0; it < iters; it++) {
        MPI_Request rq[8];
        MPI_Status st[8];
        int k = 0;
        /* rows are contiguous; columns are packed */
        for (int i = 1; i <= n; i++) {
            sendl[i - 1] = a[i * w + 1];
            sendr[i - 1] = a[i * w + n];
        }
        MPI_Irecv(&a[0 * w + 1], n, MPI_DOUBLE, up, 0, MPI_COMM_WORLD, &rq[k++]);
        MPI_Irecv(&a[(n + 1) * w + 1], n, MPI_DOUBLE, down, 1, MPI_COMM_WORLD, &rq[k++]);
        MPI_Irecv(recvl, n, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &rq[k++]);
        MPI_Irecv(recvr, n, MPI_DOUBLE, right, 3, MPI_COMM_WORLD, &rq[k++]);
        MPI_Isend(&a[1 * w + 1], n, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, &rq[k++]);
        MPI_Isend(&a[n * w + 1], n, MPI_DOUBLE, down, 0, MPI_COMM_WORLD, &rq[k++]);
        MPI_Isend(sendl, n, MPI_DOUBLE, left, 3, MPI_COMM_WORLD, &rq[k++]);
        MPI_Isend(sendr, n, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &rq[k++]);
        MPI_Waitall(k, rq, st);
        if (left != MPI_PROC_NULL)
            for (int i = 1; i <= n; i++)
                a[i * w] = recvl[i - 1];
        if (right != MPI_PROC_NULL)
            for (int i = 1; i <= n; i++)
                a[i * w + n + 1] = recvr[i - 1];
        double local = 0;
        for (int i = 1; i <= n; i++)
            for (int j = 1; j <= n; j++) {
                double v = 0.25 * (a[(i - 1) * w + j] + a[(i + 1) * w + j] + a[i * w + j - 1] +
                                   a[i * w + j + 1]);
                local += (v - a[i * w + j]) * (v - a[i * w + j]);
                b[i * w + j] = v;
            }
        double *t = a;
        a = b;
        b = t;
        if (it % 10 == 9 || it == iters - 1)
            MPI_Allreduce(&local, &resid, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    double elapsed = MPI_Wtime() - t0, slowest;
    double sum = 0, total;
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++)
            sum += a[i * w + j];
    MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("stencil2d: %d ranks, grid %dx%d of %dx%d blocks, %d iterations: %.3f s "
               "(checksum %.6e, residual %.3e)\n",
               size, px, py, n, n, iters, slowest, total, resid);
    free(a);
    free(b);
    free(sendl);
    free(sendr);
    free(recvl);
    free(recvr);
    MPI_Finalize();
    return 0;
}
