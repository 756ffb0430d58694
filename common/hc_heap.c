/* The shared heap (hc_heap.h). Metadata lives in the C library's heap through its __libc_*
 * entry points, never in ours: this code runs inside malloc. */
#include "hc_heap.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "hc_util.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

extern void *__libc_malloc(size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

/* Virtual size of an arena: pages exist only once written, and a peer maps the whole of it,
 * so a node of 256 ranks maps 16 TiB of address space, a quarter of what x86-64 gives a
 * process. A rank whose large blocks outgrow it gets the rest from the C library. Where the
 * address space is limited (ulimit -v, valgrind) a smaller arena is tried, down to 1 GiB. */
#define HC_HEAP_MAX_BYTES ((uint64_t)64 << 30)
#define HC_HEAP_MIN_BYTES ((uint64_t)1 << 30)
/* The arena's size once made (immutable from then on: read without the lock). */
#define HC_HEAP_BYTES H.bytes
/* Freed blocks keep their pages (a program that frees and allocates a buffer every step
 * would otherwise fault them in every step) until this many bytes are free; then every free
 * page goes back to the system. */
#define HC_HEAP_KEEP_FREE ((uint64_t)64 << 20)
#define HC_HEAP_MAGIC 0x6863686561700001ull /* "hcheap", version 1 */

typedef struct heap_header {
    uint64_t magic;
    int64_t pid;
    uint64_t nonce, bytes;
} heap_header;

typedef struct extent {
    uint64_t off, len;
    int dirty; /* pages may hold old data (a calloc must clear them) */
} extent;

static struct {
    pthread_mutex_t lock;
    int on;
    int made;           /* 0 not yet, 1 made, -1 failed */
    int fd, snap;       /* the memfd; the copy a fork() child takes */
    dev_t dev;          /* what fd named when it was made (the program may have closed it) */
    ino_t ino;
    char *_Atomic base;
    uint64_t page, top; /* never-used pages start at top */
    uint64_t bytes;     /* size of the arena (0 until made) */
    uint64_t nonce;
    extent *fr;         /* free extents, sorted by offset, adjacent only if unalike */
    size_t nfr, capfr;
    extent *used;       /* blocks in use, sorted by offset (dirty unused) */
    size_t nused, capused;
    uint64_t dirty_free;
} H = {.lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1, .snap = -1};

static void fork_prepare(void);
static void fork_parent(void);
static void fork_child(void);

/* The fork handlers are registered here, from the library's constructor, before most other
 * libraries register theirs: fork() runs prepare handlers newest first and the others oldest
 * first, so the heap is locked after every other prepare handler (which may allocate) and
 * remapped in the child before any other child handler runs. */
void hc_heap_enable(void)
{
    if (!H.on)
        pthread_atfork(fork_prepare, fork_parent, fork_child);
    H.on = 1;
}
int hc_heap_enabled(void) { return H.on && H.made >= 0; }

static uint64_t fresh_nonce(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)getpid() << 40 ^ (uint64_t)ts.tv_nsec << 8 ^ (uint64_t)ts.tv_sec;
}

static void write_header(void)
{
    heap_header *h = (heap_header *)H.base;
    h->pid = getpid();
    h->nonce = H.nonce = fresh_nonce();
    h->bytes = HC_HEAP_BYTES;
    h->magic = HC_HEAP_MAGIC;
}

static void remember_fd(int fd)
{
    struct stat sb;
    if (fstat(fd, &sb) == 0)
        H.dev = sb.st_dev, H.ino = sb.st_ino;
}

/* 1 when fd still names the arena's memfd. */
static int fd_is_ours(int fd)
{
    struct stat sb;
    return fd >= 0 && fstat(fd, &sb) == 0 && sb.st_dev == H.dev && sb.st_ino == H.ino;
}

