/* The broadcast's engines, bound to the registry's names (common/hc_algos.def): each moves one
 * segment among the ranks of a node, the node-local root's side and the readers' side. */
#include "bcast_plan.h"
#include "hc_mpi.h"

static void queue_stage(hc_comm *c, hc_bstate *st, void *bytes, size_t m, size_t total,
                       int lroot, int how)
{
    hc_bshm_bcast(st, bytes, m, total, lroot, how);
}

/* Single copy needs the node's CMA probe and more than a cell's worth; otherwise the queue
 * carries it, and readers follow the cell either way. */
static void cma_root(hc_comm *c, hc_bstate *st, void *bytes, size_t m, size_t total, int lroot,
                     int how)
{
    if (st->cma_ok && m > HC_BCELL_INLINE_MAX)
        hc_bcma_bcast(st, bytes, m, total, lroot, how & HC_BSHM_MEASURE);
    else
        hc_bshm_bcast(st, bytes, m, total, lroot, how & ~HC_BSHM_DIRECT);
}

static void cma_read(hc_comm *c, hc_bstate *st, void *bytes, size_t m, size_t total, int lroot,
                     int how)
{
    hc_bcma_bcast(st, bytes, m, total, lroot, 0);
}

static void vendor_root(hc_comm *c, hc_bstate *st, void *bytes, size_t m, size_t total,
                        int lroot, int how)
{
    hc_bshm_vendor_announce(st, how, 0, 0); /* across nodes: a cell for every segment */
    hc_bshm_vendor_ran(st);
    hc_pmpi_bcast(bytes, (MPI_Count)m, MPI_BYTE, lroot, c->local);
}

static void vendor_read(hc_comm *c, hc_bstate *st, void *bytes, size_t m, size_t total,
                        int lroot, int how)
{
    int stamp;
    (void)hc_bshm_vendor_take(st, lroot, &stamp);
    hc_bshm_vendor_ran(st);
    hc_pmpi_bcast(bytes, (MPI_Count)m, MPI_BYTE, lroot, c->local);
}

const hc_bcast_engine hc_bcast_engines[HC_BCAST_ENGINE_COUNT] = {
    [HC_BCAST_ENGINE_VENDOR] = {"vendor", vendor_root, vendor_read, 1u << HC_BCELL_VENDOR},
    [HC_BCAST_ENGINE_QUEUE] = {"queue", queue_stage, queue_stage,
                               1u << HC_BCELL_DATA | 1u << HC_BCELL_INLINE | 1u << HC_BCELL_DIRECT},
    [HC_BCAST_ENGINE_CMA] = {"cma", cma_root, cma_read, 1u << HC_BCELL_CMA},
};

#define HC_ONLY_BCAST(...) __VA_ARGS__
#define HC_ONLY_ALLREDUCE(...)
#define HC_ALGO(COLL, ID, name, ENGINE, params, help) \
    HC_ONLY_##COLL([HC_BCAST_##ID] = HC_BCAST_ENGINE_##ENGINE, )
#define HC_PARAM(COLL, ID, key, TYPE, acc, help)
const int hc_bcast_engine_of[HC_BCAST_COUNT] = {
#include "hc_algos.def"
};
