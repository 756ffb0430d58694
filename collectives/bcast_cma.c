/* The cooperative single-copy broadcast among the ranks of one node (docs/algorithms-bcast.md):
 * every reader pulls its stream from the front with process_vm_readv while the root pushes it
 * from the back with process_vm_writev; one CAS word per reader splits the chunks. */
#include <string.h>
#include <unistd.h>

#include "bcast_shm.h"
#include "hc_copy.h"
#include "hc_heap.h"
#include "hc_must.h"
#include "hc_util.h"
#include "hc_wait.h"

/* Cooperative CMA: the stream is cut into chunks of this size (or larger for streams beyond
 * 4 TiB, so the chunk count fits a claim field). 256 KiB measured best for one reader pulling
 * while the root pushes, on 2..32 MiB (128 KiB and 512 KiB within 15%, 64 KiB and 1 MiB
 * 1.5-1.8x slower at 8 MiB; docs/algorithms-bcast.md). */
#define HC_CMA_CHUNK ((size_t)256 << 10)
/* cma_claim = tag << 48 | back << 24 | front: chunks [0, front) are the reader's, the last
 * `back` chunks the root's. The tag, (g + 1) mod 2^16, makes a claim of an earlier call that
 * comes too late fail instead of landing in the reader's next stream. */
#define CLAIM_FIELD_BITS 24
#define CLAIM_FIELD_MAX ((1ull << CLAIM_FIELD_BITS) - 1)
#define CLAIM_TAG_SHIFT (2 * CLAIM_FIELD_BITS)

static size_t cma_chunk_bytes(size_t m)
{
    size_t for_field = (m + CLAIM_FIELD_MAX - 1) / CLAIM_FIELD_MAX;
    return HC_MAX(HC_CMA_CHUNK, HC_ALIGN_UP(for_field, (size_t)4096));
}

static uint64_t claim_tag(uint64_t g) { return (g + 1) & 0xffff; }

static uint64_t claim_word(uint64_t tag, uint64_t front, uint64_t back)
{
    return tag << CLAIM_TAG_SHIFT | back << CLAIM_FIELD_BITS | front;
}

/* Claims the next chunk of one reader's stream, from the front (the reader) or the back (the
 * root). Returns its index, or -1 when every chunk is claimed (then *back_total is the root's
 * final share) or the word already belongs to a later call. Relaxed is enough: a claim only
 * splits the work; the data is published through cma_pushed and done. */
static int64_t claim_chunk(_Atomic uint64_t *word, uint64_t tag, uint64_t nchunks, int from_back,
                           uint64_t *back_total)
{
    uint64_t w = atomic_load_explicit(word, memory_order_relaxed);
    for (;;) {
        if (w >> CLAIM_TAG_SHIFT != tag)
            return -1;
        uint64_t front = w & CLAIM_FIELD_MAX, back = (w >> CLAIM_FIELD_BITS) & CLAIM_FIELD_MAX;
        if (front + back >= nchunks) {
            *back_total = back;
            return -1;
        }
        uint64_t next = from_back ? claim_word(tag, front, back + 1)
                                  : claim_word(tag, front + 1, back);
        if (atomic_compare_exchange_weak_explicit(word, &w, next, memory_order_relaxed,
                                                  memory_order_relaxed))
            return (int64_t)(from_back ? nchunks - 1 - back : front);
    }
}

/* Root of a CMA call: announce my stream, then push chunks from the back of every reader that
 * has published its buffer, one chunk per reader per round, so a late or descheduled reader
 * holds up nobody; a reader that finished (or moved on) leaves the round. My stream must stay
 * valid until every reader is done. */
