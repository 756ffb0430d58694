/* Random sequences of MPI_Bcast and MPI_Allreduce: random sizes, roots, datatypes (predefined,
 * contiguous, vector, indexed, struct, resized; root and receivers with different type maps of
 * the same signature), operations (predefined, MINLOC/MAXLOC, user commutative and
 * non-commutative), MPI_IN_PLACE, and communicators split, duplicated (with algorithm hints)
 * and freed in between; interleaved with point-to-point, including receives with
 * MPI_ANY_SOURCE/MPI_ANY_TAG pending across a collective on the same communicator.
 * Every rank can generate every rank's input, so each result is checked against a reference
 * computed locally, element by element, with guard bytes after every buffer.
 *
 * The sequence is fixed by the seed (printed; HC_STRESS_SEED overrides), identical on all ranks.
 * HC_STRESS_FULL=1 (make stress) runs 25 times more iterations; HC_STRESS_ITERS sets them;
 * HC_STRESS_TRACE=1 prints each step (rank 0) to find the one that fails.
 * The np=3 line forces the single-copy paths (off by default) through the same sequence, with
 * 8 KiB broadcast segments so packed datatypes cross many segment boundaries.
 * hc-test: np=2 preload=both timeout=600
 * hc-test: np=4 preload=yes timeout=600
 * hc-test: np=8 preload=yes timeout=600
 * hc-test: np=4 preload=yes timeout=600 env=HIERCOLL_VIRTUAL_NODE_SIZE=2
 * hc-test: np=3 preload=yes timeout=600 env=HIERCOLL_BCAST=shm-cma,HIERCOLL_ALLREDUCE_CMA_THRESHOLD=0,HIERCOLL_BCAST_HIER_CHUNK=8K
 */
#include <math.h>
#include <stdbool.h>

#include "hc_mpitest.h"

#define GUARD 64
#define MAXCOMMS 6

/* --- identical random draws on every rank ------------------------------------------------- */
static uint64_t rng_state;
static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
    rng_state = x;
    return x * 0x2545F4914F6CDD1Dull;
}
static int rnd_below(int n) { return n > 0 ? (int)(rnd() % (uint64_t)n) : 0; }
static double rnd_unit(void) { return (double)(rnd() >> 11) / 9007199254740992.0; }
/* Log-uniform in [0, max]: many small messages, some large ones, and count 0. */
static long rnd_count(long max)
{
    if (rnd_below(20) == 0)
        return 0;
    double lg = rnd_unit() * log2((double)max + 1);
    return (long)exp2(lg);
}

/* A value private to (iteration, rank, element), identical wherever it is computed. */
static uint64_t mix(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t x = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull) * 0xBF58476D1CE4E5B9ull ^
                 (c + 1) * 0x94D049BB133111EBull;
    x ^= x >> 31; x *= 0xD6E8FEB86659FD93ull; x ^= x >> 32;
    return x;
}

/* --- statistics ------------------------------------------------------------------------------ */
static long n_bcast, n_allreduce, n_p2p, n_pending, n_created, n_freed, n_inplace, n_sigvar;
static double bytes_moved;

/* --- communicators -------------------------------------------------------------------------- */
typedef struct pool_comm {
    MPI_Comm comm; /* MPI_COMM_NULL on ranks that are not members */
    int live;
    char what[32];
} pool_comm;
static pool_comm pool[MAXCOMMS];

static const char *bcast_algos[] = {"auto", "vendor", "shm", "shm-cma", "shm-direct"};
static const char *allreduce_algos[] = {"auto", "vendor", "ring", "ring1d", "shm"};

