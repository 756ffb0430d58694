/* Cross Memory Attach (process_vm_readv): single-copy reads of a peer's memory. */
#include <errno.h>
#include <sys/uio.h>

#include "bcast_shm.h"

int hc_cma_read(int64_t pid, uint64_t addr, void *dst, size_t len)
{
    char *d = dst;
    /* The kernel may return short counts (at most about 2 GiB per call): loop. */
    while (len > 0) {
        size_t chunk = len < (1u << 30) ? len : (1u << 30);
        struct iovec local = {d, chunk}, remote = {(void *)(uintptr_t)addr, chunk};
        ssize_t got = process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        d += got;
        addr += (uint64_t)got;
        len -= (size_t)got;
    }
    return 0;
}

int hc_cma_probe(int64_t pid, uint64_t addr, uint64_t expect)
{
    uint64_t v = 0;
    return hc_cma_read(pid, addr, &v, sizeof v) == 0 && v == expect;
}
