/* The allreduce's plan and engines: the selector (allreduce_select.c) makes a plan that
 * every rank makes alike; the engines (allreduce_engines.c binds them to the registry's names)
 * run it through the phases below: the staged shared-memory node dimension and the leaders'
 * small vectors (allreduce_shm.c), the node dimension by single copy (allreduce_cma.c) and the
 * point-to-point ring (allreduce_ring.c). Engines read no configuration and never call the
 * selector. */
#ifndef HC_ALLREDUCE_PLAN_H
#define HC_ALLREDUCE_PLAN_H

#include "allreduce_state.h"
#include "hc_algos.h"
#include "learn.h"

/* What one call runs, the same on every rank. */
typedef struct hc_ar_plan {
    int algo;                 /* HC_ALLREDUCE_*, never AUTO */
    int origin;               /* enum hc_origin */
    hc_lattice lat;           /* the ring's lattice (normalised) */
    int coords[HC_RING_MAXD]; /* this rank's place in it */
    const char *lat_how;      /* why that lattice (verbose) */
    size_t packet;            /* bytes per pipeline packet of the ring */
    size_t pair_seg;          /* two nodes, single copy: segment of the exchange (0: ring) */
    hc_learn_entry *learn;    /* the learner's entry that chose it, or NULL */
    int cand;
    int measure;              /* HC_LEARN_SAMPLE: time this call (every rank alike);
                                 HC_LEARN_STAMP: only mark its end, the next counts from it */
} hc_ar_plan;

/* The algorithm every rank takes for a call of `bytes` on c without measuring: the info key,
 * HIERCOLL_ALLREDUCE, else a rule of the tuning file (*rule, when one matches, with *origin);
 * HC_ALLREDUCE_AUTO when the selector chooses per call. */
struct hc_tuning_rule;
int hc_allreduce_fixed(const hc_comm *c, long long bytes, const struct hc_tuning_rule **rule,
                       int *origin);

/* The plan of a call of `count` elements of r on c (allreduce_select.c); site: the caller's,
 * which is recorded, never decides (ranks may call one allreduce from different sites). */
void hc_allreduce_select(hc_comm *c, hc_ar_state *st, const hc_red *r, int64_t count,
                         uintptr_t site, hc_ar_plan *p);

enum hc_allreduce_engine_id {
    HC_ALLREDUCE_ENGINE_NONE, /* auto */
    HC_ALLREDUCE_ENGINE_VENDOR,
    HC_ALLREDUCE_ENGINE_STAGED,
    HC_ALLREDUCE_ENGINE_CMA,
    HC_ALLREDUCE_ENGINE_LEADERS,
    HC_ALLREDUCE_ENGINE_P2P,
    HC_ALLREDUCE_ENGINE_COUNT
};
typedef int (*hc_ar_engine_fn)(hc_comm *c, hc_ar_state *st, const hc_ar_plan *p,
                               const hc_red *r, const void *sendbuf, void *recvbuf,
                               int64_t count);
typedef struct hc_allreduce_engine {
    const char *name;
    hc_ar_engine_fn run;
    /* Whether it can run this call here: every rank answers alike (from c's shape, the
     * agreed shared-memory state and the call's signature). */
    int (*can)(hc_comm *c, hc_ar_state *st, const hc_ar_plan *p, const hc_red *r, int64_t count);
} hc_allreduce_engine;
extern const hc_allreduce_engine hc_allreduce_engines[HC_ALLREDUCE_ENGINE_COUNT];
extern const int hc_allreduce_engine_of[HC_ALLREDUCE_COUNT];
/* Whether plan p's engine sends point-to-point messages on st->comm (the same on every
 * rank): the ring, and the node engines where the lattice goes on past the node. */
int hc_allreduce_plan_sends(const hc_ar_plan *p);

/* Learning with every rank agreeing (allreduce_learn.c): at the end of a round the ranks'
 * times are combined (the slowest rank's trimmed mean per algorithm) and every rank decides alike. */
void hc_arlearn_round(hc_comm *c, hc_learn_entry *e);
/* A call the plan asked to time (p->measure) ran from t0 to end (ns): a sample for a
 * HC_LEARN_SAMPLE call, counted from the key's previous call; the mark the next counts from. */
void hc_arlearn_timed(const hc_ar_plan *p, uint64_t t0, uint64_t end);

/* Point-to-point ring on lattice lat (normalised) for this rank (coords): reduce-scatter
 * over dimensions k0 .. d-1 starting from the segment [off, off+len), then allgather back,
 * in packets of `packet` bytes. sendbuf may equal recvbuf; with k0 > 0 it must. Returns an
 * MPI error code. */
int hc_ring_run(hc_ar_state *st, const hc_red *r, const void *sendbuf, void *recvbuf,
                const hc_lattice *lat, const int *coords, int k0, int64_t off, int64_t len,
                size_t packet);

/* Shared-memory engine over c->local. hc_ar_shm_setup is collective over c->comm (all ranks
 * agree on the outcome); returns 1 when usable. */
int hc_ar_shm_setup(hc_comm *c, hc_ar_state *st);
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
/* Reduce-scatter through shared memory chunk by chunk, then (when the plan's lattice has
 * dimensions beyond the first, which is the node) the point-to-point ring on each rank's
 * slice, then allgather through shared memory. */
int hc_ar_shm_ring(hc_comm *c, hc_ar_state *st, const hc_ar_plan *p, const hc_red *r,
                   const void *sendbuf, void *recvbuf, int64_t count);

/* Same contract as hc_ar_shm_ring, with no staging copies: each rank pulls its slice of the
 * peers' inputs with process_vm_readv, reduces it into its own result and pushes the result
 * into the peers' receive buffers with process_vm_writev. Requires st->cma_ok. On a lattice
 * of two nodes with p->pair_seg set, each slice crosses to the other node in segments while
 * the node reduces the next, instead of going round the ring after the whole node stage. */
int hc_ar_cma_ring(hc_comm *c, hc_ar_state *st, const hc_ar_plan *p, const hc_red *r,
                   const void *sendbuf, void *recvbuf, int64_t count);
/* Whether hc_ar_cma_ring crosses between two nodes in segments (the same on every rank). */
static inline int hc_ar_cma_pairs(const hc_ar_plan *p)
{
    return p->lat.d == 2 && p->lat.dims[1] == 2 && p->pair_seg > 0;
}

#endif