static void create_comm(int world_rank, int world_size)
{
    int slot = -1, nlive = 0;
    for (int k = 0; k < MAXCOMMS; k++) {
        if (!pool[k].live && slot < 0)
            slot = k;
        nlive += pool[k].live;
    }
    int parent_pick = rnd_below(nlive), kind = rnd_below(4);
    int ncolors = 1 + rnd_below(3);
    uint64_t color_seed = rnd(), hint_a = rnd(), hint_b = rnd();
    if (slot < 0)
        return;
    int parent = -1;
    for (int k = 0; k < MAXCOMMS && parent < 0; k++)
        if (pool[k].live && parent_pick-- == 0)
            parent = k;
    pool_comm *p = &pool[parent], *c = &pool[slot];
    char pwhat[32];
    memcpy(pwhat, p->what, sizeof pwhat);
    c->live = 1;
    c->comm = MPI_COMM_NULL;
    n_created++;
    if (kind <= 1) { /* split: colors and keys from the shared draws; ~1 in 10 left out */
        uint64_t h = mix(color_seed, (uint64_t)world_rank, 0);
        int color = (h % 10 == 0) ? MPI_UNDEFINED : (int)((h >> 8) % (uint64_t)ncolors);
        int key = (int)((h >> 16) % 7) - 3; /* ties are broken by the parent's rank order */
        snprintf(c->what, sizeof c->what, "split/%d of %.16s", ncolors, pwhat); /* a label */
        if (p->comm != MPI_COMM_NULL)
            MPI_Comm_split(p->comm, color, key, &c->comm);
    } else if (kind == 2) {
        snprintf(c->what, sizeof c->what, "dup of %.24s", pwhat);
        if (p->comm != MPI_COMM_NULL)
            MPI_Comm_dup(p->comm, &c->comm);
    } else {
        /* Hints forcing an algorithm: when it cannot run, the library must fall back. */
        const char *b = bcast_algos[hint_a % 5], *a = allreduce_algos[hint_b % 5];
        snprintf(c->what, sizeof c->what, "%s/%s dup", b, a);
        if (p->comm != MPI_COMM_NULL) {
            MPI_Info info;
            MPI_Info_create(&info);
            MPI_Info_set(info, "hiercoll_bcast", b);
            MPI_Info_set(info, "hiercoll_allreduce", a);
            MPI_Comm_dup_with_info(p->comm, info, &c->comm);
            MPI_Info_free(&info);
        }
    }
    (void)world_size;
}

static void free_comm(void)
{
    int nfree = 0;
    for (int k = 1; k < MAXCOMMS; k++)
        nfree += pool[k].live;
    int pick = rnd_below(nfree);
    for (int k = 1; k < MAXCOMMS; k++)
        if (pool[k].live && pick-- == 0) {
            if (pool[k].comm != MPI_COMM_NULL)
                MPI_Comm_free(&pool[k].comm);
            pool[k].live = 0;
            n_freed++;
            return;
        }
}

/* --- broadcast ------------------------------------------------------------------------------ */
typedef struct bdt {
    MPI_Datatype dt;
    const char *name;
} bdt;
static bdt btypes[8];
static int nbtypes;
static MPI_Datatype t_int3; /* contiguous(3, INT): same signature as 3 x MPI_INT */

static void make_bcast_types(void)
{
    MPI_Datatype vec, vecr, st, idx;
    MPI_Type_contiguous(3, MPI_INT, &t_int3);
    MPI_Type_vector(2, 2, 3, MPI_INT, &vec);                      /* gaps inside */
    MPI_Type_create_resized(vec, 0, 7 * (MPI_Aint)sizeof(int), &vecr); /* and after */
    MPI_Type_free(&vec);
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {0, 8};
    MPI_Datatype types[2] = {MPI_CHAR, MPI_DOUBLE};
    MPI_Type_create_struct(2, bl, disp, types, &st);              /* char, 7 bytes gap, double */
    int ibl[3] = {1, 2, 1}, idisp[3] = {0, 2, 5};
    MPI_Type_indexed(3, ibl, idisp, MPI_SHORT, &idx);
    MPI_Datatype all[] = {t_int3, vecr, st, idx};
    for (int k = 0; k < 4; k++)
        MPI_Type_commit(&all[k]);
    bdt list[] = {{MPI_BYTE, "byte"},  {MPI_INT, "int"},     {MPI_DOUBLE, "double"},
                  {MPI_SHORT, "short"}, {t_int3, "contig3"}, {vecr, "vector-resized"},
                  {st, "struct"},       {idx, "indexed"}};
    nbtypes = 8;
    memcpy(btypes, list, sizeof list);
}

