/* The point-to-point multidimensional ring of seed 001, pipelined: each block travels in
 * packets, and a packet is reduced (or, in the allgather, landed) and forwarded to the next
 * rank as soon as it arrives, while the following packets are still in flight (the paper's
 * version 2, with every request completed). */
#include <stdlib.h>
#include <string.h>

#include "allreduce_plan.h"
#include "hc_util.h"

/* Receive buffers of the reduce-scatter: while one is reduced, the others fill. */
#define HC_RING_NBUF 4
#define HC_RING_TAG_RS 100
#define HC_RING_TAG_AG 200

/* One dimension's ring: neighbours, the segment it splits and the packet size. */
typedef struct dim_ring {
    MPI_Comm comm;
    int r, c, next, prev;
    int64_t off, len, pe; /* segment, elements per packet */
} dim_ring;

static int64_t packets_of(int64_t n, int64_t pe) { return (n + pe - 1) / pe; }

/* Bound on the packets one rank sends (or receives) in one dimension. */
static size_t max_packets(const dim_ring *d)
{
    return (size_t)d->r * (size_t)packets_of(d->len / d->r + 1, d->pe) + 1;
}

static void send_block(const dim_ring *d, const hc_red *r, const void *base, int blk,
                       int tag, MPI_Request *req, int *nreq)
{
    int64_t boff, blen;
    hc_ring_block(d->off, d->len, d->r, blk, &boff, &blen);
    for (int64_t j = 0; j < blen; j += d->pe)
        PMPI_Isend(hc_red_at(r, base, boff + j), (int)HC_MIN(d->pe, blen - j), r->dt, d->next,
                   tag, d->comm, &req[(*nreq)++]);
}

static int reduce_scatter_dim(const dim_ring *d, const hc_red *r, const void *src, void *dst,
                              char *tmp, int tag)
{
    MPI_Request *sreq = malloc(max_packets(d) * sizeof(MPI_Request)), rreq[HC_RING_NBUF];
    if (!sreq)
        return MPI_ERR_NO_MEM;
    int nsend = 0, rc = MPI_SUCCESS;
    size_t bufb = (size_t)d->pe * (size_t)r->extent;
    /* Step 0 sends this rank's own data; every later step forwards what it just reduced. */
    send_block(d, r, src, hc_ring_rs_send(d->c, d->r, 0), tag, sreq, &nsend);
    for (int s = 0; s < d->r - 1; s++) {
        int64_t boff, blen;
        hc_ring_block(d->off, d->len, d->r, hc_ring_rs_recv(d->c, d->r, s), &boff, &blen);
        int64_t np = packets_of(blen, d->pe);
        for (int64_t j = 0; j < np && j < HC_RING_NBUF; j++)
            PMPI_Irecv(tmp + j * bufb, (int)HC_MIN(d->pe, blen - j * d->pe), r->dt, d->prev,
                       tag, d->comm, &rreq[j]);
        for (int64_t j = 0; j < np; j++) {
            int b = (int)(j % HC_RING_NBUF);
            int64_t po = boff + j * d->pe, pn = HC_MIN(d->pe, blen - j * d->pe);
            int e = hc_ar_wait(&rreq[b]);
            if (e != MPI_SUCCESS)
                rc = e;
            hc_red_apply(r, hc_red_at(r, dst, po), tmp + b * bufb, hc_red_at(r, src, po), pn);
            if (s < d->r - 2)
                PMPI_Isend(hc_red_at(r, dst, po), (int)pn, r->dt, d->next, tag, d->comm,
                           &sreq[nsend++]);
            int64_t k = j + HC_RING_NBUF;
            if (k < np)
                PMPI_Irecv(tmp + b * bufb, (int)HC_MIN(d->pe, blen - k * d->pe), r->dt,
                           d->prev, tag, d->comm, &rreq[b]);
        }
    }
    int e = hc_ar_waitall(nsend, sreq);
    free(sreq);
    return rc != MPI_SUCCESS ? rc : e;
}

