/* The multidimensional ring's schedule as pure functions (no MPI): lattice coordinates,
 * block partition, which block each rank sends and receives at each step, and the
 * cost model that chooses a lattice. Unit tests simulate whole allreduces with these. */
#ifndef HC_RING_SCHEDULE_H
#define HC_RING_SCHEDULE_H

#include <stdint.h>

#define HC_RING_MAXD 8

/* A lattice r_0 x ... x r_{d-1}; rank = c_0 + r_0 * (c_1 + r_1 * (c_2 + ...)), so dimension 0
 * varies fastest (with ranks numbered node by node, dimension 0 is the node). */
typedef struct hc_lattice {
    int d;
    int dims[HC_RING_MAXD];
} hc_lattice;

/* Drops dimensions of length 1 (they move nothing); returns the product. */
long hc_lattice_normalize(hc_lattice *lat);
void hc_lattice_coords(const hc_lattice *lat, int rank, int *coords);
/* The rank whose coordinate k is coords[k] + delta (mod r_k), others unchanged. */
int hc_lattice_shift(const hc_lattice *lat, const int *coords, int k, int delta);
/* "4x2x1" style text, for messages. */
void hc_lattice_format(const hc_lattice *lat, char *buf, int len);

/* Balanced split of [off, off+len) into r blocks: block i starts at *boff, has *blen. */
void hc_ring_block(int64_t off, int64_t len, int r, int i, int64_t *boff, int64_t *blen);

/* Coordinate c on a ring of r, step s = 0 .. r-2. Reduce-scatter: send block rs_send,
 * receive (and reduce into) block rs_recv; afterwards rank c owns block c. Allgather: send
 * ag_send, receive ag_recv. The block a rank receives at step s is the one it sends at s+1. */
static inline int hc_ring_mod(int x, int r) { return ((x % r) + r) % r; }
static inline int hc_ring_rs_send(int c, int r, int s) { return hc_ring_mod(c - s - 1, r); }
static inline int hc_ring_rs_recv(int c, int r, int s) { return hc_ring_mod(c - s - 2, r); }
static inline int hc_ring_ag_send(int c, int r, int s) { return hc_ring_mod(c - s, r); }
static inline int hc_ring_ag_recv(int c, int r, int s) { return hc_ring_mod(c - s - 1, r); }

/* The segment a rank works on in dimension k, given the segment [off, off+len) it started
 * dimension k0 with: block c_j of the previous segment for each j in k0 .. k-1. */
void hc_ring_segment(const hc_lattice *lat, const int *coords, int k0, int k, int64_t off,
                     int64_t len, int64_t *soff, int64_t *slen);

/* Cost model of seed 001 (section 3.3): T_d = sum_i a_i (r_i - 1) + m sum_i b_i (1 - 1/r_i)
 * / prod_{j<i} r_j, with a_i = 2 alpha, b_i = 2 beta + gamma of dimension i's level. */
double hc_ring_cost(const hc_lattice *lat, const double *alpha, const double *beta, double m);

/* Chooses a lattice for a machine of nlevels levels from the innermost: level l has
 * fanout[l] members (ranks per node, nodes ...) and per-element costs alpha[l], beta[l]
 * (seconds per message, seconds per byte, already doubled as in the model). Level 0 stays one
 * dimension when keep_first (it moves through shared memory); every other level's fanout may
 * be split into factors, each a dimension with that level's costs. level_of[k] receives each
 * dimension's level. Returns the model time of the choice. */
double hc_ring_choose(int nlevels, const int *fanout, const double *alpha, const double *beta,
                      double m, int keep_first, hc_lattice *out, int *level_of);

#endif
