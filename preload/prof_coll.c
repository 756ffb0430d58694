/* Collectives under a logical model: what each rank must send to whom, independent of the
 * algorithm the library picks (docs/formats-profile.md lists the model per collective).
 * Recorded at the sender in the collective matrix; intercommunicator collectives are timed
 * only. */
#include <stdlib.h>

#include "prof.h"

typedef struct coll_rec {
    hc_prof_thread *t;
    hc_comm *c;
    uint64_t sent;
} coll_rec;

static int coll_begin(coll_rec *r, MPI_Comm comm)
{
    r->t = hc_prof_thread_get();
    r->sent = 0;
    r->c = hc_comm_get(comm);
    return r->c && !r->c->is_inter && r->c->world_rank_of;
}

/* bytes from me to peer (a rank of the communicator). */
static inline void to(coll_rec *r, int peer, uint64_t bytes)
{
    if (!bytes || peer == r->c->rank || peer < 0 || peer >= r->c->size)
        return;
    hc_prof_edge_add(r->t, hc_world_rank, r->c->world_rank_of[peer], HC_PK_COLL, bytes, 0);
    r->sent += bytes;
}

#define B(count, dt) hc_prof_bytes((MPI_Count)(count), dt)
#define ME (R->c->rank)
#define NP (R->c->size)
#define FOR_PEERS(j) for (int j = 0; j < NP; j++)

