/* hiercoll map: a rank-to-core mapping for a task graph on a machine, computed offline with
 * the same code the preload runs at MPI_Finalize. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_util.h"
#include "hc_cli.h"
#include "hc_config.h"
#include "hc_map.h"
#include "hc_mapfile.h"
#include "hc_util.h"
#include "map_alloc.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: hiercoll map --graph FILE (--machine SPEC --bandwidths LIST | --machine-matrix "
            "FILE)\n"
            "                    [--unavailable LIST] [--algo NAME] [--seed N] [--out DIR] [--json]\n"
            "       hiercoll map --profile DIR --allocation [--out DIR]\n"
            "  --graph FILE           task graph, METIS format (a profile's taskgraph.graph)\n"
            "  --machine SPEC         tree of levels, e.g. 'node:4 package:2 core:4'\n"
            "  --bandwidths LIST      bytes/s per level from the top, e.g. 2e9,6e9,8e9\n"
            "  --machine-matrix FILE  N x N bandwidth matrix instead (docs/formats-mapping.md)\n"
            "  --unavailable LIST     cores not to use, depth-first indices: 0-3,17\n"
            "  --algo NAME            auto (default: all of them refined, the best), tmmgp,\n"
            "                         tmmgp-bisect, tmgt, tml, tmrr, tmmgp-paper, scotch\n"
            "  --seed N               seed of the partitioner and refinement (default 1)\n"
            "  --out DIR              write mapping.txt, machinefile, rankfile, slurm.hostfile\n"
            "  --json                 print algorithm, cost_max, cost_sum, baselines, mapping\n"
            "  --profile DIR --allocation\n"
            "                         inside a Slurm allocation: prints DIR when its mapping\n"
            "                         fits the allocation's hosts and CPUs, else maps DIR's task\n"
            "                         graph again onto them as finalize would, into --out\n"
            "                         (default DIR/alloc-JOBID), and prints that (next-run.sh)\n"
            "Exit status: 0 mapped, 1 failed (bad file, not enough cores), 2 usage error.\n");
}

/* Host and core of a model core for the output files: the node-level element and the index
 * within it. */
static void host_core(const hc_machine *m, int c, char *host, size_t len, int *core)
{
    if (m->matrix) {
        snprintf(host, len, "host0");
        *core = c;
        return;
    }
    int nl = hc_machine_node_level(m), span = m->stride[nl];
    snprintf(host, len, "%s%d", m->name[nl], c / span);
    *core = c % span;
}

static int write_out(const char *dir, const hc_machine *m, const int *map, int n,
                     const char *algo, const char *bws, hc_mapfile_cost *costs, int ncosts)
{
    char err[300];
    hc_mapfile f;
    mkdir(dir, 0777);
    if (hc_mapfile_alloc(&f, n) != 0)
        return -1;
    snprintf(f.algorithm, sizeof f.algorithm, "%s", algo);
    hc_machine_format(m, f.machine, sizeof f.machine);
    snprintf(f.bandwidths, sizeof f.bandwidths, "%s", bws);
    f.ncosts = ncosts;
    memcpy(f.cost, costs, sizeof(hc_mapfile_cost) * (size_t)ncosts);
    for (int r = 0; r < n; r++)
        host_core(m, map[r], f.host[r], sizeof f.host[r], &f.core[r]);
    char path[4096];
    snprintf(path, sizeof path, "%s/mapping.txt", dir);
    FILE *out = fopen(path, "w");
    int rc = -1;
    if (!out)
        fprintf(stderr, "hiercoll map: cannot write %s\n", path);
    else if (hc_mapfile_write(&f, out) != 0 || fclose(out) != 0)
        fprintf(stderr, "hiercoll map: write error on %s\n", path);
    else if (hc_mapfile_write_launchers(&f, dir, err, sizeof err) != 0)
        fprintf(stderr, "hiercoll map: %s\n", err);
    else
        rc = 0;
    hc_mapfile_free(&f);
    return rc;
}

