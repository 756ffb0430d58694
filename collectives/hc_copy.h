/* Copies for collectives that move more data than the caches hold. */
#ifndef HC_COPY_H
#define HC_COPY_H

#include <stddef.h>
#include <stdint.h>

/* Messages of at least this many bytes are written into the caller's buffer with
 * non-temporal stores (each copy is one slot or fragment of it): they would not stay cached
 * anyway, and streaming skips reading each line before it is overwritten, a third of the
 * memory traffic of a copy. Below 16 MiB the caches still hold the message here, and
 * streaming cost the 4 MiB collectives a quarter of their time and the 16 MiB allreduce a
 * sixth (docs/algorithms-allreduce.md). */
#ifndef HC_COPY_NT_MIN
#define HC_COPY_NT_MIN ((size_t)16 << 20)
#endif

/* Copies run at full speed only when source and destination sit at the same offset in a
 * 4 KiB span: with the destination 1-63 bytes past the source's offset, every store is taken
 * for a dependency of the loads just after it (4K aliasing), and a copy into or out of a
 * shared slot ran at half speed (docs/algorithms-allreduce.md). Where a collective chooses
 * where its data lies in shared memory, it matches the user buffer's offset. */
#define HC_ALIAS_SPAN ((size_t)4096)
static inline size_t hc_alias_offset(const void *p) { return (uintptr_t)p % HC_ALIAS_SPAN; }

/* memcpy whose stores bypass the caches (where the CPU allows; else memcpy). The stores are
 * fenced before the return, so a release store after it publishes them. */
void hc_copy_nt(void *dst, const void *src, size_t n);

#endif
