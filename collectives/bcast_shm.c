/* The queue broadcast among the ranks of one node (seed 002, with monotonic sequence numbers).
 *
 * Fragments carry a global number g, identical on every local rank because every rank
 * counts the same fragments. The root writes fragment g into the next free bytes of its own
 * ring and publishes g + 1 in the control cell g % ncells of each tree child (release); a
 * child waits on its own cell (acquire), forwards the cell to its children, copies out of
 * the root's ring, then publishes done = g + 1 on its own cache line. A root may use cell
 * g % ncells once every peer has finished fragment g - ncells, and bytes of its ring once
 * every peer has finished the fragments it wrote there before. A fragment takes only its
 * own bytes, so small messages do not use up a fragment each: a root can run up to ncells
 * calls ahead of its readers, as an eager protocol lets a sender do.
 *
 * The single-copy broadcast (bcast_cma.c) shares this state and its numbering, one fragment
 * per call; the selector chooses between the two. */
#include "bcast_shm.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bcast_tree.h"
#include "hc_copy.h"
#include "hc_config.h"
#include "hc_heap.h"
#include "hc_log.h"
#include "hc_must.h"
#include "hc_util.h"
#include "hc_wait.h"

/* Seed 002's model with b = 256 KiB per rank and t_w/t = 4096: f = 32 KiB, s = 8. With the root
 * writing its slots around the caches (HC_BSHM_ROOT_NT), 32 KiB had the lowest worst case over
 * the bench's twelve calling patterns from 16 KiB to 16 MiB, 16 KiB came close, 64 KiB lost up to
 * 0.2 of the vendor's time at 64-256 KiB, where a message is then one or two fragments and
 * nothing overlaps (docs/algorithms-bcast.md). */
#define HC_BCAST_QUEUE_BUDGET (256u << 10)
#define HC_BCAST_TW_OVER_T 4096.0
/* How many calls a root may be ahead of its slowest reader (one cell per fragment; a small
 * message is one fragment). Measured at 4 and 8 ranks on 2 cores, where a reader is often
 * descheduled: with 8 cells a root streaming 4 KiB messages waited for it every 8th call
 * (docs/algorithms-bcast.md). 64 cells are 8 KiB per rank. */
#define HC_BCAST_CELLS 64

static int choose_tree(const hc_bstate *st, const hc_bsetup *setup)
{
    if (setup->tree != HC_TREE_AUTO)
        return setup->tree;
    for (int r = 1; r < st->n; r++)
        if (st->domain[r] != st->domain[0])
            return HC_TREE_NUMA;
    /* Flat measured best here up to 8 ranks, oversubscribed or not (docs/algorithms-bcast.md):
     * a reader that must forward can be descheduled and delay its subtree. Beyond that the
     * root's n-1 notifications grow linear, so a k-ary tree takes over. */
    return st->n <= 8 || hc_ranks_outnumber_cores(st->n) ? HC_TREE_FLAT : HC_TREE_KARY;
}

