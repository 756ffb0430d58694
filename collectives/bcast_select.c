/* MPI_Bcast: choose the path, turn any datatype into a contiguous byte stream, and compose the
 * intra-node queue broadcast with the node leaders' stage when the communicator spans nodes. */
#include <stdlib.h>

#include "bcast_pack.h"
#include "bcast_shm.h"
#include "hc_copy.h"
#include "hc_config.h"
#include "hc_log.h"
#include "hc_tuning.h"
#include "hc_util.h"

/* 1 when count elements of dt are one contiguous run of bytes in pack order starting at
 * buf + *lb. Only named types and (dups of) contiguous types of them qualify: a type whose
 * size equals its extent may still permute its bytes. */
static int is_contiguous(MPI_Datatype dt, MPI_Count *lb)
{
    int ni, na, nd, comb;
    MPI_Count tlb, text, size, elb, ext;
    if (PMPI_Type_get_envelope(dt, &ni, &na, &nd, &comb) != MPI_SUCCESS)
        return 0;
    PMPI_Type_get_true_extent_c(dt, &tlb, &text);
    PMPI_Type_get_extent_c(dt, &elb, &ext);
    PMPI_Type_size_c(dt, &size);
    *lb = tlb;
    if (size != text || size != ext)
        return 0;
    if (comb == MPI_COMBINER_NAMED)
        return 1;
    if ((comb != MPI_COMBINER_CONTIGUOUS && comb != MPI_COMBINER_DUP) || ni > 1 || na || nd != 1)
        return 0;
    int ints[1];
    MPI_Datatype inner;
    PMPI_Type_get_contents(dt, ni, na, nd, ints, NULL, &inner);
    MPI_Count ilb;
    int ok = is_contiguous(inner, &ilb);
    int in_ni, in_na, in_nd, in_comb;
    PMPI_Type_get_envelope(inner, &in_ni, &in_na, &in_nd, &in_comb);
    if (in_comb != MPI_COMBINER_NAMED)
        PMPI_Type_free(&inner);
    return ok;
}

static void state_free(hc_comm *c, void *state) { hc_bshm_destroy(state); }

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
    if (!st) {
        /* Out of memory before any collective: the peers are already inside one. */
        hc_error("MPI_Bcast: out of memory for the broadcast state");
        PMPI_Abort(c->comm, 1);
    }
    int ok = !st->failed, all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, c->comm);
    if (!all_ok && !st->failed) {
        hc_shm_destroy(&st->shm);
        st->failed = 1;
    }
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

/* Root's node first (root -> its node), then leaders, then the other nodes; segment by
 * segment, so node B's intra-node stage of one segment overlaps the leaders' next one, and a
 * packed datatype needs one segment of memory. The segment size depends on nothing a rank
 * chooses alone (not its datatype), so every rank makes the same queue calls. With pk, the
 * root packs each segment into stage and readers unpack it from there; else the segments
 * are read and written in place in stream. */
static void hier_bcast(hc_comm *c, hc_bstate *st, char *stream, size_t m, int root, int choice,
                       hc_bpack *pk, char *stage)
{
    int rnode = c->node_of[root];
    size_t chunk = (size_t)hc_cfg.bcast_hier_chunk.i;
    for (size_t off = 0; off < m; off += chunk) {
        size_t len = HC_MIN(chunk, m - off);
        char *seg = pk ? stage : stream + off;
        /* Streaming stores only into the user's buffer: a stage is read again at once. */
        int how = (want_cma(st, choice, len) ? HC_BSHM_CMA : 0) |
                  (m >= HC_COPY_NT_MIN && !pk ? HC_BSHM_STREAM : 0);
        if (pk && c->rank == root)
            hc_bpack_out(pk, seg, len);
        if (c->node == rnode) {
            hc_bshm_bcast(st, seg, len, c->local_rank_of[root], how);
            if (c->local_rank == 0 && c->num_nodes > 1)
                PMPI_Bcast_c(seg, (MPI_Count)len, MPI_BYTE, rnode, c->leaders);
        } else {
            if (c->local_rank == 0)
                PMPI_Bcast_c(seg, (MPI_Count)len, MPI_BYTE, rnode, c->leaders);
            hc_bshm_bcast(st, seg, len, 0, how);
        }
        if (pk && c->rank != root)
            hc_bpack_in(pk, seg, len);
    }
}

static void *alloc_or_abort(size_t bytes, hc_comm *c)
{
    void *p = malloc(bytes);
    if (!p) {
        hc_error("MPI_Bcast: cannot allocate %zu bytes to pack a derived datatype", bytes);
        PMPI_Abort(c->comm, 1);
    }
    return p;
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
    if (PMPI_Type_size_c(dt, &tsize) != MPI_SUCCESS)
        return HC_FALLBACK;
    size_t m = (size_t)(tsize * count);
    if (m == 0)
        return MPI_SUCCESS;
    if (choice == HC_BCAST_AUTO)
        choice = hc_tuning_choose("bcast", (long long)m, c, builtin_choice((long long)m));
    if (choice == HC_BCAST_VENDOR)
        return HC_FALLBACK;
    hc_bstate *st = state_of(c);
    if (!st || st->failed)
        return HC_FALLBACK;

    MPI_Count lb = 0;
    if (is_contiguous(dt, &lb)) {
        hier_bcast(c, st, (char *)buf + lb, m, root, choice, NULL, NULL);
        return MPI_SUCCESS;
    }
    /* Packed: root and readers may use different (count, type) of one signature. Element by
     * element per segment, unless one element outgrows a segment: then the whole message. */
    size_t seg = HC_MIN((size_t)hc_cfg.bcast_hier_chunk.i, m), esize = (size_t)tsize;
    if (esize <= seg) {
        char *stage = alloc_or_abort(seg + esize, c);
        hc_bpack pk;
        hc_bpack_init(&pk, buf, count, dt, stage + seg, c->comm);
        hier_bcast(c, st, NULL, m, root, choice, &pk, stage);
        free(stage);
        return MPI_SUCCESS;
    }
    char *tmp = alloc_or_abort(m, c);
    MPI_Count pos = 0;
    if (c->rank == root)
        PMPI_Pack_c(buf, count, dt, tmp, (MPI_Count)m, &pos, c->comm);
    hier_bcast(c, st, tmp, m, root, choice, NULL, NULL);
    if (c->rank != root)
        PMPI_Unpack_c(tmp, (MPI_Count)m, &pos, buf, count, dt, c->comm);
    free(tmp);
    return MPI_SUCCESS;
}
