/* Cross Memory Attach helpers shared by the broadcast and the allreduce. */
#include <errno.h>
#include <pthread.h>
#include <sys/uio.h>
#include <unistd.h>

#include "hc_cma.h"

#include <mpi.h>

#include "hc_config.h"
#include "hc_log.h"
#include "hc_must.h"

static uint64_t probe_word;

/* The kernel may return short counts (at most about 2 GiB per call): loop. */
static int cma_move(int64_t pid, uint64_t addr, char *local, size_t len, int write)
{
    while (len > 0) {
        size_t chunk = len < (1u << 30) ? len : (1u << 30);
        struct iovec here = {local, chunk}, there = {(void *)(uintptr_t)addr, chunk};
        ssize_t got = write ? process_vm_writev((pid_t)pid, &here, 1, &there, 1, 0)
                            : process_vm_readv((pid_t)pid, &here, 1, &there, 1, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        local += got;
        addr += (uint64_t)got;
        len -= (size_t)got;
    }
    return 0;
}

int hc_cma_read(int64_t pid, uint64_t addr, void *dst, size_t len)
{
    return cma_move(pid, addr, dst, len, 0);
}

int hc_cma_write(int64_t pid, uint64_t addr, const void *src, size_t len)
{
    return cma_move(pid, addr, (char *)src, len, 1);
}

void hc_cma_must_read(int64_t pid, uint64_t addr, void *dst, size_t len, const char *coll)
{
    if (hc_cma_read(pid, addr, dst, len) != 0)
        hc_abort(MPI_COMM_WORLD, 1, "process_vm_readv from pid %lld failed in %s", (long long)pid,
                 coll);
}

void hc_cma_must_write(int64_t pid, uint64_t addr, const void *src, size_t len, const char *coll)
{
    if (hc_cma_write(pid, addr, src, len) != 0)
        hc_abort(MPI_COMM_WORLD, 1, "process_vm_writev to pid %lld failed in %s", (long long)pid,
                 coll);
}

uint64_t hc_cma_probe_value(int64_t pid)
{
    return 0x6863636d61ull ^ (uint64_t)pid;
}

uint64_t hc_cma_probe_addr(void)
{
    /* Atomic: several communicators may set it up from different threads (same value). */
    __atomic_store_n(&probe_word, hc_cma_probe_value(getpid()), __ATOMIC_RELAXED);
    return (uint64_t)(uintptr_t)&probe_word;
}

/* HIERCOLL_FAULT_CMA=k: world rank k-1 behaves as if ptrace were restricted, for tests. */
static int probe_fault(void)
{
    int rank = -1;
    if (hc_cfg.fault_cma.i == 0)
        return 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return hc_cfg.fault_cma.i == rank + 1;
}

/* Peers already probed with success: the permission lasts as long as the processes, and two
 * probes a new communicator (broadcast and allreduce) cost it four system calls. Keyed by
 * the probe word's address too, which differs between processes (address-space layout
 * randomisation), so a pid reused by another process is probed afresh. A peer that fails is
 * probed again each time (a rare, slow path anyway). */
#define PROBED_MAX 64
static struct probed { int64_t pid; uint64_t addr; } probed_ok[PROBED_MAX];
static int nprobed;
static pthread_mutex_t probed_lock = PTHREAD_MUTEX_INITIALIZER;

static int probed_before(int64_t pid, uint64_t addr)
{
    int found = 0;
    pthread_mutex_lock(&probed_lock);
    for (int i = 0; i < nprobed && !found; i++)
        found = probed_ok[i].pid == pid && probed_ok[i].addr == addr;
    pthread_mutex_unlock(&probed_lock);
    return found;
}

static void remember_probed(int64_t pid, uint64_t addr)
{
    pthread_mutex_lock(&probed_lock);
    if (nprobed < PROBED_MAX)
        probed_ok[nprobed++] = (struct probed){pid, addr};
    pthread_mutex_unlock(&probed_lock);
}

int hc_cma_probe(int64_t pid, uint64_t addr)
{
    /* Writing needs the same ptrace permission as reading; writing back the value the word
     * already holds checks it without disturbing the peer. */
    uint64_t v = 0;
    if (probe_fault())
        return 0;
    if (probed_before(pid, addr))
        return 1;
    int ok = hc_cma_read(pid, addr, &v, sizeof v) == 0 && v == hc_cma_probe_value(pid) &&
             hc_cma_write(pid, addr, &v, sizeof v) == 0;
    if (ok)
        remember_probed(pid, addr);
    return ok;
}
