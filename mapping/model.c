/* The machine model of a job's hosts and the recommended mapping on it: see hc_model.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hc_bandwidth.h"
#include "hc_map.h"
#include "hc_model.h"

int hc_model_build(hc_model *md, const hc_model_host *hosts, int nhosts, int nranks,
                   const char *bw_list, const char *bw_file, char *warn, size_t warnlen,
                   char *err, size_t errlen)
{
    memset(md, 0, sizeof *md);
    warn[0] = 0;
    if (nhosts < 1 || nranks < 1)
        return snprintf(err, errlen, "no hosts or no ranks"), -1;
    int C = 0, P = hosts[0].topo.npackages, total = 0, launch_slots = 1;
    for (int h = 0; h < nhosts; h++) {
        const hc_model_host *x = &hosts[h];
        int usable = x->usable > 0 && x->usable < x->topo.ncores ? x->usable : x->topo.ncores;
        C = x->topo.ncores > C ? x->topo.ncores : C;
        total += usable;
        int s = (x->ranks + usable - 1) / usable;
        launch_slots = s > launch_slots ? s : launch_slots;
    }
    for (int h = 0; h < nhosts; h++)
        if (hosts[h].topo.npackages != P || hosts[h].topo.ncores != C)
            P = 1;
    int need = (nranks + total - 1) / total, slots = launch_slots > need ? launch_slots : need;
    char spec[256];
    int o = snprintf(spec, sizeof spec, "node:%d", nhosts);
    if (P > 1)
        o += snprintf(spec + o, sizeof spec - (size_t)o, " package:%d", P);
    o += snprintf(spec + o, sizeof spec - (size_t)o, " core:%d", C / P);
    if (slots > 1)
        snprintf(spec + o, sizeof spec - (size_t)o, " slot:%d", slots);
    double bw[HC_MACHINE_MAX_LEVELS] = {1, 1, 1, 1};
    int L = 2 + (P > 1) + (slots > 1);
    if (hc_machine_from_synthetic(&md->m, spec, bw, L, err, errlen) != 0)
        return -1;
    int per = C * slots;
    for (int h = 0; h < nhosts; h++) {
        const hc_model_host *x = &hosts[h];
        int usable = x->usable > 0 && x->usable < x->topo.ncores ? x->usable : x->topo.ncores;
        for (int c = 0; c < C; c++)
            for (int s = 0; s < slots; s++)
                md->m.avail[h * per + c * slots + s] = c < usable && s < need;
    }
    const char *names[HC_MACHINE_MAX_LEVELS];
    for (int l = 0; l < md->m.nlevels; l++)
        names[l] = md->m.name[l];
    hc_bandwidths(names, md->m.nlevels, bw_list, bw_file, md->m.bw, md->bwdesc,
                  sizeof md->bwdesc, warn, warnlen);
    md->nhosts = nhosts;
    md->cores = C;
    md->slots = slots;
    md->need = need;
    md->hosts = hosts;
    return 0;
}

void hc_model_free(hc_model *md)
{
    hc_machine_free(&md->m);
    memset(md, 0, sizeof *md);
}

void hc_model_launched(const hc_model *md, const int *host, const int *cpu, int nranks,
                       int *launched)
{
    int C = md->cores, per = C * md->slots;
    int *fill = calloc((size_t)md->nhosts * (size_t)C, sizeof(int));
    for (int r = 0; r < nranks; r++) {
        const hc_host_topo *t = &md->hosts[host[r]].topo;
        int pu = cpu[r], pos = pu >= 0 && pu <= t->maxpu ? t->pu_core[pu] : -1;
        if (pos < 0)
            pos = 0;
        int used = fill ? fill[host[r] * C + pos]++ : 0;
        launched[r] = host[r] * per + pos * md->slots + (used < md->slots ? used : md->slots - 1);
    }
    free(fill);
}

/* 1 if map puts the n ranks on distinct available cores of the model. */
static int is_placement(const hc_machine *m, const int *map, int n)
{
    unsigned char *used = calloc((size_t)m->ncores, 1);
    int ok = used != NULL;
    for (int r = 0; ok && r < n; r++) {
        ok = map[r] >= 0 && map[r] < m->ncores && m->avail[map[r]] && !used[map[r]];
        if (ok)
            used[map[r]] = 1;
    }
    free(used);
    return ok;
}

int hc_model_checks_halves(const hc_graph *g)
{
    return g->xadj[g->n] <= 200000;
}

static double graph_weight(const hc_graph *g)
{
    double w = 0;
    for (long long e = 0; e < g->xadj[g->n]; e++)
        w += g->adjwgt[e];
    return w;
}

/* Does a mapping fitted to one half of the run's traffic beat the launch order on the other
 * half? 1 or 0; -1 where no mapping came out. */