/* Under the lock. */
static int make_arena(void)
{
    if (H.made)
        return H.made;
    H.made = -1;
    H.page = (uint64_t)sysconf(_SC_PAGESIZE);
    int fd = (int)syscall(SYS_memfd_create, "hiercoll-heap", MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    void *p = MAP_FAILED;
    uint64_t bytes = HC_HEAP_MAX_BYTES;
    for (; p == MAP_FAILED && bytes >= HC_HEAP_MIN_BYTES; bytes /= 4)
        if (ftruncate(fd, (off_t)bytes) == 0)
            p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    if (p == MAP_FAILED) {
        close(fd);
        return -1;
    }
    H.bytes = bytes * 4; /* the loop divided once more after the mapping that worked */
    H.fd = fd;
    remember_fd(fd);
    atomic_store(&H.base, (char *)p);
    write_header();
    H.top = H.page;
    return H.made = 1;
}

static int grow(extent **v, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? 2 * *cap : 64;
    extent *g = __libc_realloc(*v, c * sizeof *g);
    if (!g)
        return -1;
    *v = g;
    *cap = c;
    return 0;
}

/* First index whose offset is >= off. */
static size_t lower_bound(const extent *v, size_t n, uint64_t off)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (v[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Free extents merge only when both are dirty or both clean: a small block freed beside a
 * large extent already given back must not make all of it dirty again, or the next give-back
 * hands the whole extent to the system once more (a madvise over 64 MiB took ~100 us, and a
 * program freeing a small block each step paid it each step). An allocation may span a run
 * of adjacent extents (take_free). */
static int alike_neighbours(const extent *lo, const extent *hi)
{
    return lo->off + lo->len == hi->off && lo->dirty == hi->dirty;
}

/* Through the mapping, not the fd: a program may close descriptors it did not open, and the
 * number may then name one of its own files. */
static int release_pages(uint64_t off, uint64_t len)
{
    return madvise(H.base + off, len, MADV_REMOVE);
}

/* An extent whose pages could not go back (locked by mlock) stays dirty: a calloc there must
 * still clear it. */
static void give_back_free_pages(void)
{
    H.dirty_free = 0;
    for (size_t i = 0; i < H.nfr; i++)
        if (H.fr[i].dirty) {
            if (release_pages(H.fr[i].off, H.fr[i].len) == 0)
                H.fr[i].dirty = 0;
            else
                H.dirty_free += H.fr[i].len;
        }
    size_t kept = 0; /* neighbours now alike merge */
    for (size_t i = 0; i < H.nfr; i++)
        if (kept && alike_neighbours(&H.fr[kept - 1], &H.fr[i]))
            H.fr[kept - 1].len += H.fr[i].len;
        else
            H.fr[kept++] = H.fr[i];
    H.nfr = kept;
}

/* First fit over runs of adjacent free extents, under the lock: the first len bytes of the
 * first run that holds them. [*dirty_lo, *dirty_hi) spans the parts taken from dirty extents
 * (empty if none), which a zeroed block must clear. 0 if no run is long enough. */
static int take_free(uint64_t len, uint64_t *off, uint64_t *dirty_lo, uint64_t *dirty_hi)
{
    for (size_t i = 0, j; i < H.nfr; i = j + 1) {
        uint64_t run = H.fr[i].len;
        for (j = i; run < len && j + 1 < H.nfr && H.fr[j].off + H.fr[j].len == H.fr[j + 1].off;)
            run += H.fr[++j].len;
        if (run < len)
            continue;
        *off = H.fr[i].off;
        *dirty_lo = *dirty_hi = 0;
        size_t emptied = 0;
        for (size_t k = i, need = len; need; k++) {
            uint64_t part = H.fr[k].len < need ? H.fr[k].len : need;
            if (H.fr[k].dirty) {
                if (*dirty_hi == *dirty_lo)
                    *dirty_lo = H.fr[k].off;
                *dirty_hi = H.fr[k].off + part;
                H.dirty_free -= part;
            }
            H.fr[k].off += part;
            H.fr[k].len -= part;
            need -= part;
            emptied += H.fr[k].len == 0;
        }
        memmove(H.fr + i, H.fr + i + emptied, (H.nfr - i - emptied) * sizeof *H.fr);
        H.nfr -= emptied;
        return 1;
    }
    return 0;
}

void *hc_heap_alloc(size_t bytes, int zeroed)
{
    if (!H.on || bytes == 0 || bytes > HC_HEAP_MAX_BYTES)
        return NULL;
    pthread_mutex_lock(&H.lock);
    if (make_arena() < 0 || grow(&H.used, &H.capused, H.nused + 1) != 0) {
        pthread_mutex_unlock(&H.lock);
        return NULL;
    }
    uint64_t len = HC_ALIGN_UP((uint64_t)bytes, H.page), off = 0;
    if (len > HC_HEAP_BYTES) {
        pthread_mutex_unlock(&H.lock);
        return NULL;
    }
    uint64_t dirty_lo = 0, dirty_hi = 0;
    int found = take_free(len, &off, &dirty_lo, &dirty_hi);
    if (!found) {
        if (H.top + len > HC_HEAP_BYTES) {
            pthread_mutex_unlock(&H.lock);
            return NULL;
        }
        off = H.top;
        H.top += len;
    }
    size_t at = lower_bound(H.used, H.nused, off);
    memmove(H.used + at + 1, H.used + at, (H.nused - at) * sizeof *H.used);
    H.used[at] = (extent){off, len, 0};
    H.nused++;
    char *p = H.base + off;
    pthread_mutex_unlock(&H.lock);
    if (zeroed && dirty_hi > dirty_lo)
        memset(H.base + dirty_lo, 0, dirty_hi - dirty_lo);
    return p;
}

int hc_heap_owns(const void *p)
{
    const char *b = atomic_load_explicit(&H.base, memory_order_acquire);
    return b && (const char *)p >= b && (const char *)p < b + HC_HEAP_BYTES;
}

/* Index of the block that starts at p, under the lock; the process stops on a pointer that
 * is no block, as the C library's free does. */
static size_t block_at(const void *p, const char *what)
{
    uint64_t off = (uint64_t)((const char *)p - H.base);
    size_t at = lower_bound(H.used, H.nused, off);
    if (at == H.nused || H.used[at].off != off) {
        fprintf(stderr, "hiercoll: %s(): invalid pointer %p\n", what, p);
        abort();
    }
    return at;
}

void hc_heap_free(void *p)
{
    pthread_mutex_lock(&H.lock);
    size_t at = block_at(p, "free");
    extent e = {H.used[at].off, H.used[at].len, 1};
    memmove(H.used + at, H.used + at + 1, (--H.nused - at) * sizeof *H.used);
    /* Into the free list, merged with dirty neighbours only (see alike_neighbours). */
    size_t i = lower_bound(H.fr, H.nfr, e.off);
    H.dirty_free += e.len;
    int left = i > 0 && alike_neighbours(&H.fr[i - 1], &e);
    int right = i < H.nfr && alike_neighbours(&e, &H.fr[i]);
    if (left) {
        H.fr[i - 1].len += e.len;
        if (right) {
            H.fr[i - 1].len += H.fr[i].len;
            memmove(H.fr + i, H.fr + i + 1, (--H.nfr - i) * sizeof *H.fr);
        }
    } else if (right) {
        H.fr[i].off = e.off;
        H.fr[i].len += e.len;
    } else if (grow(&H.fr, &H.capfr, H.nfr + 1) == 0) {
        memmove(H.fr + i + 1, H.fr + i, (H.nfr - i) * sizeof *H.fr);
        H.fr[i] = e;
        H.nfr++;
    } else { /* no room to remember it: the pages go back now, the offsets are lost */
        release_pages(e.off, e.len);
        H.dirty_free -= e.len;
    }
    if (H.dirty_free > HC_HEAP_KEEP_FREE)
        give_back_free_pages();
    pthread_mutex_unlock(&H.lock);
}

size_t hc_heap_usable(const void *p)
{
    pthread_mutex_lock(&H.lock);
    size_t len = (size_t)H.used[block_at(p, "malloc_usable_size")].len;
    pthread_mutex_unlock(&H.lock);
    return len;
}

hc_heap_id hc_heap_self(void)
{
    hc_heap_id id;
    memset(&id, 0, sizeof id); /* no stray padding bytes in what is published */
    id.pid = getpid();
    id.fd = -1;
    if (!H.on)
        return id;
    pthread_mutex_lock(&H.lock);
    if (make_arena() > 0 && fd_is_ours(H.fd))
        id.fd = H.fd, id.bytes = HC_HEAP_BYTES, id.nonce = H.nonce;
    pthread_mutex_unlock(&H.lock);
    return id;
}

int64_t hc_heap_offset(const void *p, size_t len)
{
    const char *b = atomic_load_explicit(&H.base, memory_order_acquire);
    const char *q = p;
    if (!b || q < b + H.page || len > HC_HEAP_BYTES || q > b + HC_HEAP_BYTES - len)
        return -1;
    return (int64_t)(q - b);
}

/* --- peers -------------------------------------------------------------------------------- */

static struct {
    pthread_mutex_t lock;
    struct peer {
        int64_t pid;
        uint64_t nonce;
        char *base;
    } *v;
    size_t n, cap;
} P = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* --- fork: the child's blocks become its own ----------------------------------------------
 * A MAP_SHARED arena would stay shared with the child. Before the fork the live blocks are
 * copied into a new memfd, which the child maps in place of the arena: its copy is what the
 * parent's blocks held when fork() was called, as with anonymous memory (except for what
 * other threads of the parent write during the copy). */

static void fork_prepare(void)
{
    pthread_mutex_lock(&H.lock);
    H.snap = -1;
    if (H.made <= 0)
        return;
    int s = (int)syscall(SYS_memfd_create, "hiercoll-heap", MFD_CLOEXEC);
    int ok = s >= 0 && ftruncate(s, (off_t)HC_HEAP_BYTES) == 0;
    for (size_t i = 0; ok && i < H.nused; i++)
        for (uint64_t done = 0; ok && done < H.used[i].len;) {
            ssize_t w = pwrite(s, H.base + H.used[i].off + done, H.used[i].len - done,
                               (off_t)(H.used[i].off + done));
            ok = w > 0 || (w < 0 && errno == EINTR);
            done += w > 0 ? (uint64_t)w : 0;
        }
    if (!ok && s >= 0)
        close(s);
    H.snap = ok ? s : -1;
}

static void fork_parent(void)
{
    if (H.snap >= 0)
        close(H.snap);
    H.snap = -1;
    pthread_mutex_unlock(&H.lock);
}

static void fork_child(void)
{
    if (H.made > 0) {
        void *p = MAP_FAILED;
        if (H.snap >= 0)
            p = mmap(H.base, HC_HEAP_BYTES, PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_NORESERVE | MAP_FIXED, H.snap, 0);
        if (p == MAP_FAILED) {
            /* Sharing the parent's pages would let each overwrite the other's data: the
             * child gets empty private pages instead, and is told. */
            mmap(H.base, HC_HEAP_BYTES, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
            if (H.snap >= 0)
                close(H.snap);
            static const char msg[] = "hiercoll: fork(): no memory to copy the shared heap; "
                                      "the child's large blocks are zeroed\n";
            (void)!write(2, msg, sizeof msg - 1);
            H.on = 0;
        } else {
            if (fd_is_ours(H.fd))
                close(H.fd);
            H.fd = H.snap;
            remember_fd(H.fd);
            write_header();
        }
    }
    H.snap = -1;
    pthread_mutex_init(&H.lock, NULL);
    pthread_mutex_init(&P.lock, NULL); /* a thread of the parent may have held it */
}

static char *map_peer(hc_heap_id id)
{
    int pidfd = (int)syscall(SYS_pidfd_open, (pid_t)id.pid, 0);
    if (pidfd < 0)
        return NULL;
    int fd = (int)syscall(SYS_pidfd_getfd, pidfd, id.fd, 0);
    close(pidfd);
    if (fd < 0)
        return NULL;
    void *p = mmap(NULL, id.bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return NULL;
    const heap_header *h = p;
    if (h->magic != HC_HEAP_MAGIC || h->pid != id.pid || h->nonce != id.nonce ||
        h->bytes != id.bytes) {
        munmap(p, id.bytes);
        return NULL;
    }
    return p;
}

char *hc_heap_peer(hc_heap_id id)
{
    if (id.fd < 0 || id.bytes == 0)
        return NULL;
    pthread_mutex_lock(&P.lock);
    char *base = NULL;
    for (size_t i = 0; i < P.n && !base; i++)
        if (P.v[i].pid == id.pid && P.v[i].nonce == id.nonce)
            base = P.v[i].base;
    if (!base && (base = map_peer(id)) != NULL) {
        if (P.n == P.cap) {
            size_t c = P.cap ? 2 * P.cap : 16;
            struct peer *g = __libc_realloc(P.v, c * sizeof *g);
            if (g)
                P.v = g, P.cap = c;
        }
        if (P.n < P.cap)
            P.v[P.n++] = (struct peer){id.pid, id.nonce, base};
        else
            munmap(base, id.bytes), base = NULL;
    }
    pthread_mutex_unlock(&P.lock);
    return base;
}
