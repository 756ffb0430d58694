/* Resources a collective needs once its peers are already inside the call. Declining there on
 * one rank alone would leave the others waiting for it, so failing to get them stops the job
 * with a message (docs/limitations.md). */
#ifndef HC_MUST_H
#define HC_MUST_H

#include <mpi.h>
#include <stddef.h>

/* "hiercoll[rank]: error: ..." on stderr, then MPI_Abort(comm, code). The line is given a
 * moment to reach the launcher first: Hydra drops what a rank wrote just before it aborted
 * when it tears the job down quickly. */
_Noreturn void hc_abort(MPI_Comm comm, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* malloc(bytes), never NULL: otherwise "COLL: cannot allocate N bytes WHY" and MPI_Abort. */
void *hc_must_alloc(size_t bytes, const char *coll, const char *why);

#endif
