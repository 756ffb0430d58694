/* hiercoll-bench: the vendor's MPI_Bcast / MPI_Allreduce against hiercoll's, in one run, in
 * the calling patterns programs use (bench.h).
 *
 * Run it under the preload:
 *   mpiexec.mpich -n 2 -genv LD_PRELOAD build/lib/libhiercoll.so build/bin/hiercoll-bench
 * Duplicates of MPI_COMM_WORLD carry the info keys that pick each path (the vendor, and one or
 * more hiercoll algorithms); every result is verified outside the timed region. Times are
 * medians of the slowest rank's time per call; a ratio is path / vendor (below 1 is faster). */
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "hc_config.h"

typedef struct options {
    int colls[2], ncolls;
    long long sizes[64];
    int nsizes;
    measure_opts m;
    int csv;
    const char *algos[2]; /* comma-separated lists */
    pattern patterns[MAX_PATTERNS];
    int npatterns;
    const char *tune;
} options;

static int rank, nranks;

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

/* Nodes the way hiercoll counts them: real nodes, cut into virtual ones of
 * HIERCOLL_VIRTUAL_NODE_SIZE consecutive ranks when that is set. */
static int count_nodes(void)
{
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    int lrank;
    MPI_Comm_rank(node, &lrank);
    const char *v = getenv("HIERCOLL_VIRTUAL_NODE_SIZE");
    long k = v ? strtol(v, NULL, 10) : 0;
    int first = lrank == 0; /* first rank of a real node, or of a virtual one inside it */
    if (k > 0 && !first) {
        int prev_world = -1;
        MPI_Group g, wg;
        MPI_Comm_group(node, &g);
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        int lprev = lrank - 1;
        MPI_Group_translate_ranks(g, 1, &lprev, wg, &prev_world);
        first = prev_world / k != rank / k;
        MPI_Group_free(&g);
        MPI_Group_free(&wg);
    }
    int nodes;
    MPI_Allreduce(&first, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
    return nodes;
}

static long run_collective(const options *o, enum coll which, report *r)
{
    const char *key = which == COLL_BCAST ? "hiercoll_bcast" : "hiercoll_allreduce";
    path paths[MAX_PATHS];
    int np = 0;
    paths[np++] = (path){"vendor", dup_with(key, "vendor")};
    char *list = strdup(o->algos[which]), *save = NULL;
    for (char *t = strtok_r(list, ",", &save); t && np < MAX_PATHS; t = strtok_r(NULL, ",", &save))
        paths[np] = (path){strdup(t), dup_with(key, t)}, np++;
    free(list);
    r->npaths[which] = np;
    for (int q = 0; q < np; q++)
        r->algo[which][q] = paths[q].algo;

    long errors = 0;
    double refs[64][2];
    for (int i = 0; i < o->npatterns; i++) {
        pattern p = o->patterns[i];
        if (which == COLL_ALLREDUCE && p.root == ROOT_FIXED)
            continue; /* no root: the same calls as rotate */
        if (rank == 0)
            report_header(r, which, p);
        for (int s = 0; s < o->nsizes; s++) {
            long long bytes = o->sizes[s];
            if (which == COLL_ALLREDUCE)
                bytes = bytes / 8 * 8;
            row x = {.which = which, .p = p, .bytes = bytes};
            x.iters = measure(which, p, bytes, paths, np, &o->m, x.s);
            if (i == 0 || (which == COLL_ALLREDUCE && i == 1 && o->patterns[0].root == ROOT_FIXED)) {
                int it = x.iters < 20 ? 20 : x.iters;
                refs[s][0] = rank == 0 ? ref_memcpy(bytes, it) : 0;
                refs[s][1] = ref_xcopy(bytes, it);
            }
            x.memcpy_us = refs[s][0];
            x.xcopy_us = refs[s][1];
            for (int q = 0; q < np; q++)
                errors += x.s[q].errors;
            errors += x.xcopy_us < 0;
            if (rank == 0)
                report_row(r, &x);
        }
    }
    if (rank == 0)
        report_summary(r, which);
    for (int q = 0; q < np; q++)
        MPI_Comm_free(&paths[q].comm);
    return errors;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: hiercoll-bench [--coll bcast|allreduce|all] [--sizes LIST] [--iters N]\n"
            "                      [--warmup N] [--pattern LIST] [--bcast-algo LIST]\n"
            "                      [--allreduce-algo LIST] [--tune FILE] [--csv]\n"
            "Run under mpiexec.mpich with LD_PRELOAD=libhiercoll.so.\n"
            "  --sizes LIST    message sizes in bytes, K/M/G suffixes, comma-separated\n"
            "                  (default 8 B to 32 MiB)\n"
            "  --pattern LIST  ROOT-BUFFERS-TIMING, comma-separated, each field may be '*':\n"
            "                  root rotate|fixed, buffers fresh|warm|cold, timing latency|stream;\n"
            "                  all = every combination, with a summary (default\n"
            "                  rotate-fresh-latency)\n"
            "  --bcast-algo, --allreduce-algo LIST\n"
            "                  hiercoll algorithms compared with the vendor (default auto)\n"
            "  --tune FILE     write the tuning file the measurements give (docs/tuning.md)\n"
            "Exit status 1 if any result was wrong.\n");
}

