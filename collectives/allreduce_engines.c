/* The allreduce's engines, bound to the registry's names (common/hc_algos.def), each with
 * the test of whether it can run a call here (the same answer on every rank). */
#include "allreduce_plan.h"
#include "hc_log.h"
#include "hc_mpi.h"

static int always(hc_comm *c, hc_ar_state *st, const hc_ar_plan *p, const hc_red *r, int64_t n)
{
    return 1;
}

/* The vendor as one of the learner's candidates, on the signature's own type (every rank
 * alike, whatever layout each passed), where its answer is right. */
static int vendor_can(hc_comm *c, hc_ar_state *st, const hc_ar_plan *p, const hc_red *r,
                      int64_t n)
{
    return hc_vendor_reduces_right(r->dt, r->op);
}

static int vendor_run(hc_comm *c, hc_ar_state *st, const hc_ar_plan *p, const hc_red *r,
                      const void *sb, void *rb, int64_t n)
{
    return hc_pmpi_allreduce(sb == rb ? MPI_IN_PLACE : sb, rb, (MPI_Count)n, r->dt, r->op,
                             c->comm);
}

/* The node is the lattice's first dimension when the ranks of each node fill it in order. */
static int staged_can(hc_comm *c, hc_ar_state *st, const hc_ar_plan *p, const hc_red *r,
                      int64_t n)
{
    return c->local_size > 1 && c->nodes_regular && p->lat.d > 0 &&
           p->lat.dims[0] == c->local_size && hc_ar_shm_setup(c, st);
}

/* One dimension and few elements: every rank reduces every vector (one synchronisation);
 * otherwise reduce-scatter and allgather through the segment. */
/* Says, once per communicator and engine, at which size the node dimension first ran
 * through the segment or by single copy (verbose 2). */
static void announce_node_dimension(hc_comm *c, hc_ar_state *st, const hc_ar_plan *p,
                                    const hc_red *r, int64_t n, int single)
{
    if (st->announced & (2 << single) || c->rank != 0)
        return;
    hc_info(2, "allreduce node dimension, first at %lld bytes: %s%s", (long long)n * r->extent,
            single ? "single copy (process_vm_readv/writev)" : "staged through the segment",
            single && hc_ar_cma_pairs(p) ? ", crossing to the other node in segments under it"
                                         : "");
    st->announced |= 2 << single;
}

static int staged_run(hc_comm *c, hc_ar_state *st, const hc_ar_plan *p, const hc_red *r,
                      const void *sb, void *rb, int64_t n)
{
    if (p->lat.d == 1 && n <= hc_ar_shm_small_max(c, st, r))
        return hc_ar_shm_small(c, st, r, sb, rb, n);
    announce_node_dimension(c, st, p, r, n, 0);
    return hc_ar_shm_ring(c, st, p, r, sb, rb, n);
}

static int cma_can(hc_comm *c, hc_ar_state *st, const hc_ar_plan *p, const hc_red *r, int64_t n)
{
    return staged_can(c, st, p, r, n) && st->cma_ok && r->extent <= HC_AR_CMA_CHUNK;
}

static int cma_run(hc_comm *c, hc_ar_state *st, const hc_ar_plan *p, const hc_red *r,
                   const void *sb, void *rb, int64_t n)
{
    announce_node_dimension(c, st, p, r, n, 1);
    return hc_ar_cma_ring(c, st, p, r, sb, rb, n);
}

static int leaders_can(hc_comm *c, hc_ar_state *st, const hc_ar_plan *p, const hc_red *r,
                       int64_t n)
{
    return c->num_nodes > 1 && hc_ar_shm_setup(c, st) && n <= hc_ar_shm_small_max(c, st, r);
}

static int leaders_run(hc_comm *c, hc_ar_state *st, const hc_ar_plan *p, const hc_red *r,
                       const void *sb, void *rb, int64_t n)
{
    return hc_ar_shm_small_nodes(c, st, r, sb, rb, n);
}

static int p2p_run(hc_comm *c, hc_ar_state *st, const hc_ar_plan *p, const hc_red *r,
                   const void *sb, void *rb, int64_t n)
{
    return hc_ring_run(st, r, sb, rb, &p->lat, p->coords, 0, 0, n, p->packet);
}

int hc_allreduce_plan_sends(const hc_ar_plan *p)
{
    int engine = hc_allreduce_engine_of[p->algo];
    return engine == HC_ALLREDUCE_ENGINE_P2P ||
           ((engine == HC_ALLREDUCE_ENGINE_STAGED || engine == HC_ALLREDUCE_ENGINE_CMA) &&
            p->lat.d > 1);
}

const hc_allreduce_engine hc_allreduce_engines[HC_ALLREDUCE_ENGINE_COUNT] = {
    [HC_ALLREDUCE_ENGINE_VENDOR] = {"vendor", vendor_run, vendor_can},
    [HC_ALLREDUCE_ENGINE_STAGED] = {"staged", staged_run, staged_can},
    [HC_ALLREDUCE_ENGINE_CMA] = {"cma", cma_run, cma_can},
    [HC_ALLREDUCE_ENGINE_LEADERS] = {"leaders", leaders_run, leaders_can},
    [HC_ALLREDUCE_ENGINE_P2P] = {"p2p", p2p_run, always},
};

#define HC_ONLY_BCAST(...)
#define HC_ONLY_ALLREDUCE(...) __VA_ARGS__
#define HC_ALGO(COLL, ID, name, ENGINE, params, help) \
    HC_ONLY_##COLL([HC_ALLREDUCE_##ID] = HC_ALLREDUCE_ENGINE_##ENGINE, )
#define HC_PARAM(COLL, ID, key, TYPE, acc, help)
const int hc_allreduce_engine_of[HC_ALLREDUCE_COUNT] = {
#include "hc_algos.def"
};
