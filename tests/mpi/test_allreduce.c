/* MPI_Allreduce through hiercoll against results computed locally (exact for integers and for
 * floating-point inputs chosen so that every order of evaluation is exact) and, for random
 * floating-point data, against the vendor within a tolerance and bit-identical on all ranks.
 * Every op x predefined type, counts around the number of ranks, primes and several MiB,
 * MPI_IN_PLACE, MPI_Allreduce_c, user ops (commutative, on a derived type, and a
 * non-commutative one that must fall back), MINLOC/MAXLOC, complex types (the vendor's),
 * sub-communicators (reversed, interleaving the nodes, nodes of different sizes), and one
 * signature laid out differently on different ranks.
 * The CMA threshold lines run the single-copy node engine for every vector beyond the small
 * path (0) or never (1T), on one node and across virtual nodes: two of them exchange slices
 * in segments (in segments of 100 bytes, no multiple of any element size, and none: the ring
 * after the node stage), 4 ranks a node among 8 too; across nodes the built-in rule takes it
 * from 1 MiB, so one line forces the staged node stage there.
 * The 8-rank cases cover the 2x2x2 lattice the cost model picks, and forced 2x2x2 and 2x4.
 * HC_T_AR_LIGHT=1 (used at 6 and 8 ranks, where every call is slow) keeps one type per kind.
 * The forced ring on virtual nodes of 2 at 4 ranks, without light mode, sends every type and
 * op across the nodes. The packet lines run the point-to-point ring (a ring on one node goes
 * through shared memory, without packets) in packets of a few elements, 100 bytes being no
 * multiple of any element size; the 2x2 lattice of single-rank nodes moves its second
 * dimension's packets at nonzero offsets. 7 ranks: one node, and virtual nodes of 2, 2, 2, 1.
 * Small vectors across nodes end in the leaders' recursive doubling: 3 nodes of 1 and of 2
 * ranks fold a third leader into the pair, 4 nodes (7 ranks) do not fold.
 * hc-test: np=1,2,3 preload=both timeout=240
 * hc-test: np=2 preload=yes timeout=240 env=HIERCOLL_ALLREDUCE_CMA_THRESHOLD=1T
 * hc-test: np=2,3 preload=yes timeout=240 env=HIERCOLL_ALLREDUCE_CMA_THRESHOLD=0
 * hc-test: np=4 preload=yes timeout=240 env=HIERCOLL_VIRTUAL_NODE_SIZE=2,HIERCOLL_ALLREDUCE_CMA_THRESHOLD=0
 * hc-test: np=4 preload=yes timeout=240 env=HIERCOLL_VIRTUAL_NODE_SIZE=2,HIERCOLL_ALLREDUCE_CMA_THRESHOLD=0,HIERCOLL_ALLREDUCE_PAIR_SEG=100
 * hc-test: np=4 preload=yes timeout=240 env=HIERCOLL_VIRTUAL_NODE_SIZE=2,HIERCOLL_ALLREDUCE_CMA_THRESHOLD=0,HIERCOLL_ALLREDUCE_PAIR_SEG=0
 * hc-test: np=8 preload=yes timeout=300 env=HIERCOLL_VIRTUAL_NODE_SIZE=4,HIERCOLL_ALLREDUCE_CMA_THRESHOLD=0,HC_T_AR_LIGHT=1
 * hc-test: np=4 preload=yes timeout=240 env=HIERCOLL_ALLREDUCE=ring1d
 * hc-test: np=3 preload=yes timeout=240 env=HIERCOLL_ALLREDUCE=ring1d,HIERCOLL_RING_PACKET=100
 * hc-test: np=5 preload=yes timeout=240 env=HIERCOLL_ALLREDUCE=ring
 * hc-test: np=4 preload=yes timeout=240 env=HIERCOLL_VIRTUAL_NODE_SIZE=2
 * hc-test: np=4 preload=yes timeout=240 env=HIERCOLL_VIRTUAL_NODE_SIZE=2,HIERCOLL_ALLREDUCE=shm
 * hc-test: np=4 preload=yes timeout=240 env=HIERCOLL_VIRTUAL_NODE_SIZE=2,HIERCOLL_ALLREDUCE=ring,HIERCOLL_RING_PACKET=256
 * hc-test: np=4 preload=yes timeout=240 env=HIERCOLL_VIRTUAL_NODE_SIZE=1,HIERCOLL_RING_DIMS=2x2,HIERCOLL_ALLREDUCE=ring,HIERCOLL_RING_PACKET=256
 * hc-test: np=7 preload=yes timeout=300
 * hc-test: np=7 preload=yes timeout=300 env=HIERCOLL_VIRTUAL_NODE_SIZE=2
 * hc-test: np=3 preload=yes timeout=240 env=HIERCOLL_VIRTUAL_NODE_SIZE=1
 * hc-test: np=6 preload=yes timeout=240 env=HIERCOLL_VIRTUAL_NODE_SIZE=2,HC_T_AR_LIGHT=1
 * hc-test: np=6 preload=yes timeout=240 env=HIERCOLL_ALLREDUCE=ring,HIERCOLL_RING_DIMS=3x2,HC_T_AR_LIGHT=1
 * hc-test: np=8 preload=yes timeout=300 env=HIERCOLL_VIRTUAL_NODE_SIZE=2,HIERCOLL_ALLREDUCE=ring,HC_T_AR_LIGHT=1
 * hc-test: np=8 preload=yes timeout=300 env=HIERCOLL_VIRTUAL_NODE_SIZE=2,HIERCOLL_RING_DIMS=2x2x2,HIERCOLL_ALLREDUCE=ring,HC_T_AR_LIGHT=1
 * hc-test: np=8 preload=yes timeout=300 env=HIERCOLL_VIRTUAL_NODE_SIZE=2,HIERCOLL_RING_DIMS=2x4,HIERCOLL_ALLREDUCE=ring,HC_T_AR_LIGHT=1
 */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>

