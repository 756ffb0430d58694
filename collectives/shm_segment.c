/* Node-local shared segments: create (anonymous memfd, else a named segment unlinked as soon
 * as all have attached), attach, agree on failure. */
#include "hc_shm.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "hc_config.h"
#include "hc_log.h"
#include "hc_util.h"

static atomic_uint segment_counter;

/* HIERCOLL_SHM_LIMIT counts every segment of the node once, on a counter in a page all ranks
 * of the (physical) node share, set up at MPI_Init; the creator of a segment reserves its
 * size there. Without that page (tools, unit tests, a node where it failed) each process
 * counts the segments it maps. */
static _Atomic(unsigned long long) process_bytes;
static _Atomic(unsigned long long) *node_bytes = &process_bytes;
static int budget_setup; /* creating the node's page: not a segment the fault test counts */

size_t hc_shm_bytes_in_use(void) { return (size_t)atomic_load(node_bytes); }

/* Adds size to the node's count if that stays within the limit. */
static int reserve(size_t size)
{
    unsigned long long cur = atomic_load(node_bytes);
    do {
        if (cur + size > (unsigned long long)hc_cfg.shm_limit.i)
            return 0;
    } while (!atomic_compare_exchange_weak(node_bytes, &cur, cur + size));
    return 1;
}

/* tmpfs accepts ftruncate beyond its free space and then kills the process with SIGBUS on
 * the first touch of a missing page: check the space first (racy against other users of
 * /dev/shm, but it turns the common case of a full /dev/shm into a clean fallback).
 * HIERCOLL_FAULT_SHM=n makes the n-th creation and every later one fail here, for tests. */
static int space_for(int fd, size_t bytes)
{
    static atomic_llong attempts; /* creations, counted on the creating rank */
    long long nth = budget_setup ? 0 : atomic_fetch_add(&attempts, 1) + 1;
    if (hc_cfg.fault_shm.i > 0 && nth >= hc_cfg.fault_shm.i) {
        errno = ENOSPC;
        return 0;
    }
    struct statvfs sv;
    if (fstatvfs(fd, &sv) == 0 && sv.f_blocks > 0 &&
        (unsigned long long)sv.f_bavail * sv.f_frsize < bytes) {
        errno = ENOSPC;
        return 0;
    }
    return 1;
}

static size_t page_bytes(void) { return (size_t)sysconf(_SC_PAGESIZE); }

static size_t page_round(size_t bytes)
{
    size_t page = page_bytes();
    return (bytes + page - 1) / page * page;
}

/* Rank 0's side of one try: an anonymous file (memfd) that exists only while someone holds
 * it, so a crash at any moment leaves nothing anywhere; or a named /dev/shm segment when the
 * peers cannot open the memfd through /proc. name receives what the peers open. */
static int create_file(int anonymous, size_t size, char *name, size_t namelen)
{
    int fd;
    if (anonymous) {
        fd = memfd_create("hiercoll", MFD_CLOEXEC);
        snprintf(name, namelen, "/proc/%d/fd/%d", (int)getpid(), fd);
    } else {
        snprintf(name, namelen, "/hiercoll-%u-%d-%u", (unsigned)getuid(), (int)getpid(),
                 atomic_fetch_add(&segment_counter, 1));
        fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    }
    if (fd >= 0 && space_for(fd, size) && ftruncate(fd, (off_t)size) == 0)
        return fd;
    int err = errno;
    if (fd >= 0) {
        close(fd);
        if (!anonymous)
            shm_unlink(name); /* nobody will attach: do not leave it behind */
    }
    /* One line per process: every later communicator would say the same. */
    hc_warn_once("cannot create a shared segment of %zu bytes (%s); communicators that need "
                 "one go without shared memory",
                 size, strerror(err));
    errno = err;
    return -1;
}

/* The last page of every segment: who still maps it, so that the node's count of a segment
 * is given back by the last process to let go of it, not by the first. */
typedef struct trailer {
    _Atomic int holders;
    int node_counted; /* the creator reserved it on the node's counter */
} trailer;

/* How a segment is counted against HIERCOLL_SHM_LIMIT (hc_shm.counted). */
enum { COUNT_NONE, COUNT_SELF, COUNT_NODE };

static trailer *trailer_of(const hc_shm *s)
{
    return (trailer *)((char *)s->base + s->size - page_bytes());
}

/* Lets go of a segment every rank had agreed on. */
static void unmap(hc_shm *s)
{
    int last = atomic_fetch_sub(&trailer_of(s)->holders, 1) == 1;
    munmap(s->base, s->size);
    if (s->counted == COUNT_SELF || (s->counted == COUNT_NODE && last))
        atomic_fetch_sub(node_bytes, s->size);
    s->base = NULL;
}

