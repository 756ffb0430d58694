/* hiercoll bench: runs hiercoll-bench under the MPI launcher ($MPIEXEC, else mpiexec.mpich)
 * with the preload of that launcher's MPI family and prints its table (hiercoll against the
 * vendor, medians, in one run). Quick defaults; every option can be changed, and --dry-run
 * shows the command instead of running it.
 *
 * With --rounds N, or with --peers under Open MPI, it launches the bench several times, each
 * run writing CSV into a directory of its own, then prints the tables of all of them merged
 * (hiercoll-bench --merge): Open MPI picks its collective components once per communicator
 * from launcher options, so each of its peers needs launches of its own (tools/bench/peers.h),
 * and the peers' launches alternate round after round so drift falls on all of them. */
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../bench/pattern_name.h"
#include "../bench/peers.h"
#include "cli_util.h"
#include "hc_cli.h"
#include "hc_config.h"
#include "launcher.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: hiercoll bench [--np N] [--vnode K] [--coll bcast|allreduce|all]\n"
            "                      [--sizes LIST] [--iters N] [--min-calls N] [--pattern LIST]\n"
            "                      [--bcast-algo LIST] [--allreduce-algo LIST] [--peers]\n"
            "                      [--rounds N] [--net-bytes] [--tune FILE] [--csv] [--dry-run]\n"
            "  Compares hiercoll's MPI_Bcast/MPI_Allreduce with the vendor's in one run of\n"
            "  hiercoll-bench (ratio = hiercoll / vendor, below 1 is faster). The launcher is\n"
            "  $MPIEXEC (default mpiexec.mpich); MPIEXEC=mpirun.openmpi measures Open MPI.\n"
            "  --np N       ranks (default 2)\n"
            "  --vnode K    HIERCOLL_VIRTUAL_NODE_SIZE=K: virtual nodes of K ranks (default 0)\n"
            "  --coll C     bcast, allreduce or all (default all)\n"
            "  --sizes LIST message sizes, K/M/G suffixes (default 8,1K,64K,1M)\n"
            "  --iters N    maximum calls per size and path (default 200: auto's trials need\n"
            "               calls; above 320 KiB, 64 MiB moved per path bounds them)\n"
            "  --min-calls N  at least N calls at every size (up to --iters), past that bound\n"
            "  --pattern L  calling patterns ROOT-BUFFERS-TIMING, comma-separated, '*' for any:\n"
            "               root rotate|fixed|switch, buffers fresh|warm|cold|stride|block|\n"
            "               warm2stride, timing latency|stream; sets: all, classic (the\n"
            "               twelve of rotate|fixed x fresh|warm|cold), partial, midrun\n"
            "               (default rotate-fresh-latency)\n"
            "  --bcast-algo, --allreduce-algo LIST\n"
            "               hiercoll algorithms to compare, comma-separated (default: each\n"
            "               one the library has, then auto)\n"
            "  --peers      also the other collectives a user could pick: MPICH's algorithm\n"
            "               variables (in the same run), Open MPI's tuned, han and sm (a run\n"
            "               each); ratios are then to the best peer\n"
            "  --rounds N   N runs (per peer), merged: medians over the runs (default 1)\n"
            "  --net-bytes  a line of bytes per call over the busiest host's link under each\n"
            "               line (across hosts: the cluster of namespaces)\n"
            "  --tune FILE  measure every mechanism in the classic patterns and write the\n"
            "               choice as a tuning file (docs/tuning.md)\n"
            "  --csv        machine-readable output\n"
            "  --dry-run    print the commands and exit\n");
}

/* Every name of a comma-separated algorithm list is one HIERCOLL_BCAST / _ALLREDUCE accepts. */
static int algos_valid(const char *coll, const char *list)
{
    const hc_var_desc *v = hc_config_find(!strcmp(coll, "bcast") ? "HIERCOLL_BCAST" : "HIERCOLL_ALLREDUCE");
    char *copy = strdup(list), *save = NULL;
    int ok = copy && *list;
    for (char *t = strtok_r(copy, ",", &save); ok && t; t = strtok_r(NULL, ",", &save))
        if (hc_config_enum_index(v, t) < 0) {
            fprintf(stderr, "hiercoll bench: bad --%s-algo '%s' (%s)\n", coll, t, v->accepted);
            ok = 0;
        }
    free(copy);
    return ok;
}

typedef struct bench_cli {
    long np, vnode, iters, rounds, min_calls;
    const char *coll, *sizes, *patterns, *tune, *algos[2];
    int csv, dry, peers, net;
} bench_cli;

/* The launcher line of one run: peer_opts are an Open MPI peer's launcher options (split at
 * spaces), label names the vendor's path after that peer. */