#include "hc_mpitest.h"

enum kind { K_SINT, K_UINT, K_FLT, K_BOOL, K_BYTE };
typedef struct ttype {
    MPI_Datatype dt;
    const char *name;
    enum kind kind;
    int size;
    int light; /* kept in light mode */
} ttype;

static const ttype types[] = {
    {MPI_SIGNED_CHAR, "signed char", K_SINT, 1, 1}, {MPI_UNSIGNED_CHAR, "unsigned char", K_UINT, 1, 0},
    {MPI_SHORT, "short", K_SINT, 2, 0}, {MPI_UNSIGNED_SHORT, "unsigned short", K_UINT, 2, 1},
    {MPI_INT, "int", K_SINT, 4, 1}, {MPI_UNSIGNED, "unsigned", K_UINT, 4, 0},
    {MPI_LONG, "long", K_SINT, sizeof(long), 0}, {MPI_UNSIGNED_LONG, "unsigned long", K_UINT, sizeof(long), 1},
    {MPI_LONG_LONG, "long long", K_SINT, 8, 0}, {MPI_UNSIGNED_LONG_LONG, "unsigned long long", K_UINT, 8, 0},
    {MPI_INT8_T, "int8_t", K_SINT, 1, 0}, {MPI_INT16_T, "int16_t", K_SINT, 2, 0},
    {MPI_INT32_T, "int32_t", K_SINT, 4, 0}, {MPI_INT64_T, "int64_t", K_SINT, 8, 1},
    {MPI_UINT8_T, "uint8_t", K_UINT, 1, 0}, {MPI_UINT16_T, "uint16_t", K_UINT, 2, 0},
    {MPI_UINT32_T, "uint32_t", K_UINT, 4, 0}, {MPI_UINT64_T, "uint64_t", K_UINT, 8, 0},
    {MPI_AINT, "MPI_Aint", K_SINT, sizeof(MPI_Aint), 0}, {MPI_OFFSET, "MPI_Offset", K_SINT, sizeof(MPI_Offset), 0},
    {MPI_COUNT, "MPI_Count", K_SINT, sizeof(MPI_Count), 0}, {MPI_C_BOOL, "bool", K_BOOL, sizeof(bool), 1},
    {MPI_BYTE, "byte", K_BYTE, 1, 1}, {MPI_FLOAT, "float", K_FLT, sizeof(float), 1},
    {MPI_DOUBLE, "double", K_FLT, sizeof(double), 1}, {MPI_LONG_DOUBLE, "long double", K_FLT, sizeof(long double), 0},
};
#define NTYPES ((int)(sizeof types / sizeof types[0]))

enum { O_SUM, O_PROD, O_MIN, O_MAX, O_LAND, O_LOR, O_LXOR, O_BAND, O_BOR, O_BXOR, NOPS };
static const char *op_names[] = {"SUM", "PROD", "MIN", "MAX", "LAND", "LOR", "LXOR", "BAND", "BOR", "BXOR"};
static MPI_Op op_handle(int o)
{
    MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_LAND, MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};
    return ops[o];
}

static int op_valid(const ttype *t, int o)
{
    switch (t->kind) {
    case K_SINT: case K_UINT: return 1;
    case K_FLT: return o <= O_MAX;
    case K_BOOL: return o == O_LAND || o == O_LOR || o == O_LXOR;
    case K_BYTE: return o >= O_BAND;
    }
    return 0;
}

/* Integer values are kept sign- or zero-extended to 64 bits. */
static int64_t norm(const ttype *t, int64_t x)
{
    if (t->kind == K_FLT || t->size == 8)
        return x;
    int bits = 8 * t->size;
    uint64_t m = (1ull << bits) - 1, u = (uint64_t)x & m;
    if (t->kind == K_SINT && (u >> (bits - 1)))
        u |= ~m;
    return (int64_t)u;
}

static uint64_t mix(int rank, int64_t i, int seed)
{
    uint64_t x = (uint64_t)i * 0x9E3779B97F4A7C15ull ^ ((uint64_t)rank << 40) ^ (uint64_t)seed * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 31; x *= 0x94D049BB133111EBull; x ^= x >> 29;
    return x;
}

/* Inputs chosen so that any evaluation order gives the same exact result. */
static int64_t ival(const ttype *t, int o, int rank, int64_t i, int seed)
{
    uint64_t x = mix(rank, i, seed);
    if (t->kind == K_BOOL || o == O_LAND || o == O_LOR || o == O_LXOR)
        return t->kind == K_BOOL ? (int64_t)(x % 4 != 0) : (int64_t)(x % 3); /* 0 sometimes */
    if (o == O_PROD)
        return norm(t, (int64_t)(x % 3) + 1 - (t->kind == K_SINT && x % 7 == 0 ? 4 : 0));
    return norm(t, (int64_t)(x % 100003) - (t->kind == K_SINT ? 50001 : 0) + (int64_t)(x >> 48));
}
static long double fval(int o, int rank, int64_t i, int seed)
{
    static const long double prod[] = {-2, -1, -0.5, 0.5, 1, 2, 1.5, 0.75};
    uint64_t x = mix(rank, i, seed);
    if (o == O_PROD)
        return prod[x % 8];
    return (long double)((int64_t)(x % 2001) - 1000) / (o == O_SUM ? 1 : 4);
}