static int build_trees(hc_bstate *st, int k)
{
    int n = st->n;
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

hc_bstate *hc_bshm_create(hc_comm *c, const hc_bsetup *setup)
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
    if (setup->frag > 0) { /* the ring keeps its budget unless s is set too */
        st->f = HC_ALIGN_UP(setup->frag, HC_CACHELINE);
        st->s = (int)HC_MIN(HC_MAX(HC_BCAST_QUEUE_BUDGET / st->f, (size_t)2), (size_t)4096);
    }
    if (setup->queue > 0)
        st->s = HC_MAX(setup->queue, 2); /* a fragment and its successor */
    st->ncells = setup->cells > 0 ? setup->cells : HC_BCAST_CELLS;
    st->ring = (size_t)st->s * st->f;
    /* The cells right after the head, as the readers' hot lines; the stamps, touched only by
     * timed calls, after them, then the board, touched by the learner's rounds. */
    st->cells_off = sizeof(hc_bhead);
    st->stamps_off = st->cells_off + (size_t)st->ncells * sizeof(hc_bcell);
    st->board_off = HC_ALIGN_UP(st->stamps_off + HC_BSTAMPS * sizeof(hc_bstamp), HC_CACHELINE);
    st->ring_off = HC_ALIGN_UP(st->board_off + HC_BBOARD_SLOTS * sizeof(hc_bboard_slot), page);
    st->region = HC_ALIGN_UP(st->ring_off + st->ring, page);

    /* Small allocations that fail still take part in every collective below, so the node
     * agrees on the failure instead of hanging. */
    st->domain = calloc((size_t)st->n, sizeof(int));
    int ok = st->domain != NULL;
    for (int r = 0; ok && r < st->n; r++)
        st->domain[r] = setup->fake_numa > 0 ? r / setup->fake_numa
                                              : c->numa_of[c->local_ranks[r]];
    st->tree_kind = ok ? choose_tree(st, setup) : HC_TREE_FLAT;

    if (hc_shm_create(c, (size_t)st->n * st->region, &st->shm) != 0) {
        st->failed = 1;
        return st;
    }
    /* My region on my NUMA node; counters start at 0 (a reused segment's are zeroed: its
     * ring's bytes need not be). */
    hc_bhead *mine = head_of(st, st->me);
    if (st->shm.reused)
        memset(mine, 0, st->ring_off);
    int node = c->numa_of[c->rank];
    st->misplaced_pages = hc_bcast_place(mine, st->region, node, setup->show_pages);
    mine->pid = getpid();
    mine->cma_probe = hc_cma_probe_addr();
    mine->numa = node;
    hc_heap_id heap = hc_heap_self();
    mine->heap_fd = heap.fd;
    mine->heap_bytes = heap.bytes;
    mine->heap_nonce = heap.nonce;
    ok = ok && build_trees(st, setup->radix) == 0;
    st->cma_idle = calloc((size_t)st->n, 1);
    st->mine_g = calloc((size_t)st->ncells, sizeof *st->mine_g);
    st->mine_at = calloc((size_t)st->ncells, sizeof *st->mine_at);
    st->peer_heap = calloc((size_t)st->n, sizeof *st->peer_heap);
    ok = ok && st->cma_idle && st->mine_g && st->mine_at && st->peer_heap;
    int all_ok = 0;
    PMPI_Barrier(c->local);

    /* CMA is permitted when every rank can read its neighbour (same check everywhere). */
    hc_bhead *peer = head_of(st, (st->me + 1) % st->n);
    st->cma_ok = hc_cma_probe(peer->pid, peer->cma_probe);
    st->heaps_ok = ok;
    for (int r = 0; r < st->n && st->heaps_ok; r++)
        if (r != st->me) {
            hc_bhead *h = head_of(st, r);
            hc_heap_id id = {h->pid, h->heap_fd, h->heap_bytes, h->heap_nonce};
            st->heaps_ok = (st->peer_heap[r] = hc_heap_peer(id)) != NULL;
        }
    int v[3] = {ok, st->cma_ok, st->heaps_ok}, all[3];
    PMPI_Allreduce(v, all, 3, MPI_INT, MPI_LAND, c->local);
    all_ok = all[0];
    st->cma_ok = all[1];
    st->heaps_ok = all[2];
    /* Direct reads make the root wait until every reader has copied; with more ranks than
     * cores on the node a reader is often descheduled, and the root waited for it (4 ranks on
     * 2 cores, a fixed root resending 64 KiB: 0.4-1.2 ms, the queue 7 µs,
     * docs/algorithms-bcast.md). The whole job's ranks on the node count, not this
     * communicator's. */
    int node_ranks = HC_MAX(hc_shm_node_ranks(), st->n);
    int direct = setup->direct;
    st->direct_ok = st->heaps_ok &&
                    (direct == HC_BDIRECT_ON || (direct == HC_BDIRECT_AUTO &&
                                                 !hc_ranks_outnumber_cores(node_ranks)));
    if (!all_ok) {
        hc_shm_destroy(&st->shm);
        st->failed = 1;
    }
    char tree[16];
    hc_config_enum_name(hc_config_find("HIERCOLL_BCAST_TREE"), st->tree_kind, tree, sizeof tree);
    hc_info(2, "bcast queue: %d ranks, fragments of %zu, ring %zu, %d cells, tree=%s cma=%s "
               "direct=%s",
            st->n, st->f, st->ring, st->ncells, tree,
            st->cma_ok ? "yes" : "no", st->direct_ok ? "yes" : "no");
    return st;
}

