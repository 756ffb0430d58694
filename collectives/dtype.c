/* Datatype introspection through MPI_Type_get_envelope / get_contents: see hc_dtype.h. */
#include "hc_dtype.h"

#include <stdlib.h>

#include "hc_must.h"
#include "hc_mpi.h"

/* Frees a datatype get_contents returned, which MPI requires unless it is named. */
static void free_contained(MPI_Datatype *t)
{
    MPI_Count ni, na, nc, nd;
    int combiner;
    if (hc_type_envelope(*t, &ni, &na, &nc, &nd, &combiner) == MPI_SUCCESS &&
        combiner != MPI_COMBINER_NAMED)
        PMPI_Type_free(t);
}

int hc_dtype_contiguous(MPI_Datatype dt, MPI_Count *lb)
{
    MPI_Count ni, na, nc, nd, tlb, text, size, elb, ext;
    int combiner;
    if (hc_type_common_size(dt)) { /* named, no holes, from its address */
        *lb = 0;
        return 1;
    }
    if (hc_type_envelope(dt, &ni, &na, &nc, &nd, &combiner) != MPI_SUCCESS)
        return 0;
    PMPI_Type_get_true_extent_x(dt, &tlb, &text);
    PMPI_Type_get_extent_x(dt, &elb, &ext);
    hc_type_size(dt, &size);
    *lb = tlb;
    if (size != text || size != ext)
        return 0;
    if (combiner == MPI_COMBINER_NAMED)
        return 1;
    if ((combiner != MPI_COMBINER_CONTIGUOUS && combiner != MPI_COMBINER_DUP) || ni > 1 ||
        na || nc > 1 || nd != 1)
        return 0;
    int ints[1];
    MPI_Count counts[1];
    MPI_Datatype inner;
    if (hc_type_contents(dt, ni, na, nc, nd, ints, NULL, counts, &inner) != MPI_SUCCESS)
        return 0;
    MPI_Count inner_lb;
    int ok = hc_dtype_contiguous(inner, &inner_lb);
    free_contained(&inner);
    return ok;
}

/* A MPI_Type_get_contents result, with room for every array. */
typedef struct contents {
    MPI_Count ni, na, nc, nd;
    int combiner;
    int *ints;
    MPI_Aint *aints;
    MPI_Count *counts;
    MPI_Datatype *types;
} contents;

static void *array_of(size_t bytes)
{
    return hc_must_alloc(bytes, "hiercoll", "to read a datatype");
}

static int read_contents(MPI_Datatype dt, contents *c)
{
    if (hc_type_envelope(dt, &c->ni, &c->na, &c->nc, &c->nd, &c->combiner) !=
        MPI_SUCCESS)
        return -1;
    if (c->combiner == MPI_COMBINER_NAMED)
        return 0;
    c->ints = array_of(sizeof(int) * (size_t)c->ni);
    c->aints = array_of(sizeof(MPI_Aint) * (size_t)c->na);
    c->counts = array_of(sizeof(MPI_Count) * (size_t)c->nc);
    c->types = array_of(sizeof(MPI_Datatype) * (size_t)c->nd);
    return hc_type_contents(dt, c->ni, c->na, c->nc, c->nd, c->ints, c->aints,
                                    c->counts, c->types);
}

/* Elements the i-th member of a struct contributes per element of the struct: its block
 * length (from the ints, or the large counts of MPI_Type_create_struct_c). */
static MPI_Count struct_blocklength(const contents *c, MPI_Count i)
{
    return c->nc > 0 ? c->counts[1 + i] : (MPI_Count)c->ints[1 + i];
}

MPI_Datatype hc_dtype_signature_type(MPI_Datatype dt)
{
    if (hc_type_common_size(dt))
        return dt;
    contents c = {0};
    if (read_contents(dt, &c) != 0)
        return MPI_DATATYPE_NULL;
    if (c.combiner == MPI_COMBINER_NAMED) {
        MPI_Count size = 0;
        hc_type_size(dt, &size);
        return size > 0 ? dt : MPI_DATATYPE_NULL;
    }
    MPI_Datatype one = MPI_DATATYPE_NULL;
    int mixed = 0;
    for (MPI_Count i = 0; i < c.nd; i++) {
        MPI_Count size = 0;
        hc_type_size(c.types[i], &size);
        int carries = size > 0 &&
                      (c.combiner != MPI_COMBINER_STRUCT || struct_blocklength(&c, i) > 0);
        MPI_Datatype t = carries ? hc_dtype_signature_type(c.types[i]) : one;
        if (carries && (t == MPI_DATATYPE_NULL || (one != MPI_DATATYPE_NULL && t != one)))
            mixed = 1;
        one = t;
        free_contained(&c.types[i]);
    }
    free(c.ints);
    free(c.aints);
    free(c.counts);
    free(c.types);
    return mixed ? MPI_DATATYPE_NULL : one;
}
