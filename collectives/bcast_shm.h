/* The intra-node queue broadcast (seed 002): per-communicator state and the byte-stream
 * broadcast among the ranks of one node. */
#ifndef HC_BCAST_SHM_H
#define HC_BCAST_SHM_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "hc_algos.h"
#include "hc_cma.h"
#include "hc_coll.h"
#include "hc_shm.h"

/* What a control cell announces. Readers follow it: the node-local root alone chooses how
 * its node moves a message (queue, direct reads, single copy, the vendor's broadcast), so
 * no rank needs to know the choice beforehand (bcast_hier.c). */
enum { HC_BCELL_DATA = 1, HC_BCELL_INLINE = 2, HC_BCELL_CMA = 3, HC_BCELL_DIRECT = 4,
       HC_BCELL_VENDOR = 5 };
/* Flag on a cell's kind: time this call; readers stamp when they are done (hc_bstamp). */
#define HC_BCELL_MEASURE 0x100u
#define HC_BCELL_KIND(x) ((x)->kind & 0xffu)
/* On a vendor cell, bits 16-31: how many of the root's next calls of the same size class run
 * the vendor's broadcast without any cell (hc_bvendor_window); the flag: readers stamp the
 * end of each of them (a root trying the vendor times it without the cell's hand-off). */
#define HC_BCELL_WINDOW_SHIFT 16
#define HC_BCELL_WINDOW_MAX 0xffffu
#define HC_BCELL_WINDOW_STAMP 0x200u
/* Messages up to this size travel inside the cell. Two lines: a 64-byte message in a
 * one-line cell took a second line from the ring, and cores fetch an aligned pair of lines
 * together (docs/algorithms-bcast.md). A reader touches the second line only for a message
 * longer than the first line's payload. */
#define HC_BCELL_INLINE_MAX 112
/* The bytes of a payload that say where a fragment is (hc_bdata, hc_bcma_where). */
#define HC_BCELL_WHERE_BYTES 32

/* One control cell: an aligned pair of cache lines, written by the parent, read by its
 * owner. seq is the global fragment number + 1 (monotonic, never reset), published last with
 * release. */
typedef struct hc_bcell {
    _Atomic uint64_t seq;
    uint32_t kind, len;
    unsigned char payload[HC_BCELL_INLINE_MAX];
} hc_bcell;
_Static_assert(sizeof(hc_bcell) == 128, "a control cell is an aligned pair of cache lines");

/* Payload of a data cell: where the fragment starts in the root's ring, and the length of the
 * whole message (readers check theirs against it at the message's first fragment). */
typedef struct hc_bdata {
    uint64_t at;
    uint64_t total;
} hc_bdata;
/* Payload of a CMA cell: the root's pid and stream, the message's length, and where the
 * stream lies in the root's shared heap (-1: not there). */
typedef struct hc_bcma_where {
    uint64_t pid, addr, total;
    int64_t heap_off;
} hc_bcma_where;
/* Payload of a direct cell: where the fragment starts in the root's shared heap. */
typedef struct hc_bdirect {
    uint64_t off;
    uint64_t total;
} hc_bdirect;
_Static_assert(sizeof(hc_bdata) <= HC_BCELL_WHERE_BYTES &&
                   sizeof(hc_bdirect) <= HC_BCELL_WHERE_BYTES &&
                   sizeof(hc_bcma_where) <= HC_BCELL_WHERE_BYTES,
               "cell payloads fit a cell's first line");

/* Head of each rank's region: counters on their own cache lines. The cma_* words serve the
 * cooperative CMA broadcast (bcast_cma.c): a reader publishes where its stream lands, then
 * it and the root claim chunks of it through one word. They share the line of done because
 * the owner writes them once per call and the root touches them once per chunk. */
typedef struct hc_bhead {
    _Atomic uint64_t done;      /* fragments < done are finished by this rank (release) */
    _Atomic uint64_t cma_seq;   /* fragment g + 1 once cma_dst and cma_claim are set (release) */
    _Atomic uint64_t cma_dst;   /* address of this reader's stream for fragment cma_seq - 1 */
    _Atomic uint64_t cma_claim; /* packed (tag, front, back) chunk claims, see bcast_cma.c */
    _Atomic uint64_t cma_pushed; /* chunks the root has written here, ever (monotonic, release) */
    _Atomic uint64_t cma_len;    /* length of the stream at cma_dst: the root never writes past it */
    _Atomic int64_t cma_dst_heap; /* offset of cma_dst in this reader's shared heap, -1: not in it */
    char pad0[8];
    int64_t pid;            /* for process_vm_readv */
    uint64_t cma_probe;     /* address of a word peers read to test CMA */
    int32_t numa;           /* domain the region should live on (-1 unknown) */
    int32_t heap_fd;        /* this rank's shared heap (common/hc_heap.h), fd < 0: none */
    uint64_t heap_bytes, heap_nonce;
    char pad1[24];
} hc_bhead;
_Static_assert(sizeof(hc_bhead) == 128, "two cache lines");

