/* The node-local dimension of the allreduce through one shared segment: every rank copies
 * its chunk in, reduces its slice reading all peers' chunks directly, and copies the reduced
 * slices out. Small vectors skip the split: every rank reduces all of them, in the same
 * order everywhere, so results stay identical.
 *
 * Synchronisation is one counter per rank: a rank's work in phase q writes only buffers of
 * parity q & 1, then it publishes q+1 and waits until every peer has. What is written in
 * phase q is read in phase q+1 and rewritten no earlier than q+2, after every reader has
 * published q+2; so two parities suffice and no extra barrier is needed. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "allreduce_plan.h"
#include "hc_cma.h"
#include "hc_copy.h"
#include "hc_log.h"
#include "hc_must.h"
#include "hc_mpi.h"
#include "hc_util.h"
#include "hc_wait.h"

/* Up to this many bytes per vector, every rank reduces every vector (latency path): its one
 * synchronisation against the staged engine's two pays for reducing every vector up to 4 KiB
 * between two ranks, up to 16 KiB among more (docs/algorithms-allreduce.md). */
#define HC_AR_SMALL_BYTES_PAIR (4 * 1024)
#define HC_AR_SMALL_BYTES (16 * 1024)
#define HC_AR_LEADERS_TAG 7

static size_t header_bytes(int nlocal)
{
    return HC_ALIGN_UP((size_t)nlocal * sizeof(hc_ar_flag), 4096);
}


hc_ar_flag *hc_ar_flags(hc_ar_state *st) { return st->shm.seg.base; }

/* Input slot of local rank l, or the result slot when l == nlocal, in set `parity`. */
static char *slot(hc_comm *c, hc_ar_state *st, int parity, int l)
{
    size_t stride = st->shm.slot_bytes + HC_ALIAS_SPAN;
    size_t set = (size_t)(c->local_size + 1) * stride;
    return (char *)st->shm.seg.base + header_bytes(c->local_size) + (size_t)parity * set +
           (size_t)l * stride;
}

void hc_ar_sync(hc_comm *c, hc_ar_state *st)
{
    hc_ar_flag *f = hc_ar_flags(st);
    uint64_t q = ++st->shm.phase;
    atomic_store_explicit(&f[c->local_rank].seq, q, memory_order_release);
    for (int l = 0; l < c->local_size; l++) {
        hc_backoff b = HC_BACKOFF_INIT;
        while (atomic_load_explicit(&f[l].seq, memory_order_acquire) < q)
            hc_backoff_wait(&b);
    }
}

int hc_ar_shm_setup(hc_comm *c, hc_ar_state *st)
{
    if (st->shm_state)
        return st->shm_state == 1;
    /* Slots large enough to amortise two synchronisations, small enough to stay in cache. */
    size_t slot = (4u << 20) / (size_t)c->local_size;
    slot = HC_ALIGN_UP(HC_MAX(HC_MIN(slot, (size_t)1 << 20), HC_AR_SLOT_MIN), 4096);
    st->shm.slot_bytes = slot;
    st->shm.phase = 0;
    hc_slot_writer_init(&st->shm.writer);
    size_t bytes = header_bytes(c->local_size) + 2 * (size_t)(c->local_size + 1) * (slot + HC_ALIAS_SPAN);
    int ok = c->local_size < 2 || hc_shm_create(c, bytes, &st->shm.seg) == 0, cma = 0;
    if (ok && c->local_size > 1) {
        hc_ar_flag *mine = &hc_ar_flags(st)[c->local_rank];
        if (st->shm.seg.reused) /* the slots' bytes need not start at zero */
            memset(mine, 0, sizeof *mine);
        mine->pid = getpid();
        mine->probe = hc_cma_probe_addr();
    }
    /* Whether CMA works is known once every rank has published its probe word. */
    PMPI_Barrier(c->comm);
    if (ok && c->local_size > 1) {
        hc_ar_flag *peer = &hc_ar_flags(st)[(c->local_rank + 1) % c->local_size];
        cma = hc_cma_probe(peer->pid, peer->probe);
    }
    /* Nodes must agree too: one node on the vendor path while another runs the ring hangs. */
    int v[2] = {ok, cma}, all[2];
    PMPI_Allreduce(v, all, 2, MPI_INT, MPI_LAND, c->comm);
    if (!all[0])
        hc_ar_shm_free(st);
    st->shm_state = all[0] ? 1 : -1;
    st->cma_ok = all[0] && all[1];
    return all[0];
}


