/* The node-local dimension of the allreduce with single copies (Cross Memory Attach). Each
 * local rank owns one slice of the vector (balanced blocks). It pulls that slice of every
 * peer's input with process_vm_readv into a buffer small enough to stay in cache, reduces it
 * into its own receive buffer and, when no dimension lies beyond the node, pushes each reduced
 * chunk into every peer's receive buffer with process_vm_writev while it is still in cache.
 * Beyond the node, the slice first goes round the point-to-point ring, then is pushed; between
 * exactly two nodes it crosses in segments instead (cross_pair below).
 *
 * Against the staged engine (allreduce_shm.c) this saves the copy in and the copy out of the
 * segment and synchronises twice per call instead of twice per chunk: once to publish the
 * buffers' addresses, once to learn that every peer has read this rank's input and written
 * its slices of this rank's result. Slice j of any rank's buffers is read and then written by
 * rank j alone, so MPI_IN_PLACE needs no special case. */
#include <limits.h>
#include <string.h>

#include "allreduce_plan.h"
#include "hc_cma.h"
#include "hc_must.h"
#include "hc_util.h"

/* Segments of the two nodes' exchange in flight at once: while the link carries these, the
 * node reduces the next. */
#define HC_AR_PAIR_DEPTH 4
#define HC_AR_PAIR_TAG 300

/* Elements in `bytes` (a single copy's chunk, a pair segment), at least one element. */
static int64_t elems_in(const hc_red *r, size_t bytes)
{
    return HC_MAX((int64_t)1, (int64_t)(bytes / (size_t)r->extent));
}

static void push_to_peers(hc_comm *c, hc_ar_state *st, const hc_red *r, const void *src,
                          int64_t off, int64_t n)
{
    hc_ar_flag *f = hc_ar_flags(st);
    size_t at = (size_t)off * (size_t)r->extent, bytes = hc_red_span(r, n);
    for (int l = 0; l < c->local_size; l++)
        if (l != c->local_rank)
            hc_cma_must_write(f[l].pid, f[l].recv_addr + at, src, bytes, "MPI_Allreduce");
}

/* Elements [off, off+n) of every local rank's input reduced into recvbuf, chunk by chunk,
 * each chunk pushed to the peers' results when `push`. Between chunks the requests in
 * `busy` are tested, so the exchange across nodes moves on while this rank copies. */
static void node_reduce(hc_comm *c, hc_ar_state *st, const hc_red *r, const void *sendbuf,
                        void *recvbuf, int64_t off, int64_t n, int push, MPI_Request *busy,
                        int nbusy)
{
    hc_ar_flag *f = hc_ar_flags(st);
    int64_t chunk = elems_in(r, HC_AR_CMA_CHUNK);
    if (!st->cma_buf)
        st->cma_buf = hc_must_alloc(HC_AR_CMA_CHUNK, "MPI_Allreduce", "for single copies");
    char *pulled = st->cma_buf;
    for (int64_t done = 0; done < n; done += chunk) {
        int64_t k = HC_MIN(chunk, n - done), at_el = off + done;
        size_t at = (size_t)at_el * (size_t)r->extent, bytes = hc_red_span(r, k);
        char *dst = hc_red_at(r, recvbuf, at_el);
        const char *mine = hc_red_at(r, sendbuf, at_el);
        int first = 1;
        for (int l = 0; l < c->local_size; l++) {
            if (l == c->local_rank)
                continue;
            hc_cma_must_read(f[l].pid, f[l].send_addr + at, pulled, bytes, "MPI_Allreduce");
            hc_red_apply(r, dst, pulled, first ? mine : dst, k);
            first = 0;
        }
        if (push)
            push_to_peers(c, st, r, dst, at_el, k);
        for (int i = 0, flag = 1; i < nbusy && flag; i++) /* one test drives MPI's progress */
            if (busy[i] != MPI_REQUEST_NULL)
                PMPI_Test(&busy[i], &flag, MPI_STATUS_IGNORE);
    }
}

/* Segment j of the pair exchange: waits for it to cross both ways, combines the two nodes'
 * partial results in one order on both nodes (the lower node's first: both get the same
 * bits even from an operation that is commutative only up to rounding) and pushes the result
 * to the node's other ranks. */
