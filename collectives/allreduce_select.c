/* MPI_Allreduce algorithm selection. Until the ring lands, every call goes to the vendor. */
#include "hc_coll.h"

int hc_allreduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype dt,
                 MPI_Op op, hc_comm *c)
{
    return HC_FALLBACK;
}