/* Segments that freed communicators gave back, per process (hc_shm.h). Bounded so that a
 * program that frees what it no longer needs does not keep it all: the oldest goes first. */
#define POOL_MAX 8
#define POOL_BYTES ((size_t)64 << 20)
static hc_shm pool[POOL_MAX];
static int npool;
static size_t pool_bytes;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;

static void pool_remove(int i)
{
    pool_bytes -= pool[i].size;
    memmove(pool + i, pool + i + 1, sizeof *pool * (size_t)(npool - i - 1));
    npool--;
}

/* Takes from the pool the segment `id` of `size` that this process held as local rank
 * `local_rank` of `group` ranks; with id 0 (the creator's offer), the one given back last by
 * the group whose world ranks hash to `key`. One that a holder has let go of can never be
 * taken again: it goes. */
static int pool_take(uint64_t id, uint64_t key, size_t size, int group, int local_rank,
                     hc_shm *out)
{
    hc_shm stale[POOL_MAX];
    int nstale = 0, found = 0;
    pthread_mutex_lock(&pool_lock);
    for (int i = npool - 1; i >= 0 && !found; i--) {
        hc_shm *s = &pool[i];
        if (s->size != size || s->group != group || s->local_rank != local_rank ||
            (id ? s->id != id : s->key != key))
            continue;
        if (!id && atomic_load(&trailer_of(s)->holders) < group) {
            stale[nstale++] = *s;
            pool_remove(i);
            continue;
        }
        *out = *s;
        pool_remove(i);
        found = 1;
    }
    pthread_mutex_unlock(&pool_lock);
    for (int i = 0; i < nstale; i++)
        unmap(&stale[i]);
    return found;
}

static void pool_put(hc_shm *s)
{
    if (s->size > POOL_BYTES) {
        unmap(s);
        return;
    }
    hc_shm evicted[POOL_MAX];
    int nevicted = 0;
    pthread_mutex_lock(&pool_lock);
    while (npool > 0 && (npool == POOL_MAX || pool_bytes + s->size > POOL_BYTES)) {
        evicted[nevicted++] = pool[0];
        pool_remove(0);
    }
    pool[npool++] = *s;
    pool_bytes += s->size;
    pthread_mutex_unlock(&pool_lock);
    for (int i = 0; i < nevicted; i++)
        unmap(&evicted[i]);
    s->base = NULL;
}

/* Unmaps every pooled segment: the node's HIERCOLL_SHM_LIMIT needs their bytes (those whose
 * last holder this process is). */
static void pool_drop(void)
{
    hc_shm all[POOL_MAX];
    pthread_mutex_lock(&pool_lock);
    int n = npool;
    memcpy(all, pool, sizeof *pool * (size_t)n);
    npool = 0;
    pool_bytes = 0;
    pthread_mutex_unlock(&pool_lock);
    for (int i = 0; i < n; i++)
        unmap(&all[i]);
}

/* The same on every rank of c->local: its ranks' MPI_COMM_WORLD ranks in order, hashed. */
static uint64_t group_key(const hc_comm *c)
{
    uint64_t h = HC_FNV_START;
    for (int r = 0; c->world_rank_of && c->local_ranks && r < c->local_size; r++)
        h = hc_fnv_add(h, (uint64_t)(unsigned)c->world_rank_of[c->local_ranks[r]]);
    return h;
}

/* How a try gets its segment: one given back (else, on the creator, a new anonymous one), a
 * new anonymous one, or a named one. */
enum { TRY_REUSE, TRY_ANONYMOUS, TRY_NAMED, TRY_NONE };

/* One try, collective over c->local. Returns 1 when every rank has the segment; else 0 with
 * *next (identical everywhere): the try that may still work, or TRY_NONE. A peer that no
 * longer holds the segment offered for reuse, or cannot open a memfd, leads to the next.
 * reserved: the creator counted a new segment on the node's counter. */
