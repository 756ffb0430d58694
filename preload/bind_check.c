/* Under HIERCOLL_MAPPING, checks at MPI_Init that this rank runs on the host and core the
 * mapping gives it (as `hiercoll bind` arranges), and warns once if not. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "hc_bind.h"
#include "hc_config.h"
#include "hc_log.h"
#include "hc_mapfile.h"
#include "hc_preload.h"

static int mapped_vnode = -1;

int hc_mapping_vnode(void) { return mapped_vnode; }

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
    cpu_set_t set;
    int bound = sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) == 1;
    if (strcmp(phys, me->host) != 0 || core != f.core[hc_world_rank] || !bound)
        hc_warn_once("rank %d runs on %s core %d%s, but %s assigns it %s core %d "
                     "(launch through `hiercoll bind --mapping %s --`)",
                     hc_world_rank, me->host, core, bound ? "" : " unbound", path, want_host,
                     f.core[hc_world_rank], path);
    hc_mapfile_free(&f);
}
