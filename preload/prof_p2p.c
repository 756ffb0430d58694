/* Point-to-point entry points: every send-side operation is counted at the sender (bytes of
 * the send buffer, one message), receives and completions are timed only. */
#include <pthread.h>
#include <stdlib.h>

#include "p2p_yield.h"
#include "prof.h"

/* Send-side call: count, datatype, destination rank in comm. */
#define HC_P2P(fn, call, count, dt, dest, comm)                                  \
    HC_PROF_WRAP(call, hc_prof_p2p(HC_PF_##fn, t0_, (MPI_Count)(count), dt, dest, comm))

/* The send forms (plain and large-count) in one line each; a blocking one names its
 * nonblocking form, which completes it where the calls yield (p2p_yield.h). */
#define HC_SEND_FORMS(Name, Iname, CountT, Suffix)                                          \
    HC_EXPORT int MPI_##Name##Suffix(const void *buf, CountT count, MPI_Datatype dt, int dest, \
                                     int tag, MPI_Comm comm)                                \
    {                                                                                      \
        HC_P2P(Name,                                                                       \
               HC_P2P_BLOCKING(PMPI_##Name##Suffix(buf, count, dt, dest, tag, comm),        \
                               PMPI_##Iname##Suffix(buf, count, dt, dest, tag, comm, &req_), \
                               MPI_STATUS_IGNORE),                                         \
               count, dt, dest, comm);                                                     \
    }
#define HC_ISEND_FORMS(Name, CountT, Suffix)                                                 \
    HC_EXPORT int MPI_##Name##Suffix(const void *buf, CountT count, MPI_Datatype dt, int dest, \
                                     int tag, MPI_Comm comm, MPI_Request *req)              \
    {                                                                                      \
        HC_P2P(Name, PMPI_##Name##Suffix(buf, count, dt, dest, tag, comm, req), count, dt,  \
               dest, comm);                                                                \
    }

HC_SEND_FORMS(Send, Isend, int, )
HC_SEND_FORMS(Bsend, Ibsend, int, )
HC_SEND_FORMS(Ssend, Issend, int, )
HC_SEND_FORMS(Rsend, Irsend, int, )
HC_ISEND_FORMS(Isend, int, )
HC_ISEND_FORMS(Ibsend, int, )
HC_ISEND_FORMS(Issend, int, )
HC_ISEND_FORMS(Irsend, int, )
#if HC_MPI4 /* large-count forms */
HC_SEND_FORMS(Send, Isend, MPI_Count, _c)
HC_SEND_FORMS(Bsend, Ibsend, MPI_Count, _c)
HC_SEND_FORMS(Ssend, Issend, MPI_Count, _c)
HC_SEND_FORMS(Rsend, Irsend, MPI_Count, _c)
HC_ISEND_FORMS(Isend, MPI_Count, _c)
HC_ISEND_FORMS(Ibsend, MPI_Count, _c)
HC_ISEND_FORMS(Issend, MPI_Count, _c)
HC_ISEND_FORMS(Irsend, MPI_Count, _c)
#endif

#define HC_SENDRECV_FORMS(Name, CountT, Suffix, StatusT, status, vendor_call)               \
    HC_EXPORT int MPI_##Name##Suffix(const void *sbuf, CountT scount, MPI_Datatype stype,    \
                                     int dest, int stag, void *rbuf, CountT rcount,        \
                                     MPI_Datatype rtype, int src, int rtag, MPI_Comm comm, \
                                     StatusT status)                                       \
    {                                                                                     \
        HC_P2P(Name, vendor_call, scount, stype, dest, comm);                             \
    }
/* The vendor's call of a wrapper that HC_SENDRECV_FORMS defines, by its parameters' names. */
#define HC_ISENDRECV_CALL(Suffix)                                                           \
    PMPI_Isendrecv##Suffix(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, \
                           comm, req)
/* Blocking: as it is, or where the calls yield its receive and its send started (the
 * receive first, as the vendors do) and completed by hc_yield_sendrecv. */