static int launch_args(const bench_cli *o, hc_mpi_family fam, const char *lib, const char *bench,
                       const char *peer_opts, const char *label, int csv, char **args,
                       char *strings, size_t len)
{
    int n = 0;
    char *np_s = strings, *vnode_s = strings + 24, *iters_s = strings + 48,
         *min_s = strings + 72, *opts = strings + 96;
    snprintf(np_s, 24, "%ld", o->np);
    snprintf(vnode_s, 24, "%ld", o->vnode);
    snprintf(iters_s, 24, "%ld", o->iters);
    snprintf(min_s, 24, "%ld", o->min_calls);
    snprintf(opts, len - 96, "%s", peer_opts ? peer_opts : "");
    args[n++] = (char *)hc_mpiexec();
    args[n++] = "-n";
    args[n++] = np_s;
    hc_launcher_placement(fam, args, &n, o->np);
    char *save = NULL;
    for (char *t = strtok_r(opts, " ", &save); t; t = strtok_r(NULL, " ", &save))
        args[n++] = t;
    hc_launcher_env(fam, args, &n, "LD_PRELOAD", lib);
    if (o->vnode > 0)
        hc_launcher_env(fam, args, &n, "HIERCOLL_VIRTUAL_NODE_SIZE", vnode_s);
    args[n++] = (char *)bench;
    const char *pairs[][2] = {{"--coll", o->coll}, {"--sizes", o->sizes}, {"--iters", iters_s},
                              {"--min-calls", o->min_calls ? min_s : NULL},
                              {"--pattern", o->patterns}, {"--bcast-algo", o->algos[0]},
                              {"--allreduce-algo", o->algos[1]}, {"--tune", o->tune},
                              {"--peer-label", label}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        if (pairs[i][1]) {
            args[n++] = (char *)pairs[i][0];
            args[n++] = (char *)pairs[i][1];
        }
    if (o->peers && fam != HC_OMPI)
        args[n++] = "--peers";
    if (o->net)
        args[n++] = "--net-bytes";
    if (csv)
        args[n++] = "--csv";
    args[n] = NULL;
    return n;
}

/* Runs args with stdout into out and stderr into err. */
static int run_to(char **args, const char *out, const char *err)
{
    int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fo < 0 || fe < 0) {
        fprintf(stderr, "hiercoll bench: cannot write %s\n", fo < 0 ? out : err);
        return 127;
    }
    fflush(stdout);
    fflush(stderr);
    int saved[2] = {dup(1), dup(2)};
    dup2(fo, 1);
    dup2(fe, 2);
    close(fo);
    close(fe);
    int rc = hc_run(args);
    dup2(saved[0], 1);
    dup2(saved[1], 2);
    close(saved[0]);
    close(saved[1]);
    return rc;
}

/* Whether a run's CSV holds a measured line (the header does not count). */
static int has_rows(const char *file)
{
    FILE *f = fopen(file, "r");
    char line[256];
    int n = 0;
    while (f && n < 2 && fgets(line, sizeof line, f))
        n++;
    if (f)
        fclose(f);
    return n == 2;
}

/* What a run said on stderr: all of it, or only the bench's own lines ("hiercoll-bench: ..."),
 * without its progress through the patterns. */
static void show_err(const char *file, int all)
{
    FILE *f = fopen(file, "r");
    char line[1024];
    while (f && fgets(line, sizeof line, f))
        if (all || (!strncmp(line, "hiercoll-bench: ", 16) && !strstr(line, ", pattern ")))
            fputs(line, stderr);
    if (f)
        fclose(f);
    unlink(file);
}

/* The peers of this family that take launches of their own (Open MPI's), or one plain
 * configuration (MPICH's peers come within each run). */
static int launch_configs(const bench_cli *o, hc_mpi_family fam, const peer_def **out)
{
    int n = 0;
    for (int i = 0; o->peers && fam == HC_OMPI && i < NPEER_DEFS; i++)
        if (!strcmp(peer_defs[i].family, "ompi"))
            out[n++] = &peer_defs[i];
    if (!n)
        out[n++] = NULL;
    return n;
}

/* --rounds N or Open MPI's peers: every configuration once per round, each run's CSV kept
 * apart, then the tables of them all. A peer that cannot serve these ranks (exit 77) or whose
 * launch fails is left out of the later rounds; a failure of the first configuration, the
 * default's launch that hiercoll's paths count from, ends the runs. */
