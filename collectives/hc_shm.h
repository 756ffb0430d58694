/* Shared segments among the ranks of one node (c->local), for any algorithm. */
#ifndef HC_SHM_H
#define HC_SHM_H

#include <stddef.h>

#include "hc_coll.h"

typedef struct hc_shm {
    void *base;
    size_t size;
} hc_shm;

/* Collective over c->local. Local rank 0 creates a segment of `bytes` (rounded up to pages),
 * every local rank maps it, and it is unlinked as soon as all have attached, so a crash
 * leaves nothing in /dev/shm. Pages are not touched: owners first-touch their parts.
 * Returns 0 on every rank, or -1 on every rank (agreed) when any rank failed or the node's
 * HIERCOLL_SHM_LIMIT would be exceeded; the caller then uses the vendor path. */
int hc_shm_create(hc_comm *c, size_t bytes, hc_shm *out);
void hc_shm_destroy(hc_shm *s);
/* Bytes this process has mapped through hc_shm_create and not yet destroyed. */
size_t hc_shm_bytes_in_use(void);

#endif
