/* See hc_must.h. */
#include "hc_must.h"

#include <mpi.h>
#include <stdlib.h>

#include "hc_log.h"

void *hc_must_alloc(size_t bytes, const char *coll, const char *why)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        hc_error("%s: cannot allocate %zu bytes %s", coll, bytes, why);
        PMPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}