int hc_cmd_map(int argc, char **argv)
{
    static const struct option opts[] = {
        {"graph", required_argument, 0, 'g'},       {"machine", required_argument, 0, 'm'},
        {"bandwidths", required_argument, 0, 'b'},  {"machine-matrix", required_argument, 0, 'M'},
        {"unavailable", required_argument, 0, 'u'}, {"algo", required_argument, 0, 'a'},
        {"seed", required_argument, 0, 's'},        {"out", required_argument, 0, 'o'},
        {"json", no_argument, 0, 'j'},              {"help", no_argument, 0, 'h'},
        {"profile", required_argument, 0, 'P'},     {"allocation", no_argument, 0, 'A'},
        {0, 0, 0, 0}};
    const char *graph = NULL, *spec = NULL, *bws = NULL, *matrix = NULL, *unavail = NULL;
    const char *outdir = NULL, *profile = NULL;
    int algo = HC_MAPALGO_AUTO, json = 0, allocation = 0, c;
    long seed = 1;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'g': graph = optarg; break;
        case 'm': spec = optarg; break;
        case 'b': bws = optarg; break;
        case 'M': matrix = optarg; break;
        case 'u': unavail = optarg; break;
        case 'o': outdir = optarg; break;
        case 'j': json = 1; break;
        case 'P': profile = optarg; break;
        case 'A': allocation = 1; break;
        case 'h': usage(stdout); return HC_EXIT_OK;
        case 'a':
            if ((algo = hc_map_algo_parse(optarg)) < 0) {
                fprintf(stderr, "hiercoll map: unknown algorithm '%s'\n", optarg);
                return HC_EXIT_USAGE;
            }
            break;
        case 's':
            if (hc_opt_int("map", "--seed", optarg, 0, 2147483647L, &seed))
                return HC_EXIT_USAGE;
            break;
        default:
            fprintf(stderr, "hiercoll map: unknown or incomplete option '%s'\n",
                    argv[optind - 1]);
            usage(stderr);
            return HC_EXIT_USAGE;
        }
    }
    if (profile || allocation) {
        if (!profile || !allocation || optind < argc || graph || spec || matrix || json) {
            fprintf(stderr, "hiercoll map: --profile DIR goes with --allocation (and --out) "
                            "only\n");
            return HC_EXIT_USAGE;
        }
        return hc_map_allocation(profile, outdir);
    }
    if (optind < argc || !graph || (!spec == !matrix) || (spec && !bws) || (matrix && bws)) {
        fprintf(stderr, "hiercoll map: need --graph and either --machine with --bandwidths or "
                        "--machine-matrix\n");
        usage(stderr);
        return HC_EXIT_USAGE;
    }
    char err[512];
    hc_graph g;
    hc_machine m;
    if (hc_graph_read_metis(&g, graph, err, sizeof err) != 0) {
        fprintf(stderr, "hiercoll map: %s\n", err);
        return HC_EXIT_FAIL;
    }
    int rc = HC_EXIT_FAIL;
    if (spec) {
        double bw[HC_MACHINE_MAX_LEVELS];
        int nbw = hc_parse_floats(bws, bw, HC_MACHINE_MAX_LEVELS);
        if (nbw < 0) {
            fprintf(stderr, "hiercoll map: --bandwidths '%s': expected positive numbers b1,b2,...\n",
                    bws);
            hc_graph_free(&g);
            return HC_EXIT_USAGE;
        }
        if (hc_machine_from_synthetic(&m, spec, bw, nbw, err, sizeof err) != 0) {
            fprintf(stderr, "hiercoll map: %s\n", err);
            hc_graph_free(&g);
            return HC_EXIT_USAGE;
        }
    } else if (hc_machine_read_matrix(&m, matrix, err, sizeof err) != 0) {
        fprintf(stderr, "hiercoll map: %s\n", err);
        hc_graph_free(&g);
        return HC_EXIT_FAIL;
    }
    int *map = malloc(sizeof(int) * (size_t)(g.n ? g.n : 1));
    int *base = malloc(sizeof(int) * (size_t)(g.n ? g.n : 1));
    char name[64];
    if (!map || !base)
        goto out;
    if (unavail && hc_machine_set_unavailable(&m, unavail, err, sizeof err) != 0) {
        fprintf(stderr, "hiercoll map: %s\n", err);
        rc = HC_EXIT_USAGE;
        goto out;
    }
    uint64_t t0 = hc_now_ns();
    if (hc_map_compute(&g, &m, algo, (unsigned)seed, map, name, sizeof name, err, sizeof err)) {
        fprintf(stderr, "hiercoll map: %s\n", err);
        goto out;
    }
    double secs = (double)(hc_now_ns() - t0) / 1e9;
    hc_map_cost cost = hc_map_cost_eval(&g, &m, map);
    hc_mapfile_cost costs[3];
    int nc = 0;
    const hc_map_algo bl[2] = {HC_MAPALGO_TML, HC_MAPALGO_TMRR};
    for (int b = 0; b < 2; b++) {
        int ok = (b ? hc_map_tmrr(&g, &m, base) : hc_map_tml(&g, &m, base)) == 0;
        if (!ok)
            continue;
        hc_map_cost bc = hc_map_cost_eval(&g, &m, base);
        costs[nc] = (hc_mapfile_cost){"", bc.max, bc.sum};
        snprintf(costs[nc++].label, sizeof costs[0].label, "%s", hc_map_algo_name(bl[b]));
    }
    costs[nc++] = (hc_mapfile_cost){"mapped", cost.max, cost.sum};
    if (json) {
        printf("{\"algorithm\": ");
        hc_json_str(stdout, name);
        printf(", \"ranks\": %d, \"cores\": %d, \"available\": %d, \"cost_max\": %.9g, "
               "\"cost_sum\": %.9g, \"seconds\": %.3f, \"baselines\": {",
               g.n, m.ncores, hc_machine_navail(&m), cost.max, cost.sum, secs);
        for (int k = 0; k < nc - 1; k++)
            printf("%s\"%s\": {\"cost_max\": %.9g, \"cost_sum\": %.9g}", k ? ", " : "",
                   costs[k].label, costs[k].max, costs[k].sum);
        printf("}, \"mapping\": [");
        for (int r = 0; r < g.n; r++)
            printf("%s%d", r ? ", " : "", map[r]);
        printf("]}\n");
    } else {
        printf("algorithm %s (%.3f s): %d ranks on %d available cores of %d\n", name, secs, g.n,
               hc_machine_navail(&m), m.ncores);
        printf("%-10s %14s %14s %10s\n", "placement", "cost max (s)", "cost sum (s)", "max/mapped");
        for (int k = 0; k < nc; k++)
            printf("%-10s %14.6g %14.6g %10.2f\n", costs[k].label, costs[k].max, costs[k].sum,
                   cost.max > 0 ? costs[k].max / cost.max : 1.0);
        printf("mapping (rank: core):");
        for (int r = 0; r < g.n; r++)
            printf("%s%d:%d", r % 16 ? " " : "\n  ", r, map[r]);
        printf("\n");
    }
    if (outdir && write_out(outdir, &m, map, g.n, name, spec ? bws : "matrix", costs, nc) != 0)
        goto out;
    rc = HC_EXIT_OK;
out:
    free(map);
    free(base);
    hc_machine_free(&m);
    hc_graph_free(&g);
    return rc;
}
