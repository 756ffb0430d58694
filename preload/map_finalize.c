/* Recommended mapping at MPI_Finalize (rank 0): the hosts the ranks ran on (virtual nodes as
 * hosts "name#k"), each with the cores its node leader read with hwloc, go to the machine model
 * (mapping/model.c, the same code `hiercoll map --profile` runs offline); then mapping.txt, the
 * launcher files and next-run.sh in the profile directory. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hc_bandwidth.h"
#include "hc_config.h"
#include "hc_log.h"
#include "hc_map.h"
#include "hc_model.h"
#include "prof.h"

/* The model's hosts in order of first appearance, each rank's host index into host_of. Each
 * host's cores are those its node leader sent, else this host's, with a warning. 0, or -1. */
static int model_hosts(const hc_prof_data *d, hc_model_host *hosts, int *nhosts, int *host_of)
{
    int n = 0;
    for (int r = 0; r < d->nranks; r++) {
        int h = -1;
        for (int q = 0; q < n && h < 0; q++) /* hosts are few next to ranks */
            if (!strcmp(hosts[q].name, d->ranks[r].host))
                h = q;
        if (h < 0) {
            h = n++;
            snprintf(hosts[h].name, sizeof hosts[h].name, "%s", d->ranks[r].host);
        }
        host_of[r] = h;
        hosts[h].ranks++;
    }
    *nhosts = n;
    for (int h = 0; h < n; h++) {
        char real[HC_MAPFILE_HOSTLEN];
        hc_mapfile_physical_host(hosts[h].name, real, sizeof real);
        int t = hc_host_topo_find(d->hosts, d->nhosts, real);
        if (t >= 0 && hc_host_topo_copy(&hosts[h].topo, &d->hosts[t]) == 0)
            continue;
        if (hc_host_topo_load(&hosts[h].topo, real) != 0) {
            hc_warn("no mapping recommended: hwloc could not read this host's topology");
            return -1;
        }
        hc_warn("mapping: no core list from host %s: mapped with this host's %d cores", real,
                hosts[h].topo.ncores);
    }
    return 0;
}

int hc_map_finalize(const char *dir, const hc_graph *g, const hc_graph *halves,
                    const hc_prof_data *d)
{
    int n = d->nranks, nhosts = 0, rc = -1;
    if (!g || g->n != n || n < 1)
        return -1;
    hc_model_host *hosts = calloc((size_t)n, sizeof *hosts);
    int *host_of = malloc(sizeof(int) * (size_t)n), *cpu = malloc(sizeof(int) * (size_t)n);
    int *launched = malloc(sizeof(int) * (size_t)n);
    hc_model md = {0};
    hc_mapfile f = {0};
    char err[512], warn[1024];
    if (!hosts || !host_of || !cpu || !launched) {
        hc_warn("no mapping recommended: out of memory");
        goto out;
    }
    if (model_hosts(d, hosts, &nhosts, host_of) != 0)
        goto out;
    if (hc_model_build(&md, hosts, nhosts, n, hc_cfg.bandwidths.s, hc_cfg.machine_file.s, warn,
                       sizeof warn, err, sizeof err) != 0) {
        hc_warn("no mapping recommended: %s", err);
        goto out;
    }
    if (warn[0])
        hc_warn("%s", warn);
    if (!strcmp(md.bwdesc, "built-in"))
        hc_warn("no HIERCOLL_BANDWIDTHS or HIERCOLL_MACHINE_FILE: mapping with built-in "
                "bandwidths (network %.3g, package %.3g, core %.3g B/s)", HC_BW_NETWORK,
                HC_BW_PACKAGE, HC_BW_CORE);
    for (int r = 0; r < n; r++)
        cpu[r] = d->ranks[r].core;
    hc_model_launched(&md, host_of, cpu, n, launched);
    int algo = hc_map_algo_parse(hc_cfg.map_algo.s); /* the variable accepts only known names */
    if (hc_model_recommend(g, halves, &md, algo, launched, &f, err, sizeof err) != 0) {
        hc_warn("no mapping recommended: %s", err);
        goto out;
    }
    if (hc_mapfile_write_dir(&f, dir, err, sizeof err) != 0) {
        hc_warn("no mapping recommended: %s", err);
        goto out;
    }
    if (hc_write_next_run(dir, &f) != 0)
        goto out;
    hc_info(1, "mapping %s on %s (bandwidths %s: %s): cost max %.3g s as launched, %.3g s mapped",
            f.algorithm, f.machine, md.bwdesc, f.bandwidths, f.cost[0].max,
            f.cost[f.ncosts - 1].max);
    for (int h = 0; h < nhosts; h++)
        if (hosts[h].topo.ncores != md.cores)
            hc_info(1, "mapping: host %s has %d of the model's %d cores per host: %d available "
                    "to ranks", hosts[h].name, hosts[h].topo.ncores, md.cores,
                    hosts[h].topo.ncores * md.need);
    rc = 0;
out:
    hc_mapfile_free(&f);
    hc_model_free(&md);
    for (int h = 0; hosts && h < nhosts; h++)
        hc_host_topo_free(&hosts[h].topo);
    free(hosts);
    free(host_of);
    free(cpu);
    free(launched);
    return rc;
}
