/* hiercoll-rootmoves: what a broadcast site whose root moves half way costs a program, in the
 * program's own terms (docs/tuning.md, "A root that moves"). hiercoll-bench gives each half the
 * median of its calls or blocks, which a round of trials inside the half hardly moves; here
 * each half is one total. Every repetition gives each path a fresh communicator (its info key
 * forces the path, as in the bench), on which the same call site broadcasts `calls` times from
 * rank 0, then `calls` times from the last rank, back to back, the root rewriting one word in
 * 64 before each call. The paths take turns within a repetition, in an order that rotates, so
 * the machine's drift falls on all; the table gives each half's median total over the
 * repetitions (the slowest rank's), the best fixed path and auto's ratio to it.
 * Usage: hiercoll-rootmoves [--sizes LIST] [--calls N] [--reps N] [--paths LIST]
 * Run it under the preload: without it the info keys are ignored and every path is the
 * vendor's. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hc_config.h"

#define MAX_PATHS 8
#define MAX_SIZES 16

typedef struct options {
    long long sizes[MAX_SIZES];
    int nsizes, calls, reps, npaths;
    char paths[MAX_PATHS][32];
} options;

static int usage(int me)
{
    if (me == 0)
        fprintf(stderr, "usage: hiercoll-rootmoves [--sizes LIST] [--calls N] [--reps N] "
                    "[--paths LIST]\n"
                    "  --sizes LIST  broadcast sizes, K/M suffixes (default 1K,4K,16K,64K)\n"
                    "  --calls N     calls from each root (default 200)\n"
                    "  --reps N      repetitions (default 21)\n"
                    "  --paths LIST  HIERCOLL_BCAST values, auto first (default "
                    "auto,shm,shm-cma,vendor)\n");
    return 2;
}

/* Copies a list to split it: one that does not fit is refused, not cut. */
static int copy_list(char *out, size_t len, const char *opt, const char *list, int me)
{
    if (strlen(list) < len) {
        memcpy(out, list, strlen(list) + 1);
        return 0;
    }
    if (me == 0)
        fprintf(stderr, "hiercoll-rootmoves: %s: the list is too long\n", opt);
    return 2;
}

static int parse(int argc, char **argv, options *o, int me)
{
    const char *sizes = "1K,4K,16K,64K", *paths = "auto,shm,shm-cma,vendor";
    o->calls = 200;
    o->reps = 21;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            return usage(me);
        if (!strcmp(a, "--sizes"))
            sizes = v;
        else if (!strcmp(a, "--calls"))
            o->calls = atoi(v);
        else if (!strcmp(a, "--reps"))
            o->reps = atoi(v);
        else if (!strcmp(a, "--paths"))
            paths = v;
        else
            return usage(me);
        i++;
    }
    char buf[512];
    if (copy_list(buf, sizeof buf, "--sizes", sizes, me))
        return 2;
    for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
        if (o->nsizes == MAX_SIZES || hc_parse_size(t, &o->sizes[o->nsizes]) != 0 ||
            o->sizes[o->nsizes] < 1 || o->sizes[o->nsizes] > (1LL << 30)) {
            if (me == 0)
                fprintf(stderr, "hiercoll-rootmoves: --sizes: '%s' is not a size of 1 B-1 GiB "
                                "(at most %d sizes)\n", t, MAX_SIZES);
            return 2;
        }
        o->nsizes++;
    }
    if (copy_list(buf, sizeof buf, "--paths", paths, me))
        return 2;
    for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
        if (o->npaths == MAX_PATHS || strlen(t) >= sizeof o->paths[0]) {
            if (me == 0)
                fprintf(stderr, "hiercoll-rootmoves: --paths: at most %d names of up to %zu "
                                "characters\n", MAX_PATHS, sizeof o->paths[0] - 1);
            return 2;
        }
        memcpy(o->paths[o->npaths++], t, strlen(t) + 1);
    }
    if (o->nsizes < 1 || o->calls < 1 || o->reps < 1 || o->reps > 100000 || o->npaths < 2 ||
        strcmp(o->paths[0], "auto") != 0) {
        if (me == 0)
            fprintf(stderr, "hiercoll-rootmoves: a size at least, --calls from 1, --reps 1-100000, "
                            "--paths auto and at least one other\n");
        return 2;
    }
    return 0;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One path's two halves on a fresh communicator: the slowest rank's total of each (µs). */
