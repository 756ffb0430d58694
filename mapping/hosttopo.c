/* A host's cores: see hc_hosttopo.h. */
#include <hwloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hc_hosttopo.h"

void hc_host_topo_free(hc_host_topo *t)
{
    free(t->core_os);
    free(t->pu_core);
    memset(t, 0, sizeof *t);
}

/* Room for ncores cores and PUs 0..maxpu, every PU on no core yet; the name kept. */
static int topo_alloc(hc_host_topo *t, int ncores, int npackages, int maxpu)
{
    t->core_os = NULL;
    t->pu_core = NULL;
    if (ncores < 1 || maxpu < 0 || maxpu >= HC_HOST_TOPO_MAX_PU || ncores > maxpu + 1)
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

/* core_os from pu_core: each core's lowest PU leads. -1 if a core has none. */
static int leaders(hc_host_topo *t)
{
    for (int c = 0; c < t->ncores; c++)
        t->core_os[c] = -1;
    for (int p = 0; p <= t->maxpu; p++) {
        int c = t->pu_core[p];
        if (c >= t->ncores)
            return -1;
        if (c >= 0 && t->core_os[c] < 0)
            t->core_os[c] = p;
    }
    for (int c = 0; c < t->ncores; c++)
        if (t->core_os[c] < 0)
            return -1;
    return 0;
}

int hc_host_topo_load(hc_host_topo *t, const char *host)
{
    hwloc_topology_t topo;
    memset(t, 0, sizeof *t);
    snprintf(t->host, sizeof t->host, "%s", host);
    if (hwloc_topology_init(&topo) != 0)
        return -1;
    /* Only what the record holds, cores and packages: without the x86 backend (it moves the
     * thread onto every PU in turn to read CPUID, and waits where another rank holds that
     * core), caches and I/O, 0.3 ms instead of 0.7-4.5 at a 2-rank finalize here. */
#if HWLOC_API_VERSION >= 0x00020100
    hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "x86");
#endif
    hwloc_topology_set_cache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_icache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    if (hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        return -1;
    }
    if (hwloc_topology_export_synthetic(topo, t->synthetic, sizeof t->synthetic, 0) < 0 &&
        hwloc_topology_export_synthetic(topo, t->synthetic, sizeof t->synthetic,
                                        HWLOC_TOPOLOGY_EXPORT_SYNTHETIC_FLAG_IGNORE_MEMORY) < 0)
        snprintf(t->synthetic, sizeof t->synthetic, "?");
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
        int pu;
        hwloc_bitmap_foreach_begin(pu, o->cpuset)
        {
            if (pu <= t->maxpu)
                t->pu_core[pu] = i;
        }
        hwloc_bitmap_foreach_end();
    }
    hwloc_topology_destroy(topo);
    return rc == 0 ? leaders(t) : -1;
}

int hc_host_topo_copy(hc_host_topo *dst, const hc_host_topo *src)
{
    *dst = *src;
    if (topo_alloc(dst, src->ncores, src->npackages, src->maxpu) != 0)
        return -1;
    memcpy(dst->core_os, src->core_os, sizeof(int) * (size_t)src->ncores);
    memcpy(dst->pu_core, src->pu_core, sizeof(int) * (size_t)(src->maxpu + 1));
    return 0;
}

/* The packed record: this header, then maxpu + 1 int32 core positions. */
typedef struct packed_head {
    char host[HC_HOST_NAMELEN];
    char synthetic[1024];
    int32_t ncores, npackages, maxpu, pad;
} packed_head;

size_t hc_host_topo_packed_size(const hc_host_topo *t)
{
    return sizeof(packed_head) + sizeof(int32_t) * (size_t)(t->maxpu + 1);
}

