/* The queue broadcast among the ranks of one node (seed 002, with monotonic sequence numbers).
 *
 * Fragments carry a global number g, identical on every local rank because every rank
 * counts the same fragments. The root writes fragment g into slot g % s of its own queue and
 * publishes g + 1 in the control cell g % s of each tree child (release); a child waits on
 * its own cell (acquire), forwards the cell to its children, copies out of the root's slot,
 * then publishes done = g + 1 on its own cache line. A root may fill slot g % s (of any
 * queue, and the cells with that index) once every peer's done counter shows that the
 * fragments of the previous use of that slot's set are finished.
 *
 * Large messages may go by CMA instead, one fragment number per call, cooperatively: see
 * root_cma / reader_cma below. */
#include "bcast_shm.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bcast_tree.h"
#include "hc_copy.h"
#include "hc_config.h"
#include "hc_log.h"
#include "hc_util.h"
#include "hc_wait.h"

/* Seed 002's model with b = 1 MiB per rank; t_w/t chosen so f = 16 KiB, s = 64, which measured
 * as fast as the model's larger f here and pipelines 64 KiB messages (docs/algorithms-bcast.md). */
#define HC_BCAST_QUEUE_BUDGET (1u << 20)
#define HC_BCAST_TW_OVER_T 256.0

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

static inline hc_bhead *head_of(const hc_bstate *st, int r)
{
    return (hc_bhead *)((char *)st->shm.base + (size_t)r * st->region);
}
static inline hc_bcell *cell_of(const hc_bstate *st, int r, uint64_t g)
{
    return (hc_bcell *)((char *)head_of(st, r) + st->cells_off) + g % (uint64_t)st->s;
}
static inline char *slot_of(const hc_bstate *st, int r, uint64_t g)
{
    return (char *)head_of(st, r) + st->data_off + (size_t)(g % (uint64_t)st->s) * st->f;
}

static int choose_tree(const hc_bstate *st)
{
    if (hc_cfg.bcast_tree.i != HC_TREE_AUTO)
        return (int)hc_cfg.bcast_tree.i;
    for (int r = 1; r < st->n; r++)
        if (st->domain[r] != st->domain[0])
            return HC_TREE_NUMA;
    /* Flat measured best here up to 8 ranks, oversubscribed or not (docs/algorithms-bcast.md):
     * a reader that must forward can be descheduled and delay its subtree. Beyond that the
     * root's n-1 notifications grow linear, so a k-ary tree takes over. */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return st->n <= 8 || st->n > cpus ? HC_TREE_FLAT : HC_TREE_KARY;
}

static int build_trees(hc_bstate *st)
{
    int n = st->n, k = (int)hc_cfg.bcast_radix.i;
    int *par = malloc(sizeof(int) * (size_t)n), *cs = malloc(sizeof(int) * (size_t)(n + 1));
    int *ch = malloc(sizeof(int) * (size_t)n);
    st->parent = malloc(sizeof(int) * (size_t)n);
    st->cstart = malloc(sizeof(int) * (size_t)(n + 1));
    int cap = n, used = 0;
    st->child = malloc(sizeof(int) * (size_t)cap);
    int ok = par && cs && ch && st->parent && st->cstart && st->child;
    for (int root = 0; ok && root < n; root++) {
        hc_btree_build(st->tree_kind, k, n, root, st->domain, par, cs, ch);
        st->parent[root] = par[st->me];
        st->cstart[root] = used;
        int nc = cs[st->me + 1] - cs[st->me];
        if (used + nc > cap) {
            cap = 2 * (used + nc);
            int *grown = realloc(st->child, sizeof(int) * (size_t)cap);
            if (!grown) {
                ok = 0;
                break;
            }
            st->child = grown;
        }
        memcpy(st->child + used, ch + cs[st->me], sizeof(int) * (size_t)nc);
        used += nc;
    }
    if (ok)
        st->cstart[n] = used;
    free(par);
    free(cs);
    free(ch);
    return ok ? 0 : -1;
}