static void run_halves(const char *path, char *buf, long long bytes, int calls, double *half)
{
    MPI_Info info;
    MPI_Comm c;
    MPI_Info_create(&info);
    MPI_Info_set(info, "hiercoll_bcast", path);
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c);
    MPI_Info_free(&info);
    int me, n;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &n);
    for (int h = 0; h < 2; h++) {
        int root = h ? n - 1 : 0;
        MPI_Barrier(c);
        double t0 = MPI_Wtime();
        for (long long k = 0; k < calls; k++) {
            if (me == root)
                buf[(k * 64) % bytes]++;
            MPI_Bcast(buf, (int)bytes, MPI_BYTE, root, c);
        }
        double t = (MPI_Wtime() - t0) * 1e6;
        MPI_Allreduce(&t, &half[h], 1, MPI_DOUBLE, MPI_MAX, c);
    }
    MPI_Comm_free(&c);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    options o = {0};
    int rc = parse(argc, argv, &o, me);
    if (rc) {
        MPI_Finalize();
        return rc;
    }
    if (me == 0)
        printf("MPI_Bcast, a root that moves: %d calls from rank 0, then %d from the last rank, "
               "one call site, a fresh communicator per path and repetition; medians of %d "
               "repetitions of each half's total (us)\n",
               o.calls, o.calls, o.reps);
    if (me == 0) {
        printf("\n%8s  half", "size");
        for (int p = 0; p < o.npaths; p++)
            printf(" %10s", o.paths[p]);
        printf("  %10s  auto/best\n", "best fixed");
    }
    for (int s = 0; s < o.nsizes; s++) {
        long long bytes = o.sizes[s];
        char *buf = calloc((size_t)bytes, 1);
        double *t = malloc(sizeof(double) * (size_t)o.npaths * 2 * (size_t)o.reps);
        if (!buf || !t)
            MPI_Abort(MPI_COMM_WORLD, 1);
        for (int r = 0; r < o.reps; r++) {
            for (int q = 0; q < o.npaths; q++) {
                int p = (q + r) % o.npaths, at = (p * 2) * o.reps + r;
                double half[2];
                run_halves(o.paths[p], buf, bytes, o.calls, half);
                t[at] = half[0];
                t[at + o.reps] = half[1];
            }
            if (me == 0 && o.reps >= 10 && (r + 1) % (o.reps / 5) == 0)
                fprintf(stderr, "hiercoll-rootmoves: %lld bytes, repetition %d of %d\n", bytes,
                        r + 1, o.reps);
        }
        if (me == 0) {
            char size[24];
            hc_format_size(bytes, size, sizeof size);
            for (int h = 0; h < 2; h++) {
                double med[MAX_PATHS];
                int best = 1;
                printf("%8s  %4s", size, h ? "2nd" : "1st");
                for (int p = 0; p < o.npaths; p++) {
                    double *v = t + (p * 2 + h) * o.reps;
                    qsort(v, (size_t)o.reps, sizeof *v, by_value);
                    med[p] = 0.5 * (v[(o.reps - 1) / 2] + v[o.reps / 2]);
                    best = p > 0 && med[p] < med[best] ? p : best;
                    printf(" %10.1f", med[p]);
                }
                printf("  %10s  %9.2f\n", o.paths[best], med[0] / med[best]);
            }
            fflush(stdout);
        }
        free(t);
        free(buf);
    }
    MPI_Finalize();
    return 0;
}
