/* The program's own blocking point-to-point calls, waited for by testing and giving the core
 * away (HIERCOLL_P2P_YIELD; preload/p2p_yield.c).
 *
 * MPICH's progress engine polls without ever yielding. Where a node holds more ranks than
 * cores, a rank spinning in MPI_Recv holds the core its sender needs: ScaLAPACK's LU at 4
 * ranks on 2 cores took 1.3 s or 12.6 s by how the scheduler happened to pair the ranks on
 * the cores (docs/apps.md). Each blocking call is its nonblocking form completed by
 * test-and-yield, which the standard defines as equivalent (MPI 4.0, 3.7.3), on one rank
 * alone. Not MPI_Barrier: a nonblocking collective does not match a blocking one, and ranks
 * on other nodes may decide otherwise. */
#ifndef HC_P2P_YIELD_H
#define HC_P2P_YIELD_H

#include <mpi.h>

#include "hc_util.h"

/* 1 between MPI_Init and MPI_Finalize where the calls yield (hc_p2p_yield_choose). */
extern int hc_p2p_yield;

/* A wrapper's vendor call: blocking as it is, or, where the calls yield, the nonblocking
 * form (an expression that starts the request req_) completed by hc_yield_complete. A
 * receive from MPI_PROC_NULL, which returns at once, stays blocking: MPICH 4.0's requests
 * report its status wrongly (hc_yield_proc_null_status). */
#define HC_P2P_BLOCKING_IF(may_yield, blocking, nonblocking_to_req_, st)                   \
    (HC_LIKELY(!hc_p2p_yield || !(may_yield)) ? (blocking) : ({                             \
        MPI_Request req_;                                                                   \
        hc_yield_complete(nonblocking_to_req_, &req_, st);                                  \
    }))
#define HC_P2P_BLOCKING(blocking, nonblocking_to_req_, st)                                 \
    HC_P2P_BLOCKING_IF(1, blocking, nonblocking_to_req_, st)
#define HC_P2P_RECV(blocking, nonblocking_to_req_, src, st)                                \
    HC_P2P_BLOCKING_IF((src) != MPI_PROC_NULL, blocking, nonblocking_to_req_, st)

/* Sets hc_p2p_yield from HIERCOLL_P2P_YIELD, the job's ranks on this node and the MPI
 * library (Open MPI yields by itself). Returns it. */
int hc_p2p_yield_choose(int node_ranks);

/* Completes *req (started by a call that returned rc) as MPI_Wait would, yielding. */
int hc_yield_complete(int rc, MPI_Request *req, MPI_Status *st);
int hc_yield_waitall(int n, MPI_Request reqs[], MPI_Status sts[]);
int hc_yield_waitany(int n, MPI_Request reqs[], int *idx, MPI_Status *st);
int hc_yield_waitsome(int n, MPI_Request reqs[], int *outcount, int idx[], MPI_Status sts[]);
int hc_yield_probe(int src, int tag, MPI_Comm comm, MPI_Status *st);
/* Completes MPI_Sendrecv: reqs[0] its receive from src, started first (as the vendors do),
 * reqs[1] its send, started next with send_rc returned; *st gets the receive's status. */
int hc_yield_sendrecv(int send_rc, MPI_Request reqs[2], int src, MPI_Status *st);
/* The status of a receive from MPI_PROC_NULL (MPI 4.0, 3.11): source MPI_PROC_NULL, tag
 * MPI_ANY_TAG, count 0. */
void hc_yield_proc_null_status(MPI_Status *st);

#endif