static int run_rounds(const bench_cli *o, hc_mpi_family fam, const char *lib, const char *bench)
{
    const peer_def *cfg[NPEER_DEFS + 1];
    int ncfg = launch_configs(o, fam, cfg), skip[NPEER_DEFS + 1] = {0};
    char dir[] = "/tmp/hiercoll-bench-XXXXXX";
    if (!o->dry && !mkdtemp(dir)) {
        fprintf(stderr, "hiercoll bench: cannot make a directory in /tmp\n");
        return HC_EXIT_FAIL;
    }
    int nfiles = 0, failed = 0;
    char **files = calloc((size_t)(o->rounds * ncfg + 4), sizeof *files);
    for (long r = 0; r < o->rounds; r++)
        for (int c = 0; c < ncfg; c++) {
            if (skip[c])
                continue;
            char *args[64], strings[512], file[sizeof dir + 64], err[sizeof dir + 64];
            launch_args(o, fam, lib, bench, cfg[c] ? cfg[c]->settings : NULL,
                        cfg[c] ? cfg[c]->name : NULL, 1, args, strings, sizeof strings);
            snprintf(file, sizeof file, "%s/run%ld-%s.csv", dir, r + 1, cfg[c] ? cfg[c]->name : "all");
            if (o->dry) {
                hc_print_argv(args);
                continue;
            }
            fprintf(stderr, "hiercoll bench: round %ld of %ld%s%s ...\n", r + 1, o->rounds,
                    cfg[c] ? ", peer " : "", cfg[c] ? cfg[c]->name : "");
            snprintf(err, sizeof err, "%s/run%ld-%s.err", dir, r + 1, cfg[c] ? cfg[c]->name : "all");
            time_t t0 = time(NULL);
            int rc = run_to(args, file, err);
            if (rc == 1 && !has_rows(file))
                rc = 127; /* not the bench's wrong results: the launch itself failed */
            /* the bench's own lines in the first round and when something was wrong; a failed
             * run's whole stderr (a launcher adds lines of its own even to the exit 77 of a
             * peer that cannot run here, so not then) */
            if (r == 0 || rc != 0)
                show_err(err, rc != 0 && rc != 1 && rc != 77);
            else
                unlink(err);
            if (rc == 77) {
                skip[c] = 1;
                unlink(file);
                continue;
            }
            if (rc != 0 && rc != 1) {
                unlink(file);
                failed = 1;
                if (c > 0) {
                    /* a peer's own launch (HAN crashing, say): the other launches' tables
                     * still stand, this peer's earlier rounds too */
                    fprintf(stderr, "hiercoll bench: the launch of peer %s failed (exit status %d); "
                                    "left out of the later rounds\n", cfg[c]->name, rc);
                    skip[c] = 1;
                    continue;
                }
                fprintf(stderr, "hiercoll bench: the run failed (exit status %d)\n", rc);
                r = o->rounds; /* no later round either */
                break;
            }
            failed |= rc == 1; /* wrong results: still shown, and the exit status says so */
            files[nfiles++] = strdup(file);
            fprintf(stderr, "hiercoll bench: round %ld%s%s done in %ld s\n", r + 1,
                    cfg[c] ? ", peer " : "", cfg[c] ? cfg[c]->name : "", (long)(time(NULL) - t0));
        }
    int rc = failed ? HC_EXIT_FAIL : HC_EXIT_OK;
    if (o->dry)
        printf("%s --merge%s FILES...\n", bench, o->csv ? " --csv" : "");
    else if (nfiles) {
        char *args[512];
        int n = 0;
        args[n++] = (char *)bench;
        args[n++] = "--merge";
        if (o->csv)
            args[n++] = "--csv";
        for (int i = 0; i < nfiles && n < 510; i++)
            args[n++] = files[i];
        args[n] = NULL;
        if (hc_run(args) != 0)
            rc = HC_EXIT_FAIL;
    }
    for (int i = 0; i < nfiles; i++) {
        unlink(files[i]);
        free(files[i]);
    }
    free(files);
    if (!o->dry)
        rmdir(dir);
    return rc;
}

