/* MPI_Bcast's plan and engines. The selector (bcast_select.c) makes the plan; the
 * composition across nodes (bcast_hier.c) runs it segment by segment through one engine per
 * node (bcast_engines.c): the queue (bcast_shm.c, with direct reads, bcast_direct.c), the
 * single copy (bcast_cma.c) or the vendor's broadcast among the node's ranks. Engines read no
 * configuration and never call one another or the selector.
 *
 * Who decides: what every rank must agree on beforehand (the segment size, whether readers
 * follow their node's root) follows from the size, the root and rules every rank reads alike.
 * How a node moves each segment is its node-local root's own choice (the root on its node, the
 * leader on every other): readers act on the kind of cell it writes, so the choice can be
 * learned per call site by that rank alone, with no message to agree on it. */
#ifndef HC_BCAST_PLAN_H
#define HC_BCAST_PLAN_H

#include <stdint.h>

#include "bcast_shm.h"
#include "hc_algos.h"
#include "learn.h"

enum hc_bcast_engine_id {
    HC_BCAST_ENGINE_NONE,   /* auto: no engine of its own */
    HC_BCAST_ENGINE_VENDOR, /* the vendor's broadcast among the node's ranks */
    HC_BCAST_ENGINE_QUEUE,  /* the shared-memory queue, with direct reads */
    HC_BCAST_ENGINE_CMA,    /* single copy with process_vm_readv/writev */
    HC_BCAST_ENGINE_COUNT
};

/* Readers' part of one segment (lroot: the node-local root), and the root's. */
typedef void (*hc_bstage_fn)(hc_comm *c, hc_bstate *st, void *bytes, size_t m, size_t total,
                             int lroot, int how);
typedef struct hc_bcast_engine {
    const char *name;
    hc_bstage_fn root, read;
    unsigned cells; /* the cell kinds (bit 1 << HC_BCELL_*) whose readers it serves */
} hc_bcast_engine;
extern const hc_bcast_engine hc_bcast_engines[HC_BCAST_ENGINE_COUNT];
/* The engine of each algorithm of the registry (HC_BCAST_ENGINE_NONE for auto). */
extern const int hc_bcast_engine_of[HC_BCAST_COUNT];

/* How readers may copy straight out of the root's buffer (the `direct` parameter). */
enum { HC_BDIRECT_NEVER, HC_BDIRECT_UNCHANGED, HC_BDIRECT_ALWAYS };

typedef struct hc_bcast_plan {
    /* The same on every rank. */
    size_t seg;          /* bytes per segment */
    /* The node-local root's choice for its node (a reader's copy is not used). */
    int algo;            /* HC_BCAST_*, never AUTO */
    int origin;          /* enum hc_origin: why */
    int direct;          /* HC_BDIRECT_NEVER / UNCHANGED / ALWAYS */
    size_t nt_min;       /* from this size the root writes around its caches */
    size_t direct_min;   /* smallest message read straight out of the root's buffer */
    hc_learn_entry *learn; /* the learner's entry that chose it, or NULL */
    int cand;            /* its index there */
    int measure;         /* HC_LEARN_NONE / STAMP (its readers stamp its end) / SAMPLE */
} hc_bcast_plan;

/* Whether the plan lets readers copy m bytes straight out of the root's buffer here (the
 * buffer's place and state aside): such a call records a sample of the buffer. */
static inline int hc_bcast_direct_allowed(const hc_bstate *st, const hc_bcast_plan *p,
                                          size_t m)
{
    return st->direct_ok && p->direct != HC_BDIRECT_NEVER && m >= p->direct_min;
}

/* The queue's construction parameters from the configuration. */
void hc_bcast_setup(hc_bsetup *s);

/* What every rank takes for m bytes on c without measuring: the info key, HIERCOLL_BCAST,
 * else a rule of the tuning file that every rank reads alike (rule, when one matches);
 * algo HC_BCAST_AUTO when the node-local roots choose per call. */
struct hc_tuning_rule;
typedef struct hc_bcast_fixed_choice {
    int algo, origin;
    const struct hc_tuning_rule *rule;
} hc_bcast_fixed_choice;
void hc_bcast_fixed(const hc_comm *c, size_t m, hc_bcast_fixed_choice *fx);

/* The plan of a broadcast of m bytes from root on every rank (decider: this rank is a
 * node-local root of the call; fx: hc_bcast_fixed's answer). site: the caller's call site
 * (0 unknown). */
void hc_bcast_select(hc_comm *c, hc_bstate *st, size_t m, int root, uintptr_t site,
                     int decider, const hc_bcast_fixed_choice *fx, hc_bcast_plan *p);

