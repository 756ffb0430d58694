/* One size in one pattern: every path in blocks of BLOCK calls, one path at a time as an
 * application calls its MPI, the paths taking turns block by block (and which goes first), so
 * drift of the machine falls on all of them. Interleaving single calls would make each path
 * pay for the other's cache footprint. The first `warmup` calls of a block are not timed.
 * A pattern that changes mid-run changes at a block boundary, the same one for every path,
 * and each half is timed on its own. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define BLOCK 8

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

stats stats_of(double *t, int n, long errors)
{
    if (n <= 0)
        return (stats){0, 0, 0, errors};
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return (stats){t[n / 2], t[0], t[n - 1], errors};
}

/* About 64 MiB moved per size and path, and enough blocks for a median (latency gives one
 * sample a call, stream one a block), unless --iters says fewer; --min-calls raises the
 * 64 MiB bound (auto learns from calls). A pattern that changes mid-run gets that many calls
 * in each half. */
static int iterations_for(long long bytes, const measure_opts *o, int timing)
{
    long long it = (64LL << 20) / (bytes > 0 ? bytes : 1);
    int least = timing == TIME_STREAM ? 5 * BLOCK : 2 * BLOCK;
    if (it < least)
        it = least;
    if (it < o->min_calls)
        it = o->min_calls;
    return (int)(it < o->max_iters ? it : o->max_iters);
}

static void call(enum coll which, void *buf, void *out, long long bytes, int root, MPI_Comm comm)
{
#if MPI_VERSION >= 4
    if (which == COLL_BCAST)
        MPI_Bcast_c(buf, bytes, MPI_BYTE, root, comm);
    else
        MPI_Allreduce_c(buf, out, bytes / 8, MPI_DOUBLE, MPI_SUM, comm);
#else /* MPI 3.1 (Open MPI 4.1): int counts; main.c keeps sizes below 2 GiB */
    if (which == COLL_BCAST)
        MPI_Bcast(buf, (int)bytes, MPI_BYTE, root, comm);
    else
        MPI_Allreduce(buf, out, (int)(bytes / 8), MPI_DOUBLE, MPI_SUM, comm);
#endif
}

typedef struct path_run {
    double *t[2]; /* samples of each half (one half: [0] only) */
    int nt[2];
    long errors[2];
    double tx[2], rx[2]; /* --net-bytes: over the half's blocks, warm-up calls included */
    long long calls_in[2];
    long long calls; /* the path's own call count: rotating roots follow it */
    char ran[2][24];
} path_run;

/* One block of calls on one path; k counts calls over every path (content ids). */
static void run_block(enum coll which, pattern p, int half, bufset *b, long long bytes,
                      MPI_Comm comm, MPI_Comm books, int ncalls, int warmup, long long *k,
                      path_run *pr)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    int h = half ? half - 1 : 0;
    double own = 0;
    int timed = 0;
    long long kk = 0;
    int root = 0;
    for (int it = -warmup; it < ncalls; it++, (*k)++, pr->calls++) {
        kk = *k;
        root = pattern_root_of(p, half, pr->calls, n);
        void *out, *buf = bufset_before(b, kk, root, &out);
        if (p.timing == TIME_LATENCY)
            MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        call(which, buf, out, bytes, root, comm);
        double dt = (MPI_Wtime() - t0) * 1e6;
        long bad = bufset_check(b, kk, root, p.timing == TIME_LATENCY);
        if (it < 0)
            continue;
        pr->errors[h] += bad;
        if (p.timing == TIME_LATENCY) {
            double slowest;
            MPI_Allreduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, books);
            pr->t[h][pr->nt[h]++] = slowest;
        } else {
            own += dt;
            timed++;
        }
    }
    if (p.timing == TIME_STREAM && timed) {
        pr->errors[h] += bufset_check(b, kk, root, 1);
        double per_call = own / timed, slowest;
        MPI_Allreduce(&per_call, &slowest, 1, MPI_DOUBLE, MPI_MAX, books);
        pr->t[h][pr->nt[h]++] = slowest;
    }
}

int measure(enum coll which, pattern p, long long bytes, const path *paths, int npaths,
            const measure_opts *o, row *out)
{
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int halves = pattern_midrun(p) ? 2 : 1;
    int iters = iterations_for(bytes, o, p.timing);
    int per_half = (iters + BLOCK - 1) / BLOCK, nblocks = halves * per_half;
    for (int h = 0; h < halves; h++)
        out[h] = (row){.which = which, .p = p, .bytes = bytes, .half = halves == 2 ? h + 1 : 0,
                       .iters = iters};
    bufset *b = bufset_new(which, p, bytes, rank, nranks);
    int ok = b != NULL, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, paths[0].comm);
    if (!all_ok) {
        if (rank == 0)
            fprintf(stderr, "hiercoll-bench: out of memory for %lld-byte buffers\n", bytes);
        bufset_free(b);
        for (int h = 0; h < halves; h++)
            for (int q = 0; q < npaths; q++)
                out[h].s[q] = (stats){0, 0, 0, 1};
        return halves;
    }
    path_run pr[MAX_PATHS];
    for (int q = 0; q < npaths; q++) {
        pr[q] = (path_run){.ran = {"", ""}};
        for (int h = 0; h < halves; h++)
            pr[q].t[h] = calloc((size_t)iters + 1, sizeof(double));
    }
    long long k = 0;
    for (int blk = 0; blk < nblocks; blk++) {
        int half = halves == 2 ? 1 + blk / per_half : 0;
        int first = blk % per_half * BLOCK;
        int ncalls = first + BLOCK < iters ? BLOCK : iters - first;
        for (int j = 0; j < npaths; j++) {
            int q = (blk + j) % npaths;
            peers_enter(&paths[q].cvars);
            bufset_block(b, (long long)blk * npaths + q, k, half);
            double tx0 = 0, rx0 = 0, tx1, rx1;
            if (o->net)
                net_read(paths[0].comm, &tx0, &rx0);
            run_block(which, p, half, b, bytes, paths[q].comm, paths[0].comm, ncalls, o->warmup,
                      &k, &pr[q]);
            if (o->net) {
                int h = half ? half - 1 : 0;
                net_read(paths[0].comm, &tx1, &rx1);
                pr[q].tx[h] += tx1 - tx0;
                pr[q].rx[h] += rx1 - rx0;
                pr[q].calls_in[h] += ncalls + o->warmup;
            }
            path_last_plan(&paths[q], which, pr[q].ran[half ? half - 1 : 0], sizeof pr[q].ran[0]);
        }
    }
    peers_enter(NULL);
    for (int h = 0; h < halves; h++)
        for (int q = 0; q < npaths; q++) {
            long all;
            MPI_Allreduce(&pr[q].errors[h], &all, 1, MPI_LONG, MPI_SUM, paths[0].comm);
            out[h].s[q] = stats_of(pr[q].t[h], pr[q].nt[h], all);
            if (o->net)
                out[h].link[q] = net_per_call(paths[0].comm, pr[q].tx[h], pr[q].rx[h],
                                              pr[q].calls_in[h]);
            snprintf(out[h].ran[q], sizeof out[h].ran[q], "%s", pr[q].ran[h]);
            free(pr[q].t[h]);
        }
    bufset_free(b);
    return halves;
}