static void put(const ttype *t, void *buf, int64_t i, int64_t iv, long double fv)
{
    char *p = (char *)buf + i * t->size;
    if (t->dt == MPI_FLOAT) { float f = (float)fv; memcpy(p, &f, sizeof f); }
    else if (t->dt == MPI_DOUBLE) { double d = (double)fv; memcpy(p, &d, sizeof d); }
    else if (t->dt == MPI_LONG_DOUBLE) { memset(p, 0, sizeof fv); memcpy(p, &fv, sizeof fv); }
    else if (t->kind == K_BOOL) { bool b = iv != 0; memcpy(p, &b, sizeof b); }
    else memcpy(p, &iv, (size_t)t->size); /* little endian: the low bytes */
}
/* Only the value bytes (long double has padding the reduction leaves undefined). */
static int same_elem(const ttype *t, const void *a, const void *b, int64_t i)
{
    size_t n = t->dt == MPI_LONG_DOUBLE ? 10 : (size_t)t->size;
    return memcmp((const char *)a + i * t->size, (const char *)b + i * t->size, n) == 0;
}

static int64_t iop(const ttype *t, int o, int64_t a, int64_t b)
{
    int uns = t->kind != K_SINT;
    switch (o) {
    case O_SUM: return norm(t, (int64_t)((uint64_t)a + (uint64_t)b));
    case O_PROD: return norm(t, (int64_t)((uint64_t)a * (uint64_t)b));
    case O_MIN: return (uns ? (uint64_t)a < (uint64_t)b : a < b) ? a : b;
    case O_MAX: return (uns ? (uint64_t)a > (uint64_t)b : a > b) ? a : b;
    case O_LAND: return a && b;
    case O_LOR: return a || b;
    case O_LXOR: return !a != !b;
    case O_BAND: return a & b;
    case O_BOR: return a | b;
    default: return a ^ b;
    }
}
static long double fop(int o, long double a, long double b)
{
    switch (o) {
    case O_SUM: return a + b;
    case O_PROD: return a * b;
    case O_MIN: return a < b ? a : b;
    default: return a > b ? a : b;
    }
}

static int light;

/* One allreduce of (t, o, count) on comm, checked element by element against the local
 * fold of every rank's inputs; the buffers start in_off and out_off bytes into their
 * allocations (unaligned for the type when not a multiple of its size). */
static void check_op_at(MPI_Comm comm, const ttype *t, int o, int64_t count, int in_place,
                        int seed, size_t in_off, size_t out_off)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    size_t bytes = (size_t)count * (size_t)t->size + 1;
    char *in_mem = malloc(bytes + in_off), *out_mem = malloc(bytes + out_off);
    char *in = in_mem + in_off, *out = out_mem + out_off, *want = malloc(bytes);
    memset(out, 0x5a, bytes);
    for (int64_t i = 0; i < count; i++) {
        if (t->kind == K_FLT) {
            long double acc = fval(o, 0, i, seed);
            for (int r = 1; r < size; r++)
                acc = fop(o, acc, fval(o, r, i, seed));
            put(t, in, i, 0, fval(o, rank, i, seed));
            put(t, want, i, 0, acc);
        } else {
            int64_t acc = ival(t, o, 0, i, seed);
            for (int r = 1; r < size; r++)
                acc = iop(t, o, acc, ival(t, o, r, i, seed));
            put(t, in, i, ival(t, o, rank, i, seed), 0);
            put(t, want, i, acc, 0);
        }
    }
    if (in_place) {
        memcpy(out, in, (size_t)count * (size_t)t->size);
        MPI_Allreduce(MPI_IN_PLACE, out, (int)count, t->dt, op_handle(o), comm);
    } else {
        MPI_Allreduce(in, out, (int)count, t->dt, op_handle(o), comm);
    }
    int64_t bad = -1;
    for (int64_t i = 0; i < count && bad < 0; i++)
        if (!same_elem(t, out, want, i))
            bad = i;
    HC_T_CHECK(bad < 0, "%s %s count %lld%s: element %lld differs", op_names[o], t->name,
               (long long)count, in_place ? " in place" : "", (long long)bad);
    HC_T_CHECK((unsigned char)out[(size_t)count * (size_t)t->size] == 0x5a,
               "%s %s count %lld wrote past the end", op_names[o], t->name, (long long)count);
    free(in_mem), free(out_mem), free(want);
}

static void check_op(MPI_Comm comm, const ttype *t, int o, int64_t count, int in_place, int seed)
{
    check_op_at(comm, t, o, count, in_place, seed, 0, 0);
}

/* Buffers at offsets all over their pages, different on every rank: the staged engine starts
 * its slot data at the page offset of the buffer it copies (collectives/allreduce_shm.c), so a
 * mistake there shows as wrong or overrun data. Vectors of several slots (1 MiB each at 2 and
 * 4 ranks); ints at offsets that keep them aligned, bytes at odd ones. */
static void buffer_offsets(MPI_Comm comm, int rank)
{
    const size_t offs[][2] = {{4048, 16}, {16, 4048}, {4, 4092}, {4092, 4}, {0, 4080}};
    int64_t n = light ? 100003 : 600001;
    for (int k = 0; k < 5; k++) {
        size_t in_off = (offs[k][0] + 24 * (size_t)rank) % 4096;
        size_t out_off = (offs[k][1] + 40 * (size_t)rank) % 4096;
        check_op_at(comm, &types[4], O_SUM, n, k == 2, 90 + k, in_off, out_off);
        check_op_at(comm, &types[14], O_BXOR, 4 * n + 3, k == 3, 95 + k, (in_off + 1) % 4096,
                    (out_off + 3) % 4096);
    }
}

