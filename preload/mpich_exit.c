/* MPICH 4.0-4.1.2 with UCX can hang in MPI_Finalize across hosts: its UCX finalize closes every
 * endpoint, progresses until its own closes complete, then waits in a PMI barrier without
 * progressing UCX, while a peer's close still needs this rank's side of the connection
 * (upstream removed the barrier after 4.1.2, pmodels/mpich pull request 6596; docs/cluster.md,
 * Exits). Here the rank keeps its UCX worker progressing while it waits for the PMI server's
 * answer inside MPI_Finalize, as Open MPI does in its fence: the worker is noted when MPICH
 * creates it (the first ucp_worker_create inside MPI_Init), forgotten when it is destroyed,
 * and the wait is the read of the PMI socket (PMI_FD), in the thread that owns the worker.
 * Everything else passes through untouched. HIERCOLL_FINALIZE_PROGRESS=off leaves MPICH's
 * finalize as it is. */
#include <dlfcn.h>
#include <poll.h>
#include <stdatomic.h>
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
typedef ssize_t (*read_chk_fn)(int fd, void *buf, size_t count, size_t buflen);

/* Every read of every thread looks at these: atomics, though only MPI_Init and MPI_Finalize's
 * thread writes them. The worker is published after its progress function. */
static _Atomic(hc_ucp_worker) mpich_worker;
static worker_progress_fn progress_fn;
static _Atomic int finalize_pmi_fd = -1; /* set only inside MPI_Finalize */
static read_fn real_read;
static read_chk_fn real_read_chk;

/* Found before main, so that a read in the program (one in a signal handler included) does
 * not call dlsym; the libraries below run their constructors before this one, and a read of
 * theirs finds it on the spot. */
__attribute__((constructor)) static void find_real_reads(void)
{
    real_read = (read_fn)dlsym(RTLD_NEXT, "read");
    real_read_chk = (read_chk_fn)dlsym(RTLD_NEXT, "__read_chk");
}

HC_EXPORT int ucp_worker_create(void *context, const void *params, hc_ucp_worker *worker)
{
    worker_create_fn real = (worker_create_fn)dlsym(RTLD_NEXT, "ucp_worker_create");
    if (!real)
        return -1; /* UCS_ERR_NO_MESSAGE: no UCX below us, which cannot happen if MPICH called */
    int status = real(context, params, worker);
    if (status == 0 && !atomic_load(&mpich_worker) && hc_in_vendor_init) {
        /* MPICH's, not a worker of the program's own */
        progress_fn = (worker_progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
        if (progress_fn)
            atomic_store(&mpich_worker, *worker);
    }
    return status;
}

HC_EXPORT void ucp_worker_destroy(hc_ucp_worker worker)
{
    worker_destroy_fn real = (worker_destroy_fn)dlsym(RTLD_NEXT, "ucp_worker_destroy");
    if (worker == atomic_load(&mpich_worker))
        atomic_store(&mpich_worker, NULL);
    if (real)
        real(worker);
}

/* Inside MPI_Finalize, a read of the PMI socket first progresses the worker until the answer
 * is there; with nothing to progress it waits on the socket for a millisecond instead of
 * spinning against the peer it waits for, which may share its core. */
static void progress_until_readable(int fd)
{
    if (fd < 0 || fd != atomic_load_explicit(&finalize_pmi_fd, memory_order_relaxed))
        return;
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int timeout_ms = 0;
    while (poll(&p, 1, timeout_ms) == 0) {
        hc_ucp_worker w = atomic_load(&mpich_worker);
        if (!w)
            break;
        timeout_ms = progress_fn(w) ? 0 : 1;
    }
}

HC_EXPORT ssize_t read(int fd, void *buf, size_t count)
{
    progress_until_readable(fd);
    if (!real_read)
        find_real_reads();
    return real_read(fd, buf, count);
}

/* What a read compiled with _FORTIFY_SOURCE calls. */
HC_EXPORT ssize_t __read_chk(int fd, void *buf, size_t count, size_t buflen)
{
    progress_until_readable(fd);
    if (!real_read_chk)
        find_real_reads();
    return real_read_chk(fd, buf, count, buflen);
}

void hc_finalize_progress_arm(void)
{
    const char *fd = getenv("PMI_FD");
    if (hc_cfg.finalize_progress.i && fd && *fd)
        atomic_store(&finalize_pmi_fd, atoi(fd));
}

void hc_finalize_progress_disarm(void) { atomic_store(&finalize_pmi_fd, -1); }

#else

void hc_finalize_progress_arm(void) {}
void hc_finalize_progress_disarm(void) {}

#endif

int hc_finalize_vendor(void)
{
    hc_finalize_progress_arm();
    int rc = PMPI_Finalize();
    hc_finalize_progress_disarm();
    return rc;
}
