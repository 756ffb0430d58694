/* The machine a job ran on, or may run on, as the mapping models it, and the mapping
 * recommended for it: what MPI_Finalize runs on rank 0 (preload/map_finalize.c) and what
 * `hiercoll map --profile` runs offline for another allocation. No MPI.
 *
 * One tree for all hosts: node, [package,] core, [slot]. As many cores per host as the largest
 * host has, those a host lacks (or the job may not use there) unavailable; the package level
 * only when every host has the same packages and cores; slots (ranks sharing a core) as many
 * as the launch used, but only as many available as the ranks need, so no host gets more ranks
 * than its cores while others have cores free. */
#ifndef HC_MODEL_H
#define HC_MODEL_H

#include "hc_graph.h"
#include "hc_hosttopo.h"
#include "hc_machine.h"
#include "hc_mapfile.h"

typedef struct hc_model_host {
    char name[HC_HOST_NAMELEN]; /* as the mapping names it: "host", or "host#k" (virtual node) */
    hc_host_topo topo;          /* its cores */
    int ranks;                  /* ranks launched there (0 for a host of a new allocation) */
    int usable;                 /* how many of its cores the job may use, in hwloc's order
                                 * (0 = all) */
} hc_model_host;

typedef struct hc_model {
    hc_machine m;
    int nhosts, cores, slots, need; /* cores per host in the tree; slots per core, of which
                                     * `need` are available */
    const hc_model_host *hosts;     /* [nhosts], the caller's */
    char bwdesc[512];               /* where the bandwidths came from */
} hc_model;

/* The model of hosts[nhosts] for nranks ranks, with the bandwidths of hc_bandwidths(list,
 * file). 0, or -1 with a reason in err; warn gets hc_bandwidths' warning ("" if none). */
int hc_model_build(hc_model *md, const hc_model_host *hosts, int nhosts, int nranks,
                   const char *bw_list, const char *bw_file, char *warn, size_t warnlen,
                   char *err, size_t errlen);
void hc_model_free(hc_model *md);
/* The model's cores of ranks as launched: rank r on host host[r] (an index of hosts), OS CPU
 * cpu[r] (-1 unknown), each on the next free slot of its core. */
void hc_model_launched(const hc_model *md, const int *host, const int *cpu, int nranks,
                       int *launched);

/* The recommended mapping of g onto md with algorithm algo (hc_map_algo; seed 1), into f:
 * algorithm, machine, bandwidths, costs (as launched when launched is not NULL, TML, TMRR,
 * fitted when the launch order was kept over it, mapped) and each rank's host and OS core.
 * With auto and the placement as launched, the launch order is kept ("launch-order") where
 * every placement costs the same, and where halves (the graphs of the run's even and odd
 * epochs, or NULL) show that a fit to one half does not beat it on the other. 0, or -1 with
 * a reason. */
/* Whether g is small enough for the check on its halves (two more searches): a caller need
 * not build the halves otherwise. */
int hc_model_checks_halves(const hc_graph *g);
int hc_model_recommend(const hc_graph *g, const hc_graph *halves, const hc_model *md, int algo,
                       const int *launched, hc_mapfile *f, char *err, size_t errlen);

#endif
