/* Resources a collective needs once its peers are already inside the call. Declining there on
 * one rank alone would leave the others waiting for it, so failing to get them stops the job
 * with a message (docs/limitations.md). */
#ifndef HC_MUST_H
#define HC_MUST_H

#include <stddef.h>

/* malloc(bytes), never NULL: otherwise "COLL: cannot allocate N bytes WHY" and MPI_Abort. */
void *hc_must_alloc(size_t bytes, const char *coll, const char *why);

#endif