static void free_bcast_types(void)
{
    for (int k = 4; k < nbtypes; k++)
        MPI_Type_free(&btypes[k].dt);
}

static size_t span(MPI_Datatype dt, long count)
{
    MPI_Aint lb, extent;
    MPI_Type_get_extent(dt, &lb, &extent);
    return (size_t)extent * (size_t)count;
}

static void do_bcast(pool_comm *pc, long it, long max_bytes)
{
    int t = rnd_below(nbtypes);
    long count_draw = rnd_count(max_bytes);
    uint64_t root_draw = rnd(), sig = rnd();
    MPI_Comm comm = pc->comm;
    if (comm == MPI_COMM_NULL)
        return;
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int root = (int)(root_draw % (uint64_t)size);
    int tsize;
    MPI_Type_size(btypes[t].dt, &tsize);
    long count = count_draw / tsize;

    /* contig3 against 3 x MPI_INT: same type signature, different (count, datatype) pairs. */
    MPI_Datatype rdt = btypes[t].dt, mydt = rdt;
    long rcount = count, mycount = count;
    if (rdt == t_int3 && (sig & 1)) {
        int root_plain = (sig >> 1) & 1;
        if (root_plain)
            rdt = MPI_INT, rcount = 3 * count;
        if (rank == root ? root_plain : !root_plain)
            mydt = MPI_INT, mycount = 3 * count;
        else
            mydt = t_int3, mycount = count;
        n_sigvar++;
    }
    size_t rspan = span(rdt, rcount), myspan = span(mydt, mycount);
    unsigned char *rootdata = malloc(rspan + GUARD), *buf = malloc(myspan + GUARD),
                  *want = malloc(myspan + GUARD);
    hc_t_fill(rootdata, rspan, mix((uint64_t)it, 1, 0));
    if (rank == root) {
        memcpy(buf, rootdata, rspan);
        memcpy(want, rootdata, rspan);
    } else {
        /* Receivers start from their own bytes: gaps of the type must keep them. */
        hc_t_fill(buf, myspan, mix((uint64_t)it, 2, (uint64_t)rank));
        memcpy(want, buf, myspan);
        int packsize = 0, pos = 0;
        MPI_Pack_size((int)rcount, rdt, MPI_COMM_SELF, &packsize);
        void *packed = malloc((size_t)packsize + 1);
        MPI_Pack(rootdata, (int)rcount, rdt, packed, packsize, &pos, MPI_COMM_SELF);
        pos = 0;
        MPI_Unpack(packed, packsize, &pos, want, (int)mycount, mydt, MPI_COMM_SELF);
        free(packed);
    }
    memset(buf + myspan, 0x5a, GUARD);
    memset(want + myspan, 0x5a, GUARD);
    MPI_Bcast(buf, (int)mycount, mydt, root, comm);
    long d = hc_t_first_diff(buf, want, myspan + GUARD);
    HC_T_CHECK(d < 0,
               "iteration %ld: bcast on %s (%d ranks) of %ld x %s from root %d: byte %ld of %zu "
               "wrong%s",
               it, pc->what, size, mycount, mydt == MPI_INT && rdt != MPI_INT ? "int" : btypes[t].name,
               root, d, myspan, d >= (long)myspan ? " (past the end: overrun)" : "");
    n_bcast++;
    bytes_moved += (double)count * tsize;
    free(rootdata);
    free(buf);
    free(want);
}