static int parse_sizes(const char *arg, options *o)
{
    o->nsizes = 0;
    char *list = strdup(arg), *save = NULL;
    int rc = 0;
    for (char *tok = strtok_r(list, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
        long long v;
        if (hc_parse_size(tok, &v) != 0 || o->nsizes == 64)
            rc = fprintf(stderr, "hiercoll-bench: --sizes: '%s' is not a size\n", tok);
        else if (MPI_VERSION < 4 && v > INT_MAX)
            rc = fprintf(stderr, "hiercoll-bench: --sizes: %s is above 2G, which needs an MPI 4 "
                                 "library\n", tok);
        else
            o->sizes[o->nsizes++] = v;
    }
    free(list);
    if (!rc && !o->nsizes)
        rc = fprintf(stderr, "hiercoll-bench: --sizes is empty\n");
    return rc ? 2 : 0;
}

static int parse_options(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"coll", required_argument, 0, 'c'},      {"sizes", required_argument, 0, 's'},
        {"iters", required_argument, 0, 'i'},     {"warmup", required_argument, 0, 'w'},
        {"csv", no_argument, 0, 'v'},             {"bcast-algo", required_argument, 0, 'b'},
        {"allreduce-algo", required_argument, 0, 'a'}, {"pattern", required_argument, 0, 'p'},
        {"tune", required_argument, 0, 't'},      {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    *o = (options){.colls = {COLL_BCAST, COLL_ALLREDUCE}, .ncolls = 2,
                   .m = {.max_iters = 200, .warmup = 1}, .algos = {"auto", "auto"}};
    static const char *const default_sizes = "8,64,512,4K,32K,64K,256K,1M,4M,8M,32M";
    char err[256];
    pattern_parse("rotate-fresh-latency", o->patterns, &o->npatterns, err, sizeof err);
    if (parse_sizes(default_sizes, o))
        return 2;
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
        case 's':
            if (parse_sizes(optarg, o))
                return 2;
            break;
        case 'p':
            if (pattern_parse(optarg, o->patterns, &o->npatterns, err, sizeof err))
                return fprintf(stderr, "hiercoll-bench: --pattern: %s\n", err), 2;
            break;
        case 'i':
        case 'w': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < (opt == 'i' ? 1 : 0) || v > 100000)
                return fprintf(stderr, "hiercoll-bench: bad count '%s'\n", optarg), 2;
            *(opt == 'i' ? &o->m.max_iters : &o->m.warmup) = (int)v;
            break;
        }
        case 'v': o->csv = 1; break;
        case 'b': o->algos[COLL_BCAST] = optarg; break;
        case 'a': o->algos[COLL_ALLREDUCE] = optarg; break;
        case 't': o->tune = optarg; break;
        case 'h': usage(stdout); return 1;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc)
        return fprintf(stderr, "hiercoll-bench: unexpected argument '%s'\n", argv[optind]), 2;
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
    report r = {.out = stdout, .csv = o.csv, .nranks = nranks, .nnodes = count_nodes()};
    if (rank == 0 && !o.csv) {
        const char *pre = getenv("LD_PRELOAD");
        printf("hiercoll-bench: medians of the slowest rank's time per call; ratio = hiercoll / "
               "vendor%s\n",
               pre && strstr(pre, "libhiercoll") ? "" : "\n(not under the preload: every path "
                                                        "is the vendor's)");
    }
    long errors = 0;
    for (int k = 0; k < o.ncolls; k++)
        errors += run_collective(&o, (enum coll)o.colls[k], &r);
    if (rank == 0 && errors)
        fprintf(stderr, "hiercoll-bench: %ld wrong results\n", errors);
    if (rank == 0 && o.tune) {
        char err[4400];
        if (report_tune(&r, o.tune, err, sizeof err) != 0) {
            fprintf(stderr, "hiercoll-bench: --tune: %s\n", err);
            errors++;
        } else if (!o.csv)
            printf("\ntuning file written: %s\n", o.tune);
    }
    free(r.rows);
    MPI_Finalize();
    return errors ? 1 : 0;
}
