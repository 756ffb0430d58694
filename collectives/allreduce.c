/* MPI_Allreduce: what the engines can take (a commutative op on elements that can be cut
 * anywhere), the caller's layout converted where it differs, then the selector's plan
 * (allreduce_select.c) run by one engine (allreduce_engines.c). Everything else goes to the
 * vendor. */
#include <stdlib.h>
#include <string.h>

#include "allreduce_plan.h"
#include "hc_dtype.h"
#include "hc_must.h"
#include "hc_mpi.h"
#include "hc_util.h"

static int is_predefined_op(MPI_Op op)
{
    static const MPI_Op ops[] = {MPI_MAX,  MPI_MIN,  MPI_SUM,  MPI_PROD,   MPI_LAND,
                                 MPI_BAND, MPI_LOR,  MPI_BOR,  MPI_LXOR,   MPI_BXOR,
                                 MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (op == ops[i])
            return 1;
    return 0;
}

/* Whether elements of dt can be cut anywhere: they start at their own address, do not
 * interleave, and their bytes can be copied as a block (no holes inside an element, none
 * between elements except the padding of MINLOC/MAXLOC pair types such as MPI_DOUBLE_INT). */
static int cuttable(MPI_Datatype dt, MPI_Op op, hc_red *r)
{
    MPI_Aint lb, tlb;
    MPI_Count size = hc_type_common_size(dt);
    if (size) { /* named, no holes, from its address */
        r->extent = r->true_extent = (MPI_Aint)size;
        return 1;
    }
    if (PMPI_Type_get_extent(dt, &lb, &r->extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(dt, &tlb, &r->true_extent) != MPI_SUCCESS ||
        hc_type_size(dt, &size) != MPI_SUCCESS)
        return 0;
    if (lb != 0 || tlb != 0 || r->extent <= 0 || r->true_extent > r->extent ||
        size != (MPI_Count)r->true_extent)
        return 0;
    /* A whole element must fit the smallest slot of the staged engine; MPI gives every rank
     * the same datatype, so all of them decide alike. */
    if ((size_t)r->extent > HC_AR_SLOT_MIN)
        return 0;
    return r->extent == r->true_extent || op == MPI_MINLOC || op == MPI_MAXLOC;
}

/* Fills the reduction of (count, dt, op) when the ring may split and reorder it, with *n its
 * element count; 0 sends it to the vendor. Predefined ops work on the signature's named type,
 * so the decision and the split depend only on what MPI makes every rank agree on (count x
 * signature, op), not on how each rank lays its buffer out; *repack says this rank's layout
 * must be converted to an array of that type. User ops see the caller's datatype, so they
 * work in its units and need a layout that can be cut. */
static int reduction_for(MPI_Datatype dt, MPI_Count count, MPI_Op op, hc_red *r, int64_t *n,
                         int *repack)
{
    int commute = 0;
    if (PMPI_Op_commutative(op, &commute) != MPI_SUCCESS || !commute)
        return 0;
    *n = (int64_t)count;
    *repack = 0;
    r->op = op;
    if (!is_predefined_op(op)) {
        r->dt = dt;
        r->fn = NULL;
        return cuttable(dt, op, r);
    }
    MPI_Datatype named = hc_dtype_signature_type(dt);
    MPI_Count tsize = 0, nsize = 0;
    if (named == MPI_DATATYPE_NULL || !cuttable(named, op, r) ||
        hc_type_size(dt, &tsize) != MPI_SUCCESS ||
        hc_type_size(named, &nsize) != MPI_SUCCESS || nsize <= 0)
        return 0;
    r->dt = named;
    r->fn = hc_reduce_kernel(op, named, (size_t)nsize);
    /* Predefined ops without a kernel: only MINLOC/MAXLOC go through MPI_Reduce_local. */
    if (!r->fn && op != MPI_MINLOC && op != MPI_MAXLOC)
        return 0;
    *n = (int64_t)count * (int64_t)(tsize / nsize);
    if (*n == 0)
        return 0; /* as a count of 0: the vendor */
    MPI_Count lb = 0;
    /* A derived type laid out exactly as an array of the named type needs no copy. */
    *repack = dt != named && !(r->extent == r->true_extent && hc_dtype_contiguous(dt, &lb) &&
                               lb == 0);
    if (*repack && tsize > HC_MPI_PACK_ELEMENT_MAX)
        return 0; /* an element too large for this MPI's MPI_Pack */
    return 1;
}

/* Copies (scount, stype) at src to (dcount, dtype) at dst, which have the same signature,
 * through MPI's pack format (the conversion MPI defines between layouts). */
static void retype(const void *src, MPI_Count scount, MPI_Datatype stype, void *dst,
                   MPI_Count dcount, MPI_Datatype dtype, MPI_Comm comm)
{
    MPI_Count bytes = 0, pos = 0;
    hc_pack_size(scount, stype, comm, &bytes);
    void *packed = hc_must_alloc((size_t)bytes, "MPI_Allreduce", "to convert a datatype");
    hc_pack(src, scount, stype, packed, bytes, &pos, comm);
    bytes = pos;
    pos = 0;
    hc_unpack(packed, bytes, &pos, dst, dcount, dtype, comm);
    free(packed);
}

/* One engine call, timed for the learner when the plan says so (every rank alike). */
static int run_engine(hc_comm *c, hc_ar_state *st, const hc_ar_plan *p, const hc_red *r,
                      const void *sb, void *rb, int64_t n)
{
    uint64_t t0 = p->measure ? hc_now_ns() : 0;
    int rc = hc_allreduce_engines[hc_allreduce_engine_of[p->algo]].run(c, st, p, r, sb, rb, n);
    if (p->measure)
        hc_arlearn_timed(p, t0, hc_now_ns());
    return rc;
}

int hc_allreduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype dt,
                 MPI_Op op, hc_comm *c, uintptr_t site)
{
    hc_red r;
    int64_t n;
    int repack;
    if (count <= 0 || !reduction_for(dt, count, op, &r, &n, &repack))
        return HC_FALLBACK;
    const struct hc_tuning_rule *rule;
    int origin;
    if (hc_allreduce_fixed(c, (long long)n * r.extent, &rule, &origin) == HC_ALLREDUCE_VENDOR)
        return HC_FALLBACK; /* asked for: the vendor takes the caller's own arguments */
    const void *sb = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    if (c->size == 1) {
        if (sb != recvbuf && !repack)
            memcpy(recvbuf, sb, hc_red_span(&r, n));
        else if (sb != recvbuf)
            retype(sb, count, dt, recvbuf, count, dt, c->comm);
        return MPI_SUCCESS;
    }
    hc_ar_state *st = hc_ar_state_get(c);
    if (!st)
        return HC_FALLBACK;
    hc_ar_plan p;
    hc_allreduce_select(c, st, &r, n, site, &p);
    /* A split that returns an error (under MPI_ERRORS_RETURN: out of context ids) leaves
     * the call to the vendor; the default handler ends the job, as the vendor's would. */
    if (hc_allreduce_plan_sends(&p) && hc_ar_messages_comm(c, st) != MPI_SUCCESS)
        return HC_FALLBACK;
    c->allreduce_last = p.algo;
    if (!repack)
        return run_engine(c, st, &p, &r, sb, recvbuf, n);
    /* This rank's layout differs from an array of the signature's type: reduce a copy. */
    void *work = hc_must_alloc(hc_red_span(&r, n), "MPI_Allreduce", "to convert a datatype");
    retype(sb, count, dt, work, (MPI_Count)n, r.dt, c->comm);
    int rc = run_engine(c, st, &p, &r, work, work, n);
    retype(work, (MPI_Count)n, r.dt, recvbuf, count, dt, c->comm);
    free(work);
    return rc;
}