static void root_side(hc_bstate *st, const char *src, size_t m, size_t total, int how)
{
    int me = st->me, n = st->n;
    uint64_t g = st->seq++;
    hc_bshm_claim_cell(st, g);
    hc_bcma_where where = {(uint64_t)getpid(), (uint64_t)(uintptr_t)src, total,
                           st->heaps_ok ? hc_heap_offset(src, m) : -1};
    hc_bshm_notify(st, me, g, HC_BCELL_CMA | (how & HC_BSHM_MEASURE ? HC_BCELL_MEASURE : 0), 0,
                   &where, sizeof where);

    size_t chunk = cma_chunk_bytes(m);
    uint64_t nchunks = (m + chunk - 1) / chunk, tag = claim_tag(g);
    memset(st->cma_idle, 0, (size_t)n);
    st->cma_idle[me] = 1;
    int idle = 1;
    hc_backoff b = HC_BACKOFF_INIT;
    while (idle < n) {
        int pushed_any = 0;
        for (int i = 1; i < n; i++) {
            int r = (me + i) % n;
            if (st->cma_idle[r])
                continue;
            hc_bhead *h = head_of(st, r);
            uint64_t published = atomic_load_explicit(&h->cma_seq, memory_order_acquire);
            if (published < g + 1)
                continue; /* not here yet: serve the others meanwhile */
            uint64_t back_total;
            int64_t k = published == g + 1
                            ? claim_chunk(&h->cma_claim, tag, nchunks, 1, &back_total)
                            : -1;
            if (k < 0) {
                st->cma_idle[r] = 1;
                idle++;
                continue;
            }
            /* A successful claim means this reader is not finished (it waits for this push), so
             * cma_len and cma_dst still describe this call. Read before the claim, the length
             * could already be the reader's next call's. */
            uint64_t room = atomic_load_explicit(&h->cma_len, memory_order_relaxed);
            if (room != m) /* an erroneous program: never write past it */
                hc_abort(MPI_COMM_WORLD, MPI_ERR_TRUNCATE,
                         "MPI_Bcast: the root sends %zu bytes, local rank %d receives %llu: "
                         HC_BCAST_ONE_SIGNATURE,
                         m, r, (unsigned long long)room);
            size_t off = (size_t)k * chunk, len = HC_MIN(chunk, m - off);
            uint64_t dst = atomic_load_explicit(&h->cma_dst, memory_order_relaxed);
            int64_t dst_heap = atomic_load_explicit(&h->cma_dst_heap, memory_order_relaxed);
            if (dst_heap >= 0) /* around my caches: the reader takes it from memory */
                hc_copy_nt(st->peer_heap[r] + dst_heap + off, src + off, len);
            else
                hc_cma_must_write(h->pid, dst + off, src + off, len, "MPI_Bcast");
            atomic_fetch_add_explicit(&h->cma_pushed, 1, memory_order_release);
            pushed_any = 1;
        }
        if (pushed_any)
            b = (hc_backoff)HC_BACKOFF_INIT;
        else if (idle < n)
            hc_backoff_wait(&b);
    }
    b = (hc_backoff)HC_BACKOFF_INIT;
    for (int r = 0; r < n; r++)
        while (r != me && atomic_load_explicit(&head_of(st, r)->done, memory_order_acquire) < g + 1)
            hc_backoff_wait(&b);
    st->known_min = g + 1;
    /* A root has finished its own fragment too: the next roots wait for every peer's done. */
    atomic_store_explicit(&head_of(st, me)->done, st->seq, memory_order_release);
}

/* Reader of a CMA call: publish my buffer at once (the root may start pushing before its cell
 * reaches me), then pull chunks from the front until the claims meet, then wait for the root's
 * share to land. */
static void reader_side(hc_bstate *st, char *dst, size_t m, size_t total, int lroot)
{
    uint64_t g = st->seq++;
    hc_bhead *mine = head_of(st, st->me);
    size_t chunk = cma_chunk_bytes(m);
    uint64_t nchunks = (m + chunk - 1) / chunk, tag = claim_tag(g);
    /* Every push of earlier calls was seen (acquire) before they finished, so this is exact. */
    uint64_t pushed_before = atomic_load_explicit(&mine->cma_pushed, memory_order_relaxed);
    atomic_store_explicit(&mine->cma_dst, (uint64_t)(uintptr_t)dst, memory_order_relaxed);
    atomic_store_explicit(&mine->cma_len, m, memory_order_relaxed);
    atomic_store_explicit(&mine->cma_dst_heap, st->heaps_ok ? hc_heap_offset(dst, m) : -1,
                          memory_order_relaxed);
    atomic_store_explicit(&mine->cma_claim, claim_word(tag, 0, 0), memory_order_relaxed);
    atomic_store_explicit(&mine->cma_seq, g + 1, memory_order_release);

    hc_bcell *x = cell_of(st, st->me, g);
    hc_backoff b = HC_BACKOFF_INIT;
    while (atomic_load_explicit(&x->seq, memory_order_acquire) < g + 1)
        hc_backoff_wait(&b);
    hc_bshm_forward(st, lroot, g, x);
    if (total)
        hc_bshm_check_total(x, total);
    st->stamp_due |= (x->kind & HC_BCELL_MEASURE) != 0;
    if (HC_BCELL_KIND(x) != HC_BCELL_CMA) /* only when the lengths differ, which the first cell catches */
        hc_abort(MPI_COMM_WORLD, MPI_ERR_INTERN,
                 "MPI_Bcast: the root chose the queue, this rank single copy: " HC_BCAST_ONE_SIGNATURE);
    hc_bcma_where where;
    memcpy(&where, x->payload, sizeof where);

    uint64_t root_share = 0;
    int64_t k;
    while ((k = claim_chunk(&mine->cma_claim, tag, nchunks, 0, &root_share)) >= 0) {
        size_t off = (size_t)k * chunk, len = HC_MIN(chunk, m - off);
        if (where.heap_off >= 0)
            memcpy(dst + off, st->peer_heap[lroot] + where.heap_off + off, len);
        else
            hc_cma_must_read((int64_t)where.pid, where.addr + off, dst + off, len, "MPI_Bcast");
    }
    b = (hc_backoff)HC_BACKOFF_INIT;
    while (atomic_load_explicit(&mine->cma_pushed, memory_order_acquire) - pushed_before <
           root_share)
        hc_backoff_wait(&b);
    atomic_store_explicit(&mine->done, g + 1, memory_order_release);
}

void hc_bcma_bcast(hc_bstate *st, void *bytes, size_t m, size_t total, int lroot, int how)
{
    if (st->n < 2 || m == 0)
        return;
    if (st->me == lroot)
        root_side(st, bytes, m, total, how);
    else
        reader_side(st, bytes, m, total, lroot);
}