static int allgather_dim(const dim_ring *d, const hc_red *r, void *buf, int tag)
{
    size_t maxp = max_packets(d);
    MPI_Request *sreq = malloc(maxp * sizeof(MPI_Request));
    MPI_Request *rreq = malloc(maxp * sizeof(MPI_Request));
    int64_t *roff = malloc(maxp * 2 * sizeof(int64_t)); /* offset, elements to forward */
    if (!sreq || !rreq || !roff) {
        free(sreq), free(rreq), free(roff);
        return MPI_ERR_NO_MEM;
    }
    int nsend = 0, nrecv = 0, rc = MPI_SUCCESS;
    send_block(d, r, buf, hc_ring_ag_send(d->c, d->r, 0), tag, sreq, &nsend);
    /* Every packet lands in its final place, so all receives can be posted at once. */
    for (int s = 0; s < d->r - 1; s++) {
        int64_t boff, blen;
        hc_ring_block(d->off, d->len, d->r, hc_ring_ag_recv(d->c, d->r, s), &boff, &blen);
        for (int64_t j = 0; j < blen; j += d->pe) {
            int64_t pn = HC_MIN(d->pe, blen - j);
            roff[2 * nrecv] = boff + j;
            roff[2 * nrecv + 1] = pn * (s < d->r - 2); /* forward it? */
            PMPI_Irecv(hc_red_at(r, buf, boff + j), (int)pn, r->dt, d->prev, tag, d->comm,
                       &rreq[nrecv++]);
        }
    }
    for (int i = 0; i < nrecv; i++) {
        int e = hc_ar_wait(&rreq[i]);
        if (e != MPI_SUCCESS)
            rc = e;
        if (roff[2 * i + 1])
            PMPI_Isend(hc_red_at(r, buf, roff[2 * i]), (int)roff[2 * i + 1], r->dt, d->next,
                       tag, d->comm, &sreq[nsend++]);
    }
    int e = hc_ar_waitall(nsend, sreq);
    free(sreq), free(rreq), free(roff);
    return rc != MPI_SUCCESS ? rc : e;
}

static void dim_setup(dim_ring *d, hc_ar_state *st, const hc_lattice *lat, const int *coords,
                      int k0, int k, int64_t off, int64_t len, int64_t pe)
{
    d->comm = st->comm;
    d->r = lat->dims[k];
    d->c = coords[k];
    d->next = hc_lattice_shift(lat, coords, k, 1);
    d->prev = hc_lattice_shift(lat, coords, k, -1);
    d->pe = pe;
    hc_ring_segment(lat, coords, k0, k, off, len, &d->off, &d->len);
}

int hc_ring_run(hc_ar_state *st, const hc_red *r, const void *sendbuf, void *recvbuf,
                const hc_lattice *lat, const int *coords, int k0, int64_t off, int64_t len,
                size_t packet)
{
    if (k0 >= lat->d || len == 0) {
        if (sendbuf != recvbuf && len)
            memcpy(hc_red_at(r, recvbuf, off), hc_red_at(r, sendbuf, off), hc_red_span(r, len));
        return MPI_SUCCESS;
    }
    int64_t pe = (int64_t)(packet / (size_t)r->extent);
    if (pe < 1)
        pe = 1;
    size_t need = (size_t)HC_RING_NBUF * (size_t)pe * (size_t)r->extent;
    if (hc_ar_tmp_reserve(st, need) != 0)
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    dim_ring d;
    for (int k = k0; k < lat->d && rc == MPI_SUCCESS; k++) {
        dim_setup(&d, st, lat, coords, k0, k, off, len, pe);
        /* The first dimension reads the caller's data; later ones the reduced segment. */
        rc = reduce_scatter_dim(&d, r, k == k0 ? sendbuf : recvbuf, recvbuf, st->tmp,
                                HC_RING_TAG_RS + k);
    }
    for (int k = lat->d - 1; k >= k0 && rc == MPI_SUCCESS; k--) {
        dim_setup(&d, st, lat, coords, k0, k, off, len, pe);
        rc = allgather_dim(&d, r, recvbuf, HC_RING_TAG_AG + k);
    }
    return rc;
}