/* --- allreduce ------------------------------------------------------------------------------ */
enum { T_I8, T_U8, T_I16, T_I32, T_U32, T_I64, T_LL, T_U64, T_F32, T_F64, T_2INT, T_DINT, T_MAT,
       NTYPES };
static const struct { MPI_Datatype dt; const char *name; size_t size; int is_int; } atypes[] = {
    {MPI_SIGNED_CHAR, "int8", 1, 1}, {MPI_UNSIGNED_CHAR, "uint8", 1, 1},
    {MPI_SHORT, "short", 2, 1},      {MPI_INT, "int", 4, 1},
    {MPI_UNSIGNED, "unsigned", 4, 1}, {MPI_LONG, "long", 8, 1},
    {MPI_LONG_LONG, "long long", 8, 1}, {MPI_UINT64_T, "uint64", 8, 1},
    {MPI_FLOAT, "float", 4, 0},      {MPI_DOUBLE, "double", 8, 0},
    {MPI_2INT, "2int", 8, 0},        {MPI_DOUBLE_INT, "double_int", 16, 0},
    {MPI_DATATYPE_NULL, "mat2x2", 16, 0},
};
enum { O_SUM, O_PROD, O_MIN, O_MAX, O_BAND, O_BOR, O_BXOR, O_LAND, O_LOR, O_LXOR, O_MINLOC,
       O_MAXLOC, O_ABSMAX, O_MATMUL, NOPS };
static const char *opnames[] = {"sum", "prod", "min", "max", "band", "bor", "bxor", "land",
                                "lor", "lxor", "minloc", "maxloc", "absmax(user)",
                                "matmul(user,noncommutative)"};
static MPI_Op mpi_ops[NOPS];
static MPI_Datatype t_mat;

typedef struct { int v, i; } pair_ii;
typedef struct { double v; int i; } pair_di;

static int absmax_key(int x) { return (x < 0 ? -x : x) * 2 + (x > 0); }
static void absmax_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int *a = in, *b = inout;
    for (int k = 0; k < *len; k++)
        if (absmax_key(a[k]) > absmax_key(b[k]))
            b[k] = a[k];
}
/* inout = in x inout: MPI hands the lower ranks' partial result in `in`. */
static void matmul(const unsigned *a, const unsigned *b, unsigned *out)
{
    unsigned r[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                     a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
    memcpy(out, r, sizeof r);
}
static void matmul_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    unsigned *a = in, *b = inout;
    for (int k = 0; k < *len; k++)
        matmul(a + 4 * k, b + 4 * k, b + 4 * k);
}

static void make_ops(void)
{
    MPI_Op pre[] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_BAND, MPI_BOR,
                    MPI_BXOR, MPI_LAND, MPI_LOR, MPI_LXOR, MPI_MINLOC, MPI_MAXLOC};
    memcpy(mpi_ops, pre, sizeof pre);
    MPI_Op_create(absmax_fn, 1, &mpi_ops[O_ABSMAX]);
    MPI_Op_create(matmul_fn, 0, &mpi_ops[O_MATMUL]);
    MPI_Type_contiguous(4, MPI_UNSIGNED, &t_mat);
    MPI_Type_commit(&t_mat);
}

/* Input element i of rank r: small enough that every order of reduction gives the same
 * result exactly (sums of 8 values of at most 15 fit an int8; products of 8 values of at most
 * 2 fit in 9 bits), so the library may reduce in any order. */
