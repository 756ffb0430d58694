/* Where this process runs: host name, CPU, NUMA node. */
#include <numa.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "hc_bind.h"
#include "hc_config.h"
#include "hc_preload.h"

static hc_host_info info;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void read_host_info(void)
{
    if (gethostname(info.host, sizeof info.host) != 0)
        strcpy(info.host, "unknown");
    info.host[sizeof info.host - 1] = 0;
    info.core = sched_getcpu();
    info.numa = (numa_available() >= 0 && info.core >= 0) ? numa_node_of_cpu(info.core) : -1;
    cpu_set_t set;
    info.bound = sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) == 1;
}

const hc_host_info *hc_host_info_get(void)
{
    pthread_once(&once, read_host_info);
    return &info;
}

int hc_virtual_node(void)
{
    long long k = hc_cfg.virtual_node_size.i;
    if (k <= 0)
        return 0;
    /* In a remapped run the mapping says which virtual node a rank belongs to. */
    int mapped = hc_mapping_vnode();
    return mapped >= 0 ? mapped : (int)(hc_world_rank / k);
}