#define HC_SENDRECV_CALL(Suffix)                                                            \
    (HC_LIKELY(!hc_p2p_yield)                                                               \
         ? PMPI_Sendrecv##Suffix(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, \
                                 rtag, comm, st)                                            \
         : ({                                                                               \
               MPI_Request two_[2];                                                         \
               int rc_recv_ = PMPI_Irecv##Suffix(rbuf, rcount, rtype, src, rtag, comm,      \
                                                 &two_[0]);                                 \
               rc_recv_ != MPI_SUCCESS                                                      \
                   ? rc_recv_                                                               \
                   : hc_yield_sendrecv(PMPI_Isend##Suffix(sbuf, scount, stype, dest, stag,  \
                                                          comm, &two_[1]),                  \
                                       two_, src, st);                                      \
           }))
#define HC_SENDRECV_REPLACE_FORMS(Name, CountT, Suffix, StatusT, status)                    \
    HC_EXPORT int MPI_##Name##Suffix(void *buf, CountT count, MPI_Datatype dt, int dest,     \
                                     int stag, int src, int rtag, MPI_Comm comm,           \
                                     StatusT status)                                       \
    {                                                                                     \
        HC_P2P(Name, PMPI_##Name##Suffix(buf, count, dt, dest, stag, src, rtag, comm, status), \
               count, dt, dest, comm);                                                    \
    }
HC_SENDRECV_FORMS(Sendrecv, int, , MPI_Status *, st, HC_SENDRECV_CALL())
HC_SENDRECV_REPLACE_FORMS(Sendrecv_replace, int, , MPI_Status *, st)
#if HC_MPI4 /* large-count forms, MPI_Isendrecv */
HC_SENDRECV_FORMS(Sendrecv, MPI_Count, _c, MPI_Status *, st, HC_SENDRECV_CALL(_c))
HC_SENDRECV_FORMS(Isendrecv, int, , MPI_Request *, req, HC_ISENDRECV_CALL())
HC_SENDRECV_FORMS(Isendrecv, MPI_Count, _c, MPI_Request *, req, HC_ISENDRECV_CALL(_c))
HC_SENDRECV_REPLACE_FORMS(Sendrecv_replace, MPI_Count, _c, MPI_Status *, st)
HC_SENDRECV_REPLACE_FORMS(Isendrecv_replace, int, , MPI_Request *, req)
HC_SENDRECV_REPLACE_FORMS(Isendrecv_replace, MPI_Count, _c, MPI_Request *, req)
#endif