/* MPICH 4.0.2 computes MIN/MAX of 1- and 2-byte unsigned types as if they were signed
 * (MIN(100, 200) = 200 for MPI_UNSIGNED_CHAR); Open MPI 4.1's AVX reductions saturate 1- and
 * 2-byte integer sums where C wraps them (open-mpi/ompi#8045, won't fix), and it takes
 * MIN/MAX of MPI_OFFSET as unsigned (MIN(3, -5) = 3). hiercoll's kernels are right, so the
 * vendor-only run leaves those pairs out. */
static int vendor_known_wrong(const ttype *t, int o)
{
    int open_mpi_wrong = 0;
#ifdef OPEN_MPI
    open_mpi_wrong = (o == O_SUM && (t->kind == K_SINT || t->kind == K_UINT) && t->size < 4) ||
                     ((o == O_MIN || o == O_MAX) && t->dt == MPI_OFFSET);
#endif
    return !hc_t_preloaded() &&
           (open_mpi_wrong || (t->kind == K_UINT && t->size < 4 && (o == O_MIN || o == O_MAX)));
}

/* 16411 elements are more than the small path's 16 KiB for every type, so with several
 * nodes every type and op goes round the ring. */
static void every_op_and_type(MPI_Comm comm, int size)
{
    int64_t counts[] = {size + 1, 3001, 16411};
    for (int ti = 0; ti < NTYPES; ti++) {
        if (light && !types[ti].light)
            continue;
        for (int o = 0; o < NOPS; o++) {
            if (!op_valid(&types[ti], o) || vendor_known_wrong(&types[ti], o) || (light && o != O_SUM && o != O_MAX &&
                                              types[ti].kind != K_BOOL && types[ti].kind != K_BYTE))
                continue;
            for (int k = 0; k < 3; k++)
                check_op(comm, &types[ti], o, counts[k], 0, ti * 100 + o * 10 + k);
        }
    }
}

static void counts_sweep(MPI_Comm comm, int size)
{
    const ttype *ti = &types[4], *td = &types[24]; /* int, double */
    int64_t counts[] = {0, 1, size - 1, size, size + 1, 2 * size + 1, 13, 101, 1009, 2053, 65537, 131101};
    int nc = (int)(sizeof counts / sizeof counts[0]);
    for (int k = 0; k < nc; k++) {
        if (light && k % 2)
            continue;
        check_op(comm, ti, O_SUM, counts[k], k % 3 == 0, k);
        check_op(comm, td, O_MAX, counts[k], k % 3 == 1, k);
    }
    /* Several MiB, crossing every chunk and packet boundary. */
    check_op(comm, &types[13], O_SUM, (light ? 2 : 3) * 131072 + 5, 0, 7);
    if (!light)
        check_op(comm, td, O_SUM, 4 * 131072 + 3, 1, 8);
}

static long double get(const ttype *t, const void *buf, int64_t i)
{
    const char *p = (const char *)buf + i * t->size;
    if (t->dt == MPI_FLOAT) { float f; memcpy(&f, p, sizeof f); return f; }
    if (t->dt == MPI_DOUBLE) { double d; memcpy(&d, p, sizeof d); return d; }
    long double l; memcpy(&l, p, sizeof l); return l;
}

/* Random floating-point data (t float, double or long double): within the rounding bound of
 * two summation orders of the vendor's result, and the same bits on every rank (each element
 * is reduced by one rank, then copied), compared with rank 0's result element by element. */
static void float_identity(MPI_Comm comm, MPI_Comm ref, const ttype *t, int64_t count)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    long double eps = t->dt == MPI_FLOAT ? FLT_EPSILON : t->dt == MPI_DOUBLE ? DBL_EPSILON : LDBL_EPSILON;
    size_t bytes = (size_t)count * (size_t)t->size;
    char *in = calloc(bytes, 1), *got = calloc(bytes, 1), *want = calloc(bytes, 1), *root = calloc(bytes, 1);
    for (int64_t i = 0; i < count; i++)
        put(t, in, i, 0, (long double)(mix(rank, i, 99) % 1000000) / 7777 * (i % 2 ? 1 : -1e-3L));
    MPI_Allreduce(in, got, (int)count, t->dt, MPI_SUM, comm);
    MPI_Allreduce(in, want, (int)count, t->dt, MPI_SUM, ref);
    memcpy(root, got, bytes);
    MPI_Bcast(root, (int)count, t->dt, 0, ref);
    int64_t bad = -1, differs = -1;
    for (int64_t i = 0; i < count && (bad < 0 || differs < 0); i++) {
        long double mag = 0; /* sum of |inputs|: each order errs by at most size eps mag */
        for (int r = 0; r < size && bad < 0; r++)
            mag += (long double)(mix(r, i, 99) % 1000000) / 7777 * (i % 2 ? 1 : 1e-3L);
        if (bad < 0 && fabsl(get(t, got, i) - get(t, want, i)) > 2 * size * eps * mag)
            bad = i;
        if (differs < 0 && !same_elem(t, got, root, i))
            differs = i;
    }
    HC_T_CHECK(bad < 0, "random %s SUM count %lld: element %lld beyond the rounding bound", t->name,
               (long long)count, (long long)bad);
    HC_T_CHECK(differs < 0, "random %s SUM count %lld: element %lld differs from rank 0's", t->name,
               (long long)count, (long long)differs);
    free(in), free(got), free(want), free(root);
}

/* MIN and MAX of -0.0 and +0.0 (equal values; which sign comes out depends on the order of
 * the operands): every element is zero, and under hiercoll the same bits on every rank,
 * compared with rank 0's. Below the small path's limit with several nodes, the leaders'
 * exchange must put the operands in the same order on both partners. The vendor promises
 * no such thing, so its bits are not compared. */
