/* Blocking point-to-point calls completed by test-and-yield (p2p_yield.h). */
#include "p2p_yield.h"

#include <string.h>

#include "hc_config.h"
#include "hc_preload.h"
#include "hc_util.h"
#include "hc_wait.h"

int hc_p2p_yield;

/* auto: MPICH, more ranks than cores. Open MPI yields by itself where mpirun sees more ranks
 * than slots (LAMMPS with PPPM at 8 ranks on 2 cores: 0.9 s, 185 s with
 * mpi_yield_when_idle=0), and yielding in front of it cost 8% there (docs/algorithms.md). */
int hc_p2p_yield_choose(int node_ranks)
{
    hc_p2p_yield = hc_cfg.p2p_yield.i == HC_P2P_YIELD_ON ||
                   (hc_cfg.p2p_yield.i == HC_P2P_YIELD_AUTO && !HC_OPEN_MPI &&
                    hc_ranks_outnumber_cores(node_ranks));
    return hc_p2p_yield;
}

/* Tests until done; between tests the waits' own backoff (common/hc_wait.h): yield at once
 * where ranks outnumber cores, nap once the peer has been away for long. Each test drives
 * MPI's progress itself, so the backoff's own progress hook is left out. */
#define TEST_UNTIL_DONE(test_call, done)                                                    \
    do {                                                                                    \
        hc_backoff b_ = HC_BACKOFF_INIT;                                                    \
        for (;;) {                                                                          \
            int rc_ = (test_call);                                                          \
            if (rc_ != MPI_SUCCESS || (done))                                               \
                return rc_;                                                                 \
            hc_backoff_turn(&b_, NULL);                                                     \
        }                                                                                   \
    } while (0)

int hc_yield_complete(int rc, MPI_Request *req, MPI_Status *st)
{
    if (rc != MPI_SUCCESS)
        return rc;
    int flag = 0;
    TEST_UNTIL_DONE(PMPI_Test(req, &flag, st), flag);
}

int hc_yield_waitall(int n, MPI_Request reqs[], MPI_Status sts[])
{
    int flag = 0;
    TEST_UNTIL_DONE(PMPI_Testall(n, reqs, &flag, sts), flag);
}

/* MPI_Testany sets flag when one completed or when none is active (idx MPI_UNDEFINED), as
 * MPI_Waitany returns. */
int hc_yield_waitany(int n, MPI_Request reqs[], int *idx, MPI_Status *st)
{
    int flag = 0;
    TEST_UNTIL_DONE(PMPI_Testany(n, reqs, idx, &flag, st), flag);
}

/* MPI_Testsome's outcount: 0 while none completed, MPI_UNDEFINED when none is active. */
int hc_yield_waitsome(int n, MPI_Request reqs[], int *outcount, int idx[], MPI_Status sts[])
{
    TEST_UNTIL_DONE(PMPI_Testsome(n, reqs, outcount, idx, sts), *outcount != 0);
}

int hc_yield_probe(int src, int tag, MPI_Comm comm, MPI_Status *st)
{
    int flag = 0;
    TEST_UNTIL_DONE(PMPI_Iprobe(src, tag, comm, &flag, st), flag);
}

void hc_yield_proc_null_status(MPI_Status *st)
{
    st->MPI_SOURCE = MPI_PROC_NULL;
    st->MPI_TAG = MPI_ANY_TAG;
    PMPI_Status_set_elements(st, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(st, 0);
}

int hc_yield_sendrecv(int send_rc, MPI_Request reqs[2], int src, MPI_Status *st)
{
    if (send_rc != MPI_SUCCESS) {
        /* The receive would wait for a message its own call reports it could not send. */
        PMPI_Cancel(&reqs[0]);
        PMPI_Request_free(&reqs[0]);
        return send_rc;
    }
    MPI_Status both[2];
    memset(both, 0, sizeof both);
    int rc = hc_yield_waitall(2, reqs, both);
    if (rc == MPI_ERR_IN_STATUS) {
        /* MPI_Sendrecv reports the failing half's own error, and returns with nothing left
         * posted: the other half, still pending, is cancelled (a receive) or let go. */
        int recv_failed = both[0].MPI_ERROR != MPI_SUCCESS && both[0].MPI_ERROR != MPI_ERR_PENDING;
        rc = recv_failed ? both[0].MPI_ERROR : both[1].MPI_ERROR;
        if (reqs[0] != MPI_REQUEST_NULL)
            PMPI_Cancel(&reqs[0]);
        for (int i = 0; i < 2; i++)
            if (reqs[i] != MPI_REQUEST_NULL)
                PMPI_Request_free(&reqs[i]);
    }
    if (st != MPI_STATUS_IGNORE) {
        int caller_error = st->MPI_ERROR; /* MPI_Sendrecv leaves it alone */
        *st = both[0];
        st->MPI_ERROR = caller_error;
        if (src == MPI_PROC_NULL) /* MPICH 4.0 leaves source and tag 0 in a request's status */
            hc_yield_proc_null_status(st);
    }
    return rc;
}
