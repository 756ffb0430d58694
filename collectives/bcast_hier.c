/* Running a broadcast's plan: the root's node first, then the node leaders, then the other
 * nodes, segment by segment, so a node's stage of one segment overlaps the leaders' next one
 * and a packed datatype needs one segment of memory. Within each node its node-local root
 * runs the engine the plan names; readers follow the kind of the cells it writes. */
#include <pthread.h>

#include "bcast_pack.h"
#include "bcast_plan.h"
#include "hc_copy.h"
#include "hc_heap.h"
#include "hc_log.h"
#include "hc_mpi.h"
#include "hc_must.h"
#include "hc_util.h"

/* Messages up to this size skip the vendor's leaders' step: the root itself sends to the
 * other nodes' leaders, before its own node's stage and overlapped with it, so neither the
 * hand-off to a leader nor the node stage's engine delays the other nodes. On 2 hosts x 2
 * ranks the hand-off made 8 B-1 KiB broadcasts with a rotating root up to 1.25x the vendor's
 * time, and a node stage that waits for its readers (the single copy) before the leaders'
 * step 1.3-1.9x (docs/algorithms-bcast.md, Across hosts). Between two nodes the leaders' step
 * is one message whatever the size, so there the root sends any one-segment message itself. */
#define HC_BCAST_ROOT_TO_LEADERS_MAX ((size_t)4 << 10)

/* The engine whose readers act on each kind of cell, from the engines' table. */
static hc_bstage_fn reader_of[HC_BCELL_VENDOR + 1];
static pthread_once_t readers_once = PTHREAD_ONCE_INIT;
static void readers_init(void)
{
    for (unsigned kind = 0; kind <= HC_BCELL_VENDOR; kind++)
        for (int e = 0; e < HC_BCAST_ENGINE_COUNT; e++)
            if (hc_bcast_engines[e].cells >> kind & 1)
                reader_of[kind] = hc_bcast_engines[e].read;
}

/* A reader's part of one segment: the engine whose cells its node's root wrote. */
static void node_read(hc_comm *c, hc_bstate *st, void *seg, size_t len, size_t total, int lroot,
                      int how)
{
    pthread_once(&readers_once, readers_init);
    unsigned kind = HC_BCELL_KIND(hc_bshm_peek(st));
    if (HC_UNLIKELY(kind > HC_BCELL_VENDOR || !reader_of[kind]))
        hc_abort(MPI_COMM_WORLD, MPI_ERR_INTERN, "MPI_Bcast: a cell of unknown kind %u", kind);
    reader_of[kind](c, st, seg, len, total, lroot, how);
}

/* One segment among the ranks of my node, from local rank lroot. */
static void node_stage(hc_comm *c, hc_bstate *st, const hc_bcast_plan *p, char *seg, size_t len,
                       size_t total, int lroot, int root_how, int read_how)
{
    if (st->n < 2)
        return;
    if (st->me == lroot)
        hc_bcast_engines[hc_bcast_engine_of[p->algo]].root(c, st, seg, len, total, lroot, root_how);
    else
        node_read(c, st, seg, len, total, lroot, read_how);
}

/* Who carries node number v (counted from the root's node) in the root's leaders' step: the
 * root for its own node, the leader for every other. */
static int carrier(const hc_comm *c, int v, int root)
{
    int node = (v + c->node_of[root]) % c->num_nodes;
    return node == c->node_of[root] ? root : c->node_leader[node];
}

/* Whether the root itself carries a message of m bytes to the other nodes' leaders (the
 * same answer on every rank: it rests on the root and the size only). */
static int root_carries(const hc_comm *c, const hc_bcast_plan *p, size_t m, int root)
{
    if (c->num_nodes < 2 || m > p->seg)
        return 0;
    return m <= HC_BCAST_ROOT_TO_LEADERS_MAX || c->num_nodes == 2;
}