hc_bstate *hc_bshm_create(hc_comm *c)
{
    hc_bstate *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    st->n = c->local_size;
    st->me = c->local_rank;
    if (st->n < 2)
        return st; /* alone on the node: only the leaders' stage runs */

    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    hc_bcast_model(HC_BCAST_QUEUE_BUDGET, HC_BCAST_TW_OVER_T, page, &st->f, &st->s);
    if (hc_cfg.bcast_frag.i > 0)
        st->f = HC_ALIGN_UP((size_t)hc_cfg.bcast_frag.i, HC_CACHELINE);
    if (hc_cfg.bcast_queue.i > 0)
        st->s = (int)hc_cfg.bcast_queue.i;
    /* Sets of 8 buffers: measured better than 2 sets for messages beyond the queue. */
    st->q = hc_cfg.bcast_sets.i > 0 ? (int)hc_cfg.bcast_sets.i : HC_MAX(1, st->s / 8);
    if (st->q > st->s || st->s % st->q)
        st->q = 1; /* sets must split the queue evenly */
    st->cells_off = sizeof(hc_bhead);
    st->data_off = HC_ALIGN_UP(st->cells_off + (size_t)st->s * sizeof(hc_bcell), page);
    st->region = HC_ALIGN_UP(st->data_off + (size_t)st->s * st->f, page);

    /* Small allocations that fail still take part in every collective below, so the node
     * agrees on the failure instead of hanging. */
    st->domain = calloc((size_t)st->n, sizeof(int));
    int ok = st->domain != NULL;
    for (int r = 0; ok && r < st->n; r++)
        st->domain[r] = hc_cfg.bcast_fake_numa.i > 0 ? (int)(r / hc_cfg.bcast_fake_numa.i)
                                                     : c->numa_of[c->local_ranks[r]];
    st->tree_kind = ok ? choose_tree(st) : HC_TREE_FLAT;

    if (hc_shm_create(c, (size_t)st->n * st->region, &st->shm) != 0) {
        st->failed = 1;
        return st;
    }
    /* My region on my NUMA node; the segment is zero-filled, so counters start at 0. */
    hc_bhead *mine = head_of(st, st->me);
    int node = c->numa_of[c->rank];
    st->misplaced_pages = hc_bcast_place(mine, st->region, node, (int)hc_cfg.bcast_show_pages.i);
    mine->pid = getpid();
    mine->cma_probe = hc_cma_probe_addr();
    mine->numa = node;
    ok = ok && build_trees(st) == 0;
    st->cma_idle = calloc((size_t)st->n, 1);
    ok = ok && st->cma_idle != NULL;
    int all_ok = 0;
    PMPI_Barrier(c->local);

    /* CMA is permitted when every rank can read its neighbour (same check everywhere). */
    hc_bhead *peer = head_of(st, (st->me + 1) % st->n);
    st->cma_ok = hc_cma_probe(peer->pid, peer->cma_probe);
    int v[2] = {ok, st->cma_ok}, all[2];
    PMPI_Allreduce(v, all, 2, MPI_INT, MPI_LAND, c->local);
    all_ok = all[0];
    st->cma_ok = all[1];
    if (!all_ok) {
        hc_shm_destroy(&st->shm);
        st->failed = 1;
    }
    static const char *tree_names[] = {"auto", "knomial", "kary", "chain", "flat", "numa"};
    hc_info(2, "bcast queue: %d ranks, f=%zu s=%d q=%d tree=%s cma=%s", st->n, st->f, st->s,
            st->q, tree_names[st->tree_kind], st->cma_ok ? "yes" : "no");
    return st;
}

void hc_bshm_destroy(hc_bstate *st)
{
    if (!st)
        return;
    hc_shm_destroy(&st->shm);
    free(st->parent);
    free(st->cstart);
    free(st->child);
    free(st->domain);
    free(st->cma_idle);
    free(st);
}