static int finish_segment(hc_comm *c, hc_ar_state *st, const hc_red *r, void *recvbuf,
                          int64_t off, int64_t n, int low, char *theirs, MPI_Request *req)
{
    int rc = hc_ar_waitall(2, req);
    char *mine = hc_red_at(r, recvbuf, off);
    if (!low) {
        hc_red_apply(r, mine, theirs, mine, n);
    } else if (r->fn) { /* a kernel may write over its first operand */
        hc_red_apply(r, mine, mine, theirs, n);
    } else {
        hc_red_apply(r, theirs, mine, theirs, n);
        memcpy(mine, theirs, hc_red_span(r, n));
    }
    push_to_peers(c, st, r, mine, off, n);
    return rc;
}

/* Two nodes: slice [so, so+sl) crosses to the rank of the same local index on the other node
 * in segments, each sent as soon as the node stage has reduced it, so the link carries one
 * segment while the node reduces the next; it moves what the ring of two would (the slice
 * each way) in one step. */
static int cross_pair(hc_comm *c, hc_ar_state *st, const hc_ar_plan *p, const hc_red *r,
                      const void *sendbuf, void *recvbuf, int64_t so, int64_t sl)
{
    int partner = hc_lattice_shift(&p->lat, p->coords, 1, 1), low = p->coords[1] == 0;
    int64_t se = elems_in(r, p->pair_seg);
    se = HC_MIN(se, (int64_t)(INT_MAX / 2));
    size_t segb = (size_t)se * (size_t)r->extent;
    if (hc_ar_tmp_reserve(st, HC_AR_PAIR_DEPTH * segb) != 0)
        return MPI_ERR_NO_MEM;
    int64_t nseg = (sl + se - 1) / se;
    MPI_Request req[HC_AR_PAIR_DEPTH][2];
    for (int d = 0; d < HC_AR_PAIR_DEPTH; d++)
        req[d][0] = req[d][1] = MPI_REQUEST_NULL;
    int rc = MPI_SUCCESS;
    for (int64_t k = 0; k < nseg + HC_AR_PAIR_DEPTH; k++) {
        int slot = (int)(k % HC_AR_PAIR_DEPTH);
        int64_t j = k - HC_AR_PAIR_DEPTH; /* the segment whose buffer this one reuses */
        if (j >= 0) {
            int64_t off = so + j * se, n = HC_MIN(se, sl - j * se);
            int e = finish_segment(c, st, r, recvbuf, off, n, low, (char *)st->tmp + slot * segb,
                                   req[slot]);
            rc = e != MPI_SUCCESS ? e : rc;
        }
        if (k >= nseg)
            continue;
        int64_t off = so + k * se, n = HC_MIN(se, sl - k * se);
        node_reduce(c, st, r, sendbuf, recvbuf, off, n, 0, &req[0][0], 2 * HC_AR_PAIR_DEPTH);
        PMPI_Irecv((char *)st->tmp + slot * segb, (int)n, r->dt, partner, HC_AR_PAIR_TAG,
                   st->comm, &req[slot][0]);
        PMPI_Isend(hc_red_at(r, recvbuf, off), (int)n, r->dt, partner, HC_AR_PAIR_TAG, st->comm,
                   &req[slot][1]);
    }
    return rc;
}

int hc_ar_cma_ring(hc_comm *c, hc_ar_state *st, const hc_ar_plan *p, const hc_red *r,
                   const void *sendbuf, void *recvbuf, int64_t count)
{
    hc_ar_flag *f = hc_ar_flags(st);
    int me = c->local_rank, across = p->lat.d > 1, rc = MPI_SUCCESS;
    f[me].send_addr = (uint64_t)(uintptr_t)sendbuf;
    f[me].recv_addr = (uint64_t)(uintptr_t)recvbuf;
    hc_ar_sync(c, st);

    int64_t so, sl;
    hc_ring_block(0, count, c->local_size, me, &so, &sl);
    if (hc_ar_cma_pairs(p)) {
        rc = cross_pair(c, st, p, r, sendbuf, recvbuf, so, sl);
    } else {
        node_reduce(c, st, r, sendbuf, recvbuf, so, sl, !across, NULL, 0);
        if (across && sl > 0) {
            rc = hc_ring_run(st, r, recvbuf, recvbuf, &p->lat, p->coords, 1, so, sl, p->packet);
            int64_t chunk = elems_in(r, HC_AR_CMA_CHUNK);
            for (int64_t done = 0; done < sl; done += chunk)
                push_to_peers(c, st, r, hc_red_at(r, recvbuf, so + done), so + done,
                              HC_MIN(chunk, sl - done));
        }
    }
    hc_ar_sync(c, st);
    return rc;
}
