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
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "hc_config.h"
#include "peers.h" /* peer_find: --peer-label */

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
    int peers;              /* MPICH's peers, in this run */
    const char *peer_label; /* the name of the vendor's path: the peer this run's launch set */
} options;

static int rank, nranks;

/* Where lines about the run itself go (a path left out): on rank 0, with the tables on
 * stdout, in their order; stderr when stdout is CSV. */
static FILE *notes_of(const options *o)
{
    return rank ? NULL : o->csv ? stderr : stdout;
}

__attribute__((format(printf, 2, 3))) static void note(const options *o, const char *fmt, ...)
{
    FILE *f = notes_of(o);
    if (!f)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(f, "hiercoll-bench: ");
    vfprintf(f, fmt, ap);
    fputc('\n', f);
    va_end(ap);
}

/* Nodes the way hiercoll counts them: real nodes (hosts), cut into virtual ones of
 * HIERCOLL_VIRTUAL_NODE_SIZE consecutive ranks when that is set and `virtual` asked. */
static int count_nodes(int virtual)
{
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    int lrank;
    MPI_Comm_rank(node, &lrank);
    const char *v = getenv("HIERCOLL_VIRTUAL_NODE_SIZE");
    long k = v && virtual ? strtol(v, NULL, 10) : 0;
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
    path paths[MAX_PATHS];
    int npeers = paths_peers(which, o->peers, o->peer_label, notes_of(o), paths);
    int np = paths_algos(which, o->algos[which], notes_of(o), paths, npeers);
    r->npaths[which] = np;
    r->npeers[which] = npeers;
    for (int q = 0; q < np; q++)
        r->algo[which][q] = paths[q].algo;

    long errors = 0;
    double refs[64][2];
    int refs_done = 0, npat = 0, at = 0;
    for (int i = 0; i < o->npatterns; i++)
        npat += which == COLL_BCAST || o->patterns[i].root == ROOT_ROTATE;
    if (!npat)
        note(o, "%s has no root: patterns with a fixed or switching root are left out",
             coll_names[which]);
    for (int i = 0; i < o->npatterns; i++) {
        pattern p = o->patterns[i];
        if (which == COLL_ALLREDUCE && p.root != ROOT_ROTATE)
            continue; /* no root: the same calls as rotate */
        if (rank == 0) {
            report_header(r, which, p);
            if (o->csv) { /* the table is not on the screen: say how far the run is */
                char name[64];
                pattern_name(p, name, sizeof name);
                fprintf(stderr, "hiercoll-bench: %s, pattern %s (%d of %d)\n", coll_names[which],
                        name, ++at, npat);
            }
        }
        for (int s = 0; s < o->nsizes; s++) {
            long long bytes = o->sizes[s];
            if (which == COLL_ALLREDUCE)
                bytes = bytes / 8 * 8;
            /* auto learns per call site and communicator: a new communicator makes each
             * pattern and size a new program to learn, whose trials count in its time */
            for (int q = npeers; q < np; q++)
                if (!strcmp(paths[q].algo, "auto")) {
                    MPI_Comm_free(&paths[q].comm);
                    paths[q].comm = path_comm(which, "auto");
                }
            row x[2];
            int nx = measure(which, p, bytes, paths, np, &o->m, x);
            if (!refs_done) {
                int it = x[0].iters < 20 ? 20 : x[0].iters;
                refs[s][0] = rank == 0 ? ref_memcpy(bytes, it) : 0;
                refs[s][1] = ref_xcopy(bytes, it);
            }
            for (int h = 0; h < nx; h++) {
                x[h].memcpy_us = refs[s][0];
                x[h].xcopy_us = refs[s][1];
                for (int q = 0; q < np; q++)
                    errors += x[h].s[q].errors;
                errors += x[h].xcopy_us < 0;
                if (rank == 0)
                    report_row(r, &x[h]);
            }
        }
        refs_done = 1;
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
            "                      [--min-calls N] [--warmup N] [--pattern LIST] [--bcast-algo LIST]\n"
            "                      [--allreduce-algo LIST] [--peers] [--peer-label NAME]\n"
            "                      [--net-bytes] [--tune FILE] [--csv]\n"
            "       hiercoll-bench --merge [--csv] FILE...\n"
            "Run under mpiexec.mpich with LD_PRELOAD=libhiercoll.so.\n"
            "  --sizes LIST    message sizes in bytes, K/M/G suffixes, comma-separated\n"
            "                  (default 8 B to 32 MiB)\n"
            "  --iters N       at most N calls per size and path (default 200); about 64 MiB\n"
            "                  moved per path bounds them, --min-calls N raises that bound\n"
            "  --pattern LIST  ROOT-BUFFERS-TIMING, comma-separated, each field may be '*':\n"
            "                  root rotate|fixed|switch, buffers fresh|warm|cold|stride|block|\n"
            "                  warm2stride, timing latency|stream; or a set: all, classic,\n"
            "                  partial, midrun (default rotate-fresh-latency)\n"
            "  --bcast-algo, --allreduce-algo LIST\n"
            "                  hiercoll algorithms compared with the vendor (default: every\n"
            "                  one the library has, then auto)\n"
            "  --peers         MPICH: its other algorithms too, set through MPI_T per block\n"
            "  --peer-label N  call the vendor's path N (the peer this launch selected); exit\n"
            "                  77 if that Open MPI component cannot serve these ranks\n"
            "  --merge FILE... the tables of several runs' --csv output, without MPI\n"
            "  --net-bytes     bytes per call over the busiest host's network link (its\n"
            "                  interfaces' counters around each block)\n"
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
        {"peers", no_argument, 0, 'P'},           {"peer-label", required_argument, 0, 'L'},
        {"net-bytes", no_argument, 0, 'N'},       {"min-calls", required_argument, 0, 'm'},
        {0, 0, 0, 0}};
    *o = (options){.colls = {COLL_BCAST, COLL_ALLREDUCE}, .ncolls = 2,
                   .m = {.max_iters = 200, .warmup = 1},
                   .algos = {"shm,shm-direct,shm-cma,auto", "shm,shm-cma,leaders,ring,ring1d,auto"}};
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
        case 'w':
        case 'm': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < (opt == 'i' ? 1 : 0) || v > 100000)
                return fprintf(stderr, "hiercoll-bench: bad count '%s'\n", optarg), 2;
            *(opt == 'i' ? &o->m.max_iters : opt == 'w' ? &o->m.warmup : &o->m.min_calls) = (int)v;
            break;
        }
        case 'v': o->csv = 1; break;
        case 'b': o->algos[COLL_BCAST] = optarg; break;
        case 'a': o->algos[COLL_ALLREDUCE] = optarg; break;
        case 't': o->tune = optarg; break;
        case 'P': o->peers = 1; break;
        case 'N': o->m.net = 1; break;
        case 'L': o->peer_label = optarg; break;
        case 'h': usage(stdout); return 1;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc)
        return fprintf(stderr, "hiercoll-bench: unexpected argument '%s'\n", argv[optind]), 2;
    if (o->peers && strcmp(PEER_FAMILY, "mpich"))
        return fprintf(stderr, "hiercoll-bench: --peers: Open MPI picks its components when a "
                               "communicator is made; run one launch per peer with --peer-label "
                               "(hiercoll bench --peers does)\n"), 2;
    if (o->tune && (o->peers || o->peer_label))
        return fprintf(stderr, "hiercoll-bench: --tune names hiercoll's algorithms and the "
                               "vendor's default: not with peers\n"), 2;
    return 0;
}