/* When a reader finished a timed call (one whose cells carried HC_BCELL_MEASURE): a ring
 * of HC_BSTAMPS per rank after its head, indexed by the call's last fragment number. The
 * node-local root reads them back to time the call on its readers (bcast_learn.c). */
#define HC_BSTAMPS 64
typedef struct hc_bstamp {
    _Atomic uint64_t g1; /* fragment number + 1, published after ns (release) */
    uint64_t ns;         /* hc_now_ns() when the reader was done */
} hc_bstamp;

/* What the node's roots measured (bcast_board.c): a board of HC_BBOARD_SLOTS in each rank's
 * region after its stamps, written by that rank alone as a node-local root, read by the others
 * when they meet a key for the first time. A slot holds one (site, size class): the site as
 * every process names it (a hash of its module and offset), the last time measured of each
 * algorithm in ns (0: none). seq is odd while the owner writes. */
#define HC_BBOARD_SLOTS 32
typedef struct hc_bboard_slot {
    _Atomic uint32_t seq;
    _Atomic int32_t sclass;
    _Atomic uint64_t site;
    _Atomic uint32_t ns[HC_BCAST_COUNT];
} hc_bboard_slot;

/* What a root sent last on a communicator: where, how much, and a few of its words
 * (bcast_direct.c). */
#define HC_BSAMPLE_WORDS 8
typedef struct hc_bsample {
    const char *buf;
    size_t m;
    int root;
    uint64_t word[HC_BSAMPLE_WORDS];
} hc_bsample;

/* How the queue is built, from the configuration (bcast_select.c): engines read none. */
typedef struct hc_bsetup {
    size_t frag;      /* fragment size f (0: seed 002's model) */
    int queue;        /* fragments in each ring, s (0: the model's, or the budget / f) */
    int cells;        /* control cells per rank (0: HC_BCAST_CELLS) */
    int tree, radix;  /* notification tree (HC_TREE_*) and its radix */
    int fake_numa;    /* every k local ranks a NUMA domain (debug, 0: real ones) */
    int show_pages;   /* report where the region's pages landed (debug) */
    int direct;       /* HC_BDIRECT_*: whether readers may read the root's heap directly */
} hc_bsetup;

struct hc_blearn;
struct hc_learn_entry;

/* A window of calls that run the vendor's broadcast without a cell: a root settled on the
 * vendor promises, in the cell of one call, that its next `left` calls of that size class do
 * too; its readers and itself count them down alike (bcast.c). */
#define HC_BWINDOWS 64
typedef struct hc_bvendor_window {
    int lroot, sclass;
    uint32_t left;
    int stamp;                    /* readers stamp each call's end; each takes a fragment number */
    struct hc_learn_entry *entry; /* the root's: its learner counts the calls */
    int cand;                     /* the vendor's index among the entry's candidates */
} hc_bvendor_window;

