/* Learning for the allreduce, where every rank must take the same algorithm in the same
 * call: each rank times its own calls, and at the end of a round (the same call everywhere,
 * since every rank counts the same calls of a size class) one small allreduce of the ranks'
 * means, the slowest rank's per algorithm, lets every rank decide alike. A round is a few
 * dozen calls, so the agreement costs a fraction of one call per call.
 *
 * A rank's call counts from the end of its previous call at the key, as the broadcast's does
 * (bcast_learn.c), not from its entry: across hosts the ranks enter as far apart as the call
 * lasts, and how far depends on the algorithm of the call before (who it lets go first) and on
 * what ran between (a barrier lines them up). Timed from entry to exit, the leaders' exchange
 * came out ahead of Open MPI's 8-byte allreduce back to back on 2 hosts x 2 ranks (34.1 us
 * against 35.5) where the loop ran 1.23x slower with it, and behind it after a barrier where it
 * was 0.87x the vendor's (docs/algorithms-allreduce.md, Across hosts). The previous call of a
 * timed one is its block's first, so the same algorithm's. */
#include "allreduce_plan.h"
#include "hc_util.h"

void hc_arlearn_round(hc_comm *c, hc_learn_entry *e)
{
    double mine[HC_LEARN_MAXCAND], slowest[HC_LEARN_MAXCAND];
    hc_learn_means(e, mine);
    PMPI_Allreduce(mine, slowest, e->ncand, MPI_DOUBLE, MPI_MAX, c->comm);
    hc_learn_decide(e, slowest);
}

void hc_arlearn_timed(const hc_ar_plan *p, uint64_t t0, uint64_t end)
{
    hc_learn_entry *e = p->learn;
    if (p->measure == HC_LEARN_SAMPLE) {
        uint64_t own = end - t0, start = t0;
        if (e->last_end && e->last_end < t0)
            start = t0 - HC_MIN(t0 - e->last_end, HC_LEARN_GAP_CAP * own);
        hc_learn_sample(e, p->cand, (double)(end - start) / 1e3);
    }
    e->last_end = end;
}
