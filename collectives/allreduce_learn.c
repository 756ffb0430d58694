/* Learning for the allreduce, where every rank must take the same algorithm in the same
 * call: each rank times its own calls, and at the end of a round (the same call everywhere,
 * since every rank counts the same calls of a size class) one small allreduce of the ranks'
 * medians, the slowest rank's per algorithm, lets every rank decide alike. A round is a few
 * dozen calls, so the agreement costs a fraction of one call per call. */
#include "allreduce_plan.h"

void hc_arlearn_round(hc_ar_state *st, hc_learn_entry *e)
{
    double mine[HC_LEARN_MAXCAND], slowest[HC_LEARN_MAXCAND];
    hc_learn_medians(e, mine);
    PMPI_Allreduce(mine, slowest, e->ncand, MPI_DOUBLE, MPI_MAX, st->comm);
    hc_learn_decide(e, slowest);
}
