/* The objective of seed 000, formula (4), the sum over edges, and how costs compare. */
#include <math.h>

#include "hc_map.h"

int hc_map_cost_less(double a, double b)
{
    return a < b - HC_MAP_COST_RTOL * fmax(fabs(a), fabs(b));
}

int hc_map_cost_better(hc_map_cost a, hc_map_cost b)
{
    if (hc_map_cost_less(a.max, b.max))
        return 1;
    return !hc_map_cost_less(b.max, a.max) && hc_map_cost_less(a.sum, b.sum);
}

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

/* Does c keep to ref: no higher max, a sum at most HC_MAP_REF_SUM_SLACK above? */
static int within_ref(hc_map_cost c, const hc_map_cost *ref)
{
    return !hc_map_cost_less(ref->max, c.max) &&
           !hc_map_cost_less(ref->sum * (1 + HC_MAP_REF_SUM_SLACK), c.sum);
}

int hc_map_cost_pick(const hc_map_cost *c, const int *ok, int n, const hc_map_cost *ref)
{
    double lowest = 0;
    int any = 0, win = -1;
    for (int i = 0; i < n; i++)
        if (ok[i] && (!any++ || c[i].sum < lowest))
            lowest = c[i].sum;
    for (int i = 0; i < n; i++)
        if (ok[i] && !hc_map_cost_less(lowest * (1 + HC_MAP_SUM_SLACK), c[i].sum) &&
            (win < 0 || hc_map_cost_better(c[i], c[win])))
            win = i;
    if (!ref || win < 0 || within_ref(c[win], ref))
        return win;
    int held = -1;
    for (int i = 0; i < n; i++)
        if (ok[i] && within_ref(c[i], ref) && (held < 0 || hc_map_cost_better(c[i], c[held])))
            held = i;
    return held >= 0 ? held : win;
}
