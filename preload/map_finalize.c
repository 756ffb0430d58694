/* Recommended mapping at MPI_Finalize (rank 0): the machine the job ran on as a tree (hosts
 * seen, with virtual nodes as hosts "name#k"; each host's packages and cores as its node leader
 * read them with hwloc; a "slot" level when a host ran more ranks than it has cores), bandwidths from HIERCOLL_BANDWIDTHS, else
 * HIERCOLL_MACHINE_FILE, else documented defaults; then mapping.txt, the launcher files and
 * next-run.sh (preload/next_run.c) in the profile directory. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hc_config.h"
#include "hc_log.h"
#include "hc_map.h"
#include "hc_mapfile.h"
#include "hc_next_run.h"
#include "hc_perffile.h"
#include "hc_preload.h"

/* Built-in bandwidths, bytes/s: between hosts (10 Gb/s Ethernet), between packages of a host,
 * between cores of a package. docs/formats-mapping.md. */
#define HC_BW_NETWORK 1.25e9
#define HC_BW_PACKAGE 1.0e10
#define HC_BW_CORE 2.0e10

/* Bandwidth per level (levels: node, [package], core, [slot]). */
static void level_bandwidths(const hc_machine *m, double *bw, char *desc, size_t desclen)
{
    int L = m->nlevels;
    double vals[HC_MACHINE_MAX_LEVELS];
    int nv = hc_cfg.bandwidths.s[0] ? hc_parse_floats(hc_cfg.bandwidths.s, vals,
                                                      HC_MACHINE_MAX_LEVELS) : 0;
    int inner = L - (!strcmp(m->name[L - 1], "slot") ? 1 : 0); /* levels a user describes */
    if (nv > 0) {
        if (nv == inner || nv == L) {
            for (int l = 0; l < L; l++)
                bw[l] = vals[l < nv ? l : nv - 1];
            snprintf(desc, desclen, "HIERCOLL_BANDWIDTHS");
            return;
        }
        hc_warn("HIERCOLL_BANDWIDTHS has %d values but the machine has %d levels (node%s core): "
                "ignored", nv, inner, inner > 2 ? ", package," : ",");
    }
    if (hc_cfg.machine_file.s[0]) {
        hc_perf p;
        char err[512];
        if (hc_perf_read(&p, hc_cfg.machine_file.s, err, sizeof err) != 0) {
            hc_warn("HIERCOLL_MACHINE_FILE: %s: ignored", err);
        } else {
            int ok = 1;
            for (int l = 0; l < L; l++) {
                const char *names = l == 0 ? "network"
                                    : !strcmp(m->name[l], "core") && strcmp(m->name[l - 1], "node")
                                        ? "package,numa,node"
                                    : !strcmp(m->name[l], "package") ? "node,package,numa"
                                                                     : "package,numa,node";
                bw[l] = hc_perf_bandwidth(&p, names);
                if (l > 0 && !(bw[l] > 0))
                    bw[l] = bw[l - 1];
                ok &= bw[l] > 0;
            }
            if (ok) {
                snprintf(desc, desclen, "%s", hc_cfg.machine_file.s);
                return;
            }
            hc_warn("HIERCOLL_MACHINE_FILE %s has no 'network' level: ignored",
                    hc_cfg.machine_file.s);
        }
    }
    hc_warn("no HIERCOLL_BANDWIDTHS or HIERCOLL_MACHINE_FILE: mapping with built-in bandwidths "
            "(network %.3g, package %.3g, core %.3g B/s)", HC_BW_NETWORK, HC_BW_PACKAGE,
            HC_BW_CORE);
    for (int l = 0; l < L; l++)
        bw[l] = l == 0 ? HC_BW_NETWORK : !strcmp(m->name[l], "package") ? HC_BW_PACKAGE
                                                                        : HC_BW_CORE;
    snprintf(desc, desclen, "built-in");
}

/* The real host a placement's host name is on: "name#k" (virtual node k) -> "name". */
static void real_host(const char *host, char *buf, size_t len)
{
    snprintf(buf, len, "%s", host);
    char *hash = strchr(buf, '#');
    if (hash)
        *hash = 0;
}

/* Each host's cores: those its node leader sent (so a host with another topology is mapped
 * onto its own cores), else this host's, with a warning. 0, or -1 if hwloc fails here too. */
