/* A host's cores as the mapping needs them, read with hwloc on the host itself (so a host
 * given another topology through HWLOC_XMLFILE or HWLOC_SYNTHETIC is seen as that), and the
 * one text line in which a node leader sends them to rank 0 at finalize. */
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hc_preload.h"
#include "prof.h"

void hc_host_topo_free(hc_host_topo *t)
{
    free(t->core_os);
    free(t->pu_core);
    memset(t, 0, sizeof *t);
}

/* Room for ncores cores and PUs 0..maxpu, every PU on no core yet. */
static int topo_alloc(hc_host_topo *t, int ncores, int npackages, int maxpu)
{
    memset(t, 0, sizeof *t);
    if (ncores < 1 || maxpu < 0 || maxpu >= HC_HOST_TOPO_MAX_PU)
        return -1;
    t->ncores = ncores;
    t->npackages = npackages >= 1 && ncores % npackages == 0 ? npackages : 1;
    t->maxpu = maxpu;
    t->core_os = malloc(sizeof(int) * (size_t)ncores);
    t->pu_core = malloc(sizeof(int) * (size_t)(maxpu + 1));
    if (!t->core_os || !t->pu_core) {
        hc_host_topo_free(t);
        return -1;
    }
    for (int p = 0; p <= maxpu; p++)
        t->pu_core[p] = -1;
    return 0;
}

int hc_host_topo_load(hc_host_topo *t)
{
    hwloc_topology_t topo;
    memset(t, 0, sizeof *t);
    if (hwloc_topology_init(&topo) != 0)
        return -1;
    if (hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        return -1;
    }
    hwloc_obj_type_t type = HWLOC_OBJ_CORE;
    int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    if (n <= 0) { /* no core objects: count PUs */
        type = HWLOC_OBJ_PU;
        n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    }
    int rc = topo_alloc(t, n, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE),
                        hwloc_bitmap_last(hwloc_topology_get_topology_cpuset(topo)));
    for (int i = 0; rc == 0 && i < n; i++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(topo, type, (unsigned)i);
        t->core_os[i] = hwloc_bitmap_first(o->cpuset);
        int pu;
        hwloc_bitmap_foreach_begin(pu, o->cpuset)
        {
            if (pu <= t->maxpu)
                t->pu_core[pu] = i;
        }
        hwloc_bitmap_foreach_end();
    }
    hwloc_topology_destroy(topo);
    return rc;
}

void hc_host_topo_line(struct hc_prof_buf *b, const char *host)
{
    hc_host_topo t;
    if (hc_host_topo_load(&t) != 0)
        return; /* rank 0 then maps this host with its own topology */
    hc_prof_buf_printf(b, "C\t%s\t%d\t", host, t.npackages);
    /* each core's first PU leads: it is the core's OS index in the launcher files */
    for (int c = 0; c < t.ncores; c++) {
        hc_prof_buf_printf(b, "%s%d", c ? ";" : "", t.core_os[c]);
        for (int p = 0; p <= t.maxpu; p++)
            if (t.pu_core[p] == c && p != t.core_os[c])
                hc_prof_buf_printf(b, ",%d", p);
    }
    hc_prof_buf_printf(b, "\n");
    hc_host_topo_free(&t);
}

/* "P\tpu,pu;pu;..." (the rest of a C line, up to its newline) into t. */
static int parse_cores(hc_host_topo *t, const char *s, const char *end)
{
    char *e;
    long np = strtol(s, &e, 10);
    if (e == s || *e != '\t' || np < 1)
        return -1;
    s = e + 1;
    int ncores = 1, maxpu = -1;
    for (const char *p = s; p < end; p++)
        ncores += *p == ';';
    for (const char *p = s; p < end;) { /* first pass: the highest PU */
        long v = strtol(p, &e, 10);
        if (e == p || v < 0 || v >= HC_HOST_TOPO_MAX_PU)
            return -1;
        maxpu = v > maxpu ? (int)v : maxpu;
        p = e < end && (*e == ',' || *e == ';') ? e + 1 : e;
        if (e < end && *e != ',' && *e != ';')
            return -1;
    }
    if (topo_alloc(t, ncores, (int)np, maxpu) != 0)
        return -1;
    int c = 0, lead = 1;
    for (const char *p = s; p < end;) {
        int v = (int)strtol(p, &e, 10);
        if (lead)
            t->core_os[c] = v;
        t->pu_core[v] = c;
        lead = e < end && *e == ';';
        c += lead;
        p = e < end ? e + 1 : e;
    }
    return 0;
}

int hc_host_topo_find(hc_host_topo *t, const char *text, const char *host)
{
    size_t hl = strlen(host);
    memset(t, 0, sizeof *t);
    for (const char *p = text; p && *p;) {
        const char *eol = strchr(p, '\n');
        const char *end = eol ? eol : p + strlen(p);
        if (p[0] == 'C' && p[1] == '\t' && (size_t)(end - p) > hl + 3 &&
            !strncmp(p + 2, host, hl) && p[2 + hl] == '\t')
            return parse_cores(t, p + 3 + hl, end);
        p = eol ? eol + 1 : NULL;
    }
    return -1;
}