typedef struct hc_bstate {
    int failed;             /* segment creation failed: vendor path for this communicator */
    hc_shm shm;
    int n, me;              /* local size and rank */
    size_t f;               /* largest fragment */
    int s;                  /* the ring holds s fragments of f bytes */
    int ncells;             /* control cells per rank: fragments a root may run ahead */
    size_t ring;            /* ring bytes per rank (s * f) */
    size_t region;          /* bytes per rank (page multiple) */
    size_t stamps_off;      /* offset of the stamps inside a region */
    size_t board_off;       /* offset of the board (hc_bboard_slot[HC_BBOARD_SLOTS]) */
    size_t cells_off;       /* offset of the cells inside a region */
    size_t ring_off;        /* offset of the ring inside a region */
    uint64_t seq;           /* next fragment number (identical on every local rank) */
    uint64_t known_min;     /* a lower bound of every peer's done counter */
    uint64_t ring_pos;      /* where my next fragment may start in my ring (never wraps) */
    /* My ring's fragments that may still be read, oldest first: a FIFO of ncells entries. */
    uint64_t *mine_g, *mine_at; /* fragment number, ring position (unwrapped) */
    int mine_head, mine_len;
    int cma_ok;             /* process_vm_readv/writev work between every pair of local ranks */
    /* Every local rank maps every other's shared heap (heaps_ok); and a root whose buffer
     * lies in its heap may let the readers copy straight out of it (direct_ok: heaps_ok and
     * HIERCOLL_BCAST_DIRECT's rule, HC_BSHM_DIRECT). */
    int heaps_ok, direct_ok;
    char **peer_heap;       /* [n] each local rank's heap as mapped here (mine: NULL) */
    uint64_t direct_wait;   /* root: fragments the readers must finish before it returns */
    int stamp_due;          /* reader: this call is timed, stamp its end (hc_bshm_finish) */
    struct hc_blearn *learn; /* what this rank learned as its node's root (bcast_learn.c) */
    /* bcast_select.c: the entry whose quiet calls (learn.h) are under way, and the plan they
     * run, both a load away from the state: a settled root's call starts from them. */
    struct hc_learn_entry *quiet_e;
    const struct hc_bcast_plan *quiet_plan;
    hc_bvendor_window windows[HC_BWINDOWS]; /* by (local root, size class), one node only */
    unsigned vendor_calls;  /* the vendor's broadcasts run on this communicator, up to 255 */
    hc_bsample last_sent;   /* root: the buffer of my last broadcast here */
    unsigned char *cma_idle; /* [n] root side: readers with nothing left for the root to push */
    int tree_kind;
    /* Trees for every root, my part only: parent of me, my children. */
    int *parent;            /* [n] */
    int *cstart;            /* [n+1] */
    int *child;             /* my children per root, cstart-indexed */
    int *domain;            /* [n] NUMA domain of each local rank (possibly faked) */
    int misplaced_pages;    /* pages of my region found off my NUMA node */
    /* bcast_select.c: a private copy of the communicator for the leaders' step in which the
     * root stands for its node (several nodes only, else MPI_COMM_NULL). */
    MPI_Comm reps;
} hc_bstate;

/* Collective over c->local. Creates the segment, places each region on its owner's NUMA
 * node, probes CMA and precomputes the trees. Returns NULL only when out of memory; on a
 * segment failure the state has failed = 1 (agreed by every local rank). */
hc_bstate *hc_bshm_create(hc_comm *c, const hc_bsetup *setup);
void hc_bshm_destroy(hc_bstate *st);

/* How hc_bshm_bcast moves the bytes. */
enum {
    /* Readers write the stream with non-temporal stores: it is part of a message too large
     * to stay in the caches (a reader's own choice). */
    HC_BSHM_STREAM = 2,
    /* The root writes its slots with non-temporal stores, so readers take the fragments from
     * memory rather than out of the root's caches, which is slower on machines where a line
     * written by one core is slow to reach another (docs/algorithms-bcast.md). The root's own
     * choice. */
    HC_BSHM_ROOT_NT = 4,
    /* The root may announce fragments that lie in its shared heap as direct cells: readers
     * copy them straight out of its buffer, and the root waits for them in
     * hc_bshm_finish. Only for the caller's own buffer, never a stage the root rewrites.
     * The root's own choice (readers follow the cell). */
    HC_BSHM_DIRECT = 8,
    /* Time this call: cells carry HC_BCELL_MEASURE (the root's choice). */
    HC_BSHM_MEASURE = 16,
};

/* Broadcast m bytes of the contiguous stream `bytes` from local rank `lroot` among the local
 * ranks; how: HC_BSHM_* flags. total: the whole message's length when these m bytes are its
 * first segment, 0 for its later segments; readers stop the job when the root's differs. */
void hc_bshm_bcast(hc_bstate *st, void *bytes, size_t m, size_t total, int lroot, int how);

/* Root, at each call that could go direct: 1 when buf is the buffer of my previous call on
 * this state (same address, size and root) and a sample of its words is unchanged; records
 * this call either way (bcast_direct.c). m >= 8. */
int hc_bdirect_unchanged(hc_bstate *st, const char *buf, size_t m, int root);

/* End of a broadcast call on every rank: a root that let readers copy out of its buffer
 * (HC_BSHM_DIRECT) returns only once they have; a reader of a timed call stamps its end. */
void hc_bshm_finish(hc_bstate *st);

/* Reader: waits for the cell of my next fragment and returns it, without taking it. */
const hc_bcell *hc_bshm_peek(hc_bstate *st);
/* The vendor's broadcast chosen by the node-local root: the root announces it (how:
 * HC_BSHM_MEASURE or 0; window: its next calls of this size class that skip the cell, 0 to
 * HC_BCELL_WINDOW_MAX), a reader whose next cell says so takes it and returns the window;
 * then both call the vendor (bcast_hier.c). */
