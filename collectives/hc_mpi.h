/* The MPI calls the library makes that differ between MPI versions, in one place: MPI 4.0's
 * large-count forms (MPICH 4) where the vendor has them, MPI 3.1's int forms otherwise
 * (Open MPI 4.1), with counts beyond INT_MAX cut into pieces or wrapped in a datatype.
 * Everything else calls PMPI_* directly: the rest of the library is the same for every
 * vendor. */
#ifndef HC_MPI_H
#define HC_MPI_H

#include <limits.h>
#include <mpi.h>

/* The vendor implements MPI 4.0: the _c large-count functions, MPI_Isendrecv. (A test may
 * set it to 0 to run the MPI 3.1 code with an MPI 4 library.) */
#ifndef HC_MPI4
#if MPI_VERSION >= 4
#define HC_MPI4 1
#else
#define HC_MPI4 0
#endif
#endif

/* Vectors below this many bytes the vendor's allreduce sends by recursive doubling among more
 * than two processes; from it on, algorithms that move fewer bytes in more rounds. Open MPI
 * 4.1 (coll/tuned on 4 processes over TCP): below 8 KiB, measured (docs/algorithms-allreduce.md,
 * Across hosts); MPICH: up to MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE, 2 KiB by default, its
 * documented value, not measured here (MPICH 4.0.2 cannot finish jobs across the test hosts). */
#ifdef OPEN_MPI
#define HC_VENDOR_AR_DOUBLING_BELOW (8 * 1024)
#else
#define HC_VENDOR_AR_DOUBLING_BELOW (2 * 1024 + 1)
#endif

/* Whether the vendor's MPI_Allreduce gets (named type dt, op) right. MPICH 4.0.2 computes
 * MIN/MAX of the 8- and 16-bit unsigned types as signed (MIN(100, 200) = 200;
 * docs/algorithms-allreduce.md); Open MPI 4.1's AVX reductions saturate 8- and 16-bit
 * integer sums where C, and every other path, wraps them (open-mpi/ompi#8045, won't fix),
 * and it takes MIN/MAX of MPI_OFFSET as unsigned (MIN(3, -5) = 3): the learner never hands
 * such calls to it. */
int hc_vendor_reduces_right(MPI_Datatype dt, MPI_Op op);

/* The largest packed size of one element that hc_pack and hc_unpack can handle: MPI 3.1's
 * MPI_Pack takes an int buffer size. Collectives that might pack a bigger element decline
 * beforehand, on every rank alike. */
#define HC_MPI_PACK_ELEMENT_MAX (HC_MPI4 ? LLONG_MAX : (long long)INT_MAX)

/* The size of dt when it is one of the named types programs pass most (MPI_BYTE, MPI_DOUBLE,
 * MPI_INT, ...), known without a call into MPI; 0 for any other type. A named type's handle is
 * never freed, so no handle can change meaning. */
int hc_type_common_size(MPI_Datatype dt);

/* Datatype layout with MPI_Count results (the _x forms exist in MPI 3.1 and 4.0). */
static inline int hc_type_size(MPI_Datatype dt, MPI_Count *size)
{
    int common = hc_type_common_size(dt);
    if (common) {
        *size = common;
        return MPI_SUCCESS;
    }
    return PMPI_Type_size_x(dt, size);
}

/* MPI_Type_get_envelope / get_contents; nc (large counts) is 0 before MPI 4.0. */
int hc_type_envelope(MPI_Datatype dt, MPI_Count *ni, MPI_Count *na, MPI_Count *nc,
                     MPI_Count *nd, int *combiner);
int hc_type_contents(MPI_Datatype dt, MPI_Count ni, MPI_Count na, MPI_Count nc, MPI_Count nd,
                     int ints[], MPI_Aint aints[], MPI_Count counts[], MPI_Datatype types[]);

/* MPI_Pack / MPI_Unpack / MPI_Pack_size with MPI_Count sizes and positions. */
int hc_pack(const void *in, MPI_Count count, MPI_Datatype dt, void *out, MPI_Count outsize,
            MPI_Count *pos, MPI_Comm comm);
int hc_unpack(const void *in, MPI_Count insize, MPI_Count *pos, void *out, MPI_Count count,
              MPI_Datatype dt, MPI_Comm comm);
int hc_pack_size(MPI_Count count, MPI_Datatype dt, MPI_Comm comm, MPI_Count *size);

/* MPI_Reduce_local with an MPI_Count count. */
int hc_reduce_local(const void *in, void *inout, MPI_Count count, MPI_Datatype dt, MPI_Op op);

/* The library's own collectives, with MPI_Count counts, on its sub-communicators or, inside
 * the program's collective call, on the program's communicator itself. Every rank passes
 * the same count and datatype (which the int fallbacks rely on). */
int hc_pmpi_bcast(void *buf, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm);
int hc_pmpi_allreduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype dt,
                      MPI_Op op, MPI_Comm comm);
int hc_pmpi_allgather(const void *sendbuf, MPI_Count count, MPI_Datatype dt, void *recvbuf,
                      MPI_Comm comm);

#endif
