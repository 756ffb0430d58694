/* One-sided entry points. Data moves origin -> target for Put and Accumulate, target ->
 * origin for Get; the read-modify-write calls move data both ways. All recorded at the
 * origin, in world ranks, in the one-sided column (which p2p includes). */
#include <pthread.h>
#include <stdlib.h>

#include "prof.h"

/* Per-window translation of window ranks to world ranks, computed once and cached as a
 * window attribute (freed with the window). */
typedef struct win_ranks {
    int n;
    int world[];
} win_ranks;

static int win_keyval = MPI_KEYVAL_INVALID;
static pthread_mutex_t win_lock = PTHREAD_MUTEX_INITIALIZER;

static int win_delete(MPI_Win win, int kv, void *val, void *extra)
{
    free(val);
    return MPI_SUCCESS;
}

static const win_ranks *win_get(MPI_Win win)
{
    win_ranks *w = NULL;
    int found = 0;
    if (win_keyval != MPI_KEYVAL_INVALID) {
        PMPI_Win_get_attr(win, win_keyval, &w, &found);
        if (found)
            return w;
    }
    pthread_mutex_lock(&win_lock);
    if (win_keyval == MPI_KEYVAL_INVALID)
        PMPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, win_delete, &win_keyval, NULL);
    PMPI_Win_get_attr(win, win_keyval, &w, &found);
    if (!found) {
        MPI_Group group, world;
        int n = 0;
        PMPI_Win_get_group(win, &group);
        PMPI_Group_size(group, &n);
        PMPI_Comm_group(MPI_COMM_WORLD, &world);
        w = malloc(sizeof *w + sizeof(int) * (size_t)n * 2);
        if (w) {
            int *ranks = w->world + n; /* scratch after the result */
            w->n = n;
            for (int i = 0; i < n; i++)
                ranks[i] = i;
            PMPI_Group_translate_ranks(group, n, ranks, world, w->world);
            PMPI_Win_set_attr(win, win_keyval, w);
        }
        PMPI_Group_free(&group);
        PMPI_Group_free(&world);
    }
    pthread_mutex_unlock(&win_lock);
    return w;
}

/* Records to_target bytes origin -> target and to_origin bytes target -> origin. */
static void rma(int fn, uint64_t t0, int target, MPI_Win win, uint64_t to_target,
                uint64_t to_origin)
{
    hc_prof_thread *t = hc_prof_thread_get();
    uint64_t bytes = 0;
    const win_ranks *w = target == MPI_PROC_NULL ? NULL : win_get(win);
    if (w && target >= 0 && target < w->n && w->world[target] != MPI_UNDEFINED) {
        int me = hc_world_rank, peer = w->world[target];
        if (to_target)
            hc_prof_edge_add(t, me, peer, HC_PK_RMA, to_target, 0);
        if (to_origin)
            hc_prof_edge_add(t, peer, me, HC_PK_RMA, to_origin, 0);
        bytes = to_target + to_origin;
    }
    hc_prof_call_end(t, fn, t0, bytes);
}

#define HC_RMA(fn, call, target, win, to_target, to_origin)                      \
    HC_PROF_WRAP(call, rma(HC_PF_##fn, t0_, target, win, to_target, to_origin))

#define B(count, dt) hc_prof_bytes((MPI_Count)(count), dt)

#define HC_PUT_FORMS(Name, CountT, Suffix, ReqDecl, ReqArg, toT, toO)                        \
    HC_EXPORT int MPI_##Name##Suffix(const void *oaddr, CountT ocount, MPI_Datatype otype,   \
                                     int target, MPI_Aint tdisp, CountT tcount,            \
                                     MPI_Datatype ttype, MPI_Win win ReqDecl)              \
    {                                                                                     \
        HC_RMA(Name, PMPI_##Name##Suffix(oaddr, ocount, otype, target, tdisp, tcount, ttype, \
                                         win ReqArg),                                     \
               target, win, toT, toO);                                                    \
    }
#define HC_ACC_FORMS(Name, CountT, Suffix, ReqDecl, ReqArg)                                  \
    HC_EXPORT int MPI_##Name##Suffix(const void *oaddr, CountT ocount, MPI_Datatype otype,   \
                                     int target, MPI_Aint tdisp, CountT tcount,            \
                                     MPI_Datatype ttype, MPI_Op op, MPI_Win win ReqDecl)   \
    {                                                                                     \
        HC_RMA(Name, PMPI_##Name##Suffix(oaddr, ocount, otype, target, tdisp, tcount, ttype, \
                                         op, win ReqArg),                                 \
               target, win, B(ocount, otype), 0);                                         \
    }
#define HC_GETACC_FORMS(Name, CountT, Suffix, ReqDecl, ReqArg)                               \
    HC_EXPORT int MPI_##Name##Suffix(const void *oaddr, CountT ocount, MPI_Datatype otype,   \
                                     void *raddr, CountT rcount, MPI_Datatype rtype,       \
                                     int target, MPI_Aint tdisp, CountT tcount,            \
                                     MPI_Datatype ttype, MPI_Op op, MPI_Win win ReqDecl)   \
    {                                                                                     \
        HC_RMA(Name, PMPI_##Name##Suffix(oaddr, ocount, otype, raddr, rcount, rtype, target, \
                                         tdisp, tcount, ttype, op, win ReqArg),           \
               target, win, op == MPI_NO_OP ? 0 : B(ocount, otype), B(rcount, rtype));    \
    }

