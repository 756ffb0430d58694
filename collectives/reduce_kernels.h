/* Element-wise reduction kernels for the predefined operations on the predefined C types and
 * Fortran's named types. Pure functions (no MPI calls; MPI handles are only compared), so unit
 * tests link them. */
#ifndef HC_REDUCE_KERNELS_H
#define HC_REDUCE_KERNELS_H

#include <mpi.h>
#include <stddef.h>

/* out[i] = a[i] op b[i] for n elements. out may be the same buffer as a or b (never a
 * partial overlap). */
typedef void (*hc_reduce_fn)(void *out, const void *a, const void *b, size_t n);

/* The vectorised kernel for (op, dt), dt's size being `size` bytes (Fortran's types have the
 * sizes their compiler gives them), or NULL when there is none (user operations, MINLOC,
 * complex types, combinations MPI does not define). */
hc_reduce_fn hc_reduce_kernel(MPI_Op op, MPI_Datatype dt, size_t size);

#endif
