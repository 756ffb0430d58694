/* Task-graph families the mapping is compared on: grids, random graphs, group structures and
 * the traffic the profiler records for the bundled programs. */
#ifndef HC_FAMILIES_H
#define HC_FAMILIES_H

#include "hc_graph.h"

typedef struct hc_family {
    const char *name;
    const char *what; /* one line for --help and the docs */
    /* A graph of exactly M ranks (every family accepts any M >= 8 that is a multiple of 8);
     * 0 or -1 (no memory). */
    int (*build)(hc_graph *g, int M, unsigned seed);
} hc_family;

extern const hc_family hc_families[];
extern const int hc_nfamilies;

/* The family called name, or NULL. */
const hc_family *hc_family_find(const char *name);
/* Factors M into d factors as equal as possible, largest first (MPI_Dims_create's rule). */
void hc_dims_create(int M, int d, int *dims);

#endif