#define NOREQ
#define REQDECL , MPI_Request *req
#define REQARG , req
/* MPI_Put: origin -> target; MPI_Get: target -> origin (the origin's buffer describes both). */
HC_PUT_FORMS(Put, int, , NOREQ, NOREQ, B(ocount, otype), 0)
HC_PUT_FORMS(Rput, int, , REQDECL, REQARG, B(ocount, otype), 0)
#if HC_MPI4 /* large-count forms */
HC_PUT_FORMS(Put, MPI_Count, _c, NOREQ, NOREQ, B(ocount, otype), 0)
HC_PUT_FORMS(Rput, MPI_Count, _c, REQDECL, REQARG, B(ocount, otype), 0)
#endif
HC_EXPORT int MPI_Get(void *oaddr, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp,
                      int tcount, MPI_Datatype ttype, MPI_Win win)
{
    HC_RMA(Get, PMPI_Get(oaddr, ocount, otype, target, tdisp, tcount, ttype, win), target, win,
           0, B(ocount, otype));
}
HC_EXPORT int MPI_Rget(void *oaddr, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp,
                       int tcount, MPI_Datatype ttype, MPI_Win win, MPI_Request *req)
{
    HC_RMA(Rget, PMPI_Rget(oaddr, ocount, otype, target, tdisp, tcount, ttype, win, req), target,
           win, 0, B(ocount, otype));
}
#if HC_MPI4
HC_EXPORT int MPI_Get_c(void *oaddr, MPI_Count ocount, MPI_Datatype otype, int target,
                        MPI_Aint tdisp, MPI_Count tcount, MPI_Datatype ttype, MPI_Win win)
{
    HC_RMA(Get, PMPI_Get_c(oaddr, ocount, otype, target, tdisp, tcount, ttype, win), target, win,
           0, B(ocount, otype));
}
HC_EXPORT int MPI_Rget_c(void *oaddr, MPI_Count ocount, MPI_Datatype otype, int target,
                         MPI_Aint tdisp, MPI_Count tcount, MPI_Datatype ttype, MPI_Win win,
                         MPI_Request *req)
{
    HC_RMA(Rget, PMPI_Rget_c(oaddr, ocount, otype, target, tdisp, tcount, ttype, win, req),
           target, win, 0, B(ocount, otype));
}
#endif
HC_ACC_FORMS(Accumulate, int, , NOREQ, NOREQ)
HC_ACC_FORMS(Raccumulate, int, , REQDECL, REQARG)
HC_GETACC_FORMS(Get_accumulate, int, , NOREQ, NOREQ)
HC_GETACC_FORMS(Rget_accumulate, int, , REQDECL, REQARG)
#if HC_MPI4 /* large-count forms */
HC_ACC_FORMS(Accumulate, MPI_Count, _c, NOREQ, NOREQ)
HC_ACC_FORMS(Raccumulate, MPI_Count, _c, REQDECL, REQARG)
HC_GETACC_FORMS(Get_accumulate, MPI_Count, _c, NOREQ, NOREQ)
HC_GETACC_FORMS(Rget_accumulate, MPI_Count, _c, REQDECL, REQARG)
#endif

/* One element each way (none to the target for MPI_NO_OP). */
HC_EXPORT int MPI_Fetch_and_op(const void *oaddr, void *raddr, MPI_Datatype dt, int target,
                               MPI_Aint tdisp, MPI_Op op, MPI_Win win)
{
    HC_RMA(Fetch_and_op, PMPI_Fetch_and_op(oaddr, raddr, dt, target, tdisp, op, win), target, win,
           op == MPI_NO_OP ? 0 : B(1, dt), B(1, dt));
}
/* The compare and the new value go to the target, the old value comes back. */
HC_EXPORT int MPI_Compare_and_swap(const void *oaddr, const void *caddr, void *raddr,
                                   MPI_Datatype dt, int target, MPI_Aint tdisp, MPI_Win win)
{
    HC_RMA(Compare_and_swap, PMPI_Compare_and_swap(oaddr, caddr, raddr, dt, target, tdisp, win),
           target, win, B(2, dt), B(1, dt));
}

/* Synchronisation: time only. */
HC_EXPORT int MPI_Win_fence(int assert, MPI_Win win)
{
    HC_PROF_TIMED(Win_fence, PMPI_Win_fence(assert, win));
}
HC_EXPORT int MPI_Win_lock(int type, int rank, int assert, MPI_Win win)
{
    HC_PROF_TIMED(Win_lock, PMPI_Win_lock(type, rank, assert, win));
}
HC_EXPORT int MPI_Win_unlock(int rank, MPI_Win win)
{
    HC_PROF_TIMED(Win_unlock, PMPI_Win_unlock(rank, win));
}
HC_EXPORT int MPI_Win_flush(int rank, MPI_Win win)
{
    HC_PROF_TIMED(Win_flush, PMPI_Win_flush(rank, win));
}
