/* Fortran entry points the vendor's bindings do not route through the C MPI_* ones:
 *   - Open MPI: its bindings (mpif.h, `use mpi`, `use mpi_f08`) call PMPI_* directly, so every
 *     call the library runs or profiles is intercepted again at its Fortran names: mpi_send_
 *     (and mpi_send, mpi_send__, MPI_SEND: every compiler's spelling, as Open MPI exports
 *     them) and mpi_send_f08_;
 *   - MPICH: mpif.h and `use mpi` call MPI_*, and so does `use mpi_f08` for calls with a
 *     buffer; its mpi_f08 calls without one (MPI_Init, MPI_Wait, MPI_Comm_set_info, ...) call
 *     PMPI_*, so those are intercepted at their mpi_f08 names.
 * Which names a wrapper gets is decided by the macros below; the wrappers are the same.
 *
 * Two kinds of wrappers:
 *   - calls whose outputs are at most a request or a communicator handle are converted to C
 *     and given to this library's C entry point (what MPICH's binding does): the collectives,
 *     persistent sends, one-sided calls, MPI_Comm_set_info;
 *   - calls that return statuses or arrays of requests are passed unchanged to the vendor's
 *     own binding of the same name (the next definition after this library) and only timed,
 *     or counted from their inputs (the sends), so the vendor keeps converting what it alone
 *     knows. */
#include <mpi.h>

#if defined(OPEN_MPI) || defined(MPICH_VERSION)

#include <dlfcn.h>
#include <stdlib.h>

#include "hc_must.h"
#include "prof.h"

typedef MPI_Fint F;
/* Counts and ranks go to C unconverted, as the vendors' own bindings do. */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER must be a C int");

/* --- Fortran's special addresses -------------------------------------------------------- */
/* The vendor's common blocks, under each compiler's spelling; weak, as only some exist. */
#define HC_F_SENTINEL(name)                                                                   \
    extern int name##_ __attribute__((weak)), name __attribute__((weak)),                      \
        name##__ __attribute__((weak));
#if defined(OPEN_MPI)
HC_F_SENTINEL(mpi_fortran_in_place)
HC_F_SENTINEL(mpi_fortran_bottom)
extern int MPI_FORTRAN_IN_PLACE __attribute__((weak)), MPI_FORTRAN_BOTTOM __attribute__((weak));
#define IN_PLACE_AT &mpi_fortran_in_place_, &mpi_fortran_in_place, &mpi_fortran_in_place__, \
                    &MPI_FORTRAN_IN_PLACE
#define BOTTOM_AT &mpi_fortran_bottom_, &mpi_fortran_bottom, &mpi_fortran_bottom__, \
                  &MPI_FORTRAN_BOTTOM
#else /* MPICH: the wrappers it needs take no buffer */
#define IN_PLACE_AT NULL, NULL, NULL, NULL
#define BOTTOM_AT NULL, NULL, NULL, NULL
#endif

static int is_at(const void *p, const void *a, const void *b, const void *c, const void *d)
{
    return p && (p == a || p == b || p == c || p == d);
}

/* A Fortran buffer argument in C: MPI_IN_PLACE and MPI_BOTTOM are addresses there. */
static void *cbuf(void *p)
{
    if (is_at(p, IN_PLACE_AT))
        return MPI_IN_PLACE;
    if (is_at(p, BOTTOM_AT))
        return MPI_BOTTOM;
    return p;
}

#define T(f) PMPI_Type_f2c(*(f))
#define C(f) PMPI_Comm_f2c(*(f))
#define O(f) PMPI_Op_f2c(*(f))
#define W(f) PMPI_Win_f2c(*(f))
#define B(p) cbuf(p)

/* ierror is optional in mpi_f08: absent, it is a null pointer. */
static inline void set_err(F *ierr, int rc)
{
    if (ierr)
        *ierr = rc;
}

/* The Fortran names of one wrapper: the four spellings of mpif.h / `use mpi`, and mpi_f08's.
 * BUF marks a call with a buffer argument, NOBUF one without (see the top of the file). */
