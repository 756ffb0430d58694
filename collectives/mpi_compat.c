/* MPI 4.0 large-count calls, or their MPI 3.1 equivalents: see hc_mpi.h. */
#include "hc_mpi.h"

#include <stddef.h>

/* In the order programs use them most: an 8-byte broadcast spent about a tenth of its time
 * in the four calls that asked MPI what MPI_BYTE is. */
static const struct {
    MPI_Datatype dt;
    int size;
} common_types[] = {
    {MPI_BYTE, 1},
    {MPI_DOUBLE, sizeof(double)},
    {MPI_INT, sizeof(int)},
    {MPI_CHAR, sizeof(char)},
    {MPI_FLOAT, sizeof(float)},
    {MPI_LONG, sizeof(long)},
    {MPI_UNSIGNED_CHAR, sizeof(unsigned char)},
    {MPI_UNSIGNED, sizeof(unsigned)},
    {MPI_LONG_LONG, sizeof(long long)},
    {MPI_UNSIGNED_LONG, sizeof(unsigned long)},
    {MPI_INT64_T, 8},
    {MPI_UINT64_T, 8},
    {MPI_INT32_T, 4},
    {MPI_UINT32_T, 4},
    {MPI_SHORT, sizeof(short)},
    {MPI_UNSIGNED_SHORT, sizeof(unsigned short)},
};

int hc_type_common_size(MPI_Datatype dt)
{
    for (size_t i = 0; i < sizeof common_types / sizeof common_types[0]; i++)
        if (common_types[i].dt == dt)
            return common_types[i].size;
    return 0;
}

#if HC_MPI4

int hc_type_envelope(MPI_Datatype dt, MPI_Count *ni, MPI_Count *na, MPI_Count *nc,
                     MPI_Count *nd, int *combiner)
{
    return PMPI_Type_get_envelope_c(dt, ni, na, nc, nd, combiner);
}

int hc_type_contents(MPI_Datatype dt, MPI_Count ni, MPI_Count na, MPI_Count nc, MPI_Count nd,
                     int ints[], MPI_Aint aints[], MPI_Count counts[], MPI_Datatype types[])
{
    return PMPI_Type_get_contents_c(dt, ni, na, nc, nd, ints, aints, counts, types);
}

int hc_pack(const void *in, MPI_Count count, MPI_Datatype dt, void *out, MPI_Count outsize,
            MPI_Count *pos, MPI_Comm comm)
{
    return PMPI_Pack_c(in, count, dt, out, outsize, pos, comm);
}

int hc_unpack(const void *in, MPI_Count insize, MPI_Count *pos, void *out, MPI_Count count,
              MPI_Datatype dt, MPI_Comm comm)
{
    return PMPI_Unpack_c(in, insize, pos, out, count, dt, comm);
}

int hc_pack_size(MPI_Count count, MPI_Datatype dt, MPI_Comm comm, MPI_Count *size)
{
    return PMPI_Pack_size_c(count, dt, comm, size);
}

int hc_reduce_local(const void *in, void *inout, MPI_Count count, MPI_Datatype dt, MPI_Op op)
{
    return PMPI_Reduce_local_c(in, inout, count, dt, op);
}

int hc_pmpi_bcast(void *buf, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    return PMPI_Bcast_c(buf, count, dt, root, comm);
}

int hc_pmpi_allreduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype dt,
                      MPI_Op op, MPI_Comm comm)
{
    return PMPI_Allreduce_c(sendbuf, recvbuf, count, dt, op, comm);
}

int hc_pmpi_allgather(const void *sendbuf, MPI_Count count, MPI_Datatype dt, void *recvbuf,
                      MPI_Comm comm)
{
    return PMPI_Allgather_c(sendbuf, count, dt, recvbuf, count, dt, comm);
}

#else /* MPI 3.1: int counts */

/* The most one call is given: INT_MAX (tests/mpi/test_mpi_compat.c lowers it to cut small
 * counts into pieces too). */
#ifndef HC_MPI_PIECE
#define HC_MPI_PIECE INT_MAX
#endif

static MPI_Aint extent_of(MPI_Datatype dt)
{
    MPI_Aint lb = 0, extent = 0;
    PMPI_Type_get_extent(dt, &lb, &extent);
    return extent;
}

