/* MPICH 4.0-4.1.2 with UCX can hang in MPI_Finalize across hosts: its UCX finalize closes every
 * endpoint, progresses until its own closes complete, then waits in a PMI barrier without
 * progressing UCX, while a peer's close still needs this rank's side of the connection
 * (upstream removed the barrier after 4.1.2, pmodels/mpich pull request 6596; docs/cluster.md,
 * Exits). Here the rank keeps its UCX worker progressing while it waits for the PMI server's
 * answer inside MPI_Finalize, as Open MPI does in its fence: the worker is noted when MPICH
 * creates it (ucp_worker_create), forgotten when MPICH destroys it, and the wait is the read of
 * the PMI socket (PMI_FD), the same thread that owns the worker. Everything else passes
 * through untouched. HIERCOLL_FINALIZE_PROGRESS=off leaves MPICH's finalize as it is. */
#include <dlfcn.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include <mpi.h>

#include "hc_config.h"
#include "hc_preload.h"

#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40103000 && \
    !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)

#define HC_EXPORT __attribute__((visibility("default")))

/* UCX's own types, opaque here: the library neither needs UCX's headers nor links libucp. */
typedef void *hc_ucp_worker;
typedef int (*worker_create_fn)(void *context, const void *params, hc_ucp_worker *worker);
typedef void (*worker_destroy_fn)(hc_ucp_worker worker);
typedef unsigned (*worker_progress_fn)(hc_ucp_worker worker);
typedef ssize_t (*read_fn)(int fd, void *buf, size_t count);

static hc_ucp_worker mpich_worker;     /* MPICH's one worker, while it exists */
static worker_progress_fn progress_fn; /* found with the worker */
static int finalize_pmi_fd = -1;       /* set only inside MPI_Finalize */

HC_EXPORT int ucp_worker_create(void *context, const void *params, hc_ucp_worker *worker)
{
    worker_create_fn real = (worker_create_fn)dlsym(RTLD_NEXT, "ucp_worker_create");
    if (!real)
        return -1; /* UCS_ERR_NO_MESSAGE: no UCX below us, which cannot happen if MPICH called */
    int status = real(context, params, worker);
    if (status == 0 && !mpich_worker) {
        progress_fn = (worker_progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
        mpich_worker = *worker;
    }
    return status;
}

HC_EXPORT void ucp_worker_destroy(hc_ucp_worker worker)
{
    worker_destroy_fn real = (worker_destroy_fn)dlsym(RTLD_NEXT, "ucp_worker_destroy");
    if (worker == mpich_worker)
        mpich_worker = NULL;
    if (real)
        real(worker);
}

HC_EXPORT ssize_t read(int fd, void *buf, size_t count)
{
    static read_fn _Atomic real;
    read_fn r = real;
    if (!r)
        real = r = (read_fn)dlsym(RTLD_NEXT, "read");
    if (fd == finalize_pmi_fd && fd >= 0 && mpich_worker && progress_fn) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        while (poll(&p, 1, 0) == 0 && mpich_worker) {
            progress_fn(mpich_worker);
            sched_yield();
        }
    }
    return r(fd, buf, count);
}

int hc_finalize_vendor(void)
{
    const char *fd = getenv("PMI_FD");
    if (hc_cfg.finalize_progress.i && fd && *fd)
        finalize_pmi_fd = atoi(fd);
    int rc = PMPI_Finalize();
    finalize_pmi_fd = -1;
    return rc;
}

#else

int hc_finalize_vendor(void) { return PMPI_Finalize(); }

#endif