#define HC_F77_ALIASES(lower, UPPER, params, target)                                         \
    HC_EXPORT void mpi_##lower##_ params __attribute__((alias(#target)));                    \
    HC_EXPORT void mpi_##lower params __attribute__((alias(#target)));                       \
    HC_EXPORT void mpi_##lower##__ params __attribute__((alias(#target)));                   \
    HC_EXPORT void MPI_##UPPER params __attribute__((alias(#target)));
#define HC_F08_ALIAS(lower, params, target)                                                  \
    HC_EXPORT void mpi_##lower##_f08_ params __attribute__((alias(#target)));
#define HC_NONE(...)
#if defined(OPEN_MPI)
#define HC_F77_BUF HC_F77_ALIASES
#define HC_F77_NOBUF HC_F77_ALIASES
#define HC_F08_BUF HC_F08_ALIAS
#define HC_F08_NOBUF HC_F08_ALIAS
#else
#define HC_F77_BUF HC_NONE
#define HC_F77_NOBUF HC_NONE
#define HC_F08_BUF HC_NONE
#define HC_F08_NOBUF HC_F08_ALIAS
#endif

/* A converting wrapper: one body for every name. */
#define HC_F_TO_C(kind, lower, UPPER, params, ...)                                           \
    __attribute__((unused)) static void hc_f_##lower params { __VA_ARGS__ }                  \
    HC_F77_##kind(lower, UPPER, params, hc_f_##lower)                                        \
    HC_F08_##kind(lower, params, hc_f_##lower)