void hc_bshm_destroy(hc_bstate *st)
{
    if (!st)
        return;
    hc_shm_release(&st->shm);
    free(st->parent);
    free(st->cstart);
    free(st->child);
    free(st->domain);
    free(st->cma_idle);
    free(st->mine_g);
    free(st->mine_at);
    free(st->peer_heap); /* the mappings stay: other communicators share them */
    free(st);
}

void hc_bshm_wait_done(hc_bstate *st, uint64_t need)
{
    if (st->known_min >= need)
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
        if (lo >= need)
            return;
        hc_backoff_wait(&b);
    }
}

static uint64_t cell_need(const hc_bstate *st, uint64_t g)
{
    return g + 1 > (uint64_t)st->ncells ? g + 1 - (uint64_t)st->ncells : 0;
}

void hc_bshm_claim_cell(hc_bstate *st, uint64_t g) { hc_bshm_wait_done(st, cell_need(st, g)); }

/* Room for fragment g of len bytes in my ring, starting at an offset congruent to `at` modulo
 * `span` (a fragment that would run past the ring's end starts over at its beginning). Waits
 * until the fragments that wrote those bytes before, and the one that last used g's cells,
 * are finished everywhere. Returns the offset in the ring. */
static uint64_t ring_claim(hc_bstate *st, uint64_t g, size_t len, size_t at, size_t span)
{
    uint64_t p = st->ring_pos + (at + span - st->ring_pos % span) % span;
    if (p % st->ring + len > st->ring)
        p = HC_ALIGN_UP(p, (uint64_t)st->ring) + at;
    uint64_t need = cell_need(st, g);
    int c = st->ncells;
    /* Fragments before `need` are finished anyway; of the others, those that began more
     * than a ring before this one's end hold bytes it overwrites. */
    while (st->mine_len && st->mine_g[st->mine_head] < need)
        st->mine_head = (st->mine_head + 1) % c, st->mine_len--;
    while (st->mine_len && st->mine_at[st->mine_head] + st->ring < p + len) {
        need = st->mine_g[st->mine_head] + 1;
        st->mine_head = (st->mine_head + 1) % c, st->mine_len--;
    }
    /* The FIFO now holds fragments after g - ncells only: there is room. */
    int tail = (st->mine_head + st->mine_len) % c;
    st->mine_g[tail] = g;
    st->mine_at[tail] = p;
    st->mine_len++;
    st->ring_pos = p + len;
    hc_bshm_wait_done(st, need);
    return p % st->ring;
}