int64_t hc_ar_shm_small_max(hc_comm *c, hc_ar_state *st, const hc_red *r)
{
    /* Two ranks sharing one node; from c, not the node, so every rank chooses alike. */
    size_t small = c->size == 2 && c->num_nodes == 1 ? HC_AR_SMALL_BYTES_PAIR : HC_AR_SMALL_BYTES;
    size_t lim = HC_MIN(small, st->shm.slot_bytes);
    return (int64_t)(lim / (size_t)r->extent);
}

/* dst = slice [off, off+n) of every local rank's input, reduced in local-rank order. */
static void reduce_inputs(hc_comm *c, hc_ar_state *st, const hc_red *r, int parity, void *dst,
                          int64_t off, int64_t n)
{
    hc_red_apply(r, dst, hc_red_at(r, slot(c, st, parity, 1), off),
                 hc_red_at(r, slot(c, st, parity, 0), off), n);
    for (int l = 2; l < c->local_size; l++)
        hc_red_apply(r, dst, hc_red_at(r, slot(c, st, parity, l), off), dst, n);
}

/* Every local rank's vector of at most HC_AR_INLINE_BYTES from the flag lines, reduced in
 * local-rank order as reduce_inputs does. */
static void reduce_inline(hc_comm *c, hc_ar_state *st, const hc_red *r, int parity, void *dst,
                          int64_t n)
{
    hc_ar_flag *f = hc_ar_flags(st);
    hc_red_apply(r, dst, f[1].inline_data[parity], f[0].inline_data[parity], n);
    for (int l = 2; l < c->local_size; l++)
        hc_red_apply(r, dst, f[l].inline_data[parity], dst, n);
}

int hc_ar_shm_small(hc_comm *c, hc_ar_state *st, const hc_red *r, const void *sendbuf,
                    void *recvbuf, int64_t count)
{
    int parity = (int)(st->shm.phase & 1);
    size_t span = hc_red_span(r, count);
    if (span <= HC_AR_INLINE_BYTES) {
        memcpy(hc_ar_flags(st)[c->local_rank].inline_data[parity], sendbuf, span);
        hc_ar_sync(c, st);
        reduce_inline(c, st, r, parity, recvbuf, count);
        return MPI_SUCCESS;
    }
    memcpy(slot(c, st, parity, c->local_rank), sendbuf, span);
    hc_ar_sync(c, st);
    reduce_inputs(c, st, r, parity, recvbuf, 0, count);
    return MPI_SUCCESS;
}

/* *mine and the partner's partial in *theirs combined into *mine. The higher-numbered
 * side's partial is always the kernel's first operand (as in reduce_inputs), so both
 * partners compute the same bits even where an op is not bitwise symmetric (MIN of -0.0 and
 * +0.0, a user op); the kernel writes over its second operand, so the higher side swaps its
 * buffers instead of copying. */
static void combine(const hc_red *r, int mine_is_higher, char **mine, char **theirs,
                    int64_t count)
{
    if (!mine_is_higher) {
        hc_red_apply(r, *mine, *theirs, *mine, count);
        return;
    }
    hc_red_apply(r, *theirs, *mine, *theirs, count);
    char *t = *mine;
    *mine = *theirs;
    *theirs = t;
}

/* Among the node leaders, in place on buf: recursive doubling with hiercoll's kernels (every
 * leader ends with the same bits; the vendor's MPICH gets MIN/MAX of small unsigned types
 * wrong and declines derived types). With p leaders and q the largest power of two <= p, the
 * first 2 (p - q) fold in pairs (the odd one reduces, the even one waits), q take part, and
 * the odd ones hand the result back. Vectors are small here (HC_AR_SMALL_BYTES), so each
 * round sends the whole vector. */