static void gen(int t, int op, long it, int r, long i, void *out)
{
    uint64_t h = mix((uint64_t)it, (uint64_t)r, (uint64_t)i);
    long long v;
    if (op == O_SUM)
        v = (long long)(h % 31) - 15;
    else if (op == O_PROD)
        v = (h % 5 == 0) ? -1 : (long long)(h % 2) + 1;
    else if (op == O_LAND || op == O_LOR || op == O_LXOR)
        v = (long long)(h % 3 == 0 ? 0 : h % 4);
    else if (op == O_BAND || op == O_BOR || op == O_BXOR)
        v = (long long)(h >> 3);
    else
        v = (long long)(h % 201) - 100;
    int uns = t == T_U8 || t == T_U32 || t == T_U64;
    if (uns && v < 0 && op != O_BAND && op != O_BOR && op != O_BXOR)
        v = -v;
    switch (t) {
    case T_I8: *(int8_t *)out = (int8_t)v; break;
    case T_U8: *(uint8_t *)out = (uint8_t)v; break;
    case T_I16: *(short *)out = (short)v; break;
    case T_I32: *(int *)out = (int)v; break;
    case T_U32: *(unsigned *)out = (unsigned)v; break;
    case T_I64: *(long *)out = (long)v; break;
    case T_LL: *(long long *)out = v; break;
    case T_U64: *(uint64_t *)out = (uint64_t)v; break;
    case T_F32: *(float *)out = (float)v; break;
    case T_F64: *(double *)out = (double)v; break;
    case T_2INT: *(pair_ii *)out = (pair_ii){(int)(v % 7), r}; break; /* ties are frequent */
    case T_DINT: {
        pair_di p;
        memset(&p, 0, sizeof p);
        p.v = (double)(v % 7) * 0.5;
        p.i = (int)(h >> 40) % 1000;
        *(pair_di *)out = p;
        break;
    }
    case T_MAT:
        for (int k = 0; k < 4; k++)
            ((unsigned *)out)[k] = (unsigned)((h >> (8 * k)) % 4);
        break;
    }
}

#define REDUCE_ARITH(T)                                                          \
    do {                                                                         \
        T *x = acc; const T *y = in;                                             \
        switch (op) {                                                            \
        case O_SUM: *x = (T)(*x + *y); break;                                    \
        case O_PROD: *x = (T)(*x * *y); break;                                   \
        case O_MIN: if (*y < *x) *x = *y; break;                                 \
        case O_MAX: if (*y > *x) *x = *y; break;                                 \
        case O_LAND: *x = (T)(*x && *y); break;                                  \
        case O_LOR: *x = (T)(*x || *y); break;                                   \
        case O_LXOR: *x = (T)(!*x != !*y); break;                                \
        }                                                                        \
    } while (0)
#define REDUCE_BITS(T)                                                           \
    do {                                                                         \
        T *x = acc; const T *y = in;                                             \
        switch (op) {                                                            \
        case O_BAND: *x &= *y; break;                                            \
        case O_BOR: *x |= *y; break;                                             \
        case O_BXOR: *x ^= *y; break;                                            \
        default: REDUCE_ARITH(T);                                                \
        }                                                                        \
    } while (0)

/* acc = acc op in, in rank order (acc holds the lower ranks). */
static void reduce_ref(int t, int op, void *acc, const void *in)
{
    switch (t) {
    case T_I8: REDUCE_BITS(int8_t); break;
    case T_U8: REDUCE_BITS(uint8_t); break;
    case T_I16: REDUCE_BITS(short); break;
    case T_I32:
        if (op == O_ABSMAX) {
            int a = *(const int *)in, b = *(int *)acc;
            if (absmax_key(a) > absmax_key(b))
                *(int *)acc = a;
        } else {
            REDUCE_BITS(int);
        }
        break;
    case T_U32: REDUCE_BITS(unsigned); break;
    case T_I64: REDUCE_BITS(long); break;
    case T_LL: REDUCE_BITS(long long); break;
    case T_U64: REDUCE_BITS(uint64_t); break;
    case T_F32: REDUCE_ARITH(float); break;
    case T_F64: REDUCE_ARITH(double); break;
    case T_2INT: {
        pair_ii *x = acc;
        const pair_ii *y = in;
        int better = op == O_MINLOC ? y->v < x->v : y->v > x->v;
        if (better || (y->v == x->v && y->i < x->i))
            *x = *y;
        break;
    }
    case T_DINT: {
        pair_di *x = acc;
        const pair_di *y = in;
        int better = op == O_MINLOC ? y->v < x->v : y->v > x->v;
        if (better || (y->v == x->v && y->i < x->i))
            *x = *y;
        break;
    }
    case T_MAT: matmul(acc, in, acc); break;
    }
}

