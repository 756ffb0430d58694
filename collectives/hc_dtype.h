/* What the collectives need to know of a datatype beyond its size and extents. */
#ifndef HC_DTYPE_H
#define HC_DTYPE_H

#include <mpi.h>

/* 1 when count elements of dt are one contiguous run of bytes in pack order starting at
 * buf + *lb: named types and (dups of) contiguous types of them. A type whose size equals its
 * extent may still permute its bytes (an indexed type), so sizes alone do not tell. */
int hc_dtype_contiguous(MPI_Datatype dt, MPI_Count *lb);

/* The one named type every element of dt's type signature is, or MPI_DATATYPE_NULL when the
 * signature mixes types or is empty. Parts that carry no data (zero block lengths, empty
 * types) do not count, so two layouts of one signature always give the same answer. */
MPI_Datatype hc_dtype_signature_type(MPI_Datatype dt);

#endif
