/* The node-local dimension of the allreduce with single copies (Cross Memory Attach). Each
 * local rank owns one slice of the vector (balanced blocks). It pulls that slice of every
 * peer's input with process_vm_readv into a buffer small enough to stay in cache, reduces it
 * into its own receive buffer and, when no dimension lies beyond the node, pushes each reduced
 * chunk into every peer's receive buffer with process_vm_writev while it is still in cache.
 * Beyond the node, the slice first goes round the point-to-point ring, then is pushed.
 *
 * Against the staged engine (allreduce_shm.c) this saves the copy in and the copy out of the
 * segment and synchronises twice per call instead of twice per chunk: once to publish the
 * buffers' addresses, once to learn that every peer has read this rank's input and written
 * its slices of this rank's result. Slice j of any rank's buffers is read and then written by
 * rank j alone, so MPI_IN_PLACE needs no special case. */
#include "allreduce_plan.h"
#include "hc_cma.h"
#include "hc_must.h"
#include "hc_util.h"

static void push_to_peers(hc_comm *c, hc_ar_state *st, const hc_red *r, const void *src,
                          int64_t off, int64_t n)
{
    hc_ar_flag *f = hc_ar_flags(st);
    size_t at = (size_t)off * (size_t)r->extent, bytes = hc_red_span(r, n);
    for (int l = 0; l < c->local_size; l++)
        if (l != c->local_rank)
            hc_cma_must_write(f[l].pid, f[l].recv_addr + at, src, bytes, "MPI_Allreduce");
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
    int64_t chunk = HC_MAX((int64_t)1, (int64_t)(HC_AR_CMA_CHUNK / (size_t)r->extent));
    if (!st->cma_buf)
        st->cma_buf = hc_must_alloc(HC_AR_CMA_CHUNK, "MPI_Allreduce", "for single copies");
    char *pulled = st->cma_buf;
    for (int64_t done = 0; done < sl; done += chunk) {
        int64_t n = HC_MIN(chunk, sl - done), off = so + done;
        size_t at = (size_t)off * (size_t)r->extent, bytes = hc_red_span(r, n);
        char *dst = hc_red_at(r, recvbuf, off);
        const char *mine = hc_red_at(r, sendbuf, off);
        int first = 1;
        for (int l = 0; l < c->local_size; l++) {
            if (l == me)
                continue;
            hc_cma_must_read(f[l].pid, f[l].send_addr + at, pulled, bytes, "MPI_Allreduce");
            hc_red_apply(r, dst, pulled, first ? mine : dst, n);
            first = 0;
        }
        if (!across)
            push_to_peers(c, st, r, dst, off, n);
    }
    if (across && sl > 0) {
        rc = hc_ring_run(st, r, recvbuf, recvbuf, &p->lat, p->coords, 1, so, sl, p->packet);
        for (int64_t done = 0; done < sl; done += chunk)
            push_to_peers(c, st, r, hc_red_at(r, recvbuf, so + done), so + done,
                          HC_MIN(chunk, sl - done));
    }
    hc_ar_sync(c, st);
    return rc;
}
