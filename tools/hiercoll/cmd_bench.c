/* hiercoll bench: runs hiercoll-bench under the MPI launcher ($MPIEXEC, else mpiexec.mpich)
 * with the preload of that launcher's MPI family and prints its table (hiercoll against the
 * vendor, medians, in one run). Quick defaults; every option can be changed, and --dry-run
 * shows the command instead of running it. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "hc_cli.h"
#include "hc_config.h"
#include "launcher.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: hiercoll bench [--np N] [--vnode K] [--coll bcast|allreduce|all]\n"
            "                      [--sizes LIST] [--iters N] [--csv] [--dry-run]\n"
            "  Compares hiercoll's MPI_Bcast/MPI_Allreduce with the vendor's in one run of\n"
            "  hiercoll-bench (ratio = hiercoll / vendor, below 1 is faster). The launcher is\n"
            "  $MPIEXEC (default mpiexec.mpich); MPIEXEC=mpirun.openmpi measures Open MPI.\n"
            "  --np N       ranks (default 2)\n"
            "  --vnode K    HIERCOLL_VIRTUAL_NODE_SIZE=K: virtual nodes of K ranks (default 0)\n"
            "  --coll C     bcast, allreduce or all (default all)\n"
            "  --sizes LIST message sizes, K/M/G suffixes (default 8,1K,64K,1M)\n"
            "  --iters N    maximum iterations per size (default 50)\n"
            "  --csv        machine-readable output\n"
            "  --dry-run    print the command and exit\n");
}

int hc_cmd_bench(int argc, char **argv)
{
    static const struct option opts[] = {
        {"np", required_argument, 0, 'n'},    {"vnode", required_argument, 0, 'k'},
        {"coll", required_argument, 0, 'c'},  {"sizes", required_argument, 0, 's'},
        {"iters", required_argument, 0, 'i'}, {"csv", no_argument, 0, 'v'},
        {"dry-run", no_argument, 0, 'd'},     {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    long np = 2, vnode = 0, iters = 50;
    const char *coll = "all", *sizes = "8,1K,64K,1M";
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
    char *args[32];
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
