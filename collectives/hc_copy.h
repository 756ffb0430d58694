/* Copies for collectives that move more data than the caches hold. */
#ifndef HC_COPY_H
#define HC_COPY_H

#include <stddef.h>

/* Messages of at least this many bytes are written into the caller's buffer with
 * non-temporal stores (each copy is one slot or fragment of it): they would not stay cached
 * anyway, and streaming skips reading each line before it is overwritten, a third of the
 * memory traffic of a copy. Below 16 MiB the caches still hold the message here, and
 * streaming cost the 4 MiB collectives a quarter of their time and the 16 MiB allreduce a
 * sixth (docs/algorithms-allreduce.md). */
#ifndef HC_COPY_NT_MIN
#define HC_COPY_NT_MIN ((size_t)16 << 20)
#endif

/* memcpy whose stores bypass the caches (where the CPU allows; else memcpy). The stores are
 * fenced before the return, so a release store after it publishes them. */
void hc_copy_nt(void *dst, const void *src, size_t n);

#endif
