/* hiercoll bench: runs hiercoll-bench under the MPI launcher ($MPIEXEC, else mpiexec.mpich)
 * with the preload of that launcher's MPI family and prints its table (hiercoll against the
 * vendor, medians, in one run). Quick defaults; every option can be changed, and --dry-run
 * shows the command instead of running it. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench/pattern_name.h"
#include "cli_util.h"
#include "hc_cli.h"
#include "hc_config.h"
#include "launcher.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: hiercoll bench [--np N] [--vnode K] [--coll bcast|allreduce|all]\n"
            "                      [--sizes LIST] [--iters N] [--pattern LIST]\n"
            "                      [--bcast-algo LIST] [--allreduce-algo LIST] [--tune FILE]\n"
            "                      [--csv] [--dry-run]\n"
            "  Compares hiercoll's MPI_Bcast/MPI_Allreduce with the vendor's in one run of\n"
            "  hiercoll-bench (ratio = hiercoll / vendor, below 1 is faster). The launcher is\n"
            "  $MPIEXEC (default mpiexec.mpich); MPIEXEC=mpirun.openmpi measures Open MPI.\n"
            "  --np N       ranks (default 2)\n"
            "  --vnode K    HIERCOLL_VIRTUAL_NODE_SIZE=K: virtual nodes of K ranks (default 0)\n"
            "  --coll C     bcast, allreduce or all (default all)\n"
            "  --sizes LIST message sizes, K/M/G suffixes (default 8,1K,64K,1M)\n"
            "  --iters N    maximum iterations per size (default 50)\n"
            "  --pattern L  calling patterns ROOT-BUFFERS-TIMING, comma-separated, '*' for any:\n"
            "               root rotate|fixed, buffers fresh|warm|cold, timing latency|stream;\n"
            "               all = every one, then a summary (default rotate-fresh-latency)\n"
            "  --bcast-algo, --allreduce-algo LIST\n"
            "               hiercoll algorithms to compare, comma-separated (default auto)\n"
            "  --tune FILE  measure every mechanism in every pattern and write the choice as a\n"
            "               tuning file (docs/tuning.md); implies --pattern all\n"
            "  --csv        machine-readable output\n"
            "  --dry-run    print the command and exit\n");
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

int hc_cmd_bench(int argc, char **argv)
{
    static const struct option opts[] = {
        {"np", required_argument, 0, 'n'},    {"vnode", required_argument, 0, 'k'},
        {"coll", required_argument, 0, 'c'},  {"sizes", required_argument, 0, 's'},
        {"iters", required_argument, 0, 'i'}, {"csv", no_argument, 0, 'v'},
        {"dry-run", no_argument, 0, 'd'},     {"help", no_argument, 0, 'h'},
        {"pattern", required_argument, 0, 'p'}, {"tune", required_argument, 0, 't'},
        {"bcast-algo", required_argument, 0, 'B'}, {"allreduce-algo", required_argument, 0, 'A'},
        {0, 0, 0, 0}};
    long np = 2, vnode = 0, iters = 50;
    const char *coll = "all", *sizes = "8,1K,64K,1M", *patterns = NULL, *tune = NULL;
    const char *algos[2] = {NULL, NULL}; /* bcast, allreduce */
    int csv = 0, dry = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'n':
            if (hc_opt_int("bench", "--np", optarg, 1, 1 << 20, &np))
                return HC_EXIT_USAGE;
            break;
        case 'k':
            if (hc_opt_int("bench", "--vnode", optarg, 0, 1 << 20, &vnode))
                return HC_EXIT_USAGE;
            break;
        case 'i':
            if (hc_opt_int("bench", "--iters", optarg, 1, 100000, &iters))
                return HC_EXIT_USAGE;
            break;
        case 'c':
            if (strcmp(optarg, "bcast") && strcmp(optarg, "allreduce") && strcmp(optarg, "all")) {
                fprintf(stderr, "hiercoll bench: bad --coll '%s' (bcast, allreduce or all)\n",
                        optarg);
                return HC_EXIT_USAGE;
            }
            coll = optarg;
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
            sizes = optarg;
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
            patterns = optarg;
            break;
        }
        case 't': tune = optarg; break;
        case 'B':
        case 'A':
            if (!algos_valid(c == 'B' ? "bcast" : "allreduce", optarg))
                return HC_EXIT_USAGE;
            algos[c == 'A'] = optarg;
            break;
        case 'v': csv = 1; break;
        case 'd': dry = 1; break;
        case 'h': usage(stdout); return HC_EXIT_OK;
        default: usage(stderr); return HC_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "hiercoll bench: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return HC_EXIT_USAGE;
    }
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
    char np_s[24], vnode_s[24], iters_s[24];
    snprintf(np_s, sizeof np_s, "%ld", np);
    snprintf(vnode_s, sizeof vnode_s, "%ld", vnode);
    snprintf(iters_s, sizeof iters_s, "%ld", iters);
    /* Tuning compares every mechanism in every pattern: the vendor competes too. */
    if (tune) {
        patterns = patterns ? patterns : "all";
        algos[0] = algos[0] ? algos[0] : "shm,shm-cma";
        algos[1] = algos[1] ? algos[1] : "shm,ring,ring1d";
    }
    char *args[48];
    int n = 0;
    args[n++] = (char *)launcher;
    args[n++] = "-n";
    args[n++] = np_s;
    hc_launcher_placement(fam, args, &n, np);
    hc_launcher_env(fam, args, &n, "LD_PRELOAD", lib);
    if (vnode > 0)
        hc_launcher_env(fam, args, &n, "HIERCOLL_VIRTUAL_NODE_SIZE", vnode_s);
    args[n++] = bench;
    args[n++] = "--coll";
    args[n++] = (char *)coll;
    args[n++] = "--sizes";
    args[n++] = (char *)sizes;
    args[n++] = "--iters";
    args[n++] = iters_s;
    if (patterns) {
        args[n++] = "--pattern";
        args[n++] = (char *)patterns;
    }
    if (algos[0]) {
        args[n++] = "--bcast-algo";
        args[n++] = (char *)algos[0];
    }
    if (algos[1]) {
        args[n++] = "--allreduce-algo";
        args[n++] = (char *)algos[1];
    }
    if (tune) {
        args[n++] = "--tune";
        args[n++] = (char *)tune;
    }
    if (csv)
        args[n++] = "--csv";
    args[n] = NULL;
    if (dry) {
        hc_print_argv(args);
        free(bench);
        return HC_EXIT_OK;
    }
    if (!csv)
        fprintf(stderr, "hiercoll bench: %ld ranks%s, sizes %s, up to %ld iterations each...\n",
                np, vnode > 0 ? " in virtual nodes" : "", sizes, iters);
    int rc = hc_run(args);
    free(bench);
    if (rc != 0) {
        fprintf(stderr, "hiercoll bench: hiercoll-bench failed (exit status %d)\n", rc);
        return HC_EXIT_FAIL;
    }
    return HC_EXIT_OK;
}
