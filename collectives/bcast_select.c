/* MPI_Bcast: choose the path, turn any datatype into a contiguous byte stream, and compose the
 * intra-node queue broadcast with the node leaders' stage when the communicator spans nodes. */
#include <stdlib.h>

#include "bcast_pack.h"
#include "bcast_shm.h"
#include "hc_copy.h"
#include "hc_dtype.h"
#include "hc_heap.h"
#include "hc_must.h"
#include "hc_config.h"
#include "hc_log.h"
#include "hc_mpi.h"
#include "hc_tuning.h"
#include "hc_util.h"

static void state_free(hc_comm *c, void *state)
{
    hc_bstate *st = state;
    if (st->reps != MPI_COMM_NULL)
        PMPI_Comm_free(&st->reps);
    hc_bshm_destroy(st);
}

/* The state of c, created on first use: collective over c (every rank agrees, across nodes
 * too, so no node takes the vendor path while another waits in ours). */
static hc_bstate *state_of(hc_comm *c)
{
    pthread_mutex_lock(&c->lock);
    hc_bstate *st = c->slot[HC_SLOT_BCAST];
    pthread_mutex_unlock(&c->lock);
    if (st)
        return st;
    st = hc_bshm_create(c);
    if (!st) /* out of memory before any collective: the peers are already inside one */
        hc_abort(c->comm, 1, "MPI_Bcast: out of memory for the broadcast state");
    int ok = !st->failed, all_ok = 0;
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
                : c->num_nodes == 1 ? "the queue"
                                    : "the queue in each node, leaders' step between nodes");
    pthread_mutex_lock(&c->lock);
    c->slot[HC_SLOT_BCAST] = st;
    c->slot_free[HC_SLOT_BCAST] = state_free;
    pthread_mutex_unlock(&c->lock);
    return st;
}

/* Built-in rule: the queue below the CMA threshold, single copy from it on. */
static int builtin_choice(long long bytes)
{
    return bytes >= hc_cfg.bcast_cma_threshold.i ? HC_BCAST_SHM_CMA : HC_BCAST_SHM;
}

static int want_cma(const hc_bstate *st, int choice, size_t bytes)
{
    if (!st->cma_ok || bytes <= HC_BCELL_INLINE_MAX)
        return 0;
    if (choice == HC_BCAST_SHM_CMA)
        return 1;
    if (choice == HC_BCAST_SHM)
        return 0;
    return (long long)bytes >= hc_cfg.bcast_cma_threshold.i;
}

/* How one broadcast moves, the same on every rank: it follows from the size, the algorithm
 * and the machine, never from a rank's datatype, so every rank makes the same queue calls. */
typedef struct bcast_plan {
    size_t seg; /* bytes per segment */
    int cma;    /* single copy (requires the node's CMA probe) */
} bcast_plan;

static bcast_plan plan_for(const hc_comm *c, const hc_bstate *st, int choice, size_t m)
{
    bcast_plan p = {(size_t)hc_cfg.bcast_hier_chunk.i, want_cma(st, choice, m)};
    /* Single copy gains from long streams that root and readers split (bcast_cma.c); with
     * no leaders' stage to overlap, one segment. */
    if (p.cma && c->num_nodes == 1)
        p.seg = m;
    return p;
}

/* From this message size the root writes the queue around its caches (HC_BSHM_ROOT_NT): in
 * the bench's twelve calling patterns that cut the worst ratio to the vendor from 0.94 to 0.61
 * at 4 KiB and from 1.3-2.2 to 0.5-0.9 at 16 KiB-4 MiB; below 4 KiB it made the rotating-root
 * patterns slower (0.45 -> 0.7 at 1 KiB), as the reader then waits for memory instead of a few
 * lines of the root's cache (docs/algorithms-bcast.md). */
#define HC_BCAST_ROOT_NT_MIN ((size_t)4 << 10)

/* One segment among the ranks of my node, by the engine the plan chose: the single copy, or
 * the queue (which also carries what fits a control cell). */