static int attempt(hc_comm *c, hc_shm *out, int ok, int reserved, int how, int *next)
{
    int fd = -1, creator = c->local_rank == 0;
    struct { int ok, reuse; uint64_t id; char name[92]; } msg = {0};
    if (creator && ok) {
        msg.reuse = how == TRY_REUSE &&
                    pool_take(0, out->key, out->size, c->local_size, 0, out);
        if (msg.reuse) {
            msg.id = out->id;
        } else {
            fd = create_file(how != TRY_NAMED, out->size, msg.name, sizeof msg.name);
            ok = fd >= 0;
            msg.id = (uint64_t)getpid() << 32 | (atomic_fetch_add(&segment_counter, 1) + 1u);
        }
    }
    /* The name travels with the creator's verdict. */
    msg.ok = ok;
    PMPI_Bcast(&msg, (int)sizeof msg, MPI_BYTE, 0, c->local);
    ok = msg.ok && ok;

    if (ok && !creator) {
        if (msg.reuse) {
            ok = pool_take(msg.id, 0, out->size, c->local_size, c->local_rank, out);
        } else {
            fd = how != TRY_NAMED ? open(msg.name, O_RDWR | O_CLOEXEC)
                                  : shm_open(msg.name, O_RDWR, 0600);
            ok = fd >= 0;
        }
    }
    if (ok && !msg.reuse) {
        out->base = mmap(NULL, out->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (out->base == MAP_FAILED) {
            out->base = NULL;
            ok = 0;
        } else { /* before the agreement: nobody lets go before everyone holds it */
            atomic_fetch_add(&trailer_of(out)->holders, 1);
            if (creator)
                trailer_of(out)->node_counted = reserved;
        }
    }
    /* The creator keeps its descriptor until everyone has attached: the peers open the
     * memfd through it. */
    if (fd >= 0 && !creator)
        close(fd);
    int all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, c->local);
    if (creator && msg.ok && !msg.reuse) {
        close(fd);
        if (how == TRY_NAMED)
            shm_unlink(msg.name); /* everyone has attached (or given up) */
    }
    out->reused = msg.reuse;
    out->id = msg.id;
    out->group = c->local_size;
    out->local_rank = c->local_rank;
    *next = !msg.ok               ? TRY_NONE
            : msg.reuse           ? TRY_ANONYMOUS
            : how == TRY_NAMED    ? TRY_NONE
                                  : TRY_NAMED;
    if (!all_ok && out->base) {
        if (msg.reuse)
            pool_put(out); /* still this rank's to give again */
        else
            munmap(out->base, out->size); /* never agreed on: hc_shm_create uncounts it */
        out->base = NULL;
    }
    return all_ok;
}

int hc_shm_create(hc_comm *c, size_t bytes, hc_shm *out)
{
    *out = (hc_shm){.size = page_round(bytes ? bytes : 1) + page_bytes(), .key = group_key(c)};
    /* On the node's counter the creator reserves; on a process's own, everyone does. The
     * tries below agree on the verdict. */
    int node_mode = node_bytes != &process_bytes;
    int counts = !budget_setup && (c->local_rank == 0 || !node_mode);
    int ok = !counts || reserve(out->size);
    if (!ok) {
        pool_drop();
        ok = reserve(out->size);
    }
    if (!ok)
        hc_warn_once("HIERCOLL_SHM_LIMIT=%s reached (%zu bytes in use, %zu more asked): "
                     "communicators beyond it go without shared memory",
                     hc_cfg.shm_limit.s, hc_shm_bytes_in_use(), out->size);
    int how = budget_setup ? TRY_ANONYMOUS : TRY_REUSE, done = 0;
    while (!done && how != TRY_NONE)
        done = attempt(c, out, ok, counts && ok && node_mode, how, &how);
    if (!done || out->reused) { /* a reused segment stays counted as it was */
        if (counts && ok)
            atomic_fetch_sub(node_bytes, out->size);
        return done ? 0 : -1;
    }
    out->counted = !node_mode ? (counts ? COUNT_SELF : COUNT_NONE)
                   : trailer_of(out)->node_counted ? COUNT_NODE
                                                   : COUNT_NONE;
    return 0;
}

void hc_shm_destroy(hc_shm *s)
{
    if (s->base)
        unmap(s);
}

void hc_shm_release(hc_shm *s)
{
    if (!s->base)
        return;
    /* Other processes' communicators cannot take back what this one keeps: past half the
     * node's limit, segments go. */
    if (hc_shm_bytes_in_use() > (size_t)hc_cfg.shm_limit.i / 2)
        unmap(s);
    else
        pool_put(s);
}

static int world_node_ranks, world_node_rank = -1;

int hc_shm_node_ranks(void) { return world_node_ranks; }
int hc_shm_node_rank(void) { return world_node_rank; }

void hc_shm_budget_init(MPI_Comm world)
{
    MPI_Comm node;
    if (PMPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) !=
        MPI_SUCCESS)
        return;
    hc_comm c;
    memset(&c, 0, sizeof c);
    c.local = node;
    PMPI_Comm_rank(node, &c.local_rank);
    PMPI_Comm_size(node, &c.local_size);
    world_node_ranks = c.local_size;
    world_node_rank = c.local_rank;
    hc_shm page;
    budget_setup = 1;
    int rc = hc_shm_create(&c, sizeof(unsigned long long), &page);
    budget_setup = 0;
    /* The page stays mapped until the process ends; its own size is not counted. */
    if (rc == 0)
        node_bytes = page.base;
    PMPI_Comm_free(&node);
}