static int same_elem(int t, const void *a, const void *b)
{
    if (t == T_DINT) {
        const pair_di *x = a, *y = b;
        return x->v == y->v && x->i == y->i; /* padding is not data */
    }
    return memcmp(a, b, atypes[t].size) == 0;
}

static void pick_type_op(int *t, int *op)
{
    int k = rnd_below(20);
    if (k == 0) {
        *t = T_MAT, *op = O_MATMUL;
    } else if (k == 1) {
        *t = T_I32, *op = O_ABSMAX;
    } else if (k <= 3) {
        *t = rnd_below(2) ? T_2INT : T_DINT;
        *op = rnd_below(2) ? O_MINLOC : O_MAXLOC;
    } else {
        *t = rnd_below(T_F64 + 1);
        /* bitwise and logical operations are defined on integers only */
        *op = rnd_below(atypes[*t].is_int ? O_LXOR + 1 : O_MAX + 1);
    }
}

static void do_allreduce(pool_comm *pc, long it, long max_bytes)
{
    int t, op;
    pick_type_op(&t, &op);
    long count = rnd_count(max_bytes) / (long)atypes[t].size;
    int inplace = rnd_below(4) == 0;
    MPI_Comm comm = pc->comm;
    if (comm == MPI_COMM_NULL)
        return;
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    size_t es = atypes[t].size, bytes = (size_t)count * es;
    MPI_Datatype dt = t == T_MAT ? t_mat : atypes[t].dt;
    unsigned char *in = malloc(bytes + GUARD), *out = malloc(bytes + GUARD),
                  *want = malloc(bytes + GUARD), *elem = malloc(es);
    for (long i = 0; i < count; i++) {
        gen(t, op, it, 0, i, want + i * es);
        for (int r = 1; r < size; r++) {
            gen(t, op, it, r, i, elem);
            reduce_ref(t, op, want + i * es, elem);
        }
        gen(t, op, it, rank, i, in + i * es);
    }
    memset(out, 0xa5, bytes);
    if (inplace) {
        memcpy(out, in, bytes);
        n_inplace++;
    }
    memset(out + bytes, 0x5a, GUARD);
    memset(in + bytes, 0x3c, GUARD);
    MPI_Allreduce(inplace ? MPI_IN_PLACE : in, out, (int)count, dt, mpi_ops[op], comm);
    long bad = 0, first = -1;
    for (long i = 0; i < count; i++)
        if (!same_elem(t, out + i * es, want + i * es)) {
            if (first < 0)
                first = i;
            bad++;
        }
    int guard_ok = 1;
    for (int g = 0; g < GUARD; g++)
        guard_ok &= out[bytes + g] == 0x5a && in[bytes + g] == 0x3c;
    HC_T_CHECK(bad == 0 && guard_ok,
               "iteration %ld: allreduce%s on %s (%d ranks) of %ld x %s, %s: %ld elements wrong "
               "(first %ld)%s",
               it, inplace ? " in place" : "", pc->what, size, count, atypes[t].name, opnames[op],
               bad, first, guard_ok ? "" : ", guard bytes overwritten");
    if (!inplace) { /* the send buffer is read-only */
        for (long i = 0; i < count && bad == 0; i++) {
            gen(t, op, it, rank, i, elem);
            HC_T_CHECK(memcmp(elem, in + i * es, t == T_DINT ? 12 : es) == 0,
                       "iteration %ld: allreduce modified its send buffer at element %ld", it, i);
        }
    }
    n_allreduce++;
    bytes_moved += (double)bytes;
    free(in);
    free(out);
    free(want);
    free(elem);
}

