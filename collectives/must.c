/* See hc_must.h. */
#include "hc_must.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "hc_log.h"

void hc_abort(MPI_Comm comm, int code, const char *fmt, ...)
{
    char line[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    hc_error("%s", line);
    fflush(stderr);
    struct timespec pause = {0, 200L * 1000 * 1000};
    nanosleep(&pause, NULL);
    PMPI_Abort(comm, code);
    abort(); /* PMPI_Abort does not return; the compiler cannot know */
}

void *hc_must_alloc(size_t bytes, const char *coll, const char *why)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        hc_abort(MPI_COMM_WORLD, 1, "%s: cannot allocate %zu bytes %s", coll, bytes, why);
    return p;
}
