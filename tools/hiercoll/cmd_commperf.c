/* hiercoll commperf: runs hiercoll-commperf under the MPI launcher ($MPIEXEC, else
 * mpiexec.mpich; latency and bandwidth per hierarchy level) and checks the machine file it
 * wrote; --check FILE only reads and checks one. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_util.h"
#include "hc_cli.h"
#include "hc_config.h"
#include "hc_perffile.h"
#include "launcher.h"

/* Reads and checks a machine-perf file (mapping/perffile.c, the reader the mapping uses). */
static int read_perf(const char *path, hc_perf *pf)
{
    char err[600];
    if (hc_perf_read(pf, path, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    return 0;
}

static void print_levels(const char *path, const hc_perf *pf, int json)
{
    if (json) {
        printf("{\"file\": ");
        hc_json_str(stdout, path);
        printf(", \"levels\": [");
        for (int i = 0; i < pf->nlevels; i++) {
            printf("%s{\"name\": ", i ? ", " : "");
            hc_json_str(stdout, pf->name[i]);
            printf(", \"latency_us\": %.6g, \"bandwidth_Bps\": %.6g}", pf->latency_us[i],
                   pf->bandwidth[i]);
        }
        printf("]}\n");
        return;
    }
    printf("%-10s %12s %16s\n", "level", "latency_us", "bandwidth_GB/s");
    for (int i = 0; i < pf->nlevels; i++)
        printf("%-10s %12.2f %16.2f\n", pf->name[i], pf->latency_us[i], pf->bandwidth[i] / 1e9);
    printf("machine file: %s (use it with HIERCOLL_MACHINE_FILE=%s)\n", path, path);
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: hiercoll commperf [--out FILE] [--np N] [--vnode K] [--iters N] [--size BYTES]\n"
            "                         [--no-bind] [--json] [--dry-run]\n"
            "       hiercoll commperf --check FILE [--json]\n"
            "  Measures latency (8 B) and bandwidth (--size, default 4M) between two ranks at each\n"
            "  level present: numa (same NUMA domain), package, node, network (other node).\n"
            "  --out FILE  machine file to write (default hiercoll-machine.txt)\n"
            "  --np N      ranks (default: the number of PUs, at least 2)\n"
            "  --vnode K   HIERCOLL_VIRTUAL_NODE_SIZE=K: ranks K apart count as other nodes\n"
            "  --iters N   latency round trips (default 200; bandwidth uses N/10, at least 5)\n"
            "  --check F   read and check a machine file, print its levels\n");
}

int hc_cmd_commperf(int argc, char **argv)
{
    static const struct option opts[] = {
        {"out", required_argument, 0, 'o'},   {"np", required_argument, 0, 'n'},
        {"vnode", required_argument, 0, 'k'}, {"iters", required_argument, 0, 'i'},
        {"size", required_argument, 0, 's'},  {"no-bind", no_argument, 0, 'b'},
        {"json", no_argument, 0, 'j'},        {"dry-run", no_argument, 0, 'd'},
        {"check", required_argument, 0, 'c'}, {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    const char *out = "hiercoll-machine.txt", *check = NULL, *size = NULL;
    long np = sysconf(_SC_NPROCESSORS_ONLN), vnode = 0, iters = 200;
    int json = 0, dry = 0, nobind = 0, c;
    if (np < 2)
        np = 2;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'c': check = optarg; break;
        case 'n':
            if (hc_opt_int("commperf", "--np", optarg, 2, 1 << 20, &np))
                return HC_EXIT_USAGE;
            break;
        case 'k':
            if (hc_opt_int("commperf", "--vnode", optarg, 0, 1 << 20, &vnode))
                return HC_EXIT_USAGE;
            break;
        case 'i':
            if (hc_opt_int("commperf", "--iters", optarg, 1, 1000000, &iters))
                return HC_EXIT_USAGE;
            break;
        case 's': {
            long long v;
            if (hc_parse_size(optarg, &v) != 0 || v < 1 || v > (1LL << 30)) {
                fprintf(stderr, "hiercoll commperf: bad --size '%s' (1..1G)\n", optarg);
                return HC_EXIT_USAGE;
            }
            size = optarg;
            break;
        }
        case 'b': nobind = 1; break;
        case 'j': json = 1; break;
        case 'd': dry = 1; break;
        case 'h': usage(stdout); return HC_EXIT_OK;
        default: usage(stderr); return HC_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "hiercoll commperf: unexpected argument '%s'\n", argv[optind]);
        return HC_EXIT_USAGE;
    }
    hc_perf pf;
    if (check) {
        if (read_perf(check, &pf) != 0)
            return HC_EXIT_FAIL;
        print_levels(check, &pf, json);
        return HC_EXIT_OK;
    }
    const char *launcher = hc_mpiexec();
    hc_mpi_family fam = hc_launcher_family(launcher);
    const char *tool = hc_tool("commperf", hc_family_suffix(fam));
    if (!tool)
        return HC_EXIT_FAIL;
    char np_s[24], vnode_s[24], iters_s[24];
    snprintf(np_s, sizeof np_s, "%ld", np);
    snprintf(vnode_s, sizeof vnode_s, "%ld", vnode);
    snprintf(iters_s, sizeof iters_s, "%ld", iters);
    char *args[24];
    int n = 0;
    args[n++] = (char *)launcher;
    args[n++] = "-n";
    args[n++] = np_s;
    if (fam == HC_OMPI && np > sysconf(_SC_NPROCESSORS_ONLN))
        args[n++] = "--oversubscribe";
    hc_launcher_env(fam, args, &n, "HIERCOLL_VIRTUAL_NODE_SIZE", vnode_s);
    args[n++] = (char *)tool;
    args[n++] = "--out";
    args[n++] = (char *)out;
    args[n++] = "--iters";
    args[n++] = iters_s;
    if (size) {
        args[n++] = "--size";
        args[n++] = (char *)size;
    }
    if (nobind)
        args[n++] = "--no-bind";
    args[n++] = "--quiet";
    args[n] = NULL;
    if (dry) {
        hc_print_argv(args);
        return HC_EXIT_OK;
    }
    fprintf(stderr, "hiercoll commperf: %ld ranks%s, measuring each hierarchy level...\n", np,
            vnode > 0 ? " in virtual nodes" : "");
    int rc = hc_run(args);
    if (rc != 0) {
        fprintf(stderr, "hiercoll commperf: hiercoll-commperf failed (exit status %d)\n", rc);
        return HC_EXIT_FAIL;
    }
    if (read_perf(out, &pf) != 0)
        return HC_EXIT_FAIL;
    print_levels(out, &pf, json);
    return HC_EXIT_OK;
}