/* --- receives and completions: time in MPI only ---------------------------------------- */
HC_EXPORT int MPI_Recv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
                       MPI_Status *st)
{
    HC_PROF_TIMED(Recv, HC_P2P_RECV(PMPI_Recv(buf, count, dt, src, tag, comm, st),
                                    PMPI_Irecv(buf, count, dt, src, tag, comm, &req_), src, st));
}
HC_EXPORT int MPI_Irecv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
                        MPI_Request *req)
{
    HC_PROF_TIMED(Irecv, PMPI_Irecv(buf, count, dt, src, tag, comm, req));
}
#if HC_MPI4
HC_EXPORT int MPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag,
                         MPI_Comm comm, MPI_Status *st)
{
    HC_PROF_TIMED(Recv, HC_P2P_RECV(PMPI_Recv_c(buf, count, dt, src, tag, comm, st),
                                    PMPI_Irecv_c(buf, count, dt, src, tag, comm, &req_), src, st));
}
HC_EXPORT int MPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag,
                          MPI_Comm comm, MPI_Request *req)
{
    HC_PROF_TIMED(Irecv, PMPI_Irecv_c(buf, count, dt, src, tag, comm, req));
}
#endif
HC_EXPORT int MPI_Probe(int src, int tag, MPI_Comm comm, MPI_Status *st)
{
    HC_PROF_TIMED(Probe, hc_p2p_yield ? hc_yield_probe(src, tag, comm, st)
                                      : PMPI_Probe(src, tag, comm, st));
}
HC_EXPORT int MPI_Wait(MPI_Request *req, MPI_Status *st)
{
    HC_PROF_TIMED(Wait, hc_p2p_yield ? hc_yield_complete(MPI_SUCCESS, req, st)
                                     : PMPI_Wait(req, st));
}
HC_EXPORT int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status sts[])
{
    HC_PROF_TIMED(Waitall, hc_p2p_yield ? hc_yield_waitall(n, reqs, sts)
                                        : PMPI_Waitall(n, reqs, sts));
}
HC_EXPORT int MPI_Waitany(int n, MPI_Request reqs[], int *idx, MPI_Status *st)
{
    HC_PROF_TIMED(Waitany, hc_p2p_yield ? hc_yield_waitany(n, reqs, idx, st)
                                         : PMPI_Waitany(n, reqs, idx, st));
}
HC_EXPORT int MPI_Waitsome(int n, MPI_Request reqs[], int *out, int idx[], MPI_Status sts[])
{
    HC_PROF_TIMED(Waitsome, hc_p2p_yield ? hc_yield_waitsome(n, reqs, out, idx, sts)
                                          : PMPI_Waitsome(n, reqs, out, idx, sts));
}
HC_EXPORT int MPI_Test(MPI_Request *req, int *flag, MPI_Status *st)
{
    HC_PROF_TIMED(Test, PMPI_Test(req, flag, st));
}
HC_EXPORT int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status sts[])
{
    HC_PROF_TIMED(Testall, PMPI_Testall(n, reqs, flag, sts));
}

/* --- persistent sends: counted at every MPI_Start / MPI_Startall ------------------------
 * The request handle maps to its destination and size. Creation and MPI_Request_free take
 * the write lock; MPI_Start only the read lock, so starting threads do not serialise. */
typedef struct persist {
    MPI_Request req;
    int dst_world;
    uint64_t bytes;
    struct persist *next;
} persist;
#define PERSIST_BUCKETS 1024
static persist *persist_table[PERSIST_BUCKETS];
static pthread_rwlock_t persist_lock = PTHREAD_RWLOCK_INITIALIZER;
static int persist_used; /* set once the table is used: MPI_Request_free skips it otherwise */

static inline size_t persist_bucket(MPI_Request r)
{
    return ((uint64_t)(uintptr_t)r * 0x9E3779B97F4A7C15ull >> 32) % PERSIST_BUCKETS;
}

static void persist_add(MPI_Request r, MPI_Count count, MPI_Datatype dt, int dest, MPI_Comm comm)
{
    hc_comm *c = hc_comm_get(comm);
    int n = c ? (c->is_inter ? c->remote_size : c->size) : 0;
    if (dest == MPI_PROC_NULL || dest < 0 || !c || !c->world_rank_of || dest >= n)
        return;
    persist *p = malloc(sizeof *p);
    if (!p)
        return;
    p->req = r;
    p->dst_world = c->world_rank_of[dest];
    p->bytes = hc_prof_bytes(count, dt);
    size_t b = persist_bucket(r);
    pthread_rwlock_wrlock(&persist_lock);
    __atomic_store_n(&persist_used, 1, __ATOMIC_RELAXED);
    p->next = persist_table[b];
    persist_table[b] = p;
    pthread_rwlock_unlock(&persist_lock);
}

/* Records one start of r if it is a persistent send; returns its bytes. */
static uint64_t persist_start(hc_prof_thread *t, MPI_Request r)
{
    uint64_t bytes = 0;
    pthread_rwlock_rdlock(&persist_lock);
    for (persist *p = persist_table[persist_bucket(r)]; p; p = p->next)
        if (p->req == r) {
            hc_prof_edge_add(t, hc_world_rank, p->dst_world, HC_PK_P2P, p->bytes, 1);
            bytes = p->bytes;
            break;
        }
    pthread_rwlock_unlock(&persist_lock);
    return bytes;
}