/* The leaders' step from the root itself: a binomial tree over the nodes, numbered from the
 * root's, in which the root stands for its node and every other node's leader for its own.
 * Point to point on st->reps, a private communicator, so no user message can match. The
 * sends (at most one per bit of the node count) are left pending in sends[], so the rank's
 * node stage overlaps them; returns how many. */
static int root_to_leaders(hc_comm *c, hc_bstate *st, char *seg, size_t len, int root,
                           MPI_Request sends[32])
{
    int nodes = c->num_nodes, rnode = c->node_of[root], nsends = 0;
    if (c->rank != root && (c->local_rank != 0 || c->node == rnode))
        return 0;
    int v = (c->node - rnode + nodes) % nodes, mask = 1;
    while (mask < nodes) {
        if (v & mask) {
            PMPI_Recv(seg, (int)len, MPI_BYTE, carrier(c, v - mask, root), 0, st->reps,
                      MPI_STATUS_IGNORE);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (v + mask < nodes)
            PMPI_Isend(seg, (int)len, MPI_BYTE, carrier(c, v + mask, root), 0, st->reps,
                       &sends[nsends++]);
    return nsends;
}

/* The node-local root's flags for a message of m bytes: around its caches from nt_min, and
 * direct reads of the caller's own buffer when it lies in the shared heap and the plan's
 * `direct` allows (bcast_direct.c). A leader's buffer was just written by the leaders' step:
 * never "unchanged", but readable directly when the plan says always. */
static int root_how(hc_comm *c, hc_bstate *st, const hc_bcast_plan *p, const char *stream,
                    size_t m, int root, int user_dst)
{
    int how = (m >= p->nt_min ? HC_BSHM_ROOT_NT : 0) | (p->measure ? HC_BSHM_MEASURE : 0);
    if (!user_dst || !hc_bcast_direct_allowed(st, p, m) || m < sizeof(uint64_t) ||
        hc_heap_offset(stream, m) < 0)
        return how;
    /* The sample is recorded on every such call, so `unchanged` means since the last one. */
    int unchanged = c->rank == root && hc_bdirect_unchanged(st, stream, m, root);
    if (p->direct == HC_BDIRECT_ALWAYS || unchanged)
        how |= HC_BSHM_DIRECT;
    return how;
}

void hc_bcast_run(hc_comm *c, hc_bstate *st, const hc_bcast_plan *p, char *stream, size_t m,
                  int root, hc_bpack *pk, char *stage, int user_dst)
{
    int rnode = c->node_of[root];
    /* Streaming stores only where nothing reads the bytes again at once: not into a stage or
     * a packed copy, nor on a leader that forwards them to the other leaders. */
    int stream_out = user_dst && m >= HC_COPY_NT_MIN && !(c->num_nodes > 1 && c->local_rank == 0);
    int read_how = stream_out ? HC_BSHM_STREAM : 0;
    int lroot_here = c->node == rnode ? c->local_rank_of[root] : 0;
    if (c->rank != root)
        st->last_sent.buf = NULL; /* after another root's call my buffer is not "unchanged" */
    int how = c->local_rank == lroot_here ? root_how(c, st, p, stream, m, root, user_dst && !pk) : 0;
    if (c->num_nodes > 1 && c->rank == root)
        hc_info(3, "bcast: %zu bytes to %d nodes in segments of %zu", m, c->num_nodes, p->seg);
    if (root_carries(c, p, m, root)) {
        char *seg = pk ? stage : stream;
        if (pk && c->rank == root)
            hc_bpack_out(pk, seg, m);
        MPI_Request sends[32];
        int nsends = root_to_leaders(c, st, seg, m, root, sends);
        node_stage(c, st, p, seg, m, m, lroot_here, how, read_how);
        for (int i = 0; i < nsends; i++)
            PMPI_Wait(&sends[i], MPI_STATUS_IGNORE);
        if (pk && c->rank != root)
            hc_bpack_in(pk, seg, m);
        hc_bshm_finish(st);
        return;
    }
    for (size_t off = 0; off < m; off += p->seg) {
        size_t len = HC_MIN(p->seg, m - off);
        char *seg = pk ? stage : stream + off;
        if (pk && c->rank == root)
            hc_bpack_out(pk, seg, len);
        if (c->node == rnode) {
            node_stage(c, st, p, seg, len, off == 0 ? m : 0, lroot_here, how, read_how);
            if (c->local_rank == 0 && c->num_nodes > 1)
                hc_pmpi_bcast(seg, (MPI_Count)len, MPI_BYTE, rnode, c->leaders);
        } else {
            if (c->local_rank == 0)
                hc_pmpi_bcast(seg, (MPI_Count)len, MPI_BYTE, rnode, c->leaders);
            node_stage(c, st, p, seg, len, off == 0 ? m : 0, 0, how, read_how);
        }
        if (pk && c->rank != root)
            hc_bpack_in(pk, seg, len);
    }
    hc_bshm_finish(st);
}

/* Calls of a root settled on the vendor that skip the cell, at most: every 64th is announced
 * again, so the cell's cost is small and a timed call still comes now and then. */
#define HC_BCAST_WINDOW 63

/* The window a root can promise after this call, and whether its readers stamp it: trying
 * the vendor, the rest of the trial block (timed without the cell's hand-off); settled on it,
 * the calls its learner will not time (its next check or watch needs cells). */
static unsigned window_after(const hc_bcast_plan *p, int *stamp)
{
    const hc_learn_entry *e = p->learn;
    *stamp = 0;
    if (!e || p->cand < 0 || e->cand[p->cand] != HC_BCAST_VENDOR)
        return 0;
    int left = hc_learn_block_left(e);
    if (left > 0) {
        *stamp = 1;
        return (unsigned)left;
    }
    if (p->measure || p->cand != e->current)
        return 0;
    return (unsigned)HC_MIN((uint64_t)HC_BCAST_WINDOW, hc_learn_quiet_calls(e));
}

int hc_bcast_vendor_whole(hc_comm *c, hc_bstate *st, const hc_bcast_plan *p, void *buf,
                          MPI_Count count, MPI_Datatype dt, int root, int sclass)
{
    int lroot = c->local_rank_of[root], stamp;
    hc_bvendor_window *w = hc_bvendor_window_of(st, lroot, sclass);
    unsigned left;
    if (c->rank == root) {
        left = window_after(p, &stamp);
        hc_bshm_vendor_announce(st, p->measure ? HC_BSHM_MEASURE : 0, left, stamp);
        w->entry = p->learn;
        w->cand = p->cand;
    } else {
        left = hc_bshm_vendor_take(st, lroot, &stamp);
        w->entry = NULL;
    }
    w->lroot = lroot;
    w->sclass = sclass;
    w->left = left;
    w->stamp = stamp;
    hc_bshm_vendor_ran(st);
    int rc = hc_pmpi_bcast(buf, count, dt, root, c->comm);
    hc_bshm_finish(st);
    return rc;
}

hc_bvendor_window *hc_bcast_window_of_call(hc_comm *c, hc_bstate *st, int root, int sclass)
{
    int lroot = c->local_rank_of[root];
    hc_bvendor_window *w = hc_bvendor_window_of(st, lroot, sclass);
    return w->left > 0 && w->lroot == lroot && w->sclass == sclass ? w : NULL;
}

int hc_bcast_vendor_window(hc_comm *c, hc_bstate *st, hc_bvendor_window *w, void *buf,
                           MPI_Count count, MPI_Datatype dt, int root, uint64_t *g)
{
    w->left--;
    hc_bshm_vendor_ran(st);
    if (w->stamp)
        *g = hc_bshm_window_begin(st);
    int rc = hc_pmpi_bcast(buf, count, dt, root, c->comm);
    if (w->stamp)
        hc_bshm_window_end(st, *g, c->rank != root);
    return rc;
}