static MPI_Count min_count(MPI_Count a, MPI_Count b) { return a < b ? a : b; }

int hc_type_envelope(MPI_Datatype dt, MPI_Count *ni, MPI_Count *na, MPI_Count *nc,
                     MPI_Count *nd, int *combiner)
{
    int i = 0, a = 0, d = 0;
    int rc = PMPI_Type_get_envelope(dt, &i, &a, &d, combiner);
    *ni = i;
    *na = a;
    *nc = 0;
    *nd = d;
    return rc;
}

int hc_type_contents(MPI_Datatype dt, MPI_Count ni, MPI_Count na, MPI_Count nc, MPI_Count nd,
                     int ints[], MPI_Aint aints[], MPI_Count counts[], MPI_Datatype types[])
{
    (void)nc;
    (void)counts;
    return PMPI_Type_get_contents(dt, (int)ni, (int)na, (int)nd, ints, aints, types);
}

/* Elements of dt per piece so that one piece packs to at most HC_MPI_PIECE bytes; 0 when
 * one element alone is larger (callers decline those: HC_MPI_PACK_ELEMENT_MAX). */
static MPI_Count elements_per_piece(MPI_Datatype dt)
{
    MPI_Count size = 0;
    PMPI_Type_size_x(dt, &size);
    return size <= 0 ? HC_MPI_PIECE : min_count(HC_MPI_PIECE / size, HC_MPI_PIECE);
}

/* MPI_Pack (unpack = 0) or MPI_Unpack of count elements of dt at typed, to or from the packed
 * buffer of size bytes from *pos on, one piece of whole elements per call. */
static int by_pieces(int unpack, void *typed, MPI_Count count, MPI_Datatype dt, void *packed,
                     MPI_Count size, MPI_Count *pos, MPI_Comm comm)
{
    MPI_Count per = elements_per_piece(dt);
    MPI_Aint extent = extent_of(dt);
    if (per == 0)
        return MPI_ERR_COUNT;
    for (MPI_Count done = 0; done < count;) {
        int n = (int)min_count(per, count - done), moved = 0;
        int room = (int)min_count(size - *pos, HC_MPI_PIECE);
        char *t = (char *)typed + done * extent, *p = (char *)packed + *pos;
        int rc = unpack ? PMPI_Unpack(p, room, &moved, t, n, dt, comm)
                        : PMPI_Pack(t, n, dt, p, room, &moved, comm);
        if (rc != MPI_SUCCESS)
            return rc;
        *pos += moved;
        done += n;
    }
    return MPI_SUCCESS;
}

/* (by_pieces reads from the const side only) */
int hc_pack(const void *in, MPI_Count count, MPI_Datatype dt, void *out, MPI_Count outsize,
            MPI_Count *pos, MPI_Comm comm)
{
    return by_pieces(0, (void *)in, count, dt, out, outsize, pos, comm);
}

int hc_unpack(const void *in, MPI_Count insize, MPI_Count *pos, void *out, MPI_Count count,
              MPI_Datatype dt, MPI_Comm comm)
{
    return by_pieces(1, out, count, dt, (void *)in, insize, pos, comm);
}

int hc_pack_size(MPI_Count count, MPI_Datatype dt, MPI_Comm comm, MPI_Count *size)
{
    MPI_Count per = elements_per_piece(dt);
    *size = 0;
    if (per == 0)
        return MPI_ERR_COUNT;
    /* The pieces hc_pack makes: whole ones and the rest. */
    int whole = 0, rest = 0;
    int rc = PMPI_Pack_size((int)min_count(per, count), dt, comm, &whole);
    if (rc == MPI_SUCCESS && count > per)
        rc = PMPI_Pack_size((int)(count % per), dt, comm, &rest);
    *size = count > per ? (count / per) * (MPI_Count)whole + rest : whole;
    return rc;
}

int hc_reduce_local(const void *in, void *inout, MPI_Count count, MPI_Datatype dt, MPI_Op op)
{
    MPI_Aint extent = extent_of(dt);
    for (MPI_Count done = 0; done < count;) {
        MPI_Count n = min_count(HC_MPI_PIECE, count - done);
        int rc = PMPI_Reduce_local((const char *)in + done * extent,
                                   (char *)inout + done * extent, (int)n, dt, op);
        if (rc != MPI_SUCCESS)
            return rc;
        done += n;
    }
    return MPI_SUCCESS;
}

