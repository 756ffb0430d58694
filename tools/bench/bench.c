/* hiercoll-bench: the vendor's MPI_Bcast / MPI_Allreduce against hiercoll's, in one run.
 *
 * Run it under the preload:
 *   mpiexec.mpich -n 2 -genv LD_PRELOAD build/lib/libhiercoll.so build/bin/hiercoll-bench
 * Two duplicates of MPI_COMM_WORLD carry the info keys that pick the path (vendor, or hiercoll's
 * choice); every iteration runs both, in alternating order, on fresh data, and every result is
 * verified outside the timed region. Times are per iteration the slowest rank's, reported as
 * medians; the ratio is hiercoll / vendor (below 1 is faster). Two copies of the message are
 * timed beside them as references: a hot memcpy within one core, and one copy from rank 0's
 * memory into rank 1's (xcopy_median). */
#include <getopt.h>
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hc_config.h"
#include "hc_copy.h"

enum coll { COLL_BCAST, COLL_ALLREDUCE };
static const char *coll_names[] = {"MPI_Bcast", "MPI_Allreduce"};

typedef struct options {
    int colls[2], ncolls;
    long long sizes[64];
    int nsizes;
    int max_iters, warmup;
    int csv;
    const char *bcast_algo, *allreduce_algo;
} options;

static int rank, nranks;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static MPI_Comm dup_with(const char *key, const char *value)
{
    MPI_Comm c;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, key, value);
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c);
    MPI_Info_free(&info);
    return c;
}

/* Calls of one path in a row before the other path's turn. */
#define BENCH_BLOCK 8

/* Iterations: many for small messages, few for large ones, about 64 MiB moved per size. */
static int iterations_for(long long bytes, int max_iters)
{
    long long it = (64LL << 20) / (bytes > 0 ? bytes : 1);
    if (it > max_iters)
        it = max_iters;
    if (it < 5)
        it = 5;
    return (int)it;
}

/* Bcast payload: bytes that depend on the iteration and the root, checkable anywhere. */
static inline unsigned char pattern(long long i, int iter, int root)
{
    return (unsigned char)((i * 131 + iter * 7 + root * 29) >> 2);
}

/* Allreduce input: small integers in doubles, so every summation order gives the exact sum. */
static inline double input(long long i, int iter, int r) { return (double)((i + iter + 3 * r) % 1024); }

typedef struct stats {
    double median, min, max;
    long errors;
} stats;

static stats summarise(double *t, int n, long errors)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    stats s = {t[n / 2], t[0], t[n - 1], errors};
    return s;
}

/* One timed call on comm; returns the slowest rank's time in microseconds. */
static double timed_call(enum coll which, void *buf, void *out, long long bytes, int root,
                         MPI_Comm comm)
{
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
#if MPI_VERSION >= 4
    if (which == COLL_BCAST)
        MPI_Bcast_c(buf, bytes, MPI_BYTE, root, comm);
    else
        MPI_Allreduce_c(buf, out, bytes / (long long)sizeof(double), MPI_DOUBLE, MPI_SUM, comm);
#else /* MPI 3.1 (Open MPI 4.1): int counts; parse_options keeps sizes below 2 GiB */
    if (which == COLL_BCAST)
        MPI_Bcast(buf, (int)bytes, MPI_BYTE, root, comm);
    else
        MPI_Allreduce(buf, out, (int)(bytes / (long long)sizeof(double)), MPI_DOUBLE, MPI_SUM,
                      comm);
#endif
    double dt = (MPI_Wtime() - t0) * 1e6, slowest;
    MPI_Allreduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    return slowest;
}

static void prepare(enum coll which, unsigned char *buf, long long bytes, int iter, int root)
{
    if (which == COLL_BCAST) {
        for (long long i = 0; i < bytes; i++)
            buf[i] = rank == root ? pattern(i, iter, root) : (unsigned char)~pattern(i, iter, root);
    } else {
        double *x = (double *)buf;
        for (long long i = 0; i < bytes / (long long)sizeof(double); i++)
            x[i] = input(i, iter, rank);
    }
}