static int leaders_allreduce(hc_comm *c, hc_ar_state *st, const hc_red *r, void *buf,
                             int64_t count)
{
    int p = c->num_nodes, me, q = 1;
    while (2 * q <= p)
        q *= 2;
    int rem = p - q;
    size_t span = hc_red_span(r, count);
    if (c->rank == 0 && !(st->announced & 8)) {
        hc_info(2, "allreduce small vectors among %d node leaders: recursive doubling", p);
        st->announced |= 8;
    }
    if (hc_ar_tmp_reserve(st, span) != 0) /* the other leaders already wait in the exchange */
        hc_abort(c->comm, MPI_ERR_NO_MEM,
                 "MPI_Allreduce: out of memory for the leaders' exchange (%zu bytes)", span);
    PMPI_Comm_rank(c->leaders, &me);
    char *mine = buf, *theirs = st->tmp;
    int rc = MPI_SUCCESS;
    if (me < 2 * rem && me % 2 == 0) { /* folded into me + 1, which sends the result back */
        rc = PMPI_Send(mine, (int)count, r->dt, me + 1, HC_AR_LEADERS_TAG, c->leaders);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Recv(mine, (int)count, r->dt, me + 1, HC_AR_LEADERS_TAG, c->leaders,
                           MPI_STATUS_IGNORE);
        return rc;
    }
    if (me < 2 * rem) {
        rc = PMPI_Recv(theirs, (int)count, r->dt, me - 1, HC_AR_LEADERS_TAG, c->leaders,
                       MPI_STATUS_IGNORE);
        combine(r, 1, &mine, &theirs, count);
    }
    /* Rank among the q taking part, and back: the folded pairs first, one per pair. */
    int v = me < 2 * rem ? me / 2 : me - rem;
    for (int mask = 1; mask < q && rc == MPI_SUCCESS; mask <<= 1) {
        int pv = v ^ mask, partner = pv < rem ? 2 * pv + 1 : pv + rem;
        rc = PMPI_Sendrecv(mine, (int)count, r->dt, partner, HC_AR_LEADERS_TAG, theirs,
                           (int)count, r->dt, partner, HC_AR_LEADERS_TAG, c->leaders,
                           MPI_STATUS_IGNORE);
        combine(r, v > pv, &mine, &theirs, count);
    }
    if (me < 2 * rem && rc == MPI_SUCCESS)
        rc = PMPI_Send(mine, (int)count, r->dt, me - 1, HC_AR_LEADERS_TAG, c->leaders);
    if (mine != buf)
        memcpy(buf, mine, span);
    return rc;
}

int hc_ar_shm_small_nodes(hc_comm *c, hc_ar_state *st, const hc_red *r, const void *sendbuf,
                          void *recvbuf, int64_t count)
{
    size_t span = hc_red_span(r, count);
    int rc = MPI_SUCCESS;
    if (c->local_size == 1) {
        if (sendbuf != recvbuf)
            memcpy(recvbuf, sendbuf, span);
        return leaders_allreduce(c, st, r, recvbuf, count);
    }
    int parity = (int)(st->shm.phase & 1);
    memcpy(slot(c, st, parity, c->local_rank), sendbuf, span);
    hc_ar_sync(c, st);
    char *res = slot(c, st, (int)(st->shm.phase & 1), c->local_size);
    if (c->local_rank == 0) {
        reduce_inputs(c, st, r, parity, recvbuf, 0, count);
        rc = leaders_allreduce(c, st, r, recvbuf, count);
        memcpy(res, recvbuf, span);
    }
    hc_ar_sync(c, st);
    if (c->local_rank != 0)
        memcpy(recvbuf, res, span);
    return rc;
}

/* dst = slice [off, off+n) of the chunk reduced over the local ranks, this rank's part read
 * from mine (its own buffer, which dst may be). Only this rank reduces this slice, so any
 * fixed order keeps every rank's copy identical. */