/* Before fragment g goes out: the previous use of g's set must be finished everywhere. */
static void wait_slot_free(hc_bstate *st, uint64_t g)
{
    int64_t set = st->s / st->q;
    int64_t need = (int64_t)(g / (uint64_t)set) * set + set - st->s;
    if ((int64_t)st->known_min >= need)
        return;
    hc_backoff b = HC_BACKOFF_INIT;
    for (;;) {
        uint64_t lo = UINT64_MAX;
        for (int r = 0; r < st->n; r++)
            if (r != st->me) {
                uint64_t d = atomic_load_explicit(&head_of(st, r)->done, memory_order_acquire);
                lo = d < lo ? d : lo;
            }
        st->known_min = lo;
        if ((int64_t)lo >= need)
            return;
        hc_backoff_wait(&b);
    }
}

/* Publishes fragment g to my children in the tree of lroot. */
static void notify(hc_bstate *st, int lroot, uint64_t g, uint32_t kind, uint32_t len,
                   const void *payload, size_t plen)
{
    for (int i = st->cstart[lroot]; i < st->cstart[lroot + 1]; i++) {
        hc_bcell *x = cell_of(st, st->child[i], g);
        x->kind = kind;
        x->len = len;
        if (plen)
            memcpy(x->payload, payload, plen);
        atomic_store_explicit(&x->seq, g + 1, memory_order_release);
    }
}

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
        uint64_t next = from_back ? claim_word(tag, front, back + 1) : claim_word(tag, front + 1, back);
        if (atomic_compare_exchange_weak_explicit(word, &w, next, memory_order_relaxed,
                                                  memory_order_relaxed))
            return (int64_t)(from_back ? nchunks - 1 - back : front);
    }
}

/* Root of a CMA call: announce my stream, then push chunks from the back of every reader that
 * has published its buffer, one chunk per reader per round, so a late or descheduled reader
 * holds up nobody; a reader that finished (or moved on) leaves the round. My stream must stay
 * valid until every reader is done. */
static void root_cma(hc_bstate *st, const char *src, size_t m)
{
    int me = st->me, n = st->n;
    uint64_t g = st->seq++;
    wait_slot_free(st, g);
    uint64_t where[2] = {(uint64_t)getpid(), (uint64_t)(uintptr_t)src};
    notify(st, me, g, HC_BCELL_CMA, 0, where, sizeof where);

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
            /* A successful claim means this reader is not finished, so cma_dst is still the
             * address for this call. */
            size_t off = (size_t)k * chunk, len = HC_MIN(chunk, m - off);
            uint64_t dst = atomic_load_explicit(&h->cma_dst, memory_order_relaxed);
            if (hc_cma_write(h->pid, dst + off, src + off, len) != 0) {
                hc_error("process_vm_writev to pid %lld failed in MPI_Bcast", (long long)h->pid);
                PMPI_Abort(MPI_COMM_WORLD, 1);
            }
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
}

/* Reader of a CMA call: publish my buffer at once (the root may start pushing before its cell
 * reaches me), then pull chunks from the front until the claims meet, then wait for the root's
 * share to land. */