static void signed_zeros(MPI_Comm comm, MPI_Comm ref, const ttype *t, int64_t count)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    size_t bytes = (size_t)count * (size_t)t->size;
    char *in = calloc(bytes, 1), *got = calloc(bytes, 1), *root = calloc(bytes, 1);
    for (int64_t i = 0; i < count; i++)
        put(t, in, i, 0, mix(rank, i, 7) % 2 ? -0.0L : 0.0L);
    for (int o = O_MIN; o <= O_MAX; o++) {
        MPI_Allreduce(in, got, (int)count, t->dt, op_handle(o), comm);
        memcpy(root, got, bytes);
        MPI_Bcast(root, (int)count, t->dt, 0, ref);
        int64_t bad = -1, differs = -1;
        for (int64_t i = 0; i < count; i++) {
            if (bad < 0 && get(t, got, i) != 0)
                bad = i;
            if (differs < 0 && hc_t_preloaded() && !same_elem(t, got, root, i))
                differs = i;
        }
        HC_T_CHECK(bad < 0 && differs < 0, "signed zeros %s %s count %lld: element %lld is "
                   "not zero, element %lld has other bits than rank 0's", op_names[o], t->name,
                   (long long)count, (long long)bad, (long long)differs);
    }
    free(in), free(got), free(root);
}

/* Complex element i of an array of float (t 0), double (1) or long double (2) complex. */
static const int csize[] = {sizeof(float _Complex), sizeof(double _Complex), sizeof(long double _Complex)};
static void put_c(int t, void *buf, int64_t i, long double _Complex v)
{
    char *p = (char *)buf + i * csize[t];
    if (t == 0) { float _Complex f = (float _Complex)v; memcpy(p, &f, sizeof f); }
    else if (t == 1) { double _Complex d = (double _Complex)v; memcpy(p, &d, sizeof d); }
    else memcpy(p, &v, sizeof v);
}
/* Real (h 0) or imaginary (h 1) part of element i. */
static long double part(int t, const void *buf, int64_t i, int h)
{
    const char *p = (const char *)buf + i * csize[t] + h * csize[t] / 2;
    if (t == 0) { float f; memcpy(&f, p, sizeof f); return f; }
    if (t == 1) { double d; memcpy(&d, p, sizeof d); return d; }
    long double l; memcpy(&l, p, sizeof l); return l;
}

/* Complex types have no kernel, so hiercoll hands them to the vendor whatever the size: the
 * bits of the reference communicator. Gaussian integers keep SUM and PROD exact in any order
 * (the products stay below 2^(size/2)), so both must also equal the exact result; that one is
 * compared by value, as the sign of a zero part depends on the order of the products. */
static void complex_types(MPI_Comm comm, MPI_Comm ref, int size, int rank)
{
    static const long double re[] = {1, -1, 0, 0, 1, 1}, im[] = {0, 0, 1, -1, 1, -1};
    MPI_Datatype dts[] = {MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX, MPI_C_LONG_DOUBLE_COMPLEX};
    const char *names[] = {"float complex", "double complex", "long double complex"};
    int64_t counts[] = {size + 1, 5003}; /* 5003: beyond the small path for every width */
    for (int t = 0; t < 3; t++)
        for (int o = 0; o < 2; o++)
            for (int k = 0; k < 2; k++) {
                int64_t n = counts[k];
                size_t bytes = (size_t)n * (size_t)csize[t];
                char *in = calloc(bytes, 1), *got = calloc(bytes, 1), *want = calloc(bytes, 1), *exact = calloc(bytes, 1);
                for (int64_t i = 0; i < n; i++) {
                    long double _Complex acc = o;
                    for (int r = 0; r < size; r++) {
                        uint64_t x = mix(r, i, 200 + 10 * t + o);
                        long double _Complex v = o ? re[x % 6] + im[x % 6] * 1.0Li
                                                   : (long double)(x % 201) - 100 + ((x >> 20) % 201 - 100.0L) * 1.0Li;
                        acc = o ? acc * v : acc + v;
                        if (r == rank)
                            put_c(t, in, i, v);
                    }
                    put_c(t, exact, i, acc);
                }
                MPI_Op op = o ? MPI_PROD : MPI_SUM;
                MPI_Allreduce(in, got, (int)n, dts[t], op, comm);
                MPI_Allreduce(in, want, (int)n, dts[t], op, ref);
                int64_t bad = -1;
                for (int64_t i = 0; i < n && bad < 0; i++)
                    for (int h = 0; h < 2; h++) {
                        size_t at = (size_t)i * (size_t)csize[t] + (size_t)h * (size_t)csize[t] / 2;
                        /* long double: 10 value bytes, then padding */
                        if (memcmp(got + at, want + at, t == 2 ? 10 : (size_t)csize[t] / 2) ||
                            part(t, got, i, h) != part(t, exact, i, h))
                            bad = i;
                    }
                HC_T_CHECK(bad < 0, "%s %s count %lld: element %lld differs from the vendor's or the exact value",
                           names[t], o ? "PROD" : "SUM", (long long)n, (long long)bad);
                free(in), free(got), free(want), free(exact);
            }
}

/* User op on a contiguous type of ints: commutative, through MPI_Reduce_local. */
static void int_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int *a = in, *b = inout, bytes;
    MPI_Type_size(*dt, &bytes);
    for (int64_t i = 0; i < (int64_t)*len * (bytes / (int)sizeof(int)); i++)
        b[i] = (int)(((unsigned)a[i] + (unsigned)b[i]) % 1000003u);
}