/* The skeleton: vendor call timed, then the model's statements with R pointing at the record. */
#define HC_COLL(fn, comm, call, model)                                          \
    HC_PROF_WRAP(call, coll_rec r_; coll_rec *R = &r_;                          \
                 if (coll_begin(R, comm)) { model; }                            \
                 hc_prof_call_end(R->t, HC_PF_##fn, t0_, R->sent))

/* --- the model ------------------------------------------------------------------------- */
static void model_bcast(coll_rec *R, uint64_t bytes, int root)
{
    if (ME == root)
        FOR_PEERS(j) to(R, j, bytes);
}

/* Allreduce as reduce-scatter then allgather of p blocks (block k holds count/p elements,
 * one more for k < count % p): i sends block j to j, then its block i to every j. */
static void model_allreduce(coll_rec *R, MPI_Count count, MPI_Datatype dt)
{
    MPI_Count q = count / NP, rem = count % NP;
    uint64_t mine = B(q + (ME < rem), dt);
    FOR_PEERS(j) to(R, j, B(q + (j < rem), dt) + mine);
}

void hc_prof_bcast(uint64_t t0, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    coll_rec r_, *R = &r_;
    if (coll_begin(R, comm))
        model_bcast(R, B(count, dt), root);
    hc_prof_call_end(R->t, HC_PF_Bcast, t0, R->sent);
}

void hc_prof_allreduce(uint64_t t0, MPI_Count count, MPI_Datatype dt, MPI_Comm comm)
{
    coll_rec r_, *R = &r_;
    if (coll_begin(R, comm))
        model_allreduce(R, count, dt);
    hc_prof_call_end(R->t, HC_PF_Allreduce, t0, R->sent);
}

/* Out-neighbours of a process topology, in the order of the neighbourhood collectives' send
 * blocks (Cartesian: -1 then +1 along each dimension; MPI_PROC_NULL keeps its block). */
static int out_neighbours(MPI_Comm comm, int rank, int **out)
{
    int status = MPI_UNDEFINED, n = 0;
    *out = NULL;
    PMPI_Topo_test(comm, &status);
    if (status == MPI_CART) {
        int nd = 0;
        PMPI_Cartdim_get(comm, &nd);
        if (!(*out = malloc(sizeof(int) * (size_t)(2 * nd + 1))))
            return 0;
        for (int d = 0; d < nd; d++, n += 2)
            PMPI_Cart_shift(comm, d, 1, &(*out)[n], &(*out)[n + 1]);
    } else if (status == MPI_GRAPH) {
        PMPI_Graph_neighbors_count(comm, rank, &n);
        if (!(*out = malloc(sizeof(int) * (size_t)(n + 1))))
            return 0;
        PMPI_Graph_neighbors(comm, rank, n, *out);
    } else if (status == MPI_DIST_GRAPH) {
        int indeg = 0, weighted = 0;
        PMPI_Dist_graph_neighbors_count(comm, &indeg, &n, &weighted);
        int *in = malloc(sizeof(int) * (size_t)(2 * indeg + 1));
        int *ow = malloc(sizeof(int) * (size_t)(n + 1));
        *out = malloc(sizeof(int) * (size_t)(n + 1));
        if (in && ow && *out)
            PMPI_Dist_graph_neighbors(comm, indeg, in, in + indeg, n, *out, ow);
        else
            n = 0;
        free(in);
        free(ow);
    }
    return n;
}

#define NEIGHBOURS(k, body)                                                     \
    do {                                                                        \
        int *nb_, nn_ = out_neighbours(comm, ME, &nb_);                         \
        for (int k = 0; k < nn_; k++)                                           \
            if (nb_[k] != MPI_PROC_NULL) {                                      \
                int peer_ = nb_[k];                                             \
                body;                                                           \
            }                                                                   \
        free(nb_);                                                              \
    } while (0)

/* --- wrappers, plain and large-count forms --------------------------------------------- */
#define HC_COLL_FORMS(CountT, DisplT, S)                                                        \
HC_EXPORT int MPI_Reduce##S(const void *sb, void *rb, CountT n, MPI_Datatype dt, MPI_Op op,     \
                            int root, MPI_Comm comm)                                            \
{                                                                                              \
    HC_COLL(Reduce, comm, PMPI_Reduce##S(sb, rb, n, dt, op, root, comm),                        \
            if (ME != root) to(R, root, B(n, dt)));                                             \
}                                                                                              \
HC_EXPORT int MPI_Gather##S(const void *sb, CountT sn, MPI_Datatype st, void *rb, CountT rn,    \
                            MPI_Datatype rt, int root, MPI_Comm comm)                           \
{                                                                                              \
    HC_COLL(Gather, comm, PMPI_Gather##S(sb, sn, st, rb, rn, rt, root, comm),                   \
            if (ME != root) to(R, root, B(sn, st)));                                            \
}                                                                                              \
HC_EXPORT int MPI_Gatherv##S(const void *sb, CountT sn, MPI_Datatype st, void *rb,              \
                             const CountT rn[], const DisplT d[], MPI_Datatype rt, int root,    \
                             MPI_Comm comm)                                                     \
{                                                                                              \
    HC_COLL(Gatherv, comm, PMPI_Gatherv##S(sb, sn, st, rb, rn, d, rt, root, comm),              \
            if (ME != root) to(R, root, B(sn, st)));                                            \
}                                                                                              \
HC_EXPORT int MPI_Scatter##S(const void *sb, CountT sn, MPI_Datatype st, void *rb, CountT rn,   \
                             MPI_Datatype rt, int root, MPI_Comm comm)                          \
{                                                                                              \
    HC_COLL(Scatter, comm, PMPI_Scatter##S(sb, sn, st, rb, rn, rt, root, comm),                 \
            if (ME == root) FOR_PEERS(j) to(R, j, B(sn, st)));                                  \
}                                                                                              \
HC_EXPORT int MPI_Scatterv##S(const void *sb, const CountT sn[], const DisplT d[],              \
                              MPI_Datatype st, void *rb, CountT rn, MPI_Datatype rt, int root,  \
                              MPI_Comm comm)                                                    \
{                                                                                              \
    HC_COLL(Scatterv, comm, PMPI_Scatterv##S(sb, sn, d, st, rb, rn, rt, root, comm),            \
            if (ME == root) FOR_PEERS(j) to(R, j, B(sn[j], st)));                               \
}                                                                                              \
HC_EXPORT int MPI_Allgather##S(const void *sb, CountT sn, MPI_Datatype st, void *rb, CountT rn, \
                               MPI_Datatype rt, MPI_Comm comm)                                  \
{                                                                                              \
    HC_COLL(Allgather, comm, PMPI_Allgather##S(sb, sn, st, rb, rn, rt, comm),                   \
            uint64_t b = sb == MPI_IN_PLACE ? B(rn, rt) : B(sn, st);                            \
            FOR_PEERS(j) to(R, j, b));                                                          \
}                                                                                              \
HC_EXPORT int MPI_Allgatherv##S(const void *sb, CountT sn, MPI_Datatype st, void *rb,           \
                                const CountT rn[], const DisplT d[], MPI_Datatype rt,           \
                                MPI_Comm comm)                                                  \
{                                                                                              \
    HC_COLL(Allgatherv, comm, PMPI_Allgatherv##S(sb, sn, st, rb, rn, d, rt, comm),              \
            uint64_t b = sb == MPI_IN_PLACE ? B(rn[ME], rt) : B(sn, st);                        \
            FOR_PEERS(j) to(R, j, b));                                                          \
}                                                                                              \
HC_EXPORT int MPI_Alltoall##S(const void *sb, CountT sn, MPI_Datatype st, void *rb, CountT rn,  \
                              MPI_Datatype rt, MPI_Comm comm)                                   \
{                                                                                              \
    HC_COLL(Alltoall, comm, PMPI_Alltoall##S(sb, sn, st, rb, rn, rt, comm),                     \
            uint64_t b = sb == MPI_IN_PLACE ? B(rn, rt) : B(sn, st);                            \
            FOR_PEERS(j) to(R, j, b));                                                          \
}                                                                                              \
HC_EXPORT int MPI_Alltoallv##S(const void *sb, const CountT sn[], const DisplT sd[],            \
                               MPI_Datatype st, void *rb, const CountT rn[], const DisplT rd[], \
                               MPI_Datatype rt, MPI_Comm comm)                                  \
{                                                                                              \
    HC_COLL(Alltoallv, comm, PMPI_Alltoallv##S(sb, sn, sd, st, rb, rn, rd, rt, comm),           \
            FOR_PEERS(j) to(R, j, sb == MPI_IN_PLACE ? B(rn[j], rt) : B(sn[j], st)));           \
}                                                                                              \
HC_EXPORT int MPI_Alltoallw##S(const void *sb, const CountT sn[], const DisplT sd[],            \
                               const MPI_Datatype st[], void *rb, const CountT rn[],            \
                               const DisplT rd[], const MPI_Datatype rt[], MPI_Comm comm)       \
{                                                                                              \
    HC_COLL(Alltoallw, comm, PMPI_Alltoallw##S(sb, sn, sd, st, rb, rn, rd, rt, comm),           \
            FOR_PEERS(j) to(R, j, sb == MPI_IN_PLACE ? B(rn[j], rt[j]) : B(sn[j], st[j])));     \
}                                                                                              \
HC_EXPORT int MPI_Reduce_scatter##S(const void *sb, void *rb, const CountT rn[],                \
                                    MPI_Datatype dt, MPI_Op op, MPI_Comm comm)                  \
{                                                                                              \
    HC_COLL(Reduce_scatter, comm, PMPI_Reduce_scatter##S(sb, rb, rn, dt, op, comm),             \
            FOR_PEERS(j) to(R, j, B(rn[j], dt)));                                               \
}                                                                                              \
HC_EXPORT int MPI_Reduce_scatter_block##S(const void *sb, void *rb, CountT rn, MPI_Datatype dt, \
                                          MPI_Op op, MPI_Comm comm)                             \
{                                                                                              \
    HC_COLL(Reduce_scatter_block, comm, PMPI_Reduce_scatter_block##S(sb, rb, rn, dt, op, comm), \
            FOR_PEERS(j) to(R, j, B(rn, dt)));                                                  \
}                                                                                              \
HC_EXPORT int MPI_Scan##S(const void *sb, void *rb, CountT n, MPI_Datatype dt, MPI_Op op,       \
                          MPI_Comm comm)                                                        \
{                                                                                              \
    HC_COLL(Scan, comm, PMPI_Scan##S(sb, rb, n, dt, op, comm), to(R, ME + 1, B(n, dt)));        \
}                                                                                              \
HC_EXPORT int MPI_Exscan##S(const void *sb, void *rb, CountT n, MPI_Datatype dt, MPI_Op op,     \
                            MPI_Comm comm)                                                      \
{                                                                                              \
    HC_COLL(Exscan, comm, PMPI_Exscan##S(sb, rb, n, dt, op, comm), to(R, ME + 1, B(n, dt)));    \
}                                                                                              \
HC_EXPORT int MPI_Neighbor_allgather##S(const void *sb, CountT sn, MPI_Datatype st, void *rb,   \
                                        CountT rn, MPI_Datatype rt, MPI_Comm comm)              \
{                                                                                              \
    HC_COLL(Neighbor_allgather, comm, PMPI_Neighbor_allgather##S(sb, sn, st, rb, rn, rt, comm), \
            NEIGHBOURS(k, to(R, peer_, B(sn, st))));                                            \
}                                                                                              \
HC_EXPORT int MPI_Neighbor_allgatherv##S(const void *sb, CountT sn, MPI_Datatype st, void *rb,  \
                                         const CountT rn[], const DisplT d[], MPI_Datatype rt,  \
                                         MPI_Comm comm)                                         \
{                                                                                              \
    HC_COLL(Neighbor_allgatherv, comm,                                                          \
            PMPI_Neighbor_allgatherv##S(sb, sn, st, rb, rn, d, rt, comm),                       \
            NEIGHBOURS(k, to(R, peer_, B(sn, st))));                                            \
}                                                                                              \
HC_EXPORT int MPI_Neighbor_alltoall##S(const void *sb, CountT sn, MPI_Datatype st, void *rb,    \
                                       CountT rn, MPI_Datatype rt, MPI_Comm comm)               \
{                                                                                              \
    HC_COLL(Neighbor_alltoall, comm, PMPI_Neighbor_alltoall##S(sb, sn, st, rb, rn, rt, comm),   \
            NEIGHBOURS(k, to(R, peer_, B(sn, st))));                                            \
}                                                                                              \
HC_EXPORT int MPI_Neighbor_alltoallv##S(const void *sb, const CountT sn[], const DisplT sd[],   \
                                        MPI_Datatype st, void *rb, const CountT rn[],           \
                                        const DisplT rd[], MPI_Datatype rt, MPI_Comm comm)      \
{                                                                                              \
    HC_COLL(Neighbor_alltoallv, comm,                                                           \
            PMPI_Neighbor_alltoallv##S(sb, sn, sd, st, rb, rn, rd, rt, comm),                   \
            NEIGHBOURS(k, to(R, peer_, B(sn[k], st))));                                         \
}

