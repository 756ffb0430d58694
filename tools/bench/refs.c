/* The copies a broadcast is compared with. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "hc_copy.h"

/* A hot memcpy within one core's caches: the message copied once, again and again. */
double ref_memcpy(long long bytes, int iters)
{
    void *a = malloc((size_t)bytes + 1), *b = malloc((size_t)bytes + 1);
    double *t = malloc(sizeof(double) * (size_t)iters);
    memset(a, 1, (size_t)bytes + 1);
    memset(b, 2, (size_t)bytes + 1);
    for (int k = 0; k < iters; k++) {
        double t0 = MPI_Wtime();
        memcpy(b, a, (size_t)bytes);
        t[k] = (MPI_Wtime() - t0) * 1e6;
        ((volatile unsigned char *)a)[k % (bytes + 1)] ^= 1; /* keep the copy from being elided */
    }
    double m = stats_of(t, iters, 0).median;
    free(a);
    free(b);
    free(t);
    return m;
}

/* The copy a broadcast between ranks 0 and 1 cannot beat: the reader copies the message once
 * straight out of the root's memory (a shared window), both buffers filled as before a fresh
 * call, the source at the destination's page offset (hc_copy.h). The hot memcpy above keeps
 * both buffers in one core's cache; this one crosses cores as a broadcast must. Medians of the
 * reader's time. Collective over MPI_COMM_WORLD. */
double ref_xcopy(long long bytes, int iters)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm pair, node;
    MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair);
    if (pair == MPI_COMM_NULL)
        return 0;
    MPI_Comm_split_type(pair, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    int shared;
    MPI_Comm_size(node, &shared);
    double m = 0;
    if (shared == 2) {
        unsigned char *dst = malloc((size_t)bytes + 1), *base, *src;
        double *t = malloc(sizeof(double) * (size_t)iters);
        MPI_Win win;
        MPI_Win_allocate_shared(rank == 0 ? bytes + (long long)HC_ALIAS_SPAN : 0, 1,
                                MPI_INFO_NULL, node, &base, &win);
        MPI_Aint wsize;
        int disp;
        MPI_Win_shared_query(win, 0, &wsize, &disp, &base);
        MPI_Win_lock_all(MPI_MODE_NOCHECK, win); /* the epoch MPI_Win_sync needs */
        size_t offset = hc_alias_offset(dst);
        /* Point to point: a broadcast here would build hiercoll state the bench must not see. */
        if (rank == 1)
            MPI_Send(&offset, sizeof offset, MPI_BYTE, 0, 0, node);
        else
            MPI_Recv(&offset, sizeof offset, MPI_BYTE, 1, 0, node, MPI_STATUS_IGNORE);
        src = base + ((offset - hc_alias_offset(base)) & (HC_ALIAS_SPAN - 1));
        long bad = 0;
        for (int k = 0; k < iters; k++) {
            fill_bytes(rank == 0 ? src : dst, bytes, (unsigned long long)k, rank != 0);
            MPI_Win_sync(win);
            MPI_Barrier(node);
            MPI_Win_sync(win);
            if (rank == 1) {
                double t0 = MPI_Wtime();
                memcpy(dst, src, (size_t)bytes);
                t[k] = (MPI_Wtime() - t0) * 1e6;
                bad += check_bytes(dst, bytes, (unsigned long long)k) != 0;
            }
            MPI_Barrier(node);
        }
        if (rank == 1) {
            m = bad ? -1 : stats_of(t, iters, 0).median;
            MPI_Send(&m, 1, MPI_DOUBLE, 0, 0, node);
        } else
            MPI_Recv(&m, 1, MPI_DOUBLE, 1, 0, node, MPI_STATUS_IGNORE);
        MPI_Win_unlock_all(win);
        MPI_Win_free(&win);
        free(dst);
        free(t);
    }
    MPI_Comm_free(&node);
    MPI_Comm_free(&pair);
    return m;
}