/* The vendor's binding of a name: the next definition after this library (found once). */
#define HC_F_VENDOR(fn, name)                                                                \
    static void *fn##_vendor;                                                                \
    if (HC_UNLIKELY(!__atomic_load_n(&fn##_vendor, __ATOMIC_ACQUIRE)))                        \
        __atomic_store_n(&fn##_vendor, hc_f_vendor(name), __ATOMIC_RELEASE);

static void *hc_f_vendor(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f)
        hc_abort(MPI_COMM_WORLD, 1, "no vendor binding %s behind the library's", name);
    return f;
}

/* A passing wrapper: the vendor's binding of the same spelling (mpi_x_ or mpi_x_f08_), then
 * the statements after the arguments (which see t0). */
#define HC_F_PASS_ONE(kind, lower, UPPER, spelling, params, args, ...)                        \
    __attribute__((unused)) static void hc_##spelling##_##lower params                         \
    {                                                                                        \
        typedef void(*vendor_fn) params;                                                     \
        HC_F_VENDOR(f, "mpi_" #lower "_" #spelling)                                          \
        vendor_fn vendor = (vendor_fn)f_vendor;                                              \
        if (HC_LIKELY(!hc_prof_on)) {                                                        \
            vendor args;                                                                     \
            return;                                                                          \
        }                                                                                    \
        uint64_t t0 = hc_prof_ticks();                                                       \
        vendor args;                                                                         \
        hc_prof_returned();                                                                  \
        __VA_ARGS__;                                                                         \
    }
#define HC_F_PASS(kind, lower, UPPER, params, args, ...)                                    \
    HC_F_PASS_ONE(kind, lower, UPPER, , params, args, __VA_ARGS__)                           \
    HC_F_PASS_ONE(kind, lower, UPPER, f08_, params, args, __VA_ARGS__)                       \
    HC_F77_##kind(lower, UPPER, params, hc__##lower)                                         \
    HC_F08_##kind(lower, params, hc_f08__##lower)

#define TIMED(fn) hc_prof_call_end(hc_prof_thread_get(), HC_PF_##fn, t0, 0)

/* --- init and finalize: the vendor's own Fortran init, with the library around it -------- */
/* The vendor's error code, also when ierror is absent (mpi_f08). */
#define HC_F_ERR(ierr) F rc_ = MPI_SUCCESS, *e_ = (ierr) ? (ierr) : &rc_

#define HC_F_INIT(spelling)                                                                  \
    static void hc_f_init_##spelling(F *ierr)                                                \
    {                                                                                        \
        HC_F_VENDOR(init, "mpi_init_" #spelling)                                             \
        HC_F_ERR(ierr);                                                                      \
        hc_init_config();                                                                    \
        hc_in_vendor_init = 1;                                                               \
        ((void (*)(F *))init_vendor)(e_);                                                    \
        hc_in_vendor_init = 0;                                                               \
        if (*e_ == MPI_SUCCESS) {                                                            \
            int provided = MPI_THREAD_SINGLE;                                                \
            PMPI_Query_thread(&provided);                                                    \
            hc_init_after_vendor(provided);                                                  \
        }                                                                                    \
    }                                                                                        \
    static void hc_f_init_thread_##spelling(F *required, F *provided, F *ierr)               \
    {                                                                                        \
        HC_F_VENDOR(init_thread, "mpi_init_thread_" #spelling)                               \
        HC_F_ERR(ierr);                                                                      \
        hc_init_config();                                                                    \
        hc_in_vendor_init = 1;                                                               \
        ((void (*)(F *, F *, F *))init_thread_vendor)(required, provided, e_);               \
        hc_in_vendor_init = 0;                                                               \
        if (*e_ == MPI_SUCCESS)                                                              \
            hc_init_after_vendor(*provided);                                                 \
    }                                                                                        \
    static void hc_f_finalize_##spelling(F *ierr)                                            \
    {                                                                                        \
        HC_F_VENDOR(finalize, "mpi_finalize_" #spelling)                                     \
        hc_finalize_before_vendor();                                                         \
        hc_finalize_progress_arm();                                                          \
        ((void (*)(F *))finalize_vendor)(ierr);                                              \
        hc_finalize_progress_disarm();                                                       \
    }
#if defined(OPEN_MPI)
HC_F_INIT()
HC_F77_ALIASES(init, INIT, (F * ierr), hc_f_init_)
HC_F77_ALIASES(init_thread, INIT_THREAD, (F * required, F *provided, F *ierr), hc_f_init_thread_)
HC_F77_ALIASES(finalize, FINALIZE, (F * ierr), hc_f_finalize_)
#endif
HC_F_INIT(f08_)
HC_F08_ALIAS(init, (F * ierr), hc_f_init_f08_)
HC_F08_ALIAS(init_thread, (F * required, F *provided, F *ierr), hc_f_init_thread_f08_)
HC_F08_ALIAS(finalize, (F * ierr), hc_f_finalize_f08_)

/* --- per-communicator choices (info keys) ------------------------------------------------ */
HC_F_TO_C(NOBUF, comm_set_info, COMM_SET_INFO, (F * comm, F *info, F *ierr),
          set_err(ierr, MPI_Comm_set_info(C(comm), PMPI_Info_f2c(*info)));)
HC_F_TO_C(NOBUF, comm_dup_with_info, COMM_DUP_WITH_INFO, (F * comm, F *info, F *newcomm, F *ierr),
          MPI_Comm c = MPI_COMM_NULL;
          int rc = MPI_Comm_dup_with_info(C(comm), PMPI_Info_f2c(*info), &c);
          if (rc == MPI_SUCCESS) *newcomm = PMPI_Comm_c2f(c);
          set_err(ierr, rc);)

/* --- point to point ---------------------------------------------------------------------- */
#define SEND_PARAMS (void *buf, F *count, F *dt, F *dest, F *tag, F *comm, F *ierr)
#define SEND_ARGS (buf, count, dt, dest, tag, comm, ierr)
#define ISEND_PARAMS (void *buf, F *count, F *dt, F *dest, F *tag, F *comm, F *req, F *ierr)
#define ISEND_ARGS (buf, count, dt, dest, tag, comm, req, ierr)
#define P2P(fn) hc_prof_p2p(HC_PF_##fn, t0, *count, T(dt), *dest, C(comm))
HC_F_PASS(BUF, send, SEND, SEND_PARAMS, SEND_ARGS, P2P(Send))
HC_F_PASS(BUF, bsend, BSEND, SEND_PARAMS, SEND_ARGS, P2P(Bsend))
HC_F_PASS(BUF, ssend, SSEND, SEND_PARAMS, SEND_ARGS, P2P(Ssend))
HC_F_PASS(BUF, rsend, RSEND, SEND_PARAMS, SEND_ARGS, P2P(Rsend))
HC_F_PASS(BUF, isend, ISEND, ISEND_PARAMS, ISEND_ARGS, P2P(Isend))
HC_F_PASS(BUF, ibsend, IBSEND, ISEND_PARAMS, ISEND_ARGS, P2P(Ibsend))
HC_F_PASS(BUF, issend, ISSEND, ISEND_PARAMS, ISEND_ARGS, P2P(Issend))
HC_F_PASS(BUF, irsend, IRSEND, ISEND_PARAMS, ISEND_ARGS, P2P(Irsend))
HC_F_PASS(BUF, sendrecv, SENDRECV,
          (void *sbuf, F *count, F *dt, F *dest, F *stag, void *rbuf, F *rcount, F *rtype,
           F *src, F *rtag, F *comm, F *st, F *ierr),
          (sbuf, count, dt, dest, stag, rbuf, rcount, rtype, src, rtag, comm, st, ierr),
          P2P(Sendrecv))
HC_F_PASS(BUF, sendrecv_replace, SENDRECV_REPLACE,
          (void *buf, F *count, F *dt, F *dest, F *stag, F *src, F *rtag, F *comm, F *st,
           F *ierr),
          (buf, count, dt, dest, stag, src, rtag, comm, st, ierr), P2P(Sendrecv_replace))

/* Persistent sends: the C entry points remember each request's destination and size. */
#define HC_F_SEND_INIT(lower, UPPER, Name)                                                   \
    HC_F_TO_C(BUF, lower, UPPER, ISEND_PARAMS,                                                    \
              MPI_Request r = MPI_REQUEST_NULL;                                              \
              int rc = MPI_##Name(B(buf), *count, T(dt), *dest, *tag, C(comm), &r);          \
              if (rc == MPI_SUCCESS) *req = PMPI_Request_c2f(r);                             \
              set_err(ierr, rc);)
HC_F_SEND_INIT(send_init, SEND_INIT, Send_init)
HC_F_SEND_INIT(bsend_init, BSEND_INIT, Bsend_init)
HC_F_SEND_INIT(ssend_init, SSEND_INIT, Ssend_init)
HC_F_SEND_INIT(rsend_init, RSEND_INIT, Rsend_init)
HC_F_TO_C(NOBUF, start, START, (F * req, F *ierr),
          MPI_Request r = PMPI_Request_f2c(*req);
          set_err(ierr, MPI_Start(&r));)
HC_F_TO_C(NOBUF, startall, STARTALL, (F * n, F *reqs, F *ierr),
          MPI_Request *r = hc_must_alloc(sizeof *r * (size_t)(*n > 0 ? *n : 1), "MPI_Startall",
                                         "for the requests");
          for (int i = 0; i < *n; i++) r[i] = PMPI_Request_f2c(reqs[i]);
          set_err(ierr, MPI_Startall(*n, r));
          free(r);)
HC_F_TO_C(NOBUF, request_free, REQUEST_FREE, (F * req, F *ierr),
          MPI_Request r = PMPI_Request_f2c(*req);
          int rc = MPI_Request_free(&r);
          if (rc == MPI_SUCCESS) *req = PMPI_Request_c2f(MPI_REQUEST_NULL);
          set_err(ierr, rc);)

/* Receives and completions: timed only, in the vendor's binding. */
HC_F_PASS(BUF, recv, RECV, (void *buf, F *count, F *dt, F *src, F *tag, F *comm, F *st, F *ierr),
          (buf, count, dt, src, tag, comm, st, ierr), TIMED(Recv))
HC_F_PASS(BUF, irecv, IRECV, (void *buf, F *count, F *dt, F *src, F *tag, F *comm, F *req, F *ierr),
          (buf, count, dt, src, tag, comm, req, ierr), TIMED(Irecv))
HC_F_PASS(NOBUF, probe, PROBE, (F * src, F *tag, F *comm, F *st, F *ierr), (src, tag, comm, st, ierr),
          TIMED(Probe))
HC_F_PASS(NOBUF, wait, WAIT, (F * req, F *st, F *ierr), (req, st, ierr), TIMED(Wait))
HC_F_PASS(NOBUF, waitall, WAITALL, (F * n, F *reqs, F *sts, F *ierr), (n, reqs, sts, ierr),
          TIMED(Waitall))
HC_F_PASS(NOBUF, waitany, WAITANY, (F * n, F *reqs, F *idx, F *st, F *ierr), (n, reqs, idx, st, ierr),
          TIMED(Waitany))
HC_F_PASS(NOBUF, waitsome, WAITSOME, (F * n, F *reqs, F *out, F *idx, F *sts, F *ierr),
          (n, reqs, out, idx, sts, ierr), TIMED(Waitsome))
HC_F_PASS(NOBUF, test, TEST, (F * req, F *flag, F *st, F *ierr), (req, flag, st, ierr), TIMED(Test))
HC_F_PASS(NOBUF, testall, TESTALL, (F * n, F *reqs, F *flag, F *sts, F *ierr),
          (n, reqs, flag, sts, ierr), TIMED(Testall))

/* --- one-sided -------------------------------------------------------------------------- */
#define PUT_PARAMS (void *o, F *on, F *ot, F *rank, MPI_Aint *disp, F *tn, F *tt, F *win, F *ierr)
#define RPUT_PARAMS                                                                          \
    (void *o, F *on, F *ot, F *rank, MPI_Aint *disp, F *tn, F *tt, F *win, F *req, F *ierr)
#define PUT_ARGS B(o), *on, T(ot), *rank, *disp, *tn, T(tt), W(win)
/* A one-sided call that may return a request. */
#define REQ_OUT(call)                                                                        \
    MPI_Request r = MPI_REQUEST_NULL;                                                        \
    int rc = call;                                                                           \
    if (rc == MPI_SUCCESS) *req = PMPI_Request_c2f(r);                                       \
    set_err(ierr, rc);
HC_F_TO_C(BUF, put, PUT, PUT_PARAMS, set_err(ierr, MPI_Put(PUT_ARGS));)
HC_F_TO_C(BUF, get, GET, PUT_PARAMS, set_err(ierr, MPI_Get(PUT_ARGS));)
HC_F_TO_C(BUF, rput, RPUT, RPUT_PARAMS, REQ_OUT(MPI_Rput(PUT_ARGS, &r)))
HC_F_TO_C(BUF, rget, RGET, RPUT_PARAMS, REQ_OUT(MPI_Rget(PUT_ARGS, &r)))
#define ACC_PARAMS(...)                                                                      \
    (void *o, F *on, F *ot, F *rank, MPI_Aint *disp, F *tn, F *tt, F *op, F *win __VA_ARGS__, \
     F *ierr)
#define ACC_ARGS B(o), *on, T(ot), *rank, *disp, *tn, T(tt), O(op), W(win)
HC_F_TO_C(BUF, accumulate, ACCUMULATE, ACC_PARAMS(), set_err(ierr, MPI_Accumulate(ACC_ARGS));)
HC_F_TO_C(BUF, raccumulate, RACCUMULATE, ACC_PARAMS(, F *req),
          REQ_OUT(MPI_Raccumulate(ACC_ARGS, &r)))
#define GACC_PARAMS(...)                                                                     \
    (void *o, F *on, F *ot, void *res, F *rn, F *rt, F *rank, MPI_Aint *disp, F *tn, F *tt,    \
     F *op, F *win __VA_ARGS__, F *ierr)
#define GACC_ARGS B(o), *on, T(ot), B(res), *rn, T(rt), *rank, *disp, *tn, T(tt), O(op), W(win)
HC_F_TO_C(BUF, get_accumulate, GET_ACCUMULATE, GACC_PARAMS(),
          set_err(ierr, MPI_Get_accumulate(GACC_ARGS));)
HC_F_TO_C(BUF, rget_accumulate, RGET_ACCUMULATE, GACC_PARAMS(, F *req),
          REQ_OUT(MPI_Rget_accumulate(GACC_ARGS, &r)))
HC_F_TO_C(BUF, fetch_and_op, FETCH_AND_OP,
          (void *o, void *res, F *dt, F *rank, MPI_Aint *disp, F *op, F *win, F *ierr),
          set_err(ierr, MPI_Fetch_and_op(B(o), B(res), T(dt), *rank, *disp, O(op), W(win)));)
HC_F_TO_C(BUF, compare_and_swap, COMPARE_AND_SWAP,
          (void *o, void *cmp, void *res, F *dt, F *rank, MPI_Aint *disp, F *win, F *ierr),
          set_err(ierr, MPI_Compare_and_swap(B(o), B(cmp), B(res), T(dt), *rank, *disp,
                                             W(win)));)
HC_F_PASS(NOBUF, win_fence, WIN_FENCE, (F * assert, F *win, F *ierr), (assert, win, ierr),
          TIMED(Win_fence))
HC_F_PASS(NOBUF, win_lock, WIN_LOCK, (F * type, F *rank, F *assert, F *win, F *ierr),
          (type, rank, assert, win, ierr), TIMED(Win_lock))
HC_F_PASS(NOBUF, win_unlock, WIN_UNLOCK, (F * rank, F *win, F *ierr), (rank, win, ierr),
          TIMED(Win_unlock))
HC_F_PASS(NOBUF, win_flush, WIN_FLUSH, (F * rank, F *win, F *ierr), (rank, win, ierr), TIMED(Win_flush))

/* --- collectives ------------------------------------------------------------------------- */
HC_F_TO_C(BUF, bcast, BCAST, (void *buf, F *count, F *dt, F *root, F *comm, F *ierr),
          set_err(ierr, MPI_Bcast(B(buf), *count, T(dt), *root, C(comm)));)
HC_F_TO_C(BUF, allreduce, ALLREDUCE, (void *sb, void *rb, F *n, F *dt, F *op, F *comm, F *ierr),
          set_err(ierr, MPI_Allreduce(B(sb), B(rb), *n, T(dt), O(op), C(comm)));)
HC_F_TO_C(BUF, reduce, REDUCE, (void *sb, void *rb, F *n, F *dt, F *op, F *root, F *comm, F *ierr),
          set_err(ierr, MPI_Reduce(B(sb), B(rb), *n, T(dt), O(op), *root, C(comm)));)
#define ROOTED_PARAMS(...)                                                                   \
    (void *sb, F *sn, F *st, void *rb, F *rn, F *rt, F *root, F *comm __VA_ARGS__, F *ierr)
#define ROOTED_ARGS B(sb), *sn, T(st), B(rb), *rn, T(rt), *root, C(comm)
HC_F_TO_C(BUF, gather, GATHER, ROOTED_PARAMS(), set_err(ierr, MPI_Gather(ROOTED_ARGS));)
HC_F_TO_C(BUF, scatter, SCATTER, ROOTED_PARAMS(), set_err(ierr, MPI_Scatter(ROOTED_ARGS));)
HC_F_TO_C(BUF, gatherv, GATHERV,
          (void *sb, F *sn, F *st, void *rb, F *rn, F *d, F *rt, F *root, F *comm, F *ierr),
          set_err(ierr, MPI_Gatherv(B(sb), *sn, T(st), B(rb), rn, d, T(rt), *root, C(comm)));)
HC_F_TO_C(BUF, scatterv, SCATTERV,
          (void *sb, F *sn, F *d, F *st, void *rb, F *rn, F *rt, F *root, F *comm, F *ierr),
          set_err(ierr, MPI_Scatterv(B(sb), sn, d, T(st), B(rb), *rn, T(rt), *root, C(comm)));)
#define ALL_PARAMS(...) (void *sb, F *sn, F *st, void *rb, F *rn, F *rt, F *comm __VA_ARGS__, F *ierr)
#define ALL_ARGS B(sb), *sn, T(st), B(rb), *rn, T(rt), C(comm)
HC_F_TO_C(BUF, allgather, ALLGATHER, ALL_PARAMS(), set_err(ierr, MPI_Allgather(ALL_ARGS));)
HC_F_TO_C(BUF, alltoall, ALLTOALL, ALL_PARAMS(), set_err(ierr, MPI_Alltoall(ALL_ARGS));)
HC_F_TO_C(BUF, neighbor_allgather, NEIGHBOR_ALLGATHER, ALL_PARAMS(),
          set_err(ierr, MPI_Neighbor_allgather(ALL_ARGS));)
HC_F_TO_C(BUF, neighbor_alltoall, NEIGHBOR_ALLTOALL, ALL_PARAMS(),
          set_err(ierr, MPI_Neighbor_alltoall(ALL_ARGS));)
HC_F_TO_C(BUF, allgatherv, ALLGATHERV,
          (void *sb, F *sn, F *st, void *rb, F *rn, F *d, F *rt, F *comm, F *ierr),
          set_err(ierr, MPI_Allgatherv(B(sb), *sn, T(st), B(rb), rn, d, T(rt), C(comm)));)
HC_F_TO_C(BUF, neighbor_allgatherv, NEIGHBOR_ALLGATHERV,
          (void *sb, F *sn, F *st, void *rb, F *rn, F *d, F *rt, F *comm, F *ierr),
          set_err(ierr,
                  MPI_Neighbor_allgatherv(B(sb), *sn, T(st), B(rb), rn, d, T(rt), C(comm)));)
#define V_PARAMS (void *sb, F *sn, F *sd, F *st, void *rb, F *rn, F *rd, F *rt, F *comm, F *ierr)
HC_F_TO_C(BUF, alltoallv, ALLTOALLV, V_PARAMS,
          set_err(ierr, MPI_Alltoallv(B(sb), sn, sd, T(st), B(rb), rn, rd, T(rt), C(comm)));)
HC_F_TO_C(BUF, neighbor_alltoallv, NEIGHBOR_ALLTOALLV, V_PARAMS,
          set_err(ierr, MPI_Neighbor_alltoallv(B(sb), sn, sd, T(st), B(rb), rn, rd, T(rt),
                                               C(comm)));)

/* n datatypes converted (NULL when n is 0 or the array is not read). */
static MPI_Datatype *types_of(const F *f, int n)
{
    if (n <= 0 || !f)
        return NULL;
    MPI_Datatype *t = hc_must_alloc(sizeof *t * (size_t)n, "hiercoll", "for the datatypes");
    for (int i = 0; i < n; i++)
        t[i] = PMPI_Type_f2c(f[i]);
    return t;
}

/* How many blocks a rank sends and receives in a neighbourhood collective of comm. */
static void neighbour_degrees(MPI_Comm comm, int *in, int *out)
{
    int status = MPI_UNDEFINED, rank = 0, weighted = 0;
    *in = *out = 0;
    PMPI_Topo_test(comm, &status);
    if (status == MPI_CART) {
        PMPI_Cartdim_get(comm, in);
        *out = *in *= 2;
    } else if (status == MPI_GRAPH) {
        PMPI_Comm_rank(comm, &rank);
        PMPI_Graph_neighbors_count(comm, rank, in);
        *out = *in;
    } else if (status == MPI_DIST_GRAPH) {
        PMPI_Dist_graph_neighbors_count(comm, in, out, &weighted);
    }
}

HC_F_TO_C(BUF, alltoallw, ALLTOALLW,
          (void *sb, F *sn, F *sd, F *st, void *rb, F *rn, F *rd, F *rt, F *comm, F *ierr),
          MPI_Comm c = C(comm);
          int n = 0, inter = 0;
          PMPI_Comm_test_inter(c, &inter);
          if (inter) PMPI_Comm_remote_size(c, &n); else PMPI_Comm_size(c, &n);
          void *s = B(sb);
          MPI_Datatype *cst = s == MPI_IN_PLACE ? NULL : types_of(st, n), *crt = types_of(rt, n);
          set_err(ierr, MPI_Alltoallw(s, sn, sd, cst, B(rb), rn, rd, crt, c));
          free(cst), free(crt);)
HC_F_TO_C(BUF, neighbor_alltoallw, NEIGHBOR_ALLTOALLW,
          (void *sb, F *sn, MPI_Aint *sd, F *st, void *rb, F *rn, MPI_Aint *rd, F *rt, F *comm,
           F *ierr),
          MPI_Comm c = C(comm);
          int in = 0, out = 0;
          neighbour_degrees(c, &in, &out);
          MPI_Datatype *cst = types_of(st, out), *crt = types_of(rt, in);
          set_err(ierr,
                  MPI_Neighbor_alltoallw(B(sb), sn, sd, cst, B(rb), rn, rd, crt, c));
          free(cst), free(crt);)
HC_F_TO_C(BUF, reduce_scatter, REDUCE_SCATTER,
          (void *sb, void *rb, F *rn, F *dt, F *op, F *comm, F *ierr),
          set_err(ierr, MPI_Reduce_scatter(B(sb), B(rb), rn, T(dt), O(op), C(comm)));)
#define SCAN_PARAMS (void *sb, void *rb, F *n, F *dt, F *op, F *comm, F *ierr)
#define SCAN_ARGS B(sb), B(rb), *n, T(dt), O(op), C(comm)
HC_F_TO_C(BUF, reduce_scatter_block, REDUCE_SCATTER_BLOCK, SCAN_PARAMS,
          set_err(ierr, MPI_Reduce_scatter_block(SCAN_ARGS));)
HC_F_TO_C(BUF, scan, SCAN, SCAN_PARAMS, set_err(ierr, MPI_Scan(SCAN_ARGS));)
HC_F_TO_C(BUF, exscan, EXSCAN, SCAN_PARAMS, set_err(ierr, MPI_Exscan(SCAN_ARGS));)
HC_F_PASS(NOBUF, barrier, BARRIER, (F * comm, F *ierr), (comm, ierr), TIMED(Barrier))

/* Nonblocking collectives: the C entry point, and its request back in Fortran. */
HC_F_TO_C(BUF, ibcast, IBCAST, (void *buf, F *count, F *dt, F *root, F *comm, F *req, F *ierr),
          REQ_OUT(MPI_Ibcast(B(buf), *count, T(dt), *root, C(comm), &r)))
HC_F_TO_C(BUF, iallreduce, IALLREDUCE,
          (void *sb, void *rb, F *n, F *dt, F *op, F *comm, F *req, F *ierr),
          REQ_OUT(MPI_Iallreduce(SCAN_ARGS, &r)))
HC_F_TO_C(BUF, ireduce, IREDUCE,
          (void *sb, void *rb, F *n, F *dt, F *op, F *root, F *comm, F *req, F *ierr),
          REQ_OUT(MPI_Ireduce(B(sb), B(rb), *n, T(dt), O(op), *root, C(comm), &r)))
HC_F_TO_C(BUF, igather, IGATHER, ROOTED_PARAMS(, F *req), REQ_OUT(MPI_Igather(ROOTED_ARGS, &r)))
HC_F_TO_C(BUF, iscatter, ISCATTER, ROOTED_PARAMS(, F *req), REQ_OUT(MPI_Iscatter(ROOTED_ARGS, &r)))
HC_F_TO_C(BUF, iallgather, IALLGATHER, ALL_PARAMS(, F *req), REQ_OUT(MPI_Iallgather(ALL_ARGS, &r)))
HC_F_TO_C(BUF, ialltoall, IALLTOALL, ALL_PARAMS(, F *req), REQ_OUT(MPI_Ialltoall(ALL_ARGS, &r)))
HC_F_PASS(NOBUF, ibarrier, IBARRIER, (F * comm, F *req, F *ierr), (comm, req, ierr), TIMED(Ibarrier))

#endif /* OPEN_MPI || MPICH_VERSION */
