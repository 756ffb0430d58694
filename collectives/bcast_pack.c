/* Segment-by-segment packing of a broadcast's datatype: see bcast_pack.h. Relies, as the
 * whole-message packing did, on MPI_Pack writing exactly the type's size per element (a
 * homogeneous run), so the segments concatenate to the stream the readers unpack. */
#include "bcast_pack.h"

#include <string.h>

#include "hc_mpi.h"
#include "hc_util.h"

void hc_bpack_init(hc_bpack *p, void *buf, MPI_Datatype dt, char *carry, MPI_Comm comm)
{
    MPI_Aint lb;
    MPI_Count size = 0;
    PMPI_Type_get_extent(dt, &lb, &p->extent);
    hc_type_size(dt, &size);
    p->buf = buf;
    p->next = 0;
    p->dt = dt;
    p->esize = (size_t)size;
    p->carry = carry;
    p->carried = 0;
    p->comm = comm;
}

static char *element(const hc_bpack *p, MPI_Count i) { return p->buf + i * p->extent; }

void hc_bpack_out(hc_bpack *p, char *out, size_t len)
{
    size_t done = 0;
    if (p->carried) { /* the rest of the element cut by the last segment */
        size_t take = HC_MIN(len, p->esize - p->carried);
        memcpy(out, p->carry + p->carried, take);
        p->carried = p->carried + take == p->esize ? 0 : p->carried + take;
        done = take;
    }
    MPI_Count whole = (MPI_Count)((len - done) / p->esize);
    if (whole > 0) {
        MPI_Count pos = 0;
        hc_pack(element(p, p->next), whole, p->dt, out + done, (MPI_Count)(len - done), &pos,
                    p->comm);
        p->next += whole;
        done += (size_t)pos;
    }
    if (done < len) { /* an element cut by the end of this segment */
        MPI_Count pos = 0;
        hc_pack(element(p, p->next), 1, p->dt, p->carry, (MPI_Count)p->esize, &pos, p->comm);
        p->next++;
        memcpy(out + done, p->carry, len - done);
        p->carried = len - done;
    }
}

void hc_bpack_in(hc_bpack *p, const char *in, size_t len)
{
    size_t done = 0;
    if (p->carried) {
        size_t take = HC_MIN(len, p->esize - p->carried);
        memcpy(p->carry + p->carried, in, take);
        p->carried += take;
        done = take;
        if (p->carried == p->esize) {
            MPI_Count pos = 0;
            hc_unpack(p->carry, (MPI_Count)p->esize, &pos, element(p, p->next), 1, p->dt,
                          p->comm);
            p->next++;
            p->carried = 0;
        }
    }
    MPI_Count whole = (MPI_Count)((len - done) / p->esize);
    if (whole > 0) {
        MPI_Count pos = 0;
        hc_unpack(in + done, (MPI_Count)(len - done), &pos, element(p, p->next), whole, p->dt,
                      p->comm);
        p->next += whole;
        done += (size_t)pos;
    }
    if (done < len) {
        memcpy(p->carry, in + done, len - done);
        p->carried = len - done;
    }
}