static int fit_carries_over(const hc_graph *fit, const hc_graph *check, const hc_machine *m,
                            const int *launched, int *map)
{
    char name[64], err[256];
    if (hc_map_compute(fit, m, HC_MAPALGO_AUTO, 1, map, name, sizeof name, err, sizeof err))
        return -1;
    return hc_map_cost_better(hc_map_cost_eval(check, m, map),
                              hc_map_cost_eval(check, m, launched));
}

/* Pairs that change from run to run (random partners) make any fit to one profile a fit to
 * noise: kept only where a fit to either half of the run's epochs also beats the launch order
 * on the other half. Not tried (the whole profile's fit stands) where a half holds less than
 * a fifth of the traffic (a short run), the graph is large (two more searches), or a half
 * gives no mapping. */
static int fit_holds_across_halves(const hc_graph *halves, const hc_machine *m,
                                   const int *launched, int *map)
{
    double a = graph_weight(&halves[0]), b = graph_weight(&halves[1]);
    if (a < 0.2 * (a + b) || b < 0.2 * (a + b) || !hc_model_checks_halves(&halves[0]))
        return 1;
    return fit_carries_over(&halves[0], &halves[1], m, launched, map) != 0 &&
           fit_carries_over(&halves[1], &halves[0], m, launched, map) != 0;
}

int hc_model_recommend(const hc_graph *g, const hc_graph *halves, const hc_model *md, int algo,
                       const int *launched, hc_mapfile *f, char *err, size_t errlen)
{
    int n = g->n, per = md->cores * md->slots;
    int *map = malloc(sizeof(int) * (size_t)n), *base = malloc(sizeof(int) * (size_t)n);
    char name[64];
    int rc = -1;
    if (!map || !base || hc_mapfile_alloc(f, n) != 0) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    /* The launch order, where auto may keep it: every rank on a core of its own. */
    int keepable = algo == HC_MAPALGO_AUTO && launched && is_placement(&md->m, launched, n);
    hc_map_cost as_launched = launched ? hc_map_cost_eval(g, &md->m, launched) : (hc_map_cost){0};
    /* Where every placement costs the same, no search can improve on the launch order: keep
     * it (and the search's milliseconds, a share of a short run's wall time at finalize). */
    if (keepable && hc_machine_uniform(&md->m)) {
        memcpy(map, launched, sizeof(int) * (size_t)n);
        snprintf(name, sizeof name, "launch-order");
    } else if (hc_map_compute(g, &md->m, (hc_map_algo)algo, 1, map, name, sizeof name, err,
                              errlen)) {
        goto out;
    }
    hc_map_cost fitted = hc_map_cost_eval(g, &md->m, map), c;
    int kept = 0;
    if (keepable && halves && g->n == halves[0].n && g->n == halves[1].n &&
        hc_map_cost_better(fitted, as_launched) &&
        !fit_holds_across_halves(halves, &md->m, launched, base)) {
        memcpy(map, launched, sizeof(int) * (size_t)n);
        snprintf(name, sizeof name, "launch-order");
        kept = 1;
    }
    snprintf(f->algorithm, sizeof f->algorithm, "%s", name);
    hc_machine_format(&md->m, f->machine, sizeof f->machine);
    int o = 0;
    for (int l = 0; l < md->m.nlevels; l++)
        o += snprintf(f->bandwidths + o, sizeof f->bandwidths - (size_t)o, "%s%.6g", l ? "," : "",
                      md->m.bw[l]);
    if (launched)
        f->cost[f->ncosts++] = (hc_mapfile_cost){"launched", as_launched.max, as_launched.sum};
    if (hc_map_tml(g, &md->m, base) == 0) {
        c = hc_map_cost_eval(g, &md->m, base);
        f->cost[f->ncosts++] = (hc_mapfile_cost){"tml", c.max, c.sum};
    }
    if (hc_map_tmrr(g, &md->m, base) == 0) {
        c = hc_map_cost_eval(g, &md->m, base);
        f->cost[f->ncosts++] = (hc_mapfile_cost){"tmrr", c.max, c.sum};
    }
    if (kept) /* what the fit to the whole profile promised, not taken */
        f->cost[f->ncosts++] = (hc_mapfile_cost){"fitted", fitted.max, fitted.sum};
    c = hc_map_cost_eval(g, &md->m, map);
    f->cost[f->ncosts++] = (hc_mapfile_cost){"mapped", c.max, c.sum};
    for (int r = 0; r < n; r++) {
        const hc_model_host *h = &md->hosts[map[r] / per];
        snprintf(f->host[r], sizeof f->host[r], "%s", h->name);
        f->core[r] = h->topo.core_os[(map[r] % per) / md->slots];
    }
    rc = 0;
out:
    if (rc != 0)
        hc_mapfile_free(f);
    free(map);
    free(base);
    return rc;
}
