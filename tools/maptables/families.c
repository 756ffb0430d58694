/* The task-graph families of the comparison with Scotch. Edge weights are bytes; every graph
 * is built from directed (sender, receiver, bytes) records, as the profiler records them, so
 * the bundled programs' families follow the profile's collective model
 * (docs/formats-profile.md) exactly. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "families.h"

typedef struct {
    long long n, cap;
    int *src, *dst;
    double *bytes;
    int failed;
} hc_traffic;

static void send_bytes(hc_traffic *t, int from, int to, double bytes)
{
    if (t->failed || from == to || !(bytes > 0))
        return;
    if (t->n == t->cap) {
        long long cap = t->cap ? 2 * t->cap : 1024;
        int *s = realloc(t->src, sizeof(int) * (size_t)cap);
        int *d = s ? realloc(t->dst, sizeof(int) * (size_t)cap) : NULL;
        double *b = d ? realloc(t->bytes, sizeof(double) * (size_t)cap) : NULL;
        if (s)
            t->src = s;
        if (d)
            t->dst = d;
        if (!b) {
            t->failed = 1;
            return;
        }
        t->bytes = b;
        t->cap = cap;
    }
    t->src[t->n] = from;
    t->dst[t->n] = to;
    t->bytes[t->n++] = bytes;
}

/* Both directions, as a halo exchange. */
static void exchange(hc_traffic *t, int a, int b, double bytes)
{
    send_bytes(t, a, b, bytes);
    send_bytes(t, b, a, bytes);
}

static int traffic_to_graph(hc_traffic *t, hc_graph *g, int M)
{
    int rc = t->failed ? -1 : hc_graph_from_triples(g, M, t->n, t->src, t->dst, t->bytes);
    free(t->src);
    free(t->dst);
    free(t->bytes);
    return rc;
}

/* splitmix64: independent of the C library, so every machine builds the same graphs. */
static uint64_t rnd_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static double rnd_unit(uint64_t *s) { return (double)(rnd_next(s) >> 11) / 9007199254740992.0; }

void hc_dims_create(int M, int d, int *dims)
{
    if (d == 1) {
        dims[0] = M;
        return;
    }
    /* the divisor nearest the d-th root first, the rest split the same way */
    int best = 1;
    for (int f = 1; (double)f <= pow((double)M, 1.0 / d) + 1e-9; f++)
        if (M % f == 0)
            best = f;
    hc_dims_create(M / best, d - 1, dims);
    dims[d - 1] = best;
    for (int i = d - 1; i > 0 && dims[i] > dims[i - 1]; i--) {
        int x = dims[i];
        dims[i] = dims[i - 1];
        dims[i - 1] = x;
    }
}

/* A 2-D or 3-D grid of halo exchanges; weight[k] is the bytes along dimension k; rank of
 * cell c is perm[c] (identity if perm is NULL). */
static int grid(hc_graph *g, int M, int nd, const double *weight, const int *perm)
{
    int dims[3] = {1, 1, 1}; /* the last nd are used */
    hc_dims_create(M, nd, dims + 3 - nd);
    int step[3] = {dims[1] * dims[2], dims[2], 1};
    hc_traffic t = {0};
    for (int c = 0; c < M; c++)
        for (int k = 3 - nd; k < 3; k++)
            if (c / step[k] % dims[k] + 1 < dims[k]) {
                int o = c + step[k];
                exchange(&t, perm ? perm[c] : c, perm ? perm[o] : o, weight[k - (3 - nd)]);
            }
    return traffic_to_graph(&t, g, M);
}

static int grid2d(hc_graph *g, int M, unsigned seed)
{
    double w[2] = {1 << 20, 1 << 20};
    return grid(g, M, 2, w, NULL);
}

static int grid3d(hc_graph *g, int M, unsigned seed)
{
    double w[3] = {1 << 20, 1 << 20, 1 << 20};
    return grid(g, M, 3, w, NULL);
}

static int aniso(hc_graph *g, int M, unsigned seed)
{
    double w[2] = {1 << 20, 4 << 20};
    return grid(g, M, 2, w, NULL);
}

static int *random_permutation(int M, uint64_t *s)
{
    int *p = malloc(sizeof(int) * (size_t)M);
    if (!p)
        return NULL;
    for (int i = 0; i < M; i++)
        p[i] = i;
    for (int i = M - 1; i > 0; i--) {
        int j = (int)(rnd_next(s) % (uint64_t)(i + 1)), x = p[i];
        p[i] = p[j];
        p[j] = x;
    }
    return p;
}

