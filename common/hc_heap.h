/* The shared heap: large allocations of an MPI rank served from one memfd-backed mapping, so
 * that the other ranks of its node can map the same pages and copy a broadcast's message
 * straight out of the root's buffer, once (docs/algorithms-bcast.md, "Direct reads").
 *
 * One arena per process: a sparse memfd of HC_HEAP_BYTES, mapped once (MAP_SHARED), its first
 * page a header that names it. Blocks are whole pages. A peer maps the arena through
 * pidfd_getfd(2), which needs the same permission as process_vm_readv. A child of fork()
 * gets a private copy of the live blocks (taken before the fork), as it would of anonymous
 * memory. No MPI here: preload/malloc.c routes the malloc family to it, collectives read it. */
#ifndef HC_HEAP_H
#define HC_HEAP_H

#include <stddef.h>
#include <stdint.h>

/* Allocations from this size go to the arena (smaller ones stay with the C library). */
#define HC_HEAP_MIN_ALLOC ((size_t)64 << 10)

/* Turns the arena on for this process (called once, early, by the malloc front end when the
 * process is an MPI rank and HIERCOLL_HEAP is not off). Creation is lazy: the first large
 * allocation makes the memfd. */
void hc_heap_enable(void);
int hc_heap_enabled(void);

/* NULL when the arena is off, full or cannot be made: the caller uses the C library. */
void *hc_heap_alloc(size_t bytes, int zeroed);
/* 1 when p lies in the arena (then hc_heap_free takes it), else 0. */
int hc_heap_owns(const void *p);
void hc_heap_free(void *p);
/* Bytes usable at p, a block of the arena. */
size_t hc_heap_usable(const void *p);

/* What a peer needs to map this process's arena; fd < 0 when there is none (yet: the call
 * creates it if the arena is on). */
typedef struct hc_heap_id {
    int64_t pid;
    int32_t fd;
    uint64_t bytes, nonce;
} hc_heap_id;
hc_heap_id hc_heap_self(void);

/* Offset in this process's arena of [p, p + len), or -1 when the range is not inside it. */
int64_t hc_heap_offset(const void *p, size_t len);

/* The arena of a peer, mapped (once per process and peer, kept until exit), or NULL when it
 * cannot be mapped (no permission, no arena, a header that does not match). Writable: a
 * broadcast's root may copy straight into a reader's buffer. */
char *hc_heap_peer(hc_heap_id id);

#endif