static void node_stage(hc_bstate *st, bcast_plan plan, char *seg, size_t len, size_t total,
                       int lroot, int how)
{
    if (plan.cma && len > HC_BCELL_INLINE_MAX)
        hc_bcma_bcast(st, seg, len, total, lroot);
    else
        hc_bshm_bcast(st, seg, len, total, lroot, how);
}

/* Messages up to this size whose root is not its node's leader skip the hand-off to that
 * leader: the root itself sends to the other nodes' leaders. On 2 hosts x 2 ranks the
 * hand-off made 8 B-1 KiB broadcasts with a rotating root up to 1.25x the vendor's time
 * (docs/algorithms-bcast.md, Across hosts). */
#define HC_BCAST_ROOT_TO_LEADERS_MAX ((size_t)4 << 10)

/* Who carries node number v (counted from the root's node) in the root's leaders' step: the
 * root for its own node, the leader for every other. */
static int carrier(const hc_comm *c, int v, int root)
{
    int node = (v + c->node_of[root]) % c->num_nodes;
    return node == c->node_of[root] ? root : c->node_leader[node];
}

/* The leaders' step from the root itself: a binomial tree over the nodes, numbered from the
 * root's, in which the root stands for its node and every other node's leader for its own.
 * Point to point on st->reps, a private communicator, so no user message can match. */
static void root_to_leaders(hc_comm *c, hc_bstate *st, char *seg, size_t len, int root)
{
    int nodes = c->num_nodes, rnode = c->node_of[root];
    if (c->rank != root && (c->local_rank != 0 || c->node == rnode))
        return;
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
            PMPI_Send(seg, (int)len, MPI_BYTE, carrier(c, v + mask, root), 0, st->reps);
}

/* Root's node first (root -> its node), then leaders, then the other nodes; segment by
 * segment, so node B's intra-node stage of one segment overlaps the leaders' next one, and a
 * packed datatype needs one segment of memory. With pk, the root packs each segment into
 * stage and readers unpack it from there; else the segments are read and written in place in
 * stream, which user_dst says is the caller's buffer. */
static void hier_bcast(hc_comm *c, hc_bstate *st, bcast_plan plan, char *stream, size_t m,
                       int root, hc_bpack *pk, char *stage, int user_dst)
{
    int rnode = c->node_of[root];
    /* Streaming stores only where nothing reads the bytes again at once: not into a stage or
     * a packed copy, nor on a leader that forwards them to the other leaders. */
    int stream_out = user_dst && m >= HC_COPY_NT_MIN && !(c->num_nodes > 1 && c->local_rank == 0);
    int how = (stream_out ? HC_BSHM_STREAM : 0) | (m >= HC_BCAST_ROOT_NT_MIN ? HC_BSHM_ROOT_NT : 0);
    /* Readers may copy straight out of the root's buffer when it is the caller's own (not a
     * stage the root rewrites for the next segment), lies in the root's shared heap, and is
     * what the root sent last time, unchanged (bcast_direct.c). The root's choice alone:
     * readers follow the cells. */
    if (c->rank != root)
        st->last_sent.buf = NULL; /* after another root's call my buffer is not "unchanged" */
    else if (!pk && user_dst && st->direct_ok &&
        (long long)m >= hc_cfg.bcast_direct_min.i && m >= sizeof(uint64_t) &&
        hc_heap_offset(stream, m) >= 0 && hc_bdirect_unchanged(st, stream, m, root))
        how |= HC_BSHM_DIRECT;
    if (c->num_nodes > 1 && c->local_rank_of[root] != 0 && m <= HC_BCAST_ROOT_TO_LEADERS_MAX &&
        m <= plan.seg) {
        /* one segment; the same decision on every rank (root and size only) */
        char *seg = pk ? stage : stream;
        if (pk && c->rank == root)
            hc_bpack_out(pk, seg, m);
        if (c->rank == root)
            root_to_leaders(c, st, seg, m, root);
        if (c->node == rnode) {
            node_stage(st, plan, seg, m, m, c->local_rank_of[root], how);
        } else {
            root_to_leaders(c, st, seg, m, root);
            node_stage(st, plan, seg, m, m, 0, how);
        }
        if (pk && c->rank != root)
            hc_bpack_in(pk, seg, m);
        hc_bshm_finish(st);
        return;
    }
    for (size_t off = 0; off < m; off += plan.seg) {
        size_t len = HC_MIN(plan.seg, m - off);
        char *seg = pk ? stage : stream + off;
        if (pk && c->rank == root)
            hc_bpack_out(pk, seg, len);
        if (c->node == rnode) {
            node_stage(st, plan, seg, len, off == 0 ? m : 0, c->local_rank_of[root], how);
            if (c->local_rank == 0 && c->num_nodes > 1)
                hc_pmpi_bcast(seg, (MPI_Count)len, MPI_BYTE, rnode, c->leaders);
        } else {
            if (c->local_rank == 0)
                hc_pmpi_bcast(seg, (MPI_Count)len, MPI_BYTE, rnode, c->leaders);
            node_stage(st, plan, seg, len, off == 0 ? m : 0, 0, how);
        }
        if (pk && c->rank != root)
            hc_bpack_in(pk, seg, len);
    }
    hc_bshm_finish(st);
}