/* n elements of MPI_Type_contiguous(width, MPI_INT) summed by int_sum, the buffers in_off and
 * out_off bytes into their allocations; checked int by int against the local sum. */
static void check_int_sum(MPI_Comm comm, int width, int64_t n, size_t in_off, size_t out_off,
                          int seed, const char *what)
{
    int size, rank;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    MPI_Datatype type;
    MPI_Op op;
    MPI_Type_contiguous(width, MPI_INT, &type);
    MPI_Type_commit(&type);
    MPI_Op_create(int_sum, 1, &op);
    int64_t ints = width * n;
    char *in_mem = malloc(sizeof(int) * (size_t)ints + in_off);
    char *out_mem = malloc(sizeof(int) * (size_t)ints + out_off);
    int *in = (int *)(in_mem + in_off), *out = (int *)(out_mem + out_off);
    for (int64_t i = 0; i < ints; i++)
        in[i] = (int)(mix(rank, i, seed) % 1000003);
    MPI_Allreduce(in, out, (int)n, type, op, comm);
    int64_t bad = -1;
    for (int64_t i = 0; i < ints && bad < 0; i++) {
        unsigned acc = 0;
        for (int r = 0; r < size; r++)
            acc = (acc + (unsigned)(mix(r, i, seed) % 1000003)) % 1000003u;
        if ((unsigned)out[i] != acc)
            bad = i;
    }
    HC_T_CHECK(bad < 0, "user op on %s, count %lld: int %lld differs", what, (long long)n,
               (long long)bad);
    free(in_mem), free(out_mem);
    MPI_Op_free(&op);
    MPI_Type_free(&type);
}
/* 2x2 integer matrix product: associative, not commutative (must keep rank order). */
static void mat_mul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    unsigned *a = in, *b = inout;
    for (int i = 0; i < *len; i++, a += 4, b += 4) {
        unsigned c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                         a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
        memcpy(b, c, sizeof c);
    }
}

static void user_ops(MPI_Comm comm, int size, int rank)
{
    MPI_Datatype mat;
    MPI_Op mmul;
    MPI_Type_contiguous(4, MPI_UNSIGNED, &mat);
    MPI_Type_commit(&mat);
    MPI_Op_create(mat_mul, 0, &mmul);
    /* Elements wider than the smallest slot go to the vendor (they once hung the staged
     * engine); 12-byte elements make the slot offsets change from chunk to chunk. */
    check_int_sum(comm, 300000, 2, 0, 0, 40, "1.2 MB elements");
    check_int_sum(comm, 3, light ? 30001 : 350001, 4048 + 4 * (size_t)rank, 12, 41, "triples");
    int64_t counts[] = {1, size + 1, 5003, 70001};
    for (int k = 0; k < 4; k++) {
        int64_t n = counts[k];
        check_int_sum(comm, 2, n, 0, 0, k, "pairs");
        if (k == 3 && light)
            continue;
        unsigned *mi = malloc(sizeof(unsigned) * 4 * (size_t)n), *mo = malloc(sizeof(unsigned) * 4 * (size_t)n);
        for (int64_t i = 0; i < 4 * n; i++)
            mi[i] = (unsigned)(mix(rank, i, 50 + k) % 7);
        MPI_Allreduce(mi, mo, (int)n, mat, mmul, comm);
        int64_t bad = -1;
        for (int64_t e = 0; e < n && bad < 0; e++) {
            unsigned acc[4], m[4];
            for (int j = 0; j < 4; j++)
                acc[j] = (unsigned)(mix(0, 4 * e + j, 50 + k) % 7);
            for (int r = 1; r < size; r++) { /* acc = acc x m_r: canonical rank order */
                for (int j = 0; j < 4; j++)
                    m[j] = (unsigned)(mix(r, 4 * e + j, 50 + k) % 7);
                unsigned c[4] = {acc[0] * m[0] + acc[1] * m[2], acc[0] * m[1] + acc[1] * m[3],
                                 acc[2] * m[0] + acc[3] * m[2], acc[2] * m[1] + acc[3] * m[3]};
                memcpy(acc, c, sizeof c);
            }
            if (memcmp(acc, mo + 4 * e, sizeof acc))
                bad = e;
        }
        HC_T_CHECK(bad < 0, "non-commutative op count %lld: matrix %lld differs", (long long)n, (long long)bad);
        free(mi), free(mo);
    }
    MPI_Op_free(&mmul);
    MPI_Type_free(&mat);
}

/* MINLOC/MAXLOC on MPI_DOUBLE_INT (a type with padding) and MPI_2INT; ties pick the lowest index. */
static void minmaxloc(MPI_Comm comm, int size, int rank)
{
    struct di { double v; int i; };
    for (int64_t n = 1; n < 20000; n = n * 7 + 3) {
        struct di *in = malloc(sizeof *in * (size_t)n), *out = malloc(sizeof *in * (size_t)n);
        int (*i2)[2] = malloc(sizeof *i2 * (size_t)n), (*o2)[2] = malloc(sizeof *i2 * (size_t)n);
        for (int64_t e = 0; e < n; e++) {
            in[e].v = (double)(mix(rank, e, 3) % 5);
            in[e].i = rank;
            i2[e][0] = (int)(mix(rank, e, 4) % 5);
            i2[e][1] = rank * 10;
        }
        MPI_Allreduce(in, out, (int)n, MPI_DOUBLE_INT, MPI_MINLOC, comm);
        MPI_Allreduce(i2, o2, (int)n, MPI_2INT, MPI_MAXLOC, comm);
        int64_t bad = -1;
        for (int64_t e = 0; e < n && bad < 0; e++) {
            double mv = 1e9; int mi = -1, xv = -1, xi = -1;
            for (int r = 0; r < size; r++) {
                double v = (double)(mix(r, e, 3) % 5);
                int w = (int)(mix(r, e, 4) % 5);
                if (v < mv) mv = v, mi = r;
                if (w > xv) xv = w, xi = r * 10;
            }
            if (out[e].v != mv || out[e].i != mi || o2[e][0] != xv || o2[e][1] != xi)
                bad = e;
        }
        HC_T_CHECK(bad < 0, "MINLOC/MAXLOC count %lld: element %lld differs", (long long)n, (long long)bad);
        free(in), free(out), free(i2), free(o2);
    }
}

