/* The objective of seed 000, formula (4), and the sum over edges. */
#include "hc_map.h"

void hc_map_rank_costs(const hc_graph *g, const hc_machine *m, const int *map, double *t)
{
    for (int i = 0; i < g->n; i++) {
        double s = 0;
        for (long long e = g->xadj[i]; e < g->xadj[i + 1]; e++)
            s += g->adjwgt[e] / hc_machine_bw(m, map[i], map[g->adjncy[e]]);
        t[i] = s;
    }
}

hc_map_cost hc_map_cost_eval(const hc_graph *g, const hc_machine *m, const int *map)
{
    hc_map_cost c = {0, 0};
    for (int i = 0; i < g->n; i++) {
        double s = 0;
        for (long long e = g->xadj[i]; e < g->xadj[i + 1]; e++)
            s += g->adjwgt[e] / hc_machine_bw(m, map[i], map[g->adjncy[e]]);
        if (s > c.max)
            c.max = s;
        c.sum += s;
    }
    c.sum /= 2; /* every edge was counted from both ends */
    return c;
}
