/* One table line from the rows of one key (collective, pattern, size, half): in one run a
 * single row, with merged runs one row per run. Times from different runs are divided by each
 * other only where no run holds both, since this machine's speed drifts 2x within minutes: a
 * ratio is taken inside one run, then its median over the runs is shown.
 *
 * The first peer is the default collective (the first launch's), which hiercoll calls for what
 * it does not run itself. A run without it launched another of Open MPI's peers in its place
 * (HAN, sm: one launch each), and hiercoll's paths there ran on top of that peer, learning
 * between it and their own algorithms: not what a user gets from the preload alone. Those runs
 * give the peer's time only, and the peer is compared with hiercoll's paths across runs:
 * median over the peer's runs against median over the default's runs, the launches having
 * alternated round after round. */
#include <string.h>

#include "bench.h"

int path_auto(const report *r, enum coll which)
{
    for (int q = r->npeers[which]; q < r->npaths[which]; q++)
        if (!strcmp(r->algo[which][q], "auto"))
            return q;
    return -1;
}

static int same_key(const row *a, const row *b)
{
    return a->which == b->which && a->bytes == b->bytes && a->half == b->half &&
           a->p.root == b->p.root && a->p.buf == b->p.buf && a->p.timing == b->p.timing;
}

static double median_of(double *v, int n)
{
    return n ? stats_of(v, n, 0).median : 0;
}

/* The fastest plan auto could have stayed on in row x: the run's vendor (its first peer) or
 * a fixed hiercoll path. */
static int best_fixed_in(const report *r, const row *x, int a)
{
    int best = -1;
    for (int q = 0; q < r->npaths[x->which]; q++) {
        int plan = q >= r->npeers[x->which] ? q != a : best < 0;
        if (plan && x->s[q].median > 0 && (best < 0 || x->s[q].median < x->s[best].median))
            best = q;
    }
    return best;
}

static void add_ran(char *ran, size_t len, const char *plan)
{
    if (!*plan)
        return;
    for (const char *p = ran; (p = strstr(p, plan)) != NULL; p++)
        if ((p == ran || p[-1] == '/') && (p[strlen(plan)] == '/' || !p[strlen(plan)]))
            return;
    size_t n = strlen(ran);
    snprintf(ran + n, len - n, "%s%s", n ? "/" : "", plan);
}

/* Whether hiercoll's paths in row x ran on the default collective (see the top). */
static int shipped(const row *x) { return x->s[0].median > 0; }

/* Path q's time relative to path d's: the median of q / d over the runs that timed both
 * (hiercoll's paths only in shipped runs), else their medians' ratio across runs; 0 when
 * either was never timed. */
static double relative(const report *r, const row *const *rows, int n, int q, int d)
{
    int npeers = r->npeers[rows[0]->which], k = 0, mq = 0, md = 0;
    double rel[MAX_RUNS], vq[MAX_RUNS], vd[MAX_RUNS];
    for (int i = 0; i < n; i++) {
        int ok = shipped(rows[i]);
        double tq = q < npeers || ok ? rows[i]->s[q].median : 0;
        double td = d < npeers || ok ? rows[i]->s[d].median : 0;
        if (tq > 0)
            vq[mq++] = tq;
        if (td > 0)
            vd[md++] = td;
        if (tq > 0 && td > 0)
            rel[k++] = tq / td;
    }
    if (k)
        return median_of(rel, k);
    return mq && md ? median_of(vq, mq) / median_of(vd, md) : 0;
}

int cell_of(const report *r, const row *key, cell *c)
{
    enum coll which = key->which;
    int np = r->npaths[which], npeers = r->npeers[which], a = path_auto(r, which);
    const row *rows[MAX_RUNS];
    int n = 0;
    for (int i = 0; i < r->nrows && n < MAX_RUNS; i++)
        if (same_key(&r->rows[i], key))
            rows[n++] = &r->rows[i];
    memset(c, 0, sizeof *c);
    c->first = n ? rows[0] : key;
    c->best = c->best_fixed = -1;
    c->yardstick = a >= 0 ? a : np > npeers ? npeers : -1;
    double v[MAX_RUNS], best_rel = 0;
    int m, y = c->yardstick;
    for (int q = 0; q < npeers; q++) {
        m = 0;
        for (int i = 0; i < n; i++)
            if (rows[i]->s[q].median > 0)
                v[m++] = rows[i]->s[q].median;
        c->peer_us[q] = median_of(v, m);
        double x = y >= 0 && n ? relative(r, rows, n, q, y) : c->peer_us[q];
        if (m && x > 0 && (c->best < 0 || x < best_rel))
            c->best = q, best_rel = x;
    }
    for (int q = npeers; q < np && c->best >= 0; q++)
        c->ratio[q] = relative(r, rows, n, q, c->best);
    m = 0;
    for (int i = 0; i < n && y >= 0; i++)
        if (rows[i]->s[y].median > 0 && shipped(rows[i]))
            v[m++] = rows[i]->s[y].median;
    c->yard_us = median_of(v, m);
    if (a >= 0) {
        int wins[MAX_PATHS] = {0};
        m = 0;
        for (int i = 0; i < n; i++) {
            int f = best_fixed_in(r, rows[i], a);
            if (f < 0 || rows[i]->s[a].median <= 0 || !shipped(rows[i]))
                continue;
            v[m++] = rows[i]->s[a].median / rows[i]->s[f].median;
            if (++wins[f] > (c->best_fixed >= 0 ? wins[c->best_fixed] : 0))
                c->best_fixed = f;
            add_ran(c->ran, sizeof c->ran, rows[i]->ran[a]);
        }
        c->auto_best = median_of(v, m);
    }
    for (int q = 0; q < np; q++) {
        m = 0;
        for (int i = 0; i < n; i++)
            if (rows[i]->s[q].median > 0 && (q < npeers || shipped(rows[i])))
                v[m++] = rows[i]->link[q];
        c->link[q] = median_of(v, m);
    }
    double mc[MAX_RUNS], xc[MAX_RUNS];
    int bad_xcopy = 0;
    for (int i = 0; i < n; i++) {
        mc[i] = rows[i]->memcpy_us;
        xc[i] = rows[i]->xcopy_us;
        bad_xcopy |= xc[i] < 0;
        c->errors += rows[i]->xcopy_us < 0;
        for (int q = 0; q < np; q++)
            c->errors += rows[i]->s[q].errors;
    }
    c->memcpy_us = median_of(mc, n);
    c->xcopy_us = bad_xcopy ? -1 : median_of(xc, n);
    return n;
}
