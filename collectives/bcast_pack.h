/* A (count, datatype) buffer seen as its packed byte stream, one segment at a time, so a
 * non-contiguous broadcast needs a segment of memory, not the whole message, and packing
 * overlaps the transfer. Whole elements go straight through MPI_Pack / MPI_Unpack; an element
 * cut by a segment boundary passes through a one-element buffer. */
#ifndef HC_BCAST_PACK_H
#define HC_BCAST_PACK_H

#include <mpi.h>
#include <stddef.h>

typedef struct hc_bpack {
    char *buf;
    MPI_Count next;        /* first element not yet (un)packed */
    MPI_Datatype dt;
    MPI_Aint extent;
    size_t esize;          /* packed bytes per element (the type's size) */
    char *carry;           /* one packed element cut by a segment boundary */
    size_t carried;        /* its bytes already emitted (pack) or received (unpack); 0 none */
    MPI_Comm comm;
} hc_bpack;

/* Prepares the stream of elements of dt from buf on comm (as many as the segments ask for);
 * carry is one element's size in bytes. */
void hc_bpack_init(hc_bpack *p, void *buf, MPI_Datatype dt, char *carry, MPI_Comm comm);
/* Root: the next len bytes of the stream into out. */
void hc_bpack_out(hc_bpack *p, char *out, size_t len);
/* Reader: the next len bytes of the stream, from in, into the buffer. */
void hc_bpack_in(hc_bpack *p, const char *in, size_t len);

#endif