/* --- point-to-point ------------------------------------------------------------------------- */
static void p2p_payload(long it, int sender, int *buf, int n)
{
    for (int i = 0; i < n; i++)
        buf[i] = (int)(mix((uint64_t)it, (uint64_t)sender, (uint64_t)i) & 0x7fffffff);
}

/* A shift by k around the communicator with MPI_Sendrecv. */
static void do_sendrecv(pool_comm *pc, long it)
{
    uint64_t kd = rnd();
    int n = 1 + rnd_below(5000);
    if (pc->comm == MPI_COMM_NULL)
        return;
    int rank, size;
    MPI_Comm_rank(pc->comm, &rank);
    MPI_Comm_size(pc->comm, &size);
    int k = (int)(kd % (uint64_t)size);
    int to = (rank + k) % size, from = (rank - k + size) % size;
    int *s = malloc(sizeof(int) * (size_t)n), *r = malloc(sizeof(int) * (size_t)n),
        *w = malloc(sizeof(int) * (size_t)n);
    p2p_payload(it, rank, s, n);
    p2p_payload(it, from, w, n);
    MPI_Sendrecv(s, n, MPI_INT, to, 11, r, n, MPI_INT, from, 11, pc->comm, MPI_STATUS_IGNORE);
    HC_T_CHECK(memcmp(r, w, sizeof(int) * (size_t)n) == 0,
               "iteration %ld: sendrecv on %s shift %d wrong", it, pc->what, k);
    n_p2p++;
    free(s);
    free(r);
    free(w);
}

/* A wildcard receive posted before a collective on the same communicator and matched after
 * it: the collective's own traffic must never be taken by (or take) the user's messages. */
static void do_pending_p2p(pool_comm *pc, long it, long max_bytes)
{
    int which = rnd_below(2);
    int n = 1 + rnd_below(2000);
    if (pc->comm == MPI_COMM_NULL) {
        /* keep the draws of the collective aligned with the members' */
        if (which)
            do_bcast(pc, it, max_bytes);
        else
            do_allreduce(pc, it, max_bytes);
        return;
    }
    int rank, size;
    MPI_Comm_rank(pc->comm, &rank);
    MPI_Comm_size(pc->comm, &size);
    int to = (rank + 1) % size, from = (rank - 1 + size) % size;
    int *s = malloc(sizeof(int) * (size_t)n), *r = calloc((size_t)n, sizeof(int)),
        *w = malloc(sizeof(int) * (size_t)n);
    p2p_payload(it, rank, s, n);
    p2p_payload(it, from, w, n);
    MPI_Request rq[2];
    MPI_Status st[2];
    MPI_Irecv(r, n, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, pc->comm, &rq[0]);
    MPI_Isend(s, n, MPI_INT, to, 1000 + (int)(it % 1000), pc->comm, &rq[1]);
    if (which)
        do_bcast(pc, it, max_bytes);
    else
        do_allreduce(pc, it, max_bytes);
    MPI_Waitall(2, rq, st);
    /* A collective may let a rank run ahead (a broadcast's root leaves at once): until every
     * wildcard has matched, nobody may send the next user message. */
    MPI_Barrier(pc->comm);
    HC_T_CHECK(st[0].MPI_SOURCE == from && st[0].MPI_TAG == 1000 + (int)(it % 1000) &&
                   memcmp(r, w, sizeof(int) * (size_t)n) == 0,
               "iteration %ld: wildcard receive across a %s on %s matched source %d tag %d "
               "(want %d, %d)",
               it, which ? "bcast" : "allreduce", pc->what, st[0].MPI_SOURCE, st[0].MPI_TAG, from,
               1000 + (int)(it % 1000));
    n_pending++;
    free(s);
    free(r);
    free(w);
}

