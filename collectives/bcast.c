/* MPI_Bcast: what the library can take, the per-communicator state, any datatype as a
 * contiguous byte stream, then the selector's plan (bcast_select.c) run across the nodes
 * (bcast_hier.c). */
#include <stdlib.h>

#include "bcast_pack.h"
#include "bcast_plan.h"
#include "hc_dtype.h"
#include "hc_log.h"
#include "hc_mpi.h"
#include "hc_must.h"
#include "hc_util.h"
#include "learn_save.h"

/* A root's choices for its own node are what the next run's root starts from. */
static void keep_root_entry(hc_learn_entry *e, void *arg)
{
    const hc_comm *c = arg;
    if (e->key.root == c->rank)
        hc_learn_keep(HC_COLL_BCAST, c, e);
}

static void state_free(hc_comm *c, void *state)
{
    hc_bstate *st = state;
    hc_learn_table *t = st->learn ? hc_blearn_table(st) : NULL;
    if (t)
        hc_learn_each(t, keep_root_entry, c);
    if (st->reps != MPI_COMM_NULL)
        PMPI_Comm_free(&st->reps);
    hc_blearn_free(st);
    hc_bshm_destroy(st);
}

/* The state of c, created on first use: collective over c (every rank agrees, across nodes
 * too, so no node takes the vendor path while another waits in ours). */
static hc_bstate *state_of(hc_comm *c)
{
    hc_bstate *st = __atomic_load_n((hc_bstate **)&c->slot[HC_SLOT_BCAST], __ATOMIC_ACQUIRE);
    if (st)
        return st;
    hc_bsetup setup;
    hc_bcast_setup(&setup);
    st = hc_bshm_create(c, &setup);
    if (!st) /* out of memory before any collective: the peers are already inside one */
        hc_abort(c->comm, 1, "MPI_Bcast: out of memory for the broadcast state");
    /* On one node its ranks have agreed already (hc_bshm_create, over c->local == c->comm). */
    int ok = !st->failed, all_ok = ok;
    if (c->num_nodes > 1)
        PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, c->comm);
    if (!all_ok && !st->failed) {
        hc_shm_destroy(&st->shm);
        st->failed = 1;
    }
    st->reps = MPI_COMM_NULL;
    if (!st->failed && c->num_nodes > 1)
        PMPI_Comm_split(c->comm, 0, c->rank, &st->reps);
    /* Once per communicator: the stages its broadcasts run, and over how many nodes. */
    if (c->rank == 0)
        hc_info(1, "bcast on %d ranks, %d node(s): %s", c->size, c->num_nodes,
                st->failed          ? "the vendor's (no shared memory on some node)"
                : c->num_nodes == 1 ? "shared memory"
                                    : "shared memory in each node, leaders' step between nodes");
    pthread_mutex_lock(&c->lock);
    c->slot_free[HC_SLOT_BCAST] = state_free;
    __atomic_store_n((hc_bstate **)&c->slot[HC_SLOT_BCAST], st, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&c->lock);
    return st;
}

/* The bytes of (count, dt) at buf as a stream: in place when contiguous, else packed segment
 * by segment (root and readers may use different (count, type) of one signature), or whole
 * when one element outgrows a segment. */
static void run_typed(hc_comm *c, hc_bstate *st, const hc_bcast_plan *p, void *buf,
                      MPI_Count count, MPI_Datatype dt, size_t m, size_t esize, int root,
                      int contiguous, MPI_Count lb)
{
    if (contiguous) {
        hc_bcast_run(c, st, p, (char *)buf + lb, m, root, NULL, NULL, 1);
        return;
    }
    size_t seg = HC_MIN(p->seg, m);
    if (esize <= seg) {
        char *stage = hc_must_alloc(seg + esize, "MPI_Bcast", "to pack a datatype");
        hc_bpack pk;
        hc_bpack_init(&pk, buf, dt, stage + seg, c->comm);
        hc_bcast_run(c, st, p, NULL, m, root, &pk, stage, 0);
        free(stage);
        return;
    }
    char *tmp = hc_must_alloc(m, "MPI_Bcast", "to pack a datatype");
    MPI_Count pos = 0;
    if (c->rank == root)
        hc_pack(buf, count, dt, tmp, (MPI_Count)m, &pos, c->comm);
    hc_bcast_run(c, st, p, tmp, m, root, NULL, NULL, 0);
    if (c->rank != root)
        hc_unpack(tmp, (MPI_Count)m, &pos, buf, count, dt, c->comm);
    free(tmp);
}

/* A call inside a root's window of vendor calls (bcast_hier.c): nothing to choose. The root's
 * learner takes it as its pick for the call, and times it when the window is stamped. */
static int window_call(hc_comm *c, hc_bstate *st, hc_bvendor_window *w, void *buf,
                       MPI_Count count, MPI_Datatype dt, int root)
{
    hc_learn_entry *e = c->rank == root ? w->entry : NULL;
    int measure = 0, timed = 0;
    if (e) {
        int i = hc_bcast_learn_take(e, &measure);
        e->runs[w->cand]++;
        timed = w->stamp && i == w->cand && measure == HC_LEARN_SAMPLE &&
                hc_bcast_vendor_timed(st, e);
    }
    uint64_t t0 = timed ? hc_now_ns() : 0, g = 0;
    int rc = hc_bcast_vendor_window(c, st, w, buf, count, dt, root, &g);
    if (e) {
        if (timed)
            hc_blearn_after(st, e, w->cand, t0, g, g);
        /* an unstamped window leaves no end to count the next call from */
        e->last_end = w->stamp ? st->seq : 0;
        hc_bcast_learn_end(st, e);
    }
    if (c->rank == root)
        c->bcast_last = HC_BCAST_VENDOR;
    return rc;
}