/* At the end of a node-local root's call at e: the learner's step for the key's next call,
 * taken now, off the path between the next call's entry and its first cell
 * (hc_bcast_learn_step), and the quiet calls it sets aside noted on the state. */
void hc_bcast_learn_end(hc_bstate *st, hc_learn_entry *e);
void hc_bcast_learn_next(hc_bstate *st, hc_learn_entry *e);
static inline void hc_bcast_learn_step(hc_bstate *st, hc_learn_entry *e)
{
    if (e->phase != HC_LEARN_SETTLED) {
        hc_bcast_learn_next(st, e);
        return;
    }
    /* the common case, inline; a root settled on the vendor counts its calls in windows */
    hc_learn_settled_step(e, e->cand[e->current] != HC_BCAST_VENDOR);
}
/* The vendor's broadcasts a communicator has run before the learner times one (MPICH takes
 * its shared-memory path only from a node's sixth collective). A round of trials gives the
 * vendor two blocks of 4 calls: with 8 here none of them was timed, the vendor went
 * unmeasured in a key's first round, and no candidate could be dropped as hopeless in it. */
#define HC_BCAST_VENDOR_WARM 5
/* Whether a vendor's call at e may be timed: after HC_BCAST_VENDOR_WARM of them, or at the
 * latest the last of its two blocks in a key's first round (long calls' blocks are of two:
 * their round would otherwise end with the vendor unmeasured and wait for samples). */
static inline int hc_bcast_vendor_timed(const hc_bstate *st, const hc_learn_entry *e)
{
    unsigned last_of_round = 2u * (unsigned)e->block - 1u;
    return st->vendor_calls >= (last_of_round < HC_BCAST_VENDOR_WARM ? last_of_round
                                                                      : HC_BCAST_VENDOR_WARM);
}
/* The learner's pick for a call whose step was taken ahead (or now): index in e->cand. */
static inline int hc_bcast_learn_take(hc_learn_entry *e, int *measure)
{
    int i = e->ahead;
    if (i < 0)
        i = hc_learn_next(e, measure);
    else
        *measure = e->ahead_measure;
    e->ahead = -1;
    return i;
}

/* Runs the plan on m bytes of the contiguous stream `stream` (or, with pk, segment by segment
 * through `stage`, seg bytes); user_dst: stream is the caller's own buffer (bcast_hier.c). */
struct hc_bpack;
void hc_bcast_run(hc_comm *c, hc_bstate *st, const hc_bcast_plan *p, char *stream, size_t m,
                  int root, struct hc_bpack *pk, char *stage, int user_dst);

/* The vendor's broadcast of the caller's own arguments on the whole communicator (one node,
 * chosen by its root), announced to the readers first or taken from the root's cell; a root
 * settled on it promises a window of its next calls of this size class (sclass) that skip the
 * cell. */
int hc_bcast_vendor_whole(hc_comm *c, hc_bstate *st, const hc_bcast_plan *p, void *buf,
                          MPI_Count count, MPI_Datatype dt, int root, int sclass);
/* The window of (root, size class) when a call of it falls inside one, else NULL; then the
 * call inside it, on the root and its readers alike (the vendor's broadcast; in a stamped
 * window the call also takes a fragment number, *g, whose end the readers stamp). */
hc_bvendor_window *hc_bcast_window_of_call(hc_comm *c, hc_bstate *st, int root, int sclass);
int hc_bcast_vendor_window(hc_comm *c, hc_bstate *st, hc_bvendor_window *w, void *buf,
                           MPI_Count count, MPI_Datatype dt, int root, uint64_t *g);

/* Learning (bcast_learn.c), on a node-local root: the times its readers have stamped since
 * its last call go to their entries; after a call, what to time once they stamp it. */
void hc_blearn_collect_pending(hc_bstate *st);
int hc_blearn_pending(const hc_bstate *st);
static inline void hc_blearn_collect(hc_bstate *st)
{
    if (st->learn && hc_blearn_pending(st))
        hc_blearn_collect_pending(st);
}
void hc_blearn_after(hc_bstate *st, hc_learn_entry *e, int cand, uint64_t t0_ns,
                     uint64_t g_first, uint64_t g_last);
hc_learn_table *hc_blearn_table(hc_bstate *st);

/* The node's board of what its roots measured (bcast_board.c): a site as every process names
 * it (for e->shared_site); a round's times t (by candidate, µs) on this rank's board; the
 * times the node's boards hold for e's site and size class into t (by candidate, 0: none),
 * returning 1 when they held any. */
uint64_t hc_bboard_site(uintptr_t site);
void hc_bboard_publish(hc_bstate *st, const hc_learn_entry *e, const double *t);
int hc_bboard_read(const hc_bstate *st, const hc_learn_entry *e, double *t);
void hc_blearn_free(hc_bstate *st);

#endif
