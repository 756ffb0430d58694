/* Cross Memory Attach: single-copy reads and writes of a peer process's memory
 * (process_vm_readv / process_vm_writev), permitted between processes of one user when the
 * kernel's ptrace policy allows it; probe before relying on it. */
#ifndef HC_CMA_H
#define HC_CMA_H

#include <stddef.h>
#include <stdint.h>

/* Reads len bytes at remote address addr of pid into dst. 0, or -1 on failure. */
int hc_cma_read(int64_t pid, uint64_t addr, void *dst, size_t len);
/* Writes len bytes of src to remote address addr of pid. 0, or -1 on failure. */
int hc_cma_write(int64_t pid, uint64_t addr, const void *src, size_t len);

/* The same inside a collective, where the peers were probed at setup: only a peer that
 * vanished mid-call fails, and there is no safe way on, so the job stops naming coll. */
void hc_cma_must_read(int64_t pid, uint64_t addr, void *dst, size_t len, const char *coll);
void hc_cma_must_write(int64_t pid, uint64_t addr, const void *src, size_t len, const char *coll);

/* This process's probe word: its address, to publish, and the value a peer must read. */
uint64_t hc_cma_probe_addr(void);
uint64_t hc_cma_probe_value(int64_t pid);
/* 1 when this process may read and write pid's memory (its probe word at addr holds the
 * value, and takes it written back). */
int hc_cma_probe(int64_t pid, uint64_t addr);

#endif