static void reader_cma(hc_bstate *st, char *dst, size_t m, int lroot)
{
    uint64_t g = st->seq++;
    hc_bhead *mine = head_of(st, st->me);
    size_t chunk = cma_chunk_bytes(m);
    uint64_t nchunks = (m + chunk - 1) / chunk, tag = claim_tag(g);
    /* Every push of earlier calls was seen (acquire) before they finished, so this is exact. */
    uint64_t pushed_before = atomic_load_explicit(&mine->cma_pushed, memory_order_relaxed);
    atomic_store_explicit(&mine->cma_dst, (uint64_t)(uintptr_t)dst, memory_order_relaxed);
    atomic_store_explicit(&mine->cma_claim, claim_word(tag, 0, 0), memory_order_relaxed);
    atomic_store_explicit(&mine->cma_seq, g + 1, memory_order_release);

    hc_bcell *x = cell_of(st, st->me, g);
    hc_backoff b = HC_BACKOFF_INIT;
    while (atomic_load_explicit(&x->seq, memory_order_acquire) < g + 1)
        hc_backoff_wait(&b);
    notify(st, lroot, g, x->kind, x->len, x->payload, sizeof x->payload);
    uint64_t where[2];
    memcpy(where, x->payload, sizeof where);

    uint64_t root_share = 0;
    int64_t k;
    while ((k = claim_chunk(&mine->cma_claim, tag, nchunks, 0, &root_share)) >= 0) {
        size_t off = (size_t)k * chunk, len = HC_MIN(chunk, m - off);
        if (hc_cma_read((int64_t)where[0], where[1] + off, dst + off, len) != 0) {
            /* Probed at setup, so only a vanished root gets here: no safe way on. */
            hc_error("process_vm_readv from pid %lld failed in MPI_Bcast", (long long)where[0]);
            PMPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    b = (hc_backoff)HC_BACKOFF_INIT;
    while (atomic_load_explicit(&mine->cma_pushed, memory_order_acquire) - pushed_before <
           root_share)
        hc_backoff_wait(&b);
    atomic_store_explicit(&mine->done, g + 1, memory_order_release);
}

static void root_side(hc_bstate *st, const char *src, size_t m, int use_cma)
{
    int me = st->me;
    if (m <= HC_BCELL_INLINE_MAX) {
        /* Small: the data travels inside the control cells, no slot, no second copy. */
        uint64_t g = st->seq++;
        wait_slot_free(st, g);
        notify(st, me, g, HC_BCELL_INLINE, (uint32_t)m, src, m);
    } else if (use_cma) {
        root_cma(st, src, m);
    } else {
        for (size_t off = 0; off < m; off += st->f) {
            size_t len = HC_MIN(st->f, m - off);
            uint64_t g = st->seq++;
            wait_slot_free(st, g);
            memcpy(slot_of(st, me, g), src + off, len);
            notify(st, me, g, HC_BCELL_DATA, (uint32_t)len, NULL, 0);
        }
    }
    atomic_store_explicit(&head_of(st, me)->done, st->seq, memory_order_release);
}

static void reader_side(hc_bstate *st, char *dst, size_t m, int lroot, int how)
{
    if ((how & HC_BSHM_CMA) && m > HC_BCELL_INLINE_MAX) {
        reader_cma(st, dst, m, lroot);
        return;
    }
    size_t nfrag = m <= HC_BCELL_INLINE_MAX ? 1 : (m + st->f - 1) / st->f;
    hc_bhead *mine = head_of(st, st->me);
    size_t off = 0;
    for (size_t i = 0; i < nfrag; i++) {
        uint64_t g = st->seq++;
        hc_bcell *x = cell_of(st, st->me, g);
        hc_backoff b = HC_BACKOFF_INIT;
        while (atomic_load_explicit(&x->seq, memory_order_acquire) < g + 1)
            hc_backoff_wait(&b);
        /* Children first: they then copy in parallel with me. */
        notify(st, lroot, g, x->kind, x->len, x->payload, sizeof x->payload);
        if (x->kind == HC_BCELL_INLINE) {
            memcpy(dst, x->payload, x->len);
        } else {
            if (how & HC_BSHM_STREAM)
                hc_copy_nt(dst + off, slot_of(st, lroot, g), x->len);
            else
                memcpy(dst + off, slot_of(st, lroot, g), x->len);
            off += x->len;
        }
        atomic_store_explicit(&mine->done, g + 1, memory_order_release);
    }
}

void hc_bshm_bcast(hc_bstate *st, void *bytes, size_t m, int lroot, int how)
{
    if (st->n < 2 || m == 0)
        return;
    if (st->me == lroot)
        root_side(st, bytes, m, how & HC_BSHM_CMA);
    else
        reader_side(st, bytes, m, lroot, how);
}