void hc_bshm_notify(hc_bstate *st, int lroot, uint64_t g, uint32_t kind, uint32_t len,
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

void hc_bshm_forward(hc_bstate *st, int lroot, uint64_t g, const hc_bcell *x)
{
    size_t plen = HC_BCELL_KIND(x) == HC_BCELL_INLINE ? x->len : HC_BCELL_WHERE_BYTES;
    hc_bshm_notify(st, lroot, g, x->kind, x->len, x->payload, plen);
}

static void root_side(hc_bstate *st, const char *src, size_t m, size_t total, int how)
{
    int me = st->me;
    uint32_t flag = how & HC_BSHM_MEASURE ? HC_BCELL_MEASURE : 0;
    int64_t heap_off = (how & HC_BSHM_DIRECT) && m > HC_BCELL_INLINE_MAX && m <= UINT32_MAX
                           ? hc_heap_offset(src, m)
                           : -1;
    if (heap_off >= 0) {
        /* In my shared heap: the readers copy it from there, once; I wait for them at the
         * end of the call (hc_bshm_finish). */
        uint64_t g = st->seq++;
        hc_bdirect where = {(uint64_t)heap_off, total};
        hc_bshm_claim_cell(st, g);
        hc_bshm_notify(st, me, g, HC_BCELL_DIRECT | flag, (uint32_t)m, &where, sizeof where);
        st->direct_wait = st->seq;
        if (total) /* a message's first segment */
            hc_info(3, "bcast: %zu bytes, unchanged since the last call: readers copy them "
                       "from the root's buffer", (size_t)total);
    } else if (m <= HC_BCELL_INLINE_MAX) {
        /* Small: the data travels inside the control cells, no ring, no second copy. */
        uint64_t g = st->seq++;
        hc_bshm_claim_cell(st, g);
        hc_bshm_notify(st, me, g, HC_BCELL_INLINE | flag, (uint32_t)m, src, m);
    } else {
        /* Every fragment's source and ring bytes share their offset in an HC_ALIAS_SPAN
         * (hc_copy.h): the first fragment starts at the source's offset and ends where src
         * crosses a boundary, the rest start on boundaries. Readers whose buffer has the
         * root's offset then copy out aligned too. A message shorter than the span loses
         * little to aliasing and would skip up to a span of ring each call: it is packed on
         * cache lines, so a stream of them stays in fewer lines. */
        int aligned = st->f % HC_ALIAS_SPAN == 0 && m >= HC_ALIAS_SPAN;
        size_t span = aligned ? HC_ALIAS_SPAN : HC_CACHELINE;
        size_t lead = aligned ? hc_alias_offset(src) : 0;
        for (size_t off = 0, len; off < m; off += len) {
            size_t at = off == 0 ? lead : 0;
            len = HC_MIN(st->f - at, m - off);
            uint64_t g = st->seq++;
            hc_bdata where = {ring_claim(st, g, len, at, span), total};
            char *slot = ring_at(st, me, where.at);
            if (how & HC_BSHM_ROOT_NT)
                hc_copy_nt(slot, src + off, len);
            else
                memcpy(slot, src + off, len);
            hc_bshm_notify(st, me, g, HC_BCELL_DATA | flag, (uint32_t)len, &where, sizeof where);
        }
    }
    atomic_store_explicit(&head_of(st, me)->done, st->seq, memory_order_release);
}

/* MPI asks root and readers for one type signature; a program that breaks that would
 * otherwise overrun this rank's buffer or wait forever for bytes that never come. The job is
 * stopped whole (MPI_COMM_WORLD): the user's communicator is not known down here, and its other
 * ranks are stuck in this broadcast anyway. */
void hc_bshm_check_total(const hc_bcell *x, size_t total)
{
    uint64_t sent = x->len; /* inline: the cell holds the whole message */
    unsigned kind = HC_BCELL_KIND(x);
    if (kind == HC_BCELL_DATA) {
        hc_bdata where;
        memcpy(&where, x->payload, sizeof where);
        sent = where.total;
    } else if (kind == HC_BCELL_DIRECT) {
        hc_bdirect where;
        memcpy(&where, x->payload, sizeof where);
        sent = where.total;
    } else if (kind == HC_BCELL_CMA) {
        hc_bcma_where where;
        memcpy(&where, x->payload, sizeof where);
        sent = where.total;
    }
    if (sent != total)
        hc_abort(MPI_COMM_WORLD, MPI_ERR_TRUNCATE,
                 "MPI_Bcast: the root broadcasts %llu bytes, this rank receives %zu: "
                 HC_BCAST_ONE_SIGNATURE,
                 (unsigned long long)sent, total);
}

static void reader_side(hc_bstate *st, char *dst, size_t m, size_t total, int lroot, int how)
{
    /* The root cuts the fragments (root_side); each cell says how long its fragment is. */
    hc_bhead *mine = head_of(st, st->me);
    size_t off = 0;
    while (off < m) {
        uint64_t g = st->seq++;
        hc_bcell *x = cell_of(st, st->me, g);
        hc_backoff b = HC_BACKOFF_INIT;
        while (atomic_load_explicit(&x->seq, memory_order_acquire) < g + 1)
            hc_backoff_wait(&b);
        /* Children first: they then copy in parallel with me. */
        hc_bshm_forward(st, lroot, g, x);
        /* The first cell settles it: with equal lengths every later call matches too. */
        if (off == 0 && total)
            hc_bshm_check_total(x, total);
        st->stamp_due |= (x->kind & HC_BCELL_MEASURE) != 0;
        unsigned kind = HC_BCELL_KIND(x);
        const char *src = (const char *)x->payload; /* inline */
        if (kind == HC_BCELL_DATA) {
            hc_bdata where;
            memcpy(&where, x->payload, sizeof where);
            src = ring_at(st, lroot, where.at);
        } else if (kind == HC_BCELL_DIRECT) {
            hc_bdirect where;
            memcpy(&where, x->payload, sizeof where);
            src = st->peer_heap[lroot] + where.off;
        }
        if (kind != HC_BCELL_INLINE && (how & HC_BSHM_STREAM))
            hc_copy_nt(dst + off, src, x->len);
        else
            memcpy(dst + off, src, x->len);
        off += x->len;
        atomic_store_explicit(&mine->done, g + 1, memory_order_release);
    }
}

void hc_bshm_finish(hc_bstate *st)
{
    if (st->direct_wait) {
        hc_bshm_wait_done(st, st->direct_wait);
        st->direct_wait = 0;
    }
    if (st->stamp_due) {
        hc_bstamp *stamp = hc_bstamp_of(st, st->me, st->seq - 1);
        stamp->ns = hc_now_ns();
        atomic_store_explicit(&stamp->g1, st->seq, memory_order_release);
        st->stamp_due = 0;
    }
}

const hc_bcell *hc_bshm_peek(hc_bstate *st)
{
    uint64_t g = st->seq;
    hc_bcell *x = cell_of(st, st->me, g);
    hc_backoff b = HC_BACKOFF_INIT;
    while (atomic_load_explicit(&x->seq, memory_order_acquire) < g + 1)
        hc_backoff_wait(&b);
    return x;
}

void hc_bshm_vendor_announce(hc_bstate *st, int how, unsigned window, int stamp)
{
    uint64_t g = st->seq++;
    hc_bshm_claim_cell(st, g);
    uint32_t kind = HC_BCELL_VENDOR | (how & HC_BSHM_MEASURE ? HC_BCELL_MEASURE : 0) |
                    (stamp ? HC_BCELL_WINDOW_STAMP : 0) |
                    HC_MIN(window, HC_BCELL_WINDOW_MAX) << HC_BCELL_WINDOW_SHIFT;
    hc_bshm_notify(st, st->me, g, kind, 0, NULL, 0);
    atomic_store_explicit(&head_of(st, st->me)->done, st->seq, memory_order_release);
}

unsigned hc_bshm_vendor_take(hc_bstate *st, int lroot, int *stamp)
{
    const hc_bcell *x = hc_bshm_peek(st);
    uint64_t g = st->seq++;
    hc_bshm_forward(st, lroot, g, x);
    st->stamp_due |= (x->kind & HC_BCELL_MEASURE) != 0;
    unsigned window = x->kind >> HC_BCELL_WINDOW_SHIFT;
    *stamp = (x->kind & HC_BCELL_WINDOW_STAMP) != 0;
    atomic_store_explicit(&head_of(st, st->me)->done, g + 1, memory_order_release);
    return window;
}

void hc_bshm_window_end(hc_bstate *st, uint64_t g, int reader)
{
    if (reader) {
        hc_bstamp *stamp = hc_bstamp_of(st, st->me, g);
        stamp->ns = hc_now_ns();
        atomic_store_explicit(&stamp->g1, g + 1, memory_order_release);
    }
    atomic_store_explicit(&head_of(st, st->me)->done, g + 1, memory_order_release);
}

void hc_bshm_bcast(hc_bstate *st, void *bytes, size_t m, size_t total, int lroot, int how)
{
    if (st->n < 2 || m == 0)
        return;
    if (st->me == lroot)
        root_side(st, bytes, m, total, how);
    else
        reader_side(st, bytes, m, total, lroot, how);
}