/* User op on a strided type (one int used, one skipped): the skipped ints of recvbuf must
 * stay as they were (hiercoll sends this to the vendor). */
static void holes_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        b[2 * i] += a[2 * i];
}

static void holes_untouched(MPI_Comm comm, int size, int rank)
{
    MPI_Datatype strided;
    MPI_Op op;
    MPI_Type_vector(1, 1, 2, MPI_INT, &strided);
    MPI_Datatype resized;
    MPI_Type_create_resized(strided, 0, 2 * sizeof(int), &resized);
    MPI_Type_commit(&resized);
    MPI_Op_create(holes_sum, 1, &op);
    int n = 5000, *in = malloc(sizeof(int) * 2 * (size_t)n), *out = malloc(sizeof(int) * 2 * (size_t)n);
    for (int i = 0; i < 2 * n; i++) {
        in[i] = i + rank;
        out[i] = -7;
    }
    MPI_Allreduce(in, out, n, resized, op, comm);
    int bad = -1;
    for (int i = 0; i < n && bad < 0; i++)
        if (out[2 * i] != size * 2 * i + size * (size - 1) / 2 || out[2 * i + 1] != -7)
            bad = i;
    HC_T_CHECK(bad < 0, "strided user type: element %d wrong or hole overwritten", bad);
    free(in), free(out);
    MPI_Op_free(&op);
    MPI_Type_free(&resized);
    MPI_Type_free(&strided);
}

/* Predefined ops on derived types: the same signature laid out differently on different
 * ranks (plain ints, a contiguous pair type, a strided vector with holes, resized, a pair
 * stored in reverse, a struct whose double member has no elements) must meet
 * in one algorithm, give exact sums and leave holes alone; in place too. MPI asks for the
 * same datatype on every rank of a reduction, so this checks hiercoll's robustness, not the
 * vendor's (which sees one layout per run here). */
static void mixed_layouts(MPI_Comm comm, int size, int rank, int64_t n, int in_place, int k)
{
    MPI_Datatype pair, strided, spaced, swapped, padded;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_vector((int)n, 1, 2, MPI_INT, &strided);
    MPI_Type_create_resized(pair, 0, 3 * sizeof(int), &spaced); /* 2 ints, then a hole */
    int one[2] = {1, 1}, flip[2] = {1, 0}, blocks[2] = {0, 2};
    MPI_Type_indexed(2, one, flip, MPI_INT, &swapped); /* the pair's ints in memory reversed */
    MPI_Aint at[2] = {0, 0};
    MPI_Datatype members[2] = {MPI_DOUBLE, MPI_INT};
    MPI_Type_create_struct(2, blocks, at, members, &padded); /* no double at all: 2 ints */
    MPI_Datatype all[] = {pair, strided, spaced, swapped, padded}; /* indexed by layout - 1 */
    for (int t = 0; t < 5; t++)
        MPI_Type_commit(&all[t]);
    int layout = hc_t_preloaded() ? (rank * 3 + k) % 6 : 0;
    int *in = malloc(sizeof(int) * 3 * (size_t)n), *out = malloc(sizeof(int) * 3 * (size_t)n);
    /* where[i]: position of the i-th int of the signature in this rank's layout */
    int64_t *where = malloc(sizeof(int64_t) * (size_t)n);
    for (int64_t i = 0; i < n; i++)
        where[i] = layout == 2   ? 2 * i
                   : layout == 3 ? 3 * (i / 2) + i % 2
                   : layout == 4 ? 2 * (i / 2) + 1 - i % 2
                                 : i;
    for (int64_t i = 0; i < 3 * n; i++)
        in[i] = out[i] = -7;
    for (int64_t i = 0; i < n; i++)
        in[where[i]] = (int)(mix(rank, i, 90) % 100000);
    if (in_place)
        memcpy(out, in, sizeof(int) * 3 * (size_t)n);
    const void *src = in_place ? MPI_IN_PLACE : in;
    if (layout == 0)
        MPI_Allreduce(src, out, (int)n, MPI_INT, MPI_SUM, comm);
    else if (layout == 1)
        MPI_Allreduce(src, out, (int)(n / 2), all[0], MPI_SUM, comm);
    else if (layout == 2)
        MPI_Allreduce(src, out, 1, all[1], MPI_SUM, comm);
    else if (layout == 3)
        MPI_Allreduce(src, out, (int)(n / 2), all[2], MPI_SUM, comm);
    else if (layout == 4)
        MPI_Allreduce(src, out, (int)(n / 2), all[3], MPI_SUM, comm);
    else
        MPI_Allreduce(src, out, (int)(n / 2), all[4], MPI_SUM, comm);
    int64_t bad = -1;
    for (int64_t i = 0; i < n && bad < 0; i++) {
        int want = 0;
        for (int r = 0; r < size; r++)
            want += (int)(mix(r, i, 90) % 100000);
        if (out[where[i]] != want)
            bad = i;
    }
    char *covered = calloc((size_t)(3 * n), 1);
    for (int64_t i = 0; i < n; i++)
        covered[where[i]] = 1;
    int64_t hole = -1;
    for (int64_t i = 0; i < 3 * n && hole < 0; i++)
        if (!covered[i] && out[i] != -7 && !(in_place && out[i] == in[i]))
            hole = i;
    free(covered);
    HC_T_CHECK(bad < 0, "mixed layouts (layout %d, n %lld%s): element %lld wrong", layout,
               (long long)n, in_place ? ", in place" : "", (long long)bad);
    HC_T_CHECK(hole < 0, "mixed layouts (layout %d, n %lld): int %lld outside the type written",
               layout, (long long)n, (long long)hole);
    free(in), free(out), free(where);
    for (int t = 0; t < 5; t++)
        MPI_Type_free(&all[t]);
}