int hc_bcast(void *buf, MPI_Count count, MPI_Datatype dt, int root, hc_comm *c)
{
    if (c->size == 1)
        return MPI_SUCCESS;
    if (root < 0 || root >= c->size || count < 0)
        return HC_FALLBACK; /* the vendor reports the error */
    int choice = c->bcast_choice >= 0 ? c->bcast_choice : (int)hc_cfg.bcast.i;
    if (choice == HC_BCAST_VENDOR || c->num_nodes == c->size)
        return HC_FALLBACK; /* nobody shares a node: nothing to gain */
    MPI_Count tsize;
    if (hc_type_size(dt, &tsize) != MPI_SUCCESS)
        return HC_FALLBACK;
    size_t m = (size_t)(tsize * count);
    if (m == 0)
        return MPI_SUCCESS;
    if ((long long)m > HC_MPI_PACK_ELEMENT_MAX)
        return HC_FALLBACK; /* one rank's element might be too large to pack (every rank sees m) */
    if (choice == HC_BCAST_AUTO)
        choice = hc_tuning_choose("bcast", (long long)m, c, builtin_choice((long long)m));
    if (choice == HC_BCAST_VENDOR)
        return HC_FALLBACK;
    hc_bstate *st = state_of(c);
    if (!st || st->failed)
        return HC_FALLBACK;

    bcast_plan plan = plan_for(c, st, choice, m);
    MPI_Count lb = 0;
    if (hc_dtype_contiguous(dt, &lb)) {
        hier_bcast(c, st, plan, (char *)buf + lb, m, root, NULL, NULL, 1);
        return MPI_SUCCESS;
    }
    /* Packed: root and readers may use different (count, type) of one signature. Element by
     * element per segment, unless one element outgrows a segment: then the whole message. */
    size_t seg = HC_MIN(plan.seg, m), esize = (size_t)tsize;
    if (esize <= seg) {
        char *stage = hc_must_alloc(seg + esize, "MPI_Bcast", "to pack a datatype");
        hc_bpack pk;
        hc_bpack_init(&pk, buf, dt, stage + seg, c->comm);
        hier_bcast(c, st, plan, NULL, m, root, &pk, stage, 0);
        free(stage);
        return MPI_SUCCESS;
    }
    char *tmp = hc_must_alloc(m, "MPI_Bcast", "to pack a datatype");
    MPI_Count pos = 0;
    if (c->rank == root)
        hc_pack(buf, count, dt, tmp, (MPI_Count)m, &pos, c->comm);
    hier_bcast(c, st, plan, tmp, m, root, NULL, NULL, 0);
    if (c->rank != root)
        hc_unpack(tmp, (MPI_Count)m, &pos, buf, count, dt, c->comm);
    free(tmp);
    return MPI_SUCCESS;
}
