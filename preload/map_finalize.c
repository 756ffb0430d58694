/* Recommended mapping at MPI_Finalize (rank 0): the machine the job ran on as a tree (hosts
 * seen, with virtual nodes as hosts "name#k"; packages and cores from hwloc; a "slot" level
 * when a host ran more ranks than it has cores), bandwidths from HIERCOLL_BANDWIDTHS, else
 * HIERCOLL_MACHINE_FILE, else documented defaults; then mapping.txt, the launcher files and
 * next-run.sh (preload/next_run.c) in the profile directory. */
#include <hwloc.h>
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

/* This host's cores in hwloc's logical (depth-first) order. */
typedef struct {
    int ncores, npackages, maxpu;
    int *core_os;  /* [ncores] OS index of the first PU of each core */
    int *pu_core;  /* [maxpu + 1] core position of each PU, -1 if none */
} hc_host_topo;

static int host_topo(hc_host_topo *t)
{
    hwloc_topology_t topo;
    memset(t, 0, sizeof *t);
    if (hwloc_topology_init(&topo) != 0)
        return -1;
    if (hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        return -1;
    }
    int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    int type = HWLOC_OBJ_CORE;
    if (n <= 0) { /* no core objects: count PUs */
        type = HWLOC_OBJ_PU;
        n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    }
    t->npackages = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
    if (t->npackages < 1 || n % t->npackages)
        t->npackages = 1;
    t->maxpu = hwloc_bitmap_last(hwloc_topology_get_topology_cpuset(topo));
    t->ncores = n;
    t->core_os = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    t->pu_core = malloc(sizeof(int) * (size_t)(t->maxpu + 1 > 0 ? t->maxpu + 1 : 1));
    int rc = (n > 0 && t->maxpu >= 0 && t->core_os && t->pu_core) ? 0 : -1;
    if (rc == 0) {
        for (int p = 0; p <= t->maxpu; p++)
            t->pu_core[p] = -1;
        for (int i = 0; i < n; i++) {
            hwloc_obj_t o = hwloc_get_obj_by_type(topo, (hwloc_obj_type_t)type, (unsigned)i);
            t->core_os[i] = hwloc_bitmap_first(o->cpuset);
            int pu;
            hwloc_bitmap_foreach_begin(pu, o->cpuset)
            {
                if (pu <= t->maxpu)
                    t->pu_core[pu] = i;
            }
            hwloc_bitmap_foreach_end();
        }
    }
    hwloc_topology_destroy(topo);
    return rc;
}

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

int hc_map_finalize(const char *dir, const struct hc_graph *g, const hc_placement *pl)
{
    int n = pl->nranks, rc = -1;
    if (!g || g->n != n || n < 1)
        return -1;
    hc_host_topo topo;
    if (host_topo(&topo) != 0) {
        hc_warn("no mapping recommended: hwloc could not read this host's topology");
        free(topo.core_os);
        free(topo.pu_core);
        return -1;
    }
    /* hosts in order of first appearance */
    int *host_of = malloc(sizeof(int) * (size_t)n), *per_host = calloc((size_t)n, sizeof(int));
    int *hostrep = malloc(sizeof(int) * (size_t)n); /* a rank of each host, for its name */
    int *launched = malloc(sizeof(int) * (size_t)n), *map = malloc(sizeof(int) * (size_t)n);
    int *base = malloc(sizeof(int) * (size_t)n), *fill = NULL;
    hc_machine m = {0};
    hc_mapfile f = {0};
    char err[512], name[64];
    if (!host_of || !per_host || !hostrep || !launched || !map || !base)
        goto out;
    int nhosts = 0, maxper = 0;
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
        if (++per_host[h] > maxper)
            maxper = per_host[h];
    }
    int C = topo.ncores, P = topo.npackages, slots = (maxper + C - 1) / C;
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
    level_bandwidths(&m, m.bw, bwdesc, sizeof bwdesc);
    /* as launched: host, core position from the PU the rank ran on, next free slot */
    int per = C * slots;
    fill = calloc((size_t)nhosts * (size_t)C, sizeof(int));
    if (!fill)
        goto out;
    for (int r = 0; r < n; r++) {
        int pu = pl->core[r], pos = pu >= 0 && pu <= topo.maxpu ? topo.pu_core[pu] : -1;
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
        f.core[r] = topo.core_os[(map[r] % per) / slots];
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
    rc = 0;
out:
    hc_mapfile_free(&f);
    hc_machine_free(&m);
    free(topo.core_os);
    free(topo.pu_core);
    free(host_of);
    free(per_host);
    free(hostrep);
    free(launched);
    free(map);
    free(base);
    free(fill);
    return rc;
}