/* One element of the returned type is count elements of dt (count > HC_MPI_PIECE): blocks
 * of HC_MPI_PIECE elements, then the rest, with the extent of count elements. */
static int type_of_count(MPI_Count count, MPI_Datatype dt, MPI_Datatype *out)
{
    const MPI_Count block = HC_MPI_PIECE;
    MPI_Count q = count / block, r = count % block;
    if (q > INT_MAX)
        return MPI_ERR_COUNT;
    MPI_Aint lb = 0, extent = 0;
    PMPI_Type_get_extent(dt, &lb, &extent);
    MPI_Datatype blk, body, parts[2], joined;
    PMPI_Type_contiguous((int)block, dt, &blk);
    PMPI_Type_contiguous((int)q, blk, &body);
    parts[0] = body;
    parts[1] = dt;
    int lens[2] = {1, (int)r};
    MPI_Aint displs[2] = {0, (MPI_Aint)(q * block) * extent};
    int rc = PMPI_Type_create_struct(r ? 2 : 1, lens, displs, parts, &joined);
    PMPI_Type_free(&blk);
    PMPI_Type_free(&body);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Type_create_resized(joined, lb, (MPI_Aint)count * extent, out);
    PMPI_Type_free(&joined);
    return rc == MPI_SUCCESS ? PMPI_Type_commit(out) : rc;
}

int hc_pmpi_bcast(void *buf, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    if (count <= HC_MPI_PIECE)
        return PMPI_Bcast(buf, (int)count, dt, root, comm);
    MPI_Datatype all;
    int rc = type_of_count(count, dt, &all);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Bcast(buf, 1, all, root, comm);
    PMPI_Type_free(&all);
    return rc;
}

/* In pieces: a reduction is element by element, so pieces give the same result. */
int hc_pmpi_allreduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype dt,
                      MPI_Op op, MPI_Comm comm)
{
    if (count <= HC_MPI_PIECE)
        return PMPI_Allreduce(sendbuf, recvbuf, (int)count, dt, op, comm);
    MPI_Aint extent = extent_of(dt);
    for (MPI_Count done = 0; done < count;) {
        MPI_Count n = min_count(HC_MPI_PIECE, count - done);
        const void *in = sendbuf == MPI_IN_PLACE ? MPI_IN_PLACE
                                                 : (const char *)sendbuf + done * extent;
        int rc = PMPI_Allreduce(in, (char *)recvbuf + done * extent, (int)n, dt, op, comm);
        if (rc != MPI_SUCCESS)
            return rc;
        done += n;
    }
    return MPI_SUCCESS;
}

int hc_pmpi_allgather(const void *sendbuf, MPI_Count count, MPI_Datatype dt, void *recvbuf,
                      MPI_Comm comm)
{
    if (count <= HC_MPI_PIECE)
        return PMPI_Allgather(sendbuf, (int)count, dt, recvbuf, (int)count, dt, comm);
    MPI_Datatype all;
    int rc = type_of_count(count, dt, &all);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Allgather(sendbuf, 1, all, recvbuf, 1, all, comm);
    PMPI_Type_free(&all);
    return rc;
}

#endif

int hc_vendor_reduces_right(MPI_Datatype dt, MPI_Op op)
{
#ifdef OPEN_MPI
    return !(op == MPI_SUM &&
             (dt == MPI_SIGNED_CHAR || dt == MPI_UNSIGNED_CHAR || dt == MPI_SHORT ||
              dt == MPI_UNSIGNED_SHORT || dt == MPI_INT8_T || dt == MPI_UINT8_T ||
              dt == MPI_INT16_T || dt == MPI_UINT16_T || dt == MPI_CHAR ||
              dt == MPI_INTEGER1 || dt == MPI_INTEGER2)) &&
           !((op == MPI_MIN || op == MPI_MAX) && dt == MPI_OFFSET);
#else
    return !((op == MPI_MIN || op == MPI_MAX) &&
             (dt == MPI_UNSIGNED_CHAR || dt == MPI_UNSIGNED_SHORT || dt == MPI_UINT8_T ||
              dt == MPI_UINT16_T));
#endif
}
