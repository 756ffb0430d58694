/* Lattice arithmetic and the lattice cost model of the multidimensional ring (seed 001). */
#include "ring_schedule.h"

#include <stdio.h>
#include <string.h>

long hc_lattice_normalize(hc_lattice *lat)
{
    long prod = 1;
    int d = 0;
    for (int k = 0; k < lat->d; k++) {
        prod *= lat->dims[k];
        if (lat->dims[k] > 1)
            lat->dims[d++] = lat->dims[k];
    }
    lat->d = d;
    return prod;
}

void hc_lattice_coords(const hc_lattice *lat, int rank, int *coords)
{
    for (int k = 0; k < lat->d; k++) {
        coords[k] = rank % lat->dims[k];
        rank /= lat->dims[k];
    }
}

int hc_lattice_shift(const hc_lattice *lat, const int *coords, int k, int delta)
{
    int rank = 0;
    for (int j = lat->d - 1; j >= 0; j--) {
        int c = j == k ? hc_ring_mod(coords[j] + delta, lat->dims[j]) : coords[j];
        rank = rank * lat->dims[j] + c;
    }
    return rank;
}

void hc_lattice_format(const hc_lattice *lat, char *buf, int len)
{
    int used = 0;
    buf[0] = 0;
    for (int k = 0; k < lat->d && used < len; k++)
        used += snprintf(buf + used, (size_t)(len - used), "%s%d", k ? "x" : "", lat->dims[k]);
    if (lat->d == 0)
        snprintf(buf, (size_t)len, "1");
}

void hc_ring_block(int64_t off, int64_t len, int r, int i, int64_t *boff, int64_t *blen)
{
    int64_t q = len / r, rem = len % r;
    *boff = off + i * q + (i < rem ? i : rem);
    *blen = q + (i < rem);
}

void hc_ring_segment(const hc_lattice *lat, const int *coords, int k0, int k, int64_t off,
                     int64_t len, int64_t *soff, int64_t *slen)
{
    for (int j = k0; j < k; j++)
        hc_ring_block(off, len, lat->dims[j], coords[j], &off, &len);
    *soff = off;
    *slen = len;
}

double hc_ring_cost(const hc_lattice *lat, const double *alpha, const double *beta, double m)
{
    double t = 0, share = m;
    for (int k = 0; k < lat->d; k++) {
        double r = lat->dims[k];
        t += alpha[k] * (r - 1) + beta[k] * (1 - 1 / r) * share;
        share /= r;
    }
    return t;
}

/* Search state: the dimensions chosen so far and the best complete lattice. */
typedef struct search {
    int nlevels, keep_first;
    const int *fanout;
    const double *alpha, *beta;
    double m;
    hc_lattice cur, best;
    int cur_level[HC_RING_MAXD], best_level[HC_RING_MAXD];
    double best_t;
} search;

static void evaluate(search *s)
{
    double a[HC_RING_MAXD], b[HC_RING_MAXD];
    for (int k = 0; k < s->cur.d; k++) {
        a[k] = s->alpha[s->cur_level[k]];
        b[k] = s->beta[s->cur_level[k]];
    }
    double t = hc_ring_cost(&s->cur, a, b, s->m);
    if (s->best_t < 0 || t < s->best_t - 1e-15) {
        s->best_t = t;
        s->best = s->cur;
        memcpy(s->best_level, s->cur_level, sizeof s->cur_level);
    }
}

/* Splits what is left of level l's fanout into factors (each >= 2), in every order. */
static void factor(search *s, int l, int left)
{
    if (left == 1) {
        if (l + 1 == s->nlevels)
            evaluate(s);
        else
            factor(s, l + 1, s->fanout[l + 1]);
        return;
    }
    if (s->cur.d == HC_RING_MAXD)
        return;
    for (int f = 2; f <= left; f++) {
        if (left % f || (l == 0 && s->keep_first && f != left))
            continue;
        s->cur.dims[s->cur.d] = f;
        s->cur_level[s->cur.d++] = l;
        factor(s, l, left / f);
        s->cur.d--;
    }
}

double hc_ring_choose(int nlevels, const int *fanout, const double *alpha, const double *beta,
                      double m, int keep_first, hc_lattice *out, int *level_of)
{
    search s = {.nlevels = nlevels, .keep_first = keep_first, .fanout = fanout,
                .alpha = alpha, .beta = beta, .m = m, .best_t = -1};
    if (nlevels > 0)
        factor(&s, 0, fanout[0] > 0 ? fanout[0] : 1);
    *out = s.best;
    if (level_of)
        memcpy(level_of, s.best_level, sizeof s.best_level);
    return s.best_t < 0 ? 0 : s.best_t;
}