int main(int argc, char **argv)
{
    hc_t_init(&argc, &argv);
    const char *full = getenv("HC_STRESS_FULL"), *it_env = getenv("HC_STRESS_ITERS"),
               *seed_env = getenv("HC_STRESS_SEED");
    int is_full = full && *full && strcmp(full, "0") != 0;
    int trace = getenv("HC_STRESS_TRACE") != NULL; /* each step on stderr, to find a failure */
    /* Short form: about the same number of vendor-speed calls at every size (8 ranks on 2
     * cores make each collective ~25 ms). */
    long iters = (is_full ? 25 : 1) * (hc_t_size <= 2 ? 800 : hc_t_size <= 4 ? 300 : 100);
    long max_bytes = hc_t_size <= 4 ? (1 << 20) : (1 << 17);
    if (is_full)
        max_bytes *= 4;
    if (it_env)
        iters = atol(it_env);
    uint64_t seed = seed_env ? strtoull(seed_env, NULL, 0) : 20261121u + (uint64_t)hc_t_size;
    rng_state = seed * 0x9E3779B97F4A7C15ull | 1;
    if (hc_t_rank == 0)
        printf("stress: seed %llu (HC_STRESS_SEED), %ld iterations on %d ranks, messages up to "
               "%ld bytes%s\n",
               (unsigned long long)seed, iters, hc_t_size, max_bytes, is_full ? " (full)" : "");
    fflush(stdout);

    make_bcast_types();
    make_ops();
    pool[0] = (pool_comm){MPI_COMM_WORLD, 1, "world"};
    double t0 = MPI_Wtime();
    for (long it = 0; it < iters; it++) {
        double u = rnd_unit();
        int nlive = 0;
        for (int k = 0; k < MAXCOMMS; k++)
            nlive += pool[k].live;
        if (u < 0.07 && nlive < MAXCOMMS) {
            create_comm(hc_t_rank, hc_t_size);
            continue;
        }
        if (u < 0.12 && nlive > 1) {
            free_comm();
            continue;
        }
        int pick = rnd_below(nlive);
        pool_comm *pc = NULL;
        for (int k = 0; k < MAXCOMMS && !pc; k++)
            if (pool[k].live && pick-- == 0)
                pc = &pool[k];
        int what = rnd_below(20);
        if (trace && hc_t_rank == 0) {
            fprintf(stderr, "stress: iteration %ld: %s on %s\n", it,
                    what < 9 ? "bcast" : what < 17 ? "allreduce" : what < 18 ? "sendrecv"
                                                                  : "wildcard p2p + collective",
                    pc->what);
        }
        if (what < 9)
            do_bcast(pc, it, max_bytes);
        else if (what < 17)
            do_allreduce(pc, it, max_bytes);
        else if (what < 18)
            do_sendrecv(pc, it);
        else
            do_pending_p2p(pc, it, max_bytes);
    }
    for (int k = 1; k < MAXCOMMS; k++)
        if (pool[k].live && pool[k].comm != MPI_COMM_NULL)
            MPI_Comm_free(&pool[k].comm);
    MPI_Op_free(&mpi_ops[O_ABSMAX]);
    MPI_Op_free(&mpi_ops[O_MATMUL]);
    MPI_Type_free(&t_mat);
    free_bcast_types();
    double elapsed = MPI_Wtime() - t0;
    long mine[7] = {n_bcast, n_allreduce, n_p2p, n_pending, n_inplace, n_sigvar, 0}, sum[7];
    MPI_Reduce(mine, sum, 7, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (hc_t_rank == 0)
        printf("stress: %.1f s; per-rank calls summed over ranks: %ld bcast (%ld with mixed type "
               "maps), %ld allreduce (%ld in place), %ld sendrecv, %ld wildcard receives across "
               "a collective; %ld communicators created, %ld freed\n",
               elapsed, sum[0], sum[5], sum[1], sum[4], sum[2], sum[3], n_created, n_freed);
    return hc_t_finish();
}