static void reduce_slice(hc_comm *c, hc_ar_state *st, const hc_red *r, int parity,
                         const void *mine, void *dst, int64_t off, int64_t n)
{
    int first = 1;
    for (int l = 0; l < c->local_size; l++) {
        if (l == c->local_rank)
            continue;
        const char *peer = hc_red_at(r, slot(c, st, parity, l) + hc_ar_flags(st)[l].in_shift, off);
        hc_red_apply(r, dst, peer, first ? mine : dst, n);
        first = 0;
    }
}

static void copy_out(void *dst, const void *src, size_t bytes, int stream)
{
    if (stream)
        hc_copy_nt(dst, src, bytes);
    else
        memcpy(dst, src, bytes);
}

int hc_ar_shm_ring(hc_comm *c, hc_ar_state *st, const hc_ar_plan *p, const hc_red *r,
                   const void *sendbuf, void *recvbuf, int64_t count)
{
    int64_t chunk = (int64_t)(st->shm.slot_bytes / (size_t)r->extent);
    int across = p->lat.d > 1; /* dimensions beyond the node: the slice goes round them */
    int stream = hc_red_span(r, count) >= HC_COPY_NT_MIN;
    int rc = MPI_SUCCESS;
    for (int64_t start = 0; start < count; start += chunk) {
        int64_t n = HC_MIN(chunk, count - start), so, sl;
        int in = (int)(st->shm.phase & 1);
        const char *src = hc_red_at(r, sendbuf, start);
        char *dst = hc_red_at(r, recvbuf, start);
        /* Slot data at the user buffers' offsets (hc_copy.h; slots have HC_ALIAS_SPAN to
         * spare): my input slot follows my send buffer, the result slot local rank 0's
         * receive buffer (everyone's offset when the ranks allocate alike). Read by the peers
         * between the two synchronisations, rewritten only after the second. */
        hc_ar_flag *mine = &hc_ar_flags(st)[c->local_rank];
        mine->in_shift = (uint32_t)hc_alias_offset(src);
        mine->res_shift = (uint32_t)hc_alias_offset(dst);
        char *myin = slot(c, st, in, c->local_rank) + mine->in_shift;
        hc_ring_block(0, n, c->local_size, c->local_rank, &so, &sl);
        /* Peers need every slice but this rank's own, which it reads in place. */
        hc_slot_write(&st->shm.writer, myin, src, hc_red_span(r, so));
        if (so + sl < n)
            hc_slot_write(&st->shm.writer, hc_red_at(r, myin, so + sl),
                          hc_red_at(r, src, so + sl), hc_red_span(r, n - so - sl));
        hc_ar_sync(c, st);

        /* The slice is reduced into this rank's receive buffer (beyond the node it then goes
         * round the ring there) and published in the result slot; every rank copies the
         * others' slices out. Never reading its own slice back from the slot matters: a
         * slot line read by both this rank and the peers costs about 3x more to write again
         * in the next call (docs/algorithms-allreduce.md). */
        int out = (int)(st->shm.phase & 1);
        char *res = slot(c, st, out, c->local_size) + hc_ar_flags(st)[0].res_shift;
        if (sl > 0) {
            reduce_slice(c, st, r, in, hc_red_at(r, src, so), hc_red_at(r, dst, so), so, sl);
            if (across) {
                int e = hc_ring_run(st, r, recvbuf, recvbuf, &p->lat, p->coords, 1, start + so, sl,
                                    p->packet);
                if (e != MPI_SUCCESS)
                    rc = e;
            }
            hc_slot_write(&st->shm.writer, hc_red_at(r, res, so), hc_red_at(r, dst, so),
                          hc_red_span(r, sl));
        }
        hc_ar_sync(c, st);
        copy_out(dst, res, hc_red_span(r, so), stream);
        if (so + sl < n)
            copy_out(hc_red_at(r, dst, so + sl), hc_red_at(r, res, so + sl),
                     hc_red_span(r, n - so - sl), stream);
    }
    return rc;
}