static long verify(enum coll which, const unsigned char *buf, const unsigned char *out,
                   long long bytes, int iter, int root)
{
    long bad = 0;
    if (which == COLL_BCAST) {
        for (long long i = 0; i < bytes; i++)
            bad += buf[i] != pattern(i, iter, root);
    } else {
        const double *y = (const double *)out;
        for (long long i = 0; i < bytes / (long long)sizeof(double); i++) {
            double want = 0;
            for (int r = 0; r < nranks; r++)
                want += input(i, iter, r);
            bad += y[i] != want;
        }
    }
    return bad;
}

static double memcpy_median(long long bytes, int iters)
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
    double m = summarise(t, iters, 0).median;
    free(a);
    free(b);
    free(t);
    return m;
}

/* The copy a broadcast between ranks 0 and 1 cannot beat: the reader copies the message once
 * straight out of the root's memory (a shared window), both buffers filled as before a timed
 * call, the source at the destination's page offset (hc_copy.h). The hot memcpy above keeps
 * both buffers in one core's cache; this one crosses cores as a broadcast must. Medians of the
 * reader's time; 0 where ranks 0 and 1 do not share a node. Collective over MPI_COMM_WORLD. */
static double xcopy_median(long long bytes, int iters)
{
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
            prepare(COLL_BCAST, rank == 0 ? src : dst, bytes, k, 0);
            MPI_Win_sync(win);
            MPI_Barrier(node);
            MPI_Win_sync(win);
            if (rank == 1) {
                double t0 = MPI_Wtime();
                memcpy(dst, src, (size_t)bytes);
                t[k] = (MPI_Wtime() - t0) * 1e6;
                bad += verify(COLL_BCAST, dst, NULL, bytes, k, 0) != 0;
            }
            MPI_Barrier(node);
        }
        if (rank == 1) {
            m = bad ? -1 : summarise(t, iters, 0).median;
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

static void size_label(long long b, char *out, size_t len)
{
    if (b >= 1 << 20 && b % (1 << 20) == 0)
        snprintf(out, len, "%lld MiB", b >> 20);
    else if (b >= 1024 && b % 1024 == 0)
        snprintf(out, len, "%lld KiB", b >> 10);
    else
        snprintf(out, len, "%lld B", b);
}

static long run_collective(const options *o, enum coll which)
{
    MPI_Comm vendor = dup_with(which == COLL_BCAST ? "hiercoll_bcast" : "hiercoll_allreduce",
                               "vendor");
    MPI_Comm ours = dup_with(which == COLL_BCAST ? "hiercoll_bcast" : "hiercoll_allreduce",
                             which == COLL_BCAST ? o->bcast_algo : o->allreduce_algo);
    long total_errors = 0;
    if (rank == 0) {
        if (o->csv && (int)which == o->colls[0])
            printf("collective,ranks,bytes,iterations,vendor_median_us,vendor_min_us,"
                   "vendor_max_us,hiercoll_median_us,hiercoll_min_us,hiercoll_max_us,ratio,"
                   "memcpy_us,xcopy_us,errors\n");
        else if (!o->csv)
            printf("\n%s, %d ranks, %s; hiercoll path: %s\n"
                   "%10s %6s %12s %12s %7s %21s %21s %10s %9s %9s %8s %8s\n",
                   coll_names[which], nranks,
                   which == COLL_BCAST ? "MPI_BYTE, root rotating" : "MPI_DOUBLE MPI_SUM",
                   which == COLL_BCAST ? o->bcast_algo : o->allreduce_algo, "size", "iters",
                   "vendor us", "hiercoll us", "ratio", "vendor min..max", "hiercoll min..max",
                   "memcpy us", "hc/memcpy", "xcopy us", "hc/xcopy", "verified");
    }
    for (int s = 0; s < o->nsizes; s++) {
        long long bytes = o->sizes[s];
        if (which == COLL_ALLREDUCE)
            bytes = bytes / (long long)sizeof(double) * (long long)sizeof(double);
        int iters = iterations_for(bytes, o->max_iters);
        unsigned char *buf = malloc((size_t)bytes + 8), *out = malloc((size_t)bytes + 8);
        double *tv = malloc(sizeof(double) * (size_t)iters);
        double *th = malloc(sizeof(double) * (size_t)iters);
        long ev = 0, eh = 0;
        /* Blocks of BENCH_BLOCK calls, one path at a time as an application calls its MPI,
         * the paths alternating block by block (and which goes first) so that drift of the
         * machine falls on both. Interleaving single calls would make each path pay for the
         * other's cache footprint. The first --warmup calls of a block are not timed. */
        for (int b0 = 0, blk = 0; b0 < iters; b0 += BENCH_BLOCK, blk++) {
            int b1 = b0 + BENCH_BLOCK < iters ? b0 + BENCH_BLOCK : iters;
            for (int pass = 0; pass < 2; pass++) {
                int use_ours = (pass == 0) == (blk % 2 == 0);
                for (int it = b0 - o->warmup; it < b1; it++) {
                    int root = ((it % nranks) + nranks) % nranks;
                    int iter_id = it + 1000 * s;
                    prepare(which, buf, bytes, iter_id, root);
                    double t = timed_call(which, buf, out, bytes, root, use_ours ? ours : vendor);
                    long bad = verify(which, buf, out, bytes, iter_id, root);
                    if (it >= b0) {
                        (use_ours ? th : tv)[it] = t;
                        *(use_ours ? &eh : &ev) += bad;
                    }
                }
            }
        }
        long errs[2] = {ev, eh}, all[2];
        MPI_Allreduce(errs, all, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        total_errors += all[0] + all[1];
        double mc = rank == 0 ? memcpy_median(bytes, iters < 20 ? 20 : iters) : 0;
        double xc = xcopy_median(bytes, iters < 20 ? 20 : iters);
        total_errors += xc < 0;
        if (rank == 0) {
            stats v = summarise(tv, iters, all[0]), h = summarise(th, iters, all[1]);
            double ratio = v.median > 0 ? h.median / v.median : 0;
            if (o->csv) {
                printf("%s,%d,%lld,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%ld\n",
                       coll_names[which], nranks, bytes, iters, v.median, v.min, v.max, h.median,
                       h.min, h.max, ratio, mc, xc, all[0] + all[1]);
            } else {
                char label[32], vr[32], hr[32], ok[32], xs[16] = "-", xr[16] = "-";
                if (xc > 0)
                    snprintf(xs, sizeof xs, "%.2f", xc), snprintf(xr, sizeof xr, "%.1f", h.median / xc);
                else if (xc < 0)
                    snprintf(xs, sizeof xs, "BAD");
                size_label(bytes, label, sizeof label);
                snprintf(vr, sizeof vr, "%.1f..%.1f", v.min, v.max);
                snprintf(hr, sizeof hr, "%.1f..%.1f", h.min, h.max);
                if (all[0] + all[1] || xc < 0)
                    snprintf(ok, sizeof ok, "%ld BAD", all[0] + all[1] + (xc < 0));
                else
                    snprintf(ok, sizeof ok, "yes");
                printf("%10s %6d %12.2f %12.2f %7.2f %21s %21s %10.2f %9.1f %9s %8s %8s\n", label,
                       iters, v.median, h.median, ratio, vr, hr, mc, mc > 0 ? h.median / mc : 0, xs,
                       xr, ok);
            }
            fflush(stdout);
        }
        free(buf);
        free(out);
        free(tv);
        free(th);
    }
    MPI_Comm_free(&vendor);
    MPI_Comm_free(&ours);
    return total_errors;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: hiercoll-bench [--coll bcast|allreduce|all] [--sizes LIST] [--iters N]\n"
            "                      [--warmup N] [--bcast-algo A] [--allreduce-algo A] [--csv]\n"
            "Run under mpiexec.mpich with LD_PRELOAD=libhiercoll.so. LIST: sizes in bytes with\n"
            "optional K/M/G suffix, comma-separated (default 8 B to 64 MiB, powers of 4).\n"
            "Exit status 1 if any result was wrong.\n");
}

static int parse_options(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"coll", required_argument, 0, 'c'},      {"sizes", required_argument, 0, 's'},
        {"iters", required_argument, 0, 'i'},     {"warmup", required_argument, 0, 'w'},
        {"csv", no_argument, 0, 'v'},             {"bcast-algo", required_argument, 0, 'b'},
        {"allreduce-algo", required_argument, 0, 'a'}, {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    *o = (options){.colls = {COLL_BCAST, COLL_ALLREDUCE}, .ncolls = 2, .max_iters = 200,
                   .warmup = 1, .bcast_algo = "auto", .allreduce_algo = "auto"};
    for (long long b = 8; b <= 64LL << 20; b *= 4)
        o->sizes[o->nsizes++] = b;
    int opt;
    while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (opt) {
        case 'c':
            if (strcmp(optarg, "bcast") == 0)
                o->colls[0] = COLL_BCAST, o->ncolls = 1;
            else if (strcmp(optarg, "allreduce") == 0)
                o->colls[0] = COLL_ALLREDUCE, o->ncolls = 1;
            else if (strcmp(optarg, "all") != 0)
                return fprintf(stderr, "hiercoll-bench: --coll '%s': use bcast, allreduce or all\n",
                               optarg), 2;
            break;
        case 's': {
            o->nsizes = 0;
            char *list = strdup(optarg), *save = NULL;
            for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                long long v;
                if (hc_parse_size(tok, &v) != 0 || o->nsizes == 64) {
                    fprintf(stderr, "hiercoll-bench: --sizes: '%s' is not a size\n", tok);
                    free(list);
                    return 2;
                }
                if (MPI_VERSION < 4 && v > INT_MAX) {
                    fprintf(stderr, "hiercoll-bench: --sizes: %s is above 2G, which needs an "
                                    "MPI 4 library\n", tok);
                    free(list);
                    return 2;
                }
                o->sizes[o->nsizes++] = v;
            }
            free(list);
            if (!o->nsizes)
                return fprintf(stderr, "hiercoll-bench: --sizes is empty\n"), 2;
            break;
        }
        case 'i':
        case 'w': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < (opt == 'i' ? 1 : 0) || v > 100000)
                return fprintf(stderr, "hiercoll-bench: bad count '%s'\n", optarg), 2;
            *(opt == 'i' ? &o->max_iters : &o->warmup) = (int)v;
            break;
        }
        case 'v': o->csv = 1; break;
        case 'b': o->bcast_algo = optarg; break;
        case 'a': o->allreduce_algo = optarg; break;
        case 'h': usage(stdout); return 1;
        default: usage(stderr); return 2;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    options o;
    int rc = parse_options(argc, argv, &o);
    if (rc) {
        MPI_Finalize();
        return rc == 1 ? 0 : 2;
    }
    if (rank == 0 && !o.csv) {
        const char *pre = getenv("LD_PRELOAD");
        printf("hiercoll-bench: medians of the slowest rank's time per call; ratio = hiercoll / "
               "vendor%s\n",
               pre && strstr(pre, "libhiercoll") ? "" : "\n(not under the preload: both paths "
                                                        "are the vendor's)");
    }
    long errors = 0;
    for (int k = 0; k < o.ncolls; k++)
        errors += run_collective(&o, (enum coll)o.colls[k]);
    if (rank == 0 && errors)
        fprintf(stderr, "hiercoll-bench: %ld wrong results\n", errors);
    MPI_Finalize();
    return errors ? 1 : 0;
}
