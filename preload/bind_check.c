/* Under HIERCOLL_MAPPING, checks at MPI_Init that this rank runs on the host and core the
 * mapping gives it (as `hiercoll bind` arranges), and warns once if not. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hc_bind.h"
#include "hc_config.h"
#include "hc_log.h"
#include "hc_mapfile.h"
#include "hc_preload.h"

static int mapped_vnode = -1;

int hc_mapping_vnode(void) { return mapped_vnode; }

/* Adds the hardware-thread siblings of CPU cpu (itself included) to set; 0, or -1. */
static int add_siblings(cpu_set_t *set, int cpu)
{
    char path[96], list[256];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
             cpu);
    FILE *f = fopen(path, "r");
    int ok = f && fgets(list, sizeof list, f);
    if (f)
        fclose(f);
    /* "a-b,c,...": the kernel's list format */
    for (char *p = list, *end; ok && *p && *p != '\n'; p = *end == ',' ? end + 1 : end) {
        long lo = strtol(p, &end, 10), hi = lo;
        if (*end == '-')
            hi = strtol(end + 1, &end, 10);
        if (end == p || lo < 0 || hi >= CPU_SETSIZE)
            ok = 0;
        for (long c = lo; ok && c <= hi; c++)
            CPU_SET((int)c, set);
        if (*end != ',' && *end != '\n' && *end)
            ok = 0;
    }
    return ok ? 0 : -1;
}

/* Whether the affinity set is the cores of CPUs cpus[n]: those CPUs alone (`hiercoll bind`), or
 * with their hardware-thread siblings (a launcher binding whole cores, as Open MPI's rankfile). */
static int bound_to_cores_of(const cpu_set_t *set, const int *cpus, int n)
{
    cpu_set_t want, with_siblings;
    CPU_ZERO(&want);
    CPU_ZERO(&with_siblings);
    for (int i = 0; i < n; i++) {
        if (cpus[i] < 0 || cpus[i] >= CPU_SETSIZE || !CPU_ISSET(cpus[i], set))
            return 0;
        CPU_SET(cpus[i], &want);
    }
    if (CPU_EQUAL(set, &want))
        return 1;
    for (int i = 0; i < n; i++)
        if (add_siblings(&with_siblings, cpus[i]) != 0)
            return 0;
    cpu_set_t outside;
    CPU_XOR(&outside, set, &with_siblings);
    CPU_AND(&outside, &outside, set);
    return CPU_COUNT(&outside) == 0;
}

void hc_bind_check(void)
{
    const char *path = hc_cfg.mapping.s;
    if (!path[0])
        return;
    hc_mapfile f;
    char err[512];
    if (hc_mapfile_read(&f, path, err, sizeof err) != 0) {
        hc_warn_once("HIERCOLL_MAPPING: %s", err);
        return;
    }
    if (f.nranks != hc_world_size) {
        hc_warn_once("HIERCOLL_MAPPING %s is for %d ranks, this job has %d", path, f.nranks,
                     hc_world_size);
        hc_mapfile_free(&f);
        return;
    }
    const char *want_host = f.host[hc_world_rank], *hash = strchr(want_host, '#');
    if (hash)
        mapped_vnode = atoi(hash + 1);
    char phys[HC_MAPFILE_HOSTLEN];
    hc_mapfile_physical_host(want_host, phys, sizeof phys);
    const hc_host_info *me = hc_host_info_get();
    int core = sched_getcpu();
    int cores[HC_MAPFILE_MAXCORES];
    int ncores = hc_mapfile_rank_cores(&f, hc_world_rank, cores, HC_MAPFILE_MAXCORES);
    cpu_set_t set;
    int bound = sched_getaffinity(0, sizeof set, &set) == 0 &&
                bound_to_cores_of(&set, cores, ncores);
    if (strcmp(phys, me->host) != 0 || !bound) {
        char want[256];
        int len = snprintf(want, sizeof want, "core%s ", ncores > 1 ? "s" : "");
        for (int i = 0; i < ncores && len < (int)sizeof want - 12; i++)
            len += snprintf(want + len, sizeof want - (size_t)len, "%s%d", i ? "," : "",
                            cores[i]);
        hc_warn_once("rank %d runs on %s core %d%s, but %s assigns it %s %s "
                     "(launch as its next-run.sh does)",
                     hc_world_rank, me->host, core, bound ? "" : " unbound", path, want_host,
                     want);
    }
    hc_mapfile_free(&f);
}
