/* mapping.txt (versioned, "# hiercoll mapping v1") and the launcher inputs derived from it:
 * machinefile (MPICH Hydra), rankfile (Open MPI), slurm.hostfile (--distribution=arbitrary). */
#ifndef HC_MAPFILE_H
#define HC_MAPFILE_H

#include <stddef.h>
#include <stdio.h>

#define HC_MAPFILE_HOSTLEN 64
#define HC_MAPFILE_MAXCORES 1024 /* CPU_SETSIZE: what a process can be bound to */

typedef struct hc_mapfile_cost {
    char label[32]; /* "launched", "tml", "tmrr", "fitted", "mapped" */
    double max, sum;
} hc_mapfile_cost;

typedef struct hc_mapfile {
    int nranks;
    char (*host)[HC_MAPFILE_HOSTLEN]; /* [nranks] "name" or "name#k" (virtual node k) */
    int *core;                        /* [nranks] OS index of the core on that host */
    char algorithm[64];
    char machine[256];                /* synthetic string of the model */
    char bandwidths[256];             /* "b1,b2,..." bytes/s from the top */
    int ncosts;
    hc_mapfile_cost cost[8];
} hc_mapfile;

int hc_mapfile_alloc(hc_mapfile *f, int nranks);
void hc_mapfile_free(hc_mapfile *f);
int hc_mapfile_write(const hc_mapfile *f, FILE *out);
/* 0, or -1 with "FILE:LINE: reason" in err. */
int hc_mapfile_read(hc_mapfile *f, const char *path, char *err, size_t errlen);
/* The host a launcher knows: "name#k" -> "name" into buf. */
void hc_mapfile_physical_host(const char *host, char *buf, size_t len);
/* The cores rank r is bound to, sorted, into cores[max]; returns how many. Its mapped core, or,
 * where the mapping puts two ranks of r's host on one core (more ranks than cores), every core
 * the mapping uses on that host: ranks pinned two to a core cannot move while the host's other
 * cores idle, which cost more than the placement saved (docs/cluster.md). Hosts are compared as
 * written, so virtual nodes count as hosts of their own. */
int hc_mapfile_rank_cores(const hc_mapfile *f, int r, int *cores, int max);
/* Writes machinefile, rankfile and slurm.hostfile into dir. 0, or -1 with a reason. */
int hc_mapfile_write_launchers(const hc_mapfile *f, const char *dir, char *err, size_t errlen);
/* mapping.txt (through a temporary name) and the launcher files into dir. 0, or -1. */
int hc_mapfile_write_dir(const hc_mapfile *f, const char *dir, char *err, size_t errlen);

#endif
