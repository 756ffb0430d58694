/* Shared segments among the ranks of one node (c->local), for any algorithm. */
#ifndef HC_SHM_H
#define HC_SHM_H

#include <stddef.h>
#include <stdint.h>

#include "hc_coll.h"

typedef struct hc_shm {
    void *base;
    size_t size;
    int counted; /* how it counts against HIERCOLL_SHM_LIMIT (shm_segment.c) */
    int reused;  /* given back by a freed communicator: its bytes are as that one left them */
    uint64_t id; /* the same on every rank that maps it */
    uint64_t key; /* the group's world ranks, hashed: what the creator offers it to */
    int group, local_rank; /* the ranks that map it, and this one's place among them */
} hc_shm;

/* Collective over c->local. Local rank 0 creates a segment of `bytes` (rounded up to pages,
 * and one page more at the end where the library counts who maps it),
 * every local rank maps it, and it is unlinked as soon as all have attached, so a crash
 * leaves nothing in /dev/shm. Pages are not touched: owners first-touch their parts.
 * A new segment is zero-filled. Where every rank of c->local holds a segment of this size
 * that a freed communicator of exactly these ranks, in this order, gave back
 * (hc_shm_release), that one is handed out instead: its pages are already faulted in, which
 * a new communicator's first calls otherwise pay for (a broadcast queue's first pass: about
 * 0.2 ms for 2 ranks). Then out->reused is 1 and the bytes are as the last user left them:
 * each rank zeroes what must start at zero in its own part before the first
 * synchronisation. Returns 0 on every rank, or -1 on every rank (agreed) when any rank
 * failed or the node's HIERCOLL_SHM_LIMIT would be exceeded; the caller then goes without
 * shared memory. */
int hc_shm_create(hc_comm *c, size_t bytes, hc_shm *out);
/* Unmaps s (a segment the ranks could not agree on, or one that must not be reused). */
void hc_shm_destroy(hc_shm *s);
/* Gives s back for a later communicator of the same ranks: at most 8 segments, 64 MiB, a
 * process (the oldest is unmapped first), and only while the node's segments take at most
 * half of HIERCOLL_SHM_LIMIT; a creator refused by the limit unmaps all it keeps. A segment
 * stays counted against the limit until the last process that maps it lets go. Call it
 * once the communicator is freed: this rank will not touch s again. */
void hc_shm_release(hc_shm *s);
/* Collective over world, once at MPI_Init: the ranks of each physical node share one
 * counter of their segments, so HIERCOLL_SHM_LIMIT bounds the node, not each process. */
void hc_shm_budget_init(MPI_Comm world);
/* Ranks of MPI_COMM_WORLD on this physical node, as hc_shm_budget_init found them (0 before
 * it ran or when it failed). */
int hc_shm_node_ranks(void);
/* This rank's place among them (-1 before hc_shm_budget_init ran or when it failed). */
int hc_shm_node_rank(void);
/* Bytes of segments counted against HIERCOLL_SHM_LIMIT: the node's, or this process's when
 * hc_shm_budget_init has not run or failed. */
size_t hc_shm_bytes_in_use(void);

#endif