HC_COLL_FORMS(int, int, )
#if HC_MPI4
HC_COLL_FORMS(MPI_Count, MPI_Aint, _c)
#endif

/* Neighbor_alltoallw takes MPI_Aint displacements in both forms. */
HC_EXPORT int MPI_Neighbor_alltoallw(const void *sb, const int sn[], const MPI_Aint sd[],
                                     const MPI_Datatype st[], void *rb, const int rn[],
                                     const MPI_Aint rd[], const MPI_Datatype rt[], MPI_Comm comm)
{
    HC_COLL(Neighbor_alltoallw, comm, PMPI_Neighbor_alltoallw(sb, sn, sd, st, rb, rn, rd, rt, comm),
            NEIGHBOURS(k, to(R, peer_, B(sn[k], st[k]))));
}
#if HC_MPI4
HC_EXPORT int MPI_Neighbor_alltoallw_c(const void *sb, const MPI_Count sn[], const MPI_Aint sd[],
                                       const MPI_Datatype st[], void *rb, const MPI_Count rn[],
                                       const MPI_Aint rd[], const MPI_Datatype rt[],
                                       MPI_Comm comm)
{
    HC_COLL(Neighbor_alltoallw, comm,
            PMPI_Neighbor_alltoallw_c(sb, sn, sd, st, rb, rn, rd, rt, comm),
            NEIGHBOURS(k, to(R, peer_, B(sn[k], st[k]))));
}
#endif