void hc_host_topo_pack(const hc_host_topo *t, void *buf)
{
    packed_head h;
    memset(&h, 0, sizeof h);
    memcpy(h.host, t->host, sizeof h.host);
    memcpy(h.synthetic, t->synthetic, sizeof h.synthetic);
    h.ncores = t->ncores;
    h.npackages = t->npackages;
    h.maxpu = t->maxpu;
    memcpy(buf, &h, sizeof h);
    for (int p = 0; p <= t->maxpu; p++) {
        int32_t c = t->pu_core[p];
        memcpy((char *)buf + sizeof h + sizeof c * (size_t)p, &c, sizeof c);
    }
}

long hc_host_topo_unpack(hc_host_topo *t, const void *p, size_t n)
{
    packed_head h;
    memset(t, 0, sizeof *t);
    if (n < sizeof h)
        return -1;
    memcpy(&h, p, sizeof h);
    if (h.maxpu < 0 || h.maxpu >= HC_HOST_TOPO_MAX_PU ||
        n < sizeof h + sizeof(int32_t) * (size_t)(h.maxpu + 1))
        return -1;
    memcpy(t->host, h.host, sizeof t->host);
    memcpy(t->synthetic, h.synthetic, sizeof t->synthetic);
    t->host[sizeof t->host - 1] = 0;
    t->synthetic[sizeof t->synthetic - 1] = 0;
    if (topo_alloc(t, h.ncores, h.npackages, h.maxpu) != 0)
        return -1;
    for (int q = 0; q <= h.maxpu; q++) {
        int32_t c;
        memcpy(&c, (const char *)p + sizeof h + sizeof c * (size_t)q, sizeof c);
        t->pu_core[q] = c < 0 ? -1 : c;
    }
    if (leaders(t) != 0) {
        hc_host_topo_free(t);
        return -1;
    }
    return (long)(sizeof h + sizeof(int32_t) * (size_t)(h.maxpu + 1));
}

void hc_host_topo_format(const hc_host_topo *t, char *buf, size_t len)
{
    size_t o = (size_t)snprintf(buf, len, "%d ", t->npackages);
    for (int c = 0; c < t->ncores && o < len; c++) {
        o += (size_t)snprintf(buf + o, len - o, "%s%d", c ? ";" : "", t->core_os[c]);
        for (int p = 0; p <= t->maxpu && o < len; p++)
            if (t->pu_core[p] == c && p != t->core_os[c])
                o += (size_t)snprintf(buf + o, len - o, ",%d", p);
    }
}

int hc_host_topo_parse(hc_host_topo *t, const char *s)
{
    char host[HC_HOST_NAMELEN], syn[1024];
    memcpy(host, t->host, sizeof host);
    memcpy(syn, t->synthetic, sizeof syn);
    char *e;
    long np = strtol(s, &e, 10);
    if (e == s || *e != ' ' || np < 1)
        return -1;
    s = e + 1;
    int ncores = 1, maxpu = -1;
    for (const char *p = s; *p; p++)
        ncores += *p == ';';
    for (const char *p = s; *p;) { /* first pass: the highest PU, and the syntax */
        long v = strtol(p, &e, 10);
        if (e == p || v < 0 || v >= HC_HOST_TOPO_MAX_PU || (*e && *e != ',' && *e != ';'))
            return -1;
        maxpu = v > maxpu ? (int)v : maxpu;
        p = *e ? e + 1 : e;
        if (*e && !*p)
            return -1; /* a trailing separator */
    }
    if (topo_alloc(t, ncores, (int)np, maxpu) != 0)
        return -1;
    memcpy(t->host, host, sizeof host);
    memcpy(t->synthetic, syn, sizeof syn);
    int c = 0;
    for (const char *p = s; *p;) {
        int v = (int)strtol(p, &e, 10);
        if (t->pu_core[v] >= 0) { /* a PU on two cores */
            hc_host_topo_free(t);
            return -1;
        }
        t->pu_core[v] = c;
        c += *e == ';';
        p = *e ? e + 1 : e;
    }
    if (leaders(t) != 0) {
        hc_host_topo_free(t);
        return -1;
    }
    return 0;
}

int hc_host_topo_find(const hc_host_topo *topos, int n, const char *host)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(topos[i].host, host))
            return i;
    return -1;
}
