/* --net-bytes: what crossed the hosts' network interfaces during each path's blocks, to see
 * where the time goes across hosts (issue 29). Each host's first rank reads the counters of
 * the interfaces it sees (on the cluster of namespaces: its host's own, docs/cluster.md)
 * around a block; the busiest direction of the busiest host, per call, is the path's figure:
 * what its busiest link had to carry. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"

static int host_first = -1;

static int first_on_host(void)
{
    if (host_first < 0) {
        MPI_Comm host;
        int rank;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host);
        MPI_Comm_rank(host, &rank);
        host_first = rank == 0;
        MPI_Comm_free(&host);
    }
    return host_first;
}

static double counter(const char *dev, const char *name)
{
    char path[512];
    unsigned long long v = 0;
    snprintf(path, sizeof path, "/sys/class/net/%s/statistics/%s", dev, name);
    FILE *f = fopen(path, "r");
    if (f) {
        if (fscanf(f, "%llu", &v) != 1)
            v = 0;
        fclose(f);
    }
    return (double)v;
}

/* Bytes sent and received so far by every interface but loopback (0 on other ranks). The
 * barrier first: every call of the block before is complete everywhere, so its bytes are
 * counted in it, and none of the next block's yet. */
void net_read(MPI_Comm comm, double *tx, double *rx)
{
    MPI_Barrier(comm);
    *tx = *rx = 0;
    if (!first_on_host())
        return;
    DIR *d = opendir("/sys/class/net");
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "lo"))
            continue;
        *tx += counter(e->d_name, "tx_bytes");
        *rx += counter(e->d_name, "rx_bytes");
    }
    if (d)
        closedir(d);
}

/* The busiest direction of the busiest host, per call: bytes over calls, the largest of all
 * ranks' (only each host's first has counted). Collective over comm. */
double net_per_call(MPI_Comm comm, double tx, double rx, long long calls)
{
    double mine = calls > 0 ? (tx > rx ? tx : rx) / (double)calls : 0, most;
    MPI_Allreduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, comm);
    return most;
}
