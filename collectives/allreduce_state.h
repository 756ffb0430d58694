/* What the allreduce files share at the bottom: the reduction of one call and the
 * per-communicator state (allreduce_state.c). The plan and the engines build on it
 * (allreduce_plan.h). */
#ifndef HC_ALLREDUCE_STATE_H
#define HC_ALLREDUCE_STATE_H

#include <stdint.h>

#include "hc_coll.h"
#include "hc_shm.h"
#include "hc_slot_write.h"
#include "hc_util.h"
#include "learn.h"
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
    MPI_Comm comm;    /* private split for the engines' messages, so they never meet the
                       * user's; MPI_COMM_NULL until a call sends any (hc_ar_messages_comm) */
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
    hc_learn_table learn; /* per size class, the same on every rank (allreduce_learn.c) */
    struct hc_ar_last_plan *last_plan; /* the selector's, for the next call (allreduce_select.c) */
} hc_ar_state;

/* The state of c, created on the first call (no communication), or NULL when memory is
 * short (allreduce_state.c). */
hc_ar_state *hc_ar_state_get(hc_comm *c);
/* Creates st->comm on the first call whose engine sends messages: collective, so every rank
 * calls it in that call (they all run the same plan). 0, or an MPI error code. */
int hc_ar_messages_comm(hc_comm *c, hc_ar_state *st);

/* Completes point-to-point requests without holding the core (hc_wait.h); an MPI error code.
 * hc_ar_waitall completes all n even after an error, and returns the last error. */
int hc_ar_wait(MPI_Request *req);
int hc_ar_waitall(int n, MPI_Request *req);

/* Makes st->tmp at least `need` bytes; 0, or -1 when memory is short. */
int hc_ar_tmp_reserve(hc_ar_state *st, size_t need);
/* Unmaps the node's segment and drops the single copy's buffer (the staged engine's setup
 * calls it when a node failed, the state's end always). */
void hc_ar_shm_free(hc_ar_state *st);

/* Bytes the CMA engine pulls per process_vm_readv: in cache for the reduction that follows,
 * large enough that the system call and page pinning stay small against the copy
 * (docs/algorithms-allreduce.md). Elements wider than this take the staged engine. */
#define HC_AR_CMA_CHUNK (128 * 1024)

#endif