#define HC_SEND_INIT_FORMS(Name, CountT, Suffix)                                             \
    HC_EXPORT int MPI_##Name##Suffix(const void *buf, CountT count, MPI_Datatype dt, int dest, \
                                     int tag, MPI_Comm comm, MPI_Request *req)              \
    {                                                                                      \
        if (HC_LIKELY(!hc_prof_on))                                                        \
            return PMPI_##Name##Suffix(buf, count, dt, dest, tag, comm, req);              \
        uint64_t t0 = hc_prof_ticks();                                                     \
        int rc = PMPI_##Name##Suffix(buf, count, dt, dest, tag, comm, req);                \
        hc_prof_returned();                                                                \
        if (rc == MPI_SUCCESS)                                                             \
            persist_add(*req, (MPI_Count)count, dt, dest, comm);                           \
        hc_prof_call_end(hc_prof_thread_get(), HC_PF_##Name, t0, 0);                       \
        return rc;                                                                         \
    }
HC_SEND_INIT_FORMS(Send_init, int, )
HC_SEND_INIT_FORMS(Bsend_init, int, )
HC_SEND_INIT_FORMS(Ssend_init, int, )
HC_SEND_INIT_FORMS(Rsend_init, int, )
#if HC_MPI4 /* large-count forms */
HC_SEND_INIT_FORMS(Send_init, MPI_Count, _c)
HC_SEND_INIT_FORMS(Bsend_init, MPI_Count, _c)
HC_SEND_INIT_FORMS(Ssend_init, MPI_Count, _c)
HC_SEND_INIT_FORMS(Rsend_init, MPI_Count, _c)
#endif

HC_EXPORT int MPI_Start(MPI_Request *req)
{
    if (HC_LIKELY(!hc_prof_on))
        return PMPI_Start(req);
    uint64_t t0 = hc_prof_ticks();
    MPI_Request r = *req;
    int rc = PMPI_Start(req);
    hc_prof_returned();
    hc_prof_thread *t = hc_prof_thread_get();
    hc_prof_call_end(t, HC_PF_Start, t0, rc == MPI_SUCCESS ? persist_start(t, r) : 0);
    return rc;
}

HC_EXPORT int MPI_Startall(int n, MPI_Request reqs[])
{
    if (HC_LIKELY(!hc_prof_on))
        return PMPI_Startall(n, reqs);
    uint64_t t0 = hc_prof_ticks();
    int rc = PMPI_Startall(n, reqs);
    hc_prof_returned();
    hc_prof_thread *t = hc_prof_thread_get();
    uint64_t bytes = 0;
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
        bytes += persist_start(t, reqs[i]);
    hc_prof_call_end(t, HC_PF_Startall, t0, bytes);
    return rc;
}

HC_EXPORT int MPI_Request_free(MPI_Request *req)
{
    MPI_Request r = *req;
    if (r == MPI_REQUEST_NULL || !__atomic_load_n(&persist_used, __ATOMIC_RELAXED))
        return PMPI_Request_free(req);
    /* Always, even after profiling stopped: a handle the vendor reuses must not inherit.
     * The entry goes under the same write lock as the handle: freed first, another thread's
     * MPI_Send_init could be handed r again and its new entry be the one removed, leaving
     * this one to count that thread's starts (or a receive's). No MPI call takes this lock
     * while holding the library's own, so holding it across PMPI_Request_free is safe. */
    size_t b = persist_bucket(r);
    pthread_rwlock_wrlock(&persist_lock);
    int rc = PMPI_Request_free(req);
    if (rc == MPI_SUCCESS)
        for (persist **p = &persist_table[b]; *p; p = &(*p)->next)
            if ((*p)->req == r) {
                persist *dead = *p;
                *p = dead->next;
                free(dead);
                break;
            }
    pthread_rwlock_unlock(&persist_lock);
    return rc;
}