void hc_bshm_vendor_announce(hc_bstate *st, int how, unsigned window, int stamp);
unsigned hc_bshm_vendor_take(hc_bstate *st, int lroot, int *stamp);
/* A call inside a stamped window: takes the next fragment number without a cell; a reader
 * stamps its end (after the vendor's broadcast), every rank publishes it done. */
static inline uint64_t hc_bshm_window_begin(hc_bstate *st) { return st->seq++; }
void hc_bshm_window_end(hc_bstate *st, uint64_t g, int reader);
/* One more of the vendor's broadcasts run on this communicator (counted up to 255: the
 * learner only asks whether there were a few, HC_BCAST_VENDOR_WARM). */
static inline void hc_bshm_vendor_ran(hc_bstate *st)
{
    st->vendor_calls += st->vendor_calls < 255;
}
/* The window slot of (local root, size class): its calls left, once set. */
static inline hc_bvendor_window *hc_bvendor_window_of(hc_bstate *st, int lroot, int sclass)
{
    return &st->windows[(unsigned)(lroot * 37 + sclass) % HC_BWINDOWS];
}

/* What every size-mismatch stop says after the two sizes. */
#define HC_BCAST_ONE_SIGNATURE \
    "the counts and datatypes of root and readers must have one type signature"

/* Reader side of a message's first cell: stops the job, naming both lengths, unless the root
 * announced a message of `total` bytes (an erroneous program: MPI asks for one signature). */
void hc_bshm_check_total(const hc_bcell *x, size_t total);

/* Model defaults (seed 002): f* = sqrt(b * tw_over_t) rounded up to a page, s = b / f,
 * clamped to [2, 4096]; b is the per-rank queue budget in bytes. */
void hc_bcast_model(size_t b, double tw_over_t, size_t page, size_t *f, int *s);

/* NUMA placement of [addr, addr+len) on node (mbind when available; else left to first
 * touch), then a move_pages check. Returns how many pages landed elsewhere (0 when the
 * node is unknown or the check is unavailable). */
int hc_bcast_place(void *addr, size_t len, int node, int report);

/* Inside the broadcast files (bcast_shm.c, bcast_cma.c): a rank's region, the cell of
 * fragment g in it, and the byte at offset `at` of its ring. */
static inline hc_bhead *head_of(const hc_bstate *st, int r)
{
    return (hc_bhead *)((char *)st->shm.base + (size_t)r * st->region);
}
/* Rank r's stamp slot for fragment g. */
static inline hc_bstamp *hc_bstamp_of(const hc_bstate *st, int r, uint64_t g)
{
    return (hc_bstamp *)((char *)head_of(st, r) + st->stamps_off) + g % HC_BSTAMPS;
}
static inline hc_bcell *cell_of(const hc_bstate *st, int r, uint64_t g)
{
    return (hc_bcell *)((char *)head_of(st, r) + st->cells_off) + g % (uint64_t)st->ncells;
}
static inline hc_bboard_slot *hc_bboard_of(const hc_bstate *st, int r)
{
    return (hc_bboard_slot *)((char *)head_of(st, r) + st->board_off);
}
static inline char *ring_at(const hc_bstate *st, int r, uint64_t at)
{
    return (char *)head_of(st, r) + st->ring_off + at;
}

/* Waits until every peer has finished the fragments before `need`. */
void hc_bshm_wait_done(hc_bstate *st, uint64_t need);
/* Before fragment g is announced: the fragment that last used its cells must be finished
 * everywhere. */
void hc_bshm_claim_cell(hc_bstate *st, uint64_t g);
/* Publishes fragment g to my children in the tree of lroot. */
void hc_bshm_notify(hc_bstate *st, int lroot, uint64_t g, uint32_t kind, uint32_t len,
                    const void *payload, size_t plen);
/* Passes the cell x of fragment g on to my children in the tree of lroot, with only the
 * payload bytes it uses. */
void hc_bshm_forward(hc_bstate *st, int lroot, uint64_t g, const hc_bcell *x);
/* The cooperative single copy (bcast_cma.c), a peer of hc_bshm_bcast on the same state: m
 * bytes of `bytes` from local rank lroot, every reader pulling its stream from the front with
 * process_vm_readv while the root pushes it from the back with process_vm_writev. Requires
 * cma_ok and m > HC_BCELL_INLINE_MAX. The root chooses it; readers follow its cell
 * (bcast_hier.c). total: as for hc_bshm_bcast; how: HC_BSHM_MEASURE or 0. */
void hc_bcma_bcast(hc_bstate *st, void *bytes, size_t m, size_t total, int lroot, int how);

#endif
