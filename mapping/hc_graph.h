/* Task graph of an MPI program: CSR, symmetric, weights in bytes (both directions summed). */
#ifndef HC_GRAPH_H
#define HC_GRAPH_H

#include <stddef.h>
#include <stdio.h>

typedef struct hc_graph {
    int n;             /* vertices (ranks) */
    long long *xadj;   /* [n+1] CSR offsets */
    int *adjncy;       /* [xadj[n]] neighbours, 0-based, sorted per vertex, no self loops */
    double *adjwgt;    /* [xadj[n]] weight: bytes exchanged in both directions; symmetric */
} hc_graph;

/* Builds a symmetric graph from directed (src, dst, bytes) triples: w(i,j) = d_ij + d_ji,
 * duplicates merged, self loops and zero weights dropped. 0 or -1 (out of memory). */
int hc_graph_from_triples(hc_graph *g, int n, long long count, const int *src, const int *dst,
                          const double *bytes);
int hc_graph_write_metis(const hc_graph *g, FILE *out);   /* first line "% hiercoll taskgraph v1" */
/* 0, or -1 with "FILE:LINE: reason" in err. */
int hc_graph_read_metis(hc_graph *g, const char *path, char *err, size_t errlen);
void hc_graph_free(hc_graph *g);

/* One end of an edge: the neighbour and the weight. */
typedef struct hc_adj_ent {
    int v;
    double w;
} hc_adj_ent;
/* Every rank's edges heaviest first (equal weights by neighbour), in the CSR's layout: rank i's
 * at [xadj[i], xadj[i+1]). malloc'd; NULL with no memory. */
hc_adj_ent *hc_graph_heaviest_first(const hc_graph *g);

/* Weight of edge (i, j), 0 if absent (binary search in i's sorted list). */
double hc_graph_weight(const hc_graph *g, int i, int j);

#endif