static int parse(int argc, char **argv, bench_cli *o)
{
    static const struct option opts[] = {
        {"np", required_argument, 0, 'n'},    {"vnode", required_argument, 0, 'k'},
        {"coll", required_argument, 0, 'c'},  {"sizes", required_argument, 0, 's'},
        {"iters", required_argument, 0, 'i'}, {"csv", no_argument, 0, 'v'},
        {"dry-run", no_argument, 0, 'd'},     {"help", no_argument, 0, 'h'},
        {"pattern", required_argument, 0, 'p'}, {"tune", required_argument, 0, 't'},
        {"bcast-algo", required_argument, 0, 'B'}, {"allreduce-algo", required_argument, 0, 'A'},
        {"peers", no_argument, 0, 'P'},       {"rounds", required_argument, 0, 'r'},
        {"net-bytes", no_argument, 0, 'N'},   {"min-calls", required_argument, 0, 'm'},
        {0, 0, 0, 0}};
    *o = (bench_cli){.np = 2, .iters = 200, .rounds = 1, .coll = "all", .sizes = "8,1K,64K,1M"};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'n':
            if (hc_opt_int("bench", "--np", optarg, 1, 1 << 20, &o->np))
                return HC_EXIT_USAGE;
            break;
        case 'k':
            if (hc_opt_int("bench", "--vnode", optarg, 0, 1 << 20, &o->vnode))
                return HC_EXIT_USAGE;
            break;
        case 'i':
            if (hc_opt_int("bench", "--iters", optarg, 1, 100000, &o->iters))
                return HC_EXIT_USAGE;
            break;
        case 'r':
            if (hc_opt_int("bench", "--rounds", optarg, 1, 100, &o->rounds))
                return HC_EXIT_USAGE;
            break;
        case 'm':
            if (hc_opt_int("bench", "--min-calls", optarg, 0, 100000, &o->min_calls))
                return HC_EXIT_USAGE;
            break;
        case 'c':
            if (strcmp(optarg, "bcast") && strcmp(optarg, "allreduce") && strcmp(optarg, "all")) {
                fprintf(stderr, "hiercoll bench: bad --coll '%s' (bcast, allreduce or all)\n",
                        optarg);
                return HC_EXIT_USAGE;
            }
            o->coll = optarg;
            break;
        case 's': {
            /* Checked here so a typo is a usage error, not a failed MPI job. */
            char *list = strdup(optarg), *save = NULL;
            int n = 0, bad = 0;
            for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save), n++) {
                long long v;
                if (hc_parse_size(t, &v) != 0) {
                    fprintf(stderr, "hiercoll bench: bad size '%s' in --sizes\n", t);
                    bad = 1;
                }
            }
            free(list);
            if (bad || n == 0) {
                if (!n)
                    fprintf(stderr, "hiercoll bench: --sizes is empty\n");
                return HC_EXIT_USAGE;
            }
            o->sizes = optarg;
            break;
        }
        case 'p': {
            pattern p[MAX_PATTERNS];
            int np_ = 0;
            char err[256];
            if (pattern_parse(optarg, p, &np_, err, sizeof err)) {
                fprintf(stderr, "hiercoll bench: bad --pattern: %s\n", err);
                return HC_EXIT_USAGE;
            }
            o->patterns = optarg;
            break;
        }
        case 't': o->tune = optarg; break;
        case 'B':
        case 'A':
            if (!algos_valid(c == 'B' ? "bcast" : "allreduce", optarg))
                return HC_EXIT_USAGE;
            o->algos[c == 'A'] = optarg;
            break;
        case 'P': o->peers = 1; break;
        case 'N': o->net = 1; break;
        case 'v': o->csv = 1; break;
        case 'd': o->dry = 1; break;
        case 'h': usage(stdout); return -1;
        default: usage(stderr); return HC_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "hiercoll bench: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return HC_EXIT_USAGE;
    }
    if (o->tune && (o->peers || o->rounds > 1)) {
        fprintf(stderr, "hiercoll bench: --tune measures one run against the vendor's default: "
                        "not with --peers or --rounds\n");
        return HC_EXIT_USAGE;
    }
    /* Tuning compares every mechanism in the classic patterns: the vendor competes too. */
    if (o->tune) {
        o->patterns = o->patterns ? o->patterns : "classic";
        o->algos[0] = o->algos[0] ? o->algos[0] : "shm,shm-direct,shm-cma";
        o->algos[1] = o->algos[1] ? o->algos[1] : "shm,shm-cma,leaders,ring,ring1d";
    }
    return HC_EXIT_OK;
}

int hc_cmd_bench(int argc, char **argv)
{
    bench_cli o;
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc < 0 ? HC_EXIT_OK : rc;
    const char *launcher = hc_mpiexec();
    hc_mpi_family fam = hc_launcher_family(launcher);
    const char *lib = hc_preload_lib(hc_family_suffix(fam));
    char *bench = NULL;
    if (lib) {
        const char *b = hc_tool("bench", hc_family_suffix(fam));
        bench = b ? strdup(b) : NULL;
    }
    if (!lib || !bench)
        return HC_EXIT_FAIL;
    if ((o.peers && fam == HC_OMPI) || o.rounds > 1) {
        rc = run_rounds(&o, fam, lib, bench);
        free(bench);
        return rc;
    }
    char *args[64], strings[512];
    launch_args(&o, fam, lib, bench, NULL, NULL, o.csv, args, strings, sizeof strings);
    if (o.dry) {
        hc_print_argv(args);
        free(bench);
        return HC_EXIT_OK;
    }
    if (!o.csv)
        fprintf(stderr, "hiercoll bench: %ld ranks%s, sizes %s, up to %ld iterations each...\n",
                o.np, o.vnode > 0 ? " in virtual nodes" : "", o.sizes, o.iters);
    rc = hc_run(args);
    free(bench);
    if (rc != 0) {
        fprintf(stderr, "hiercoll bench: hiercoll-bench failed (exit status %d)\n", rc);
        return HC_EXIT_FAIL;
    }
    return HC_EXIT_OK;
}
