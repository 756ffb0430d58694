/* Internals shared by the allreduce files: the reduction of one call, the per-communicator
 * state, and the two engines (shared memory within a node, point to point on a lattice). */
#ifndef HC_ALLREDUCE_IMPL_H
#define HC_ALLREDUCE_IMPL_H

#include <stdint.h>

#include "hc_coll.h"
#include "hc_shm.h"
#include "hc_slot_write.h"
#include "hc_util.h"
#include "reduce_kernels.h"
#include "ring_schedule.h"

/* How one call combines and moves its elements. Elements sit at stride `extent` from byte 0
 * (lb == true_lb == 0); the last one ends at true_extent. */
typedef struct hc_red {
    MPI_Datatype dt;
    MPI_Op op;
    hc_reduce_fn fn; /* vectorised kernel, or NULL: PMPI_Reduce_local */
    MPI_Aint extent, true_extent;
} hc_red;

/* out = a op b over n elements; out is b or a separate buffer, never a. */
void hc_red_apply(const hc_red *r, void *out, const void *a, const void *b, int64_t n);
/* Bytes n elements occupy (they may be read and copied as one block). */
static inline size_t hc_red_span(const hc_red *r, int64_t n)
{
    return n ? (size_t)(n - 1) * (size_t)r->extent + (size_t)r->true_extent : 0;
}
static inline char *hc_red_at(const hc_red *r, const void *base, int64_t i)
{
    return (char *)base + i * (int64_t)r->extent;
}

#define HC_AR_INLINE_BYTES 8

/* One rank's line at the head of the node's segment: its phase counter and, for the CMA
 * engine, where peers find its memory (written before the phase is published). */
typedef struct hc_ar_flag {
    _Alignas(HC_CACHELINE) _Atomic uint64_t seq;
    int64_t pid;
    uint64_t probe;               /* address of the CMA probe word */
    uint64_t send_addr, recv_addr; /* this call's buffers (CMA engine) */
    uint32_t in_shift, res_shift;  /* where this chunk's data starts in a slot (staged engine) */
    /* Vectors up to HC_AR_INLINE_BYTES travel in this line, one per phase parity: a peer's
     * wait for seq brings the data along instead of fetching a slot line after it. */
    unsigned char inline_data[2][HC_AR_INLINE_BYTES];
} hc_ar_flag;
_Static_assert(sizeof(hc_ar_flag) == HC_CACHELINE, "one flag line per rank");

/* The smallest slot (collectives/allreduce_shm.c): an element wider than this cannot be
 * staged on every node, so such allreduces go to the vendor. */
#define HC_AR_SLOT_MIN ((size_t)64 << 10)

/* Shared segment of one node: a flag line per local rank, then two sets (by phase parity) of
 * one input slot per local rank and one result slot, each slot_bytes of data plus
 * HC_ALIAS_SPAN, so the data may start at the offset of the buffer it is copied from or to. */
typedef struct hc_ar_shm {
    hc_shm seg;
    size_t slot_bytes;
    uint64_t phase;  /* phases this rank has completed */
    hc_slot_writer writer; /* how this rank rewrites slots its peers have read */
} hc_ar_shm;

/* A lattice verbose output has named for a communicator, and why (how is a literal). */
typedef struct hc_ar_announced {
    hc_lattice lat;
    const char *how;
    int shm;
} hc_ar_announced;
#define HC_AR_ANNOUNCE_MAX 8

typedef struct hc_ar_state {
    MPI_Comm comm;    /* private duplicate: ring messages never meet the user's */
    int shm_state;    /* 0 not tried, 1 usable, -1 failed somewhere: point to point only */
    int cma_ok;       /* process_vm_readv/writev work between the local ranks, everywhere */
    hc_ar_shm shm;
    void *cma_buf;    /* HC_AR_CMA_CHUNK bytes the CMA engine pulls into (on first use) */
    void *tmp;        /* packet buffers of the ring */
    size_t tmp_bytes;
    int announced;    /* printed (verbose): 2 staged engine, 4 single copy, 8 the leaders'
                       * recursive doubling */
    hc_ar_announced announced_lattice[HC_AR_ANNOUNCE_MAX]; /* named so far (verbose) */
    int nannounced;
} hc_ar_state;

/* Makes st->tmp at least `need` bytes; 0, or -1 when memory is short. */
int hc_ar_tmp_reserve(hc_ar_state *st, size_t need);

/* Packet size of the ring in bytes (HIERCOLL_RING_PACKET or the measured default). */
size_t hc_ring_packet_bytes(void);

/* Point-to-point ring on lattice lat (normalised) for this rank (coords): reduce-scatter
 * over dimensions k0 .. d-1 starting from the segment [off, off+len), then allgather back.
 * sendbuf may equal recvbuf; with k0 > 0 it must. Returns an MPI error code. */
int hc_ring_run(hc_ar_state *st, const hc_red *r, const void *sendbuf, void *recvbuf,
                const hc_lattice *lat, const int *coords, int k0, int64_t off, int64_t len);

/* Shared-memory engine over c->local. hc_ar_shm_setup is collective over c->comm (all ranks
 * agree on the outcome); returns 1 when usable. */
int hc_ar_shm_setup(hc_comm *c, hc_ar_state *st);
void hc_ar_shm_free(hc_ar_state *st);
/* The flag lines of the node's segment, one per local rank. */
hc_ar_flag *hc_ar_flags(hc_ar_state *st);
/* Publishes the next phase and waits until every local rank has. */
void hc_ar_sync(hc_comm *c, hc_ar_state *st);
/* Every local rank reduces every local vector (small messages). */
int hc_ar_shm_small(hc_comm *c, hc_ar_state *st, const hc_red *r, const void *sendbuf,
                    void *recvbuf, int64_t count);
/* Several nodes: the node's vectors reduced by its leader, recursive doubling among the
 * leaders, the result shared through the segment. Works with one rank per node too. */
int hc_ar_shm_small_nodes(hc_comm *c, hc_ar_state *st, const hc_red *r, const void *sendbuf,
                          void *recvbuf, int64_t count);
/* Largest count hc_ar_shm_small and hc_ar_shm_small_nodes take. */
int64_t hc_ar_shm_small_max(hc_comm *c, hc_ar_state *st, const hc_red *r);
/* Reduce-scatter through shared memory chunk by chunk, then (when lat has dimensions beyond
 * the first, which is the node) the point-to-point ring on each rank's slice, then
 * allgather through shared memory. */
int hc_ar_shm_ring(hc_comm *c, hc_ar_state *st, const hc_red *r, const void *sendbuf,
                   void *recvbuf, int64_t count, const hc_lattice *lat, const int *coords);

/* Bytes the CMA engine pulls per process_vm_readv: in cache for the reduction that follows,
 * large enough that the system call and page pinning stay small against the copy
 * (docs/algorithms-allreduce.md). Elements wider than this take the staged engine. */
#define HC_AR_CMA_CHUNK (128 * 1024)

/* Same contract as hc_ar_shm_ring, with no staging copies: each rank pulls its slice of the
 * peers' inputs with process_vm_readv, reduces it into its own result and pushes the result
 * into the peers' receive buffers with process_vm_writev. Requires st->cma_ok. */
int hc_ar_cma_ring(hc_comm *c, hc_ar_state *st, const hc_red *r, const void *sendbuf,
                   void *recvbuf, int64_t count, const hc_lattice *lat, const int *coords);

#endif