/* --merge FILE...: no MPI job, only the tables of runs made before. */
static int merge_main(int argc, char **argv)
{
    report r = {.out = stdout};
    char *files[MAX_RUNS];
    int n = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--csv"))
            r.csv = 1;
        else if (strcmp(argv[i], "--merge") && n < MAX_RUNS)
            files[n++] = argv[i];
    }
    if (!n)
        return fprintf(stderr, "hiercoll-bench: --merge needs the CSV files of the runs\n"), 2;
    if (!r.csv)
        printf("hiercoll-bench: %d runs merged: medians over the runs of each time, and of each "
               "ratio taken within one run\n", n);
    return merge_runs(&r, files, n) ? 2 : 0;
}

/* A launch that selected one of Open MPI's components: exit 77 where it would not serve
 * these ranks, so the caller does not measure the default under its name. */
static int peer_cannot_run(const options *o)
{
    const peer_def *d = o->peer_label ? peer_find(PEER_FAMILY, o->peer_label, 3) : NULL;
    int hosts = count_nodes(0);
    if (!d || (d->where == PEER_ONE_HOST && hosts == 1) ||
        (d->where == PEER_SEVERAL_HOSTS && hosts > 1) || d->where == PEER_ANY_HOSTS)
        return 0;
    if (rank == 0)
        fprintf(stderr, "hiercoll-bench: peer %s cannot run on %d host(s): %s\n", d->name,
                hosts, d->about);
    return 1;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--merge"))
            return merge_main(argc, argv);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    options o;
    int rc = parse_options(argc, argv, &o);
    if (!rc && peer_cannot_run(&o))
        rc = 77;
    if (rc) {
        MPI_Finalize();
        return rc == 1 ? 0 : rc;
    }
    report r = {.out = stdout, .csv = o.csv, .nranks = nranks, .nnodes = count_nodes(1),
                .runs = 1, .net = o.m.net};
    if (rank == 0 && !o.csv) {
        const char *pre = getenv("LD_PRELOAD");
        printf("hiercoll-bench: medians of the slowest rank's time per call; ratio = hiercoll / "
               "%s%s\n", o.peers ? "the best peer" : "vendor",
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