static int grid2d_random(hc_graph *g, int M, unsigned seed)
{
    uint64_t s = seed * 7919ull + 1;
    double w[2] = {1 << 20, 1 << 20};
    int *perm = random_permutation(M, &s);
    int rc = perm ? grid(g, M, 2, w, perm) : -1;
    free(perm);
    return rc;
}

/* Points uniform in the unit square; pairs closer than r call weight(distance / r). Cells of
 * side r keep it linear. */
static int geometric(hc_traffic *t, int M, double r, uint64_t *s,
                     double (*weight)(double, uint64_t *))
{
    int side = (int)(1 / r) > 0 ? (int)(1 / r) : 1;
    double *x = malloc(sizeof(double) * (size_t)M), *y = malloc(sizeof(double) * (size_t)M);
    int *start = calloc((size_t)side * side + 1, sizeof(int));
    int *order = malloc(sizeof(int) * (size_t)M), *cell = malloc(sizeof(int) * (size_t)M), rc = -1;
    if (!x || !y || !start || !order || !cell)
        goto out;
    for (int i = 0; i < M; i++) {
        x[i] = rnd_unit(s);
        y[i] = rnd_unit(s);
        int cx = (int)(x[i] * side), cy = (int)(y[i] * side);
        cell[i] = (cx < side ? cx : side - 1) * side + (cy < side ? cy : side - 1);
        start[cell[i] + 1]++;
    }
    for (int c = 0; c < side * side; c++)
        start[c + 1] += start[c];
    for (int i = 0; i < M; i++)
        order[start[cell[i]]++] = i;
    for (int c = side * side; c > 0; c--)
        start[c] = start[c - 1];
    start[0] = 0;
    for (int i = 0; i < M; i++) {
        int cx = cell[i] / side, cy = cell[i] % side;
        for (int dx = -1; dx <= 1; dx++)
            for (int dy = -1; dy <= 1; dy++) {
                int nx = cx + dx, ny = cy + dy;
                if (nx < 0 || ny < 0 || nx >= side || ny >= side)
                    continue;
                for (int k = start[nx * side + ny]; k < start[nx * side + ny + 1]; k++) {
                    int j = order[k];
                    double d = hypot(x[i] - x[j], y[i] - y[j]);
                    if (j > i && d < r)
                        exchange(t, i, j, weight(d / r, s));
                }
            }
    }
    rc = 0;
out:
    free(x);
    free(y);
    free(start);
    free(order);
    free(cell);
    return rc;
}

static double rgg_weight(double d, uint64_t *s) { return (1 << 20) * (1 - 0.9 * d); }

static int rgg(hc_graph *g, int M, unsigned seed)
{
    uint64_t s = seed * 104729ull + 3;
    hc_traffic t = {0};
    if (geometric(&t, M, sqrt(8 / (M_PI * M)), &s, rgg_weight) != 0)
        t.failed = 1;
    return traffic_to_graph(&t, g, M);
}

static int groups8(hc_graph *g, int M, unsigned seed)
{
    hc_traffic t = {0};
    for (int base = 0; base < M; base += 8) {
        for (int a = base; a < base + 8; a++)
            for (int b = a + 1; b < base + 8; b++)
                exchange(&t, a, b, 1 << 20);
        if (M > 8)
            exchange(&t, base + 7, (base + 8) % M, 1 << 20);
    }
    return traffic_to_graph(&t, g, M);
}

/* The profile's collective model for MPI_COMM_WORLD (p = M) with doubles. */
static void allreduce_doubles(hc_traffic *t, int M, int count)
{
    /* i -> j: block j + block i; block k holds count / M elements, one more for k < count % M,
     * so only the first `full` blocks are non-empty */
    int full = count >= M ? M : count;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < (i < full ? M : full); j++)
            send_bytes(t, i, j, 8.0 * (2 * (count / M) + (i < count % M) + (j < count % M)));
}
static void bcast(hc_traffic *t, int M, int root, double bytes)
{
    for (int j = 0; j < M; j++)
        send_bytes(t, root, j, bytes);
}
static void reduce(hc_traffic *t, int M, int root, double bytes)
{
    for (int i = 0; i < M; i++)
        send_bytes(t, i, root, bytes);
}