static void large_count_entry(MPI_Comm comm, int size)
{
    MPI_Count n = 100003;
    long long *in = malloc(sizeof(long long) * (size_t)n), *out = malloc(sizeof(long long) * (size_t)n);
    for (MPI_Count i = 0; i < n; i++)
        in[i] = (long long)i * 3 + hc_t_rank;
    hc_t_allreduce_c(in, out, n, MPI_LONG_LONG, MPI_SUM, comm);
    MPI_Count bad = -1;
    for (MPI_Count i = 0; i < n && bad < 0; i++) {
        long long want = 0;
        int rank;
        MPI_Comm_rank(comm, &rank);
        /* in[i] used the world rank; comm here is a duplicate of world */
        for (int r = 0; r < size; r++)
            want += (long long)i * 3 + r;
        if (out[i] != want)
            bad = i;
    }
    HC_T_CHECK(bad < 0, "MPI_Allreduce_c: element %lld differs", (long long)bad);
    free(in), free(out);
}

int main(int argc, char **argv)
{
    hc_t_init(&argc, &argv);
    light = getenv("HC_T_AR_LIGHT") && atoi(getenv("HC_T_AR_LIGHT"));
    MPI_Comm ref = hc_t_vendor_dup(MPI_COMM_WORLD);
    every_op_and_type(MPI_COMM_WORLD, hc_t_size);
    counts_sweep(MPI_COMM_WORLD, hc_t_size);
    for (int t = 23; t < 26; t++) { /* float, double, long double */
        if (light && t != 24)
            continue;
        float_identity(MPI_COMM_WORLD, ref, &types[t], 1000);
        float_identity(MPI_COMM_WORLD, ref, &types[t], 300007);
        signed_zeros(MPI_COMM_WORLD, ref, &types[t], 1000);
        /* below 2 KiB: the leaders' recursive doubling with any leader count in both families */
        signed_zeros(MPI_COMM_WORLD, ref, &types[t], 100);
    }
    complex_types(MPI_COMM_WORLD, ref, hc_t_size, hc_t_rank);
    user_ops(MPI_COMM_WORLD, hc_t_size, hc_t_rank);
    minmaxloc(MPI_COMM_WORLD, hc_t_size, hc_t_rank);
    large_count_entry(MPI_COMM_WORLD, hc_t_size);
    holes_untouched(MPI_COMM_WORLD, hc_t_size, hc_t_rank);
    buffer_offsets(MPI_COMM_WORLD, hc_t_rank);
    int64_t mixed_counts[] = {2 * hc_t_size, 2002, 600002};
    for (int k = 0; k < 3; k++)
        mixed_layouts(MPI_COMM_WORLD, hc_t_size, hc_t_rank, mixed_counts[k], k == 1, k);

    /* Forced algorithms on duplicates, and a reversed sub-communicator (irregular nodes). */
    const char *algos[] = {"ring1d", "shm", "ring", "vendor"};
    for (int a = 0; a < 4; a++) {
        MPI_Comm d = hc_t_algo_dup(MPI_COMM_WORLD, "", algos[a]);
        check_op(d, &types[4], O_SUM, 10007, a % 2, 60 + a);
        check_op(d, &types[24], O_MIN, hc_t_size + 1, 0, 70 + a);
        MPI_Comm_free(&d);
    }
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, hc_t_size - hc_t_rank, &rev);
    check_op(rev, &types[4], O_SUM, 20011, 0, 80);
    check_op(rev, &types[23], O_MAX, 3, 1, 81);
    MPI_Comm_free(&rev);
    /* Even world ranks first, then odd: on virtual nodes of 2 every node's ranks are apart
     * (irregular: ring1d from 64 KiB, node / leaders / node below). Then all ranks but 0:
     * nodes of different sizes; rank 0 alone on its own. */
    MPI_Comm perm, rest;
    MPI_Comm_split(MPI_COMM_WORLD, 0, hc_t_rank % 2 * hc_t_size + hc_t_rank, &perm);
    MPI_Comm_split(MPI_COMM_WORLD, hc_t_rank == 0, hc_t_rank, &rest);
    MPI_Comm subs[] = {perm, rest};
    for (int k = 0; k < 2; k++) {
        int sz;
        MPI_Comm_size(subs[k], &sz);
        check_op(subs[k], &types[4], O_SUM, 20011, k, 82 + 10 * k);
        check_op(subs[k], &types[23], O_MAX, 3, 1, 83 + 10 * k);
        check_op(subs[k], &types[14], O_BXOR, 16411, 0, 84 + 10 * k); /* uint8_t */
        check_op(subs[k], &types[24], O_SUM, 131101, 1, 85 + 10 * k);
        if (!light)
            check_op(subs[k], &types[25], O_PROD, sz + 1, 0, 86 + 10 * k);
    }
    MPI_Comm_free(&perm);
    MPI_Comm_free(&rest);
    MPI_Comm_free(&ref);
    return hc_t_finish();
}
