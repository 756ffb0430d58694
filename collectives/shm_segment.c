/* Node-local shared segments: create (anonymous memfd, else a named segment unlinked as soon
 * as all have attached), attach, agree on failure. */
#include "hc_shm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "hc_config.h"
#include "hc_log.h"

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

static size_t page_round(size_t bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
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

/* One try, collective over c->local. Returns 1 when every rank mapped the segment; else 0,
 * with *retry set (identically everywhere) when the creator succeeded but a peer could not
 * attach, which a named segment may fix. */
static int attempt(hc_comm *c, hc_shm *out, int ok, int anonymous, int *retry)
{
    int fd = -1;
    char name[92] = "";
    if (c->local_rank == 0 && ok) {
        fd = create_file(anonymous, out->size, name, sizeof name);
        ok = fd >= 0;
    }
    /* The name travels with the creator's verdict. */
    struct { int ok; char name[92]; } msg;
    msg.ok = ok;
    memcpy(msg.name, name, sizeof msg.name);
    PMPI_Bcast(&msg, (int)sizeof msg, MPI_BYTE, 0, c->local);
    ok = msg.ok && ok;

    if (ok && c->local_rank != 0) {
        fd = anonymous ? open(msg.name, O_RDWR | O_CLOEXEC) : shm_open(msg.name, O_RDWR, 0600);
        if (fd < 0)
            ok = 0;
    }
    if (ok) {
        out->base = mmap(NULL, out->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (out->base == MAP_FAILED) {
            out->base = NULL;
            ok = 0;
        }
    }
    /* The creator keeps its descriptor until everyone has attached: the peers open the
     * memfd through it. */
    if (fd >= 0 && c->local_rank != 0)
        close(fd);
    int all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, c->local);
    if (c->local_rank == 0 && msg.ok) {
        close(fd);
        if (!anonymous)
            shm_unlink(msg.name); /* everyone has attached (or given up) */
    }
    *retry = !all_ok && msg.ok && anonymous;
    if (!all_ok && out->base) {
        munmap(out->base, out->size);
        out->base = NULL;
    }
    return all_ok;
}

int hc_shm_create(hc_comm *c, size_t bytes, hc_shm *out)
{
    out->base = NULL;
    out->size = page_round(bytes ? bytes : 1);
    out->counted = 0;
    /* On the node's counter the creator reserves; on a process's own, everyone does. The
     * tries below agree on the verdict. */
    int counts = !budget_setup && (c->local_rank == 0 || node_bytes == &process_bytes);
    int ok = !counts || reserve(out->size), retry = 0;
    if (!ok)
        hc_warn_once("HIERCOLL_SHM_LIMIT=%s reached (%zu bytes in use, %zu more asked): "
                     "communicators beyond it go without shared memory",
                     hc_cfg.shm_limit.s, hc_shm_bytes_in_use(), out->size);
    if (!attempt(c, out, ok, 1, &retry) && !(retry && attempt(c, out, ok, 0, &retry))) {
        if (counts && ok)
            atomic_fetch_sub(node_bytes, out->size);
        return -1;
    }
    out->counted = counts;
    return 0;
}

void hc_shm_destroy(hc_shm *s)
{
    if (!s->base)
        return;
    munmap(s->base, s->size);
    if (s->counted)
        atomic_fetch_sub(node_bytes, s->size);
    s->base = NULL;
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