/* examples/stencil2d.c with --n 128 --iters 100: rank r sits at cell (r % 2) * ceil(M / 2) +
 * r / 2 of a dims_create grid, exchanges n doubles with its four neighbours every iteration,
 * reduces a residual every 10 iterations and two values at the end. */
static int stencil2d(hc_graph *g, int M, unsigned seed)
{
    enum { N = 128, ITERS = 100 };
    int dims[2], half = (M + 1) / 2;
    hc_dims_create(M, 2, dims);
    int *rank_at = malloc(sizeof(int) * (size_t)M);
    hc_traffic t = {0};
    if (!rank_at)
        return -1;
    for (int r = 0; r < M; r++)
        rank_at[(r % 2) * half + r / 2] = r;
    for (int c = 0; c < M; c++) {
        int x = c / dims[1], y = c % dims[1];
        if (x + 1 < dims[0])
            exchange(&t, rank_at[c], rank_at[c + dims[1]], 8.0 * N * ITERS);
        if (y + 1 < dims[1])
            exchange(&t, rank_at[c], rank_at[c + 1], 8.0 * N * ITERS);
    }
    for (int it = 0; it < ITERS; it++)
        if (it % 10 == 9 || it == ITERS - 1)
            allreduce_doubles(&t, M, 1);
    reduce(&t, M, 0, 8);
    reduce(&t, M, 0, 8);
    free(rank_at);
    return traffic_to_graph(&t, g, M);
}

/* examples/cg_solver.c with --iters 40 and n = max(256, M) rows: halo rows to the ranks above
 * and below every iteration, one dot product before the loop and two in it, a broadcast of 64
 * doubles every 10 iterations, a reduction at the end. */
static int cg_solver(hc_graph *g, int M, unsigned seed)
{
    enum { ITERS = 40 };
    double n = M > 256 ? M : 256;
    hc_traffic t = {0};
    for (int r = 0; r + 1 < M; r++)
        exchange(&t, r, r + 1, 8 * n * ITERS);
    for (int k = 0; k < 1 + 2 * ITERS; k++)
        allreduce_doubles(&t, M, 1);
    for (int it = 0; it < ITERS; it++)
        if (it % 10 == 9)
            bcast(&t, M, 0, 64 * 8);
    reduce(&t, M, 0, 8);
    return traffic_to_graph(&t, g, M);
}

/* Unstructured neighbours (geometric, mean degree 6) whose volumes spread over three decades,
 * one rank in ten with a heavy partner anywhere, and a small gather to rank 0. */
static double irregular_weight(double d, uint64_t *s) { return pow(10, 4 + 3 * rnd_unit(s)); }

static int irregular(hc_graph *g, int M, unsigned seed)
{
    uint64_t s = seed * 15485863ull + 5;
    hc_traffic t = {0};
    if (geometric(&t, M, sqrt(6 / (M_PI * M)), &s, irregular_weight) != 0)
        t.failed = 1;
    for (int i = 0; i < M; i++)
        if (rnd_unit(&s) < 0.1)
            exchange(&t, i, (int)(rnd_next(&s) % (uint64_t)M), pow(10, 5 + 2 * rnd_unit(&s)));
    reduce(&t, M, 0, 1000);
    return traffic_to_graph(&t, g, M);
}

const hc_family hc_families[] = {
    {"grid2d", "2-D grid, 5-point halos of 1 MiB", grid2d},
    {"grid3d", "3-D grid, 7-point halos of 1 MiB", grid3d},
    {"aniso", "2-D grid, halos 4x heavier along one axis", aniso},
    {"grid2d-rand", "2-D grid with its ranks numbered at random", grid2d_random},
    {"rgg", "random geometric graph (mean degree 8, lighter with distance), random numbering",
     rgg},
    {"groups8", "groups of 8 ranks all-to-all, consecutive groups joined in a ring", groups8},
    {"stencil2d", "profile of examples/stencil2d (--n 128 --iters 100, its rank order)",
     stencil2d},
    {"cg-solver", "profile of examples/cg_solver (--iters 40): halo chain, allreduces to rank 0",
     cg_solver},
    {"irregular", "irregular traffic: unstructured neighbours, volumes over 3 decades, far "
     "partners, a gather", irregular},
};
const int hc_nfamilies = sizeof hc_families / sizeof hc_families[0];

const hc_family *hc_family_find(const char *name)
{
    for (int i = 0; i < hc_nfamilies; i++)
        if (!strcmp(hc_families[i].name, name))
            return &hc_families[i];
    return NULL;
}
