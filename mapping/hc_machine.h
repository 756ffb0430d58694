/* Machine model of seed 000: a tree of L levels, level l (0 = top) joining its children with
 * bandwidth bw[l]; or an explicit N x N bandwidth matrix. Cores are numbered depth-first from
 * 0; some may be unavailable (a partly occupied subsystem). */
#ifndef HC_MACHINE_H
#define HC_MACHINE_H

#include <stddef.h>

#define HC_MACHINE_MAX_LEVELS 16
#define HC_MACHINE_MAX_CORES (1 << 22)

typedef struct hc_machine {
    int nlevels;                                /* L; 0 for a matrix machine */
    int arity[HC_MACHINE_MAX_LEVELS];           /* children of each element of level l */
    char name[HC_MACHINE_MAX_LEVELS][24];       /* what those children are: "node", "core" */
    double bw[HC_MACHINE_MAX_LEVELS];           /* bytes/s between children of one element */
    int stride[HC_MACHINE_MAX_LEVELS];          /* cores under one child of a level-l element */
    int ncores;                                 /* N, available or not */
    unsigned char *avail;                       /* [N] 1 if a rank may be placed there */
    double *matrix;                             /* [N*N] matrix machine, else NULL */
} hc_machine;

/* "node:4 package:2 core:4" with one bandwidth per level from the top. 0, or -1 with a reason. */
int hc_machine_from_synthetic(hc_machine *m, const char *spec, const double *bw, int nbw,
                              char *err, size_t errlen);
/* Matrix file: "# hiercoll bandwidth-matrix v1" (optional), '#' comments, a line "N", then N
 * rows of N numbers (diagonal ignored; symmetric, positive). 0, or -1 with "FILE:LINE: reason". */
int hc_machine_read_matrix(hc_machine *m, const char *path, char *err, size_t errlen);
int hc_machine_from_matrix(hc_machine *m, int n, const double *bw, char *err, size_t errlen);
/* Marks cores unavailable: "0-3,7" (0-based, depth-first). 0, or -1 with a reason. */
int hc_machine_set_unavailable(hc_machine *m, const char *list, char *err, size_t errlen);
void hc_machine_free(hc_machine *m);

int hc_machine_navail(const hc_machine *m);
/* 1 if every two available cores have the same bandwidth between them, so that every placement
 * of ranks one to a core costs the same (one host of one package, say); 0 otherwise and for a
 * matrix machine. */
int hc_machine_uniform(const hc_machine *m);
/* Level (0-based from the top) through which cores p != q communicate; -1 on a matrix machine. */
static inline int hc_machine_level(const hc_machine *m, int p, int q)
{
    for (int l = 0; l < m->nlevels; l++)
        if (p / m->stride[l] != q / m->stride[l])
            return l;
    return m->nlevels - 1;
}
/* Bandwidth between cores p != q: b_z(p,q). */
static inline double hc_machine_bw(const hc_machine *m, int p, int q)
{
    if (m->matrix)
        return m->matrix[(size_t)p * (size_t)m->ncores + (size_t)q];
    return m->bw[hc_machine_level(m, p, q)];
}
/* Level whose children are compute nodes ("node", "machine", "host"; else the top). */
int hc_machine_node_level(const hc_machine *m);
/* Cores per compute node group for round robin: node index of core p. */
int hc_machine_node_of(const hc_machine *m, int p);
/* The synthetic string of a tree machine ("node:4 core:2"), "" for a matrix machine. */
void hc_machine_format(const hc_machine *m, char *buf, size_t len);

#endif