HC_EXPORT int MPI_Barrier(MPI_Comm comm)
{
    HC_PROF_TIMED(Barrier, PMPI_Barrier(comm));
}

/* Nonblocking collectives: the same model, counted when started (time is the start's). */
HC_EXPORT int MPI_Ibcast(void *buf, int n, MPI_Datatype dt, int root, MPI_Comm comm,
                         MPI_Request *req)
{
    HC_COLL(Ibcast, comm, PMPI_Ibcast(buf, n, dt, root, comm, req),
            model_bcast(R, B(n, dt), root));
}
HC_EXPORT int MPI_Iallreduce(const void *sb, void *rb, int n, MPI_Datatype dt, MPI_Op op,
                             MPI_Comm comm, MPI_Request *req)
{
    HC_COLL(Iallreduce, comm, PMPI_Iallreduce(sb, rb, n, dt, op, comm, req),
            model_allreduce(R, n, dt));
}
HC_EXPORT int MPI_Ireduce(const void *sb, void *rb, int n, MPI_Datatype dt, MPI_Op op, int root,
                          MPI_Comm comm, MPI_Request *req)
{
    HC_COLL(Ireduce, comm, PMPI_Ireduce(sb, rb, n, dt, op, root, comm, req),
            if (ME != root) to(R, root, B(n, dt)));
}
HC_EXPORT int MPI_Igather(const void *sb, int sn, MPI_Datatype st, void *rb, int rn,
                          MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request *req)
{
    HC_COLL(Igather, comm, PMPI_Igather(sb, sn, st, rb, rn, rt, root, comm, req),
            if (ME != root) to(R, root, B(sn, st)));
}
HC_EXPORT int MPI_Iscatter(const void *sb, int sn, MPI_Datatype st, void *rb, int rn,
                           MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request *req)
{
    HC_COLL(Iscatter, comm, PMPI_Iscatter(sb, sn, st, rb, rn, rt, root, comm, req),
            if (ME == root) FOR_PEERS(j) to(R, j, B(sn, st)));
}
HC_EXPORT int MPI_Iallgather(const void *sb, int sn, MPI_Datatype st, void *rb, int rn,
                             MPI_Datatype rt, MPI_Comm comm, MPI_Request *req)
{
    HC_COLL(Iallgather, comm, PMPI_Iallgather(sb, sn, st, rb, rn, rt, comm, req),
            uint64_t b = sb == MPI_IN_PLACE ? B(rn, rt) : B(sn, st);
            FOR_PEERS(j) to(R, j, b));
}
HC_EXPORT int MPI_Ialltoall(const void *sb, int sn, MPI_Datatype st, void *rb, int rn,
                            MPI_Datatype rt, MPI_Comm comm, MPI_Request *req)
{
    HC_COLL(Ialltoall, comm, PMPI_Ialltoall(sb, sn, st, rb, rn, rt, comm, req),
            uint64_t b = sb == MPI_IN_PLACE ? B(rn, rt) : B(sn, st);
            FOR_PEERS(j) to(R, j, b));
}
HC_EXPORT int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
    HC_PROF_TIMED(Ibarrier, PMPI_Ibarrier(comm, req));
}