static int hosts_topo(const hc_placement *pl, const int *hostrep, int nhosts, hc_host_topo *ht)
{
    for (int h = 0; h < nhosts; h++) {
        char real[64];
        real_host(pl->host[hostrep[h]], real, sizeof real);
        if (pl->topo && hc_host_topo_find(&ht[h], pl->topo, real) == 0)
            continue;
        if (hc_host_topo_load(&ht[h]) != 0) {
            hc_warn("no mapping recommended: hwloc could not read this host's topology");
            return -1;
        }
        if (pl->topo)
            hc_warn("mapping: no core list from host %s: mapped with this host's %d cores",
                    real, ht[h].ncores);
    }
    return 0;
}

int hc_map_finalize(const char *dir, const struct hc_graph *g, const hc_placement *pl)
{
    int n = pl->nranks, rc = -1;
    if (!g || g->n != n || n < 1)
        return -1;
    /* hosts in order of first appearance */
    int *host_of = malloc(sizeof(int) * (size_t)n), *per_host = calloc((size_t)n, sizeof(int));
    int *hostrep = malloc(sizeof(int) * (size_t)n); /* a rank of each host, for its name */
    int *launched = malloc(sizeof(int) * (size_t)n), *map = malloc(sizeof(int) * (size_t)n);
    int *base = malloc(sizeof(int) * (size_t)n), *fill = NULL;
    hc_host_topo *ht = calloc((size_t)n, sizeof *ht);
    hc_machine m = {0};
    hc_mapfile f = {0};
    char err[512], name[64];
    int nhosts = 0;
    if (!host_of || !per_host || !hostrep || !launched || !map || !base || !ht)
        goto out;
    for (int r = 0; r < n; r++) {
        int h = -1;
        for (int q = 0; q < nhosts && h < 0; q++) /* hosts are few next to ranks */
            if (!strcmp(pl->host[hostrep[q]], pl->host[r]))
                h = q;
        if (h < 0) {
            h = nhosts++;
            hostrep[h] = r;
        }
        host_of[r] = h;
        per_host[h]++;
    }
    if (hosts_topo(pl, hostrep, nhosts, ht) != 0)
        goto out;
    /* One tree for all hosts: as many cores per host as the largest has, those a host lacks
     * unavailable. The package level only when every host has the same packages. Slots (ranks
     * sharing a core) as many as the launch used, but only as many available as the ranks
     * need: no host gets more ranks than its cores while others have cores free. */
    int C = 0, P = ht[0].npackages, total = 0, launch_slots = 1;
    for (int h = 0; h < nhosts; h++) {
        C = ht[h].ncores > C ? ht[h].ncores : C;
        total += ht[h].ncores;
        int s = (per_host[h] + ht[h].ncores - 1) / ht[h].ncores;
        launch_slots = s > launch_slots ? s : launch_slots;
    }
    for (int h = 0; h < nhosts; h++)
        if (ht[h].npackages != P || ht[h].ncores != C)
            P = 1;
    int need = (n + total - 1) / total, slots = launch_slots > need ? launch_slots : need;
    char spec[256], bwdesc[PATH_MAX];
    int o = snprintf(spec, sizeof spec, "node:%d", nhosts);
    if (P > 1)
        o += snprintf(spec + o, sizeof spec - (size_t)o, " package:%d", P);
    o += snprintf(spec + o, sizeof spec - (size_t)o, " core:%d", C / P);
    if (slots > 1)
        snprintf(spec + o, sizeof spec - (size_t)o, " slot:%d", slots);
    double bw[HC_MACHINE_MAX_LEVELS] = {1, 1, 1, 1};
    int L = 2 + (P > 1) + (slots > 1);
    if (hc_machine_from_synthetic(&m, spec, bw, L, err, sizeof err) != 0) {
        hc_warn("no mapping recommended: %s", err);
        goto out;
    }
    int per = C * slots;
    for (int h = 0; h < nhosts; h++)
        for (int c = 0; c < C; c++)
            for (int s = 0; s < slots; s++)
                m.avail[h * per + c * slots + s] = c < ht[h].ncores && s < need;
    level_bandwidths(&m, m.bw, bwdesc, sizeof bwdesc);
    /* as launched: host, core position from the PU the rank ran on, next free slot */
    fill = calloc((size_t)nhosts * (size_t)C, sizeof(int));
    if (!fill)
        goto out;
    for (int r = 0; r < n; r++) {
        const hc_host_topo *t = &ht[host_of[r]];
        int pu = pl->core[r], pos = pu >= 0 && pu <= t->maxpu ? t->pu_core[pu] : -1;
        if (pos < 0)
            pos = 0;
        int *used = &fill[host_of[r] * C + pos];
        launched[r] = host_of[r] * per + pos * slots + (*used < slots ? *used : slots - 1);
        (*used)++;
    }
    int algo = hc_map_algo_parse(hc_cfg.map_algo.s); /* the variable accepts only known names */
    if (hc_map_compute(g, &m, (hc_map_algo)algo, 1, map, name, sizeof name, err, sizeof err)) {
        hc_warn("no mapping recommended: %s", err);
        goto out;
    }
    if (hc_mapfile_alloc(&f, n) != 0)
        goto out;
    snprintf(f.algorithm, sizeof f.algorithm, "%s", name);
    hc_machine_format(&m, f.machine, sizeof f.machine);
    o = 0;
    for (int l = 0; l < m.nlevels; l++)
        o += snprintf(f.bandwidths + o, sizeof f.bandwidths - (size_t)o, "%s%.6g", l ? "," : "",
                      m.bw[l]);
    hc_map_cost c = hc_map_cost_eval(g, &m, launched);
    f.cost[f.ncosts++] = (hc_mapfile_cost){"launched", c.max, c.sum};
    if (hc_map_tml(g, &m, base) == 0) {
        c = hc_map_cost_eval(g, &m, base);
        f.cost[f.ncosts++] = (hc_mapfile_cost){"tml", c.max, c.sum};
    }
    if (hc_map_tmrr(g, &m, base) == 0) {
        c = hc_map_cost_eval(g, &m, base);
        f.cost[f.ncosts++] = (hc_mapfile_cost){"tmrr", c.max, c.sum};
    }
    hc_map_cost mapped = hc_map_cost_eval(g, &m, map);
    f.cost[f.ncosts++] = (hc_mapfile_cost){"mapped", mapped.max, mapped.sum};
    for (int r = 0; r < n; r++) {
        int h = map[r] / per;
        snprintf(f.host[r], sizeof f.host[r], "%s", pl->host[hostrep[h]]);
        f.core[r] = ht[h].core_os[(map[r] % per) / slots];
    }
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/mapping.txt", dir);
    FILE *out = fopen(path, "w");
    if (!out || hc_mapfile_write(&f, out) != 0 || fclose(out) != 0) {
        hc_warn("no mapping recommended: cannot write %s", path);
        goto out;
    }
    if (hc_mapfile_write_launchers(&f, dir, err, sizeof err) != 0) {
        hc_warn("mapping: %s", err);
        goto out;
    }
    /* several physical hosts need the machinefile; virtual nodes of one host do not */
    int multihost = 0;
    char h0[HC_MAPFILE_HOSTLEN], hr[HC_MAPFILE_HOSTLEN];
    hc_mapfile_physical_host(f.host[0], h0, sizeof h0);
    for (int r = 1; r < n && !multihost; r++) {
        hc_mapfile_physical_host(f.host[r], hr, sizeof hr);
        multihost = strcmp(h0, hr) != 0;
    }
    if (hc_write_next_run(dir, &f, multihost) != 0) {
        hc_warn("mapping: cannot write %s/next-run.sh", dir);
        goto out;
    }
    hc_info(1, "mapping %s on %s (bandwidths %s: %s): cost max %.3g s as launched, %.3g s mapped",
            name, f.machine, bwdesc, f.bandwidths, f.cost[0].max, mapped.max);
    for (int h = 0; h < nhosts; h++)
        if (ht[h].ncores != C)
            hc_info(1, "mapping: host %s has %d of the model's %d cores per host: %d available "
                    "to ranks", pl->host[hostrep[h]], ht[h].ncores, C, ht[h].ncores * need);
    rc = 0;
out:
    hc_mapfile_free(&f);
    hc_machine_free(&m);
    for (int h = 0; ht && h < nhosts; h++)
        hc_host_topo_free(&ht[h]);
    free(ht);
    free(host_of);
    free(per_host);
    free(hostrep);
    free(launched);
    free(map);
    free(base);
    free(fill);
    return rc;
}
