/* Cross Memory Attach (process_vm_readv/writev): single-copy transfers to and from a peer. */
#include <errno.h>
#include <sys/uio.h>

#include "bcast_shm.h"

/* Moves len bytes between local memory and remote address addr of pid, in the direction
 * `to_remote`. The kernel may return short counts (and caps one call near 2 GiB): loop. */
static int cma_transfer(int64_t pid, uint64_t addr, char *local_mem, size_t len, int to_remote)
{
    while (len > 0) {
        size_t part = len < (1u << 30) ? len : (1u << 30);
        struct iovec local = {local_mem, part}, remote = {(void *)(uintptr_t)addr, part};
        ssize_t moved = to_remote ? process_vm_writev((pid_t)pid, &local, 1, &remote, 1, 0)
                                  : process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0);
        if (moved < 0 && errno == EINTR)
            continue;
        if (moved <= 0)
            return -1;
        local_mem += moved;
        addr += (uint64_t)moved;
        len -= (size_t)moved;
    }
    return 0;
}

int hc_cma_read(int64_t pid, uint64_t addr, void *dst, size_t len)
{
    return cma_transfer(pid, addr, dst, len, 0);
}

int hc_cma_write(int64_t pid, uint64_t addr, const void *src, size_t len)
{
    /* process_vm_writev only reads the local iovec; the cast just fits struct iovec. */
    return cma_transfer(pid, addr, (char *)(uintptr_t)src, len, 1);
}

int hc_cma_probe(int64_t pid, uint64_t addr, uint64_t expect)
{
    /* Writing needs the same ptrace permission as reading; writing back the value the word
     * already holds checks it without disturbing the peer. */
    uint64_t v = 0;
    return hc_cma_read(pid, addr, &v, sizeof v) == 0 && v == expect &&
           hc_cma_write(pid, addr, &v, sizeof v) == 0;
}