/* A message that fits in a control cell, on one node, sent by the queue (or the single copy,
 * which leaves such a message to it): the whole call is one cell from the root down its
 * tree. It skips the stages that segmented, typed or direct messages need, which at 8 bytes
 * were 40 of the root's 105 ns a call (docs/algorithms-bcast.md, The queue). Each rank
 * decides alone: the root from its plan, a reader from the root's cell. A call that would
 * record its buffer for direct reads takes the full path; timed calls take this one, so the
 * learner times the path that runs. */
static int one_cell(const hc_comm *c, hc_bstate *st, const hc_bcast_plan *p, size_t m,
                    int decider)
{
    if (c->num_nodes != 1 || m > HC_BCELL_INLINE_MAX)
        return 0;
    if (!decider)
        return HC_BCELL_KIND(hc_bshm_peek(st)) == HC_BCELL_INLINE;
    return hc_bcast_engine_of[p->algo] != HC_BCAST_ENGINE_VENDOR &&
           !hc_bcast_direct_allowed(st, p, m);
}

/* On one node the vendor's broadcast takes the caller's own arguments: the root says so in
 * its first cell, and readers look before they pack anything. */
static int whole_vendor(const hc_comm *c, hc_bstate *st, const hc_bcast_plan *p, int decider)
{
    if (c->num_nodes != 1)
        return 0;
    return decider ? p->algo == HC_BCAST_VENDOR
                   : HC_BCELL_KIND(hc_bshm_peek(st)) == HC_BCELL_VENDOR;
}

int hc_bcast(void *buf, MPI_Count count, MPI_Datatype dt, int root, hc_comm *c, uintptr_t site)
{
    if (c->size == 1)
        return MPI_SUCCESS;
    if (root < 0 || root >= c->size || count < 0)
        return HC_FALLBACK; /* the vendor reports the error */
    if (c->num_nodes == c->size)
        return HC_FALLBACK; /* nobody shares a node: nothing to gain */
    MPI_Count tsize;
    if (hc_type_size(dt, &tsize) != MPI_SUCCESS)
        return HC_FALLBACK;
    size_t m = (size_t)(tsize * count);
    hc_bcast_fixed_choice fx;
    hc_bcast_fixed(c, m, &fx);
    if (fx.algo == HC_BCAST_VENDOR)
        return HC_FALLBACK; /* asked for: the vendor takes the caller's own arguments */
    if (m == 0)
        return MPI_SUCCESS;
    if ((long long)m > HC_MPI_PACK_ELEMENT_MAX)
        return HC_FALLBACK; /* one rank's element might be too large to pack (every rank sees m) */
    hc_bstate *st = state_of(c);
    if (!st || st->failed)
        return HC_FALLBACK;

    int lroot = c->node == c->node_of[root] ? c->local_rank_of[root] : 0;
    int decider = c->local_rank == lroot, sclass = hc_size_class(m);
    if (c->num_nodes == 1) {
        hc_bvendor_window *w = hc_bcast_window_of_call(c, st, root, sclass);
        if (w)
            return window_call(c, st, w, buf, count, dt, root);
    }
    if (decider)
        hc_blearn_collect(st);
    hc_bcast_plan p;
    hc_bcast_select(c, st, m, root, site, decider, &fx, &p);
    uint64_t t0 = p.measure == HC_LEARN_SAMPLE ? hc_now_ns() : 0, g_first = st->seq;
    int rc = MPI_SUCCESS;
    /* Everything a reader can work out alone comes before it waits for its root. */
    MPI_Count lb = 0;
    int contiguous = hc_dtype_contiguous(dt, &lb);
    if (contiguous && one_cell(c, st, &p, m, decider)) {
        if (c->rank != root)
            st->last_sent.buf = NULL; /* as in hc_bcast_run: after another root's call */
        hc_bshm_bcast(st, (char *)buf + lb, m, m, lroot, p.measure ? HC_BSHM_MEASURE : 0);
        hc_bshm_finish(st);
    } else if (whole_vendor(c, st, &p, decider)) {
        rc = hc_bcast_vendor_whole(c, st, &p, buf, count, dt, root, sclass);
    } else {
        run_typed(c, st, &p, buf, count, dt, m, (size_t)tsize, root, contiguous, lb);
    }
    if (decider) {
        if (p.learn) {
            if (p.measure == HC_LEARN_SAMPLE)
                hc_blearn_after(st, p.learn, p.cand, t0, g_first, st->seq - 1);
            p.learn->last_end = st->seq; /* the next call of the key follows this one if it
                                            starts at this fragment number */
            hc_bcast_learn_end(st, p.learn);
        }
        c->bcast_last = p.algo;
    }
    return rc;
}
