/* MPI_Bcast and MPI_Allreduce (and their MPI-4 large-count forms where the vendor has
 * them): hand the call to the algorithms in collectives/, which may decline it (HC_FALLBACK)
 * to the vendor. The int and large-count forms share one body each; `large` only picks the
 * vendor entry point. */
#include "hc_mpi.h"
#include "hc_preload.h"
#include "prof.h"

static inline int vendor_bcast(void *buf, MPI_Count count, MPI_Datatype dt, int root,
                               MPI_Comm comm, int large)
{
#if HC_MPI4
    if (large)
        return PMPI_Bcast_c(buf, count, dt, root, comm);
#endif
    return PMPI_Bcast(buf, (int)count, dt, root, comm);
}

static inline int vendor_allreduce(const void *sendbuf, void *recvbuf, MPI_Count count,
                                   MPI_Datatype dt, MPI_Op op, MPI_Comm comm, int large)
{
#if HC_MPI4
    if (large)
        return PMPI_Allreduce_c(sendbuf, recvbuf, count, dt, op, comm);
#endif
    return PMPI_Allreduce(sendbuf, recvbuf, (int)count, dt, op, comm);
}

/* The caller's call site for learning: an address inside its call instruction (the
 * profiler's convention), taken in the entry points below, the functions the program calls.
 * A Fortran binding's call arrives from the binding: its sites share one key
 * (docs/limitations.md). */
#define CALLER_SITE() ((uintptr_t)__builtin_return_address(0) - 1)

static inline int bcast_entry(void *buf, MPI_Count count, MPI_Datatype dt, int root,
                              MPI_Comm comm, int large, uintptr_t site)
{
    uint64_t t0 = hc_prof_on ? hc_prof_ticks() : 0; /* profiler: time in MPI */
    hc_comm *c = hc_comm_for_coll(comm);
    int rc = c ? hc_bcast(buf, count, dt, root, c, site) : HC_FALLBACK;
    if (rc == HC_FALLBACK)
        rc = vendor_bcast(buf, count, dt, root, comm, large);
    if (hc_prof_on) {
        hc_prof_returned_to((void *)(site + 1)); /* the program's return address, inlined or not */
        hc_prof_bcast(t0, count, dt, root, comm);
    }
    return rc;
}

static inline int allreduce_entry(const void *sendbuf, void *recvbuf, MPI_Count count,
                                  MPI_Datatype dt, MPI_Op op, MPI_Comm comm, int large,
                                  uintptr_t site)
{
    uint64_t t0 = hc_prof_on ? hc_prof_ticks() : 0;
    hc_comm *c = hc_comm_for_coll(comm);
    int rc = c ? hc_allreduce(sendbuf, recvbuf, count, dt, op, c, site) : HC_FALLBACK;
    if (rc == HC_FALLBACK)
        rc = vendor_allreduce(sendbuf, recvbuf, count, dt, op, comm, large);
    if (hc_prof_on) {
        hc_prof_returned_to((void *)(site + 1));
        hc_prof_allreduce(t0, count, dt, comm);
    }
    return rc;
}

HC_EXPORT int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    return bcast_entry(buf, count, dt, root, comm, 0, CALLER_SITE());
}

#if HC_MPI4
HC_EXPORT int MPI_Bcast_c(void *buf, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    return bcast_entry(buf, count, dt, root, comm, 1, CALLER_SITE());
}
#endif

HC_EXPORT int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt,
                            MPI_Op op, MPI_Comm comm)
{
    return allreduce_entry(sendbuf, recvbuf, count, dt, op, comm, 0, CALLER_SITE());
}

#if HC_MPI4
HC_EXPORT int MPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                              MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    return allreduce_entry(sendbuf, recvbuf, count, dt, op, comm, 1, CALLER_SITE());
}
#endif
