/* MPI_Bcast through every hiercoll path equals the vendor's, byte for byte: every root, the
 * sizes around the queue's fragment and capacity, derived datatypes that differ between the
 * root and the readers, interleaved and reordered communicators, thousands of calls.
 * The runs below also cover: odd local sizes; 7 ranks in virtual nodes of 2, the last node a
 * single rank; k-ary and k-nomial trees (readers that forward to several children) with
 * queues small enough to wrap, one with single copy from 64K by the threshold, so queue and
 * CMA calls mix on one communicator; single copy across virtual nodes, segment by segment
 * (the 4-rank run: its "shm" and "shm-direct" communicators still take the queue there).
 * hc-test: np=1,2 preload=both timeout=120
 * hc-test: np=3,4 preload=yes timeout=120
 * hc-test: np=2 preload=yes timeout=120 env=HIERCOLL_SHM_LIMIT=256K
 * hc-test: np=4 preload=yes timeout=180 env=HIERCOLL_VIRTUAL_NODE_SIZE=2,HIERCOLL_BCAST=shm-cma
 * hc-test: np=4 preload=yes timeout=120 env=HIERCOLL_BCAST_FRAG=4K,HIERCOLL_BCAST_QUEUE=4,HIERCOLL_BCAST_CELLS=2,HIERCOLL_BCAST_TREE=chain
 * hc-test: np=5 preload=yes timeout=120 env=HIERCOLL_BCAST_FAKE_NUMA=2,HIERCOLL_BCAST_TREE=numa,HIERCOLL_BCAST_FRAG=8K,HIERCOLL_BCAST_QUEUE=8,HIERCOLL_BCAST_CELLS=5
 * hc-test: np=8 preload=yes timeout=180
 * hc-test: np=8 preload=yes timeout=180 env=HIERCOLL_VIRTUAL_NODE_SIZE=3,HIERCOLL_BCAST_HIER_CHUNK=64K
 * hc-test: np=2,3,4 preload=yes timeout=180 env=HIERCOLL_BCAST=shm-cma
 * hc-test: np=8 preload=yes timeout=300 env=HIERCOLL_BCAST=shm-cma
 * hc-test: np=3 preload=yes timeout=180 env=HIERCOLL_BCAST_HIER_CHUNK=4K
 * hc-test: np=3 preload=yes timeout=180 env=HIERCOLL_BCAST_FRAG=8K
 * hc-test: np=6,7 preload=yes timeout=180
 * hc-test: np=7 preload=yes timeout=240 env=HIERCOLL_VIRTUAL_NODE_SIZE=2
 * hc-test: np=8 preload=yes timeout=240 env=HIERCOLL_BCAST_TREE=knomial,HIERCOLL_BCAST_RADIX=3,HIERCOLL_BCAST_FRAG=8K,HIERCOLL_BCAST_QUEUE=8,HIERCOLL_BCAST_CELLS=3
 * hc-test: np=6 preload=yes timeout=180 env=HIERCOLL_BCAST_TREE=kary,HIERCOLL_BCAST_RADIX=2,HIERCOLL_BCAST_FRAG=4K,HIERCOLL_BCAST_QUEUE=4,HIERCOLL_BCAST_CMA_THRESHOLD=64K
 */
#include "hc_mpitest.h"

static const char *algos[] = {"", "shm", "shm-cma", "shm-direct"};
#define NALGOS 4

/* Queue geometry in force (the defaults of collectives/bcast_shm.c unless set). */
static size_t frag = 32768, queue = 8;

static size_t env_size(const char *name, size_t def)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return def;
    char *end;
    size_t x = strtoull(v, &end, 10);
    if (*end == 'K')
        x <<= 10;
    else if (*end == 'M')
        x <<= 20;
    return x;
}

/* Contiguous bytes from root; the expected result is the root's fill, recomputed here. With
 * ref != MPI_COMM_NULL the vendor's result is compared too. */
static void check_bytes(MPI_Comm comm, MPI_Comm ref, size_t bytes, int root, uint64_t seed,
                        const char *what)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    unsigned char *got = malloc(bytes + 1), *want = malloc(bytes + 1);
    hc_t_fill(want, bytes, seed);
    if (rank == root)
        memcpy(got, want, bytes);
    else
        hc_t_fill(got, bytes, seed + 77 + (uint64_t)rank);
    got[bytes] = 0xA5;
    hc_t_bcast_c(got, (MPI_Count)bytes, MPI_BYTE, root, comm);
    long d = hc_t_first_diff(got, want, bytes);
    HC_T_CHECK(d < 0 && got[bytes] == 0xA5, "%s: %zu bytes from root %d differ at %ld", what,
               bytes, root, d);
    if (ref != MPI_COMM_NULL) {
        unsigned char *vend = malloc(bytes + 1);
        if (rank == root)
            memcpy(vend, want, bytes);
        else
            hc_t_fill(vend, bytes, seed + 99);
        hc_t_bcast_c(vend, (MPI_Count)bytes, MPI_BYTE, root, ref);
        d = hc_t_first_diff(got, vend, bytes);
        HC_T_CHECK(d < 0, "%s: %zu bytes from root %d differ from the vendor at %ld", what,
                   bytes, root, d);
        free(vend);
    }
    free(got);
    free(want);
}

/* Bytes that count elements of type touch (types here have lb = 0), plus a margin. */
static size_t span(MPI_Datatype type, int count)
{
    MPI_Aint lb, ext, tlb, text;
    MPI_Type_get_extent(type, &lb, &ext);
    MPI_Type_get_true_extent(type, &tlb, &text);
    return (size_t)(count - 1) * (size_t)ext + (size_t)(tlb + text) + 16;
}

/* Root sends `rcount` of `rtype` from rbuf-shaped memory; readers receive `count` of `type`.
 * Expected: the root's data packed with rtype and unpacked with type, computed locally. */
static void check_types(MPI_Comm comm, MPI_Comm ref, MPI_Datatype rtype, int rcount,
                        MPI_Datatype type, int count, int root, uint64_t seed, const char *what)
{
    int rank, psize;
    MPI_Comm_rank(comm, &rank);
    size_t rbytes = span(rtype, rcount), bytes = span(type, count);
    unsigned char *src = malloc(rbytes), *want = malloc(bytes), *got = malloc(bytes);
    hc_t_fill(src, rbytes, seed);
    MPI_Pack_size(rcount, rtype, MPI_COMM_SELF, &psize);
    void *packed = malloc((size_t)psize);
    int pos = 0;
    MPI_Pack(src, rcount, rtype, packed, psize, &pos, MPI_COMM_SELF);
    int packed_len = pos;
    hc_t_fill(want, bytes, seed + 5); /* the gaps keep what the reader had */
    memcpy(got, want, bytes);
    pos = 0;
    MPI_Unpack(packed, packed_len, &pos, want, count, type, MPI_COMM_SELF);
    if (rank == root) {
        MPI_Bcast(src, rcount, rtype, root, comm);
        /* the root's buffer must be unchanged */
        unsigned char *again = malloc(rbytes);
        hc_t_fill(again, rbytes, seed);
        HC_T_CHECK(hc_t_first_diff(again, src, rbytes) < 0, "%s: root buffer changed", what);
        free(again);
    } else {
        MPI_Bcast(got, count, type, root, comm);
        long d = hc_t_first_diff(got, want, bytes);
        HC_T_CHECK(d < 0, "%s: typed bcast from root %d differs at byte %ld", what, root, d);
    }
    if (ref != MPI_COMM_NULL && rank != root) {
        unsigned char *vend = malloc(bytes);
        hc_t_fill(vend, bytes, seed + 5);
        MPI_Bcast(vend, count, type, root, ref);
        long d = hc_t_first_diff(got, vend, bytes);
        HC_T_CHECK(d < 0, "%s: typed bcast differs from the vendor at byte %ld", what, d);
        free(vend);
    } else if (ref != MPI_COMM_NULL) {
        MPI_Bcast(src, rcount, rtype, root, ref);
    }
    free(packed);
    free(src);
    free(want);
    free(got);
}

/* Largest message carried inside a control cell (HC_BCELL_INLINE_MAX, collectives/bcast_shm.h),
 * and the payload of the cell's first line. */
#define INLINE_MAX 112
#define FIRST_LINE_MAX 48

static void sizes_all_roots(MPI_Comm comm, const char *algo, int with_ref)
{
    int size;
    MPI_Comm_size(comm, &size);
    MPI_Comm ref = with_ref ? hc_t_vendor_dup(comm) : MPI_COMM_NULL;
    /* 4095 / 4096: the root's copy changes to non-temporal stores (bcast_select.c). */
    size_t sizes[] = {0, 1, 7, FIRST_LINE_MAX, FIRST_LINE_MAX + 1, 64, INLINE_MAX, INLINE_MAX + 1,
                      4095, 4096, frag - 1, frag, frag + 1,
                      queue * frag + 1, (3u << 20) + 5};
    char what[96];
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (int root = 0; root < size; root++) {
            snprintf(what, sizeof what, "algo '%s' size %zu", algo, sizes[k]);
            /* Big messages at two roots only, and the vendor reference for them at the first:
             * oversubscribed, the vendor is slow. */
            if (sizes[k] > 100000 && root != 0 && root != size - 1)
                continue;
            int use_ref = with_ref && (sizes[k] < 100000 || root == 0);
            check_bytes(comm, use_ref ? ref : MPI_COMM_NULL, sizes[k], root,
                        (uint64_t)(k * 131 + (size_t)root), what);
        }
    if (ref != MPI_COMM_NULL)
        MPI_Comm_free(&ref);
}

static void derived_types(MPI_Comm comm, const char *algo)
{
    int size;
    MPI_Comm_size(comm, &size);
    MPI_Comm ref = hc_t_vendor_dup(comm);
    char what[96];
    /* A strided column against contiguous ints, both ways; large enough to fragment. */
    int n = 20000;
    MPI_Datatype col, colr;
    MPI_Type_vector(n, 1, 3, MPI_INT, &col);
    MPI_Type_commit(&col);
    MPI_Type_vector(n / 4, 4, 6, MPI_INT, &colr); /* blocks of 4 with gaps of 2 */
    MPI_Type_commit(&colr);
    /* A struct {int; double} with padding, against the same signature laid out backwards. */
    MPI_Datatype st, st2;
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {0, 8}, disp2[2] = {16, 0};
    MPI_Datatype tys[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, bl, disp, tys, &st);
    MPI_Type_commit(&st);
    MPI_Datatype st2raw;
    MPI_Type_create_struct(2, bl, disp2, tys, &st2raw);
    MPI_Type_create_resized(st2raw, 0, 24, &st2);
    MPI_Type_commit(&st2);
    /* Same size as extent but bytes permuted: must not be taken for contiguous. */
    MPI_Datatype perm;
    int pbl[2] = {1, 1}, pdisp[2] = {1, 0};
    MPI_Type_indexed(2, pbl, pdisp, MPI_INT, &perm);
    MPI_Type_commit(&perm);
    /* A contiguous type of a contiguous type: takes the direct path. */
    MPI_Datatype c4;
    MPI_Type_contiguous(4, MPI_INT, &c4);
    MPI_Type_commit(&c4);
    /* 96 bytes, one control cell: a contiguous side takes the one-cell path, a packing side
     * the full one, and both must meet in the same cell. */
    MPI_Datatype col24;
    MPI_Type_vector(24, 1, 3, MPI_INT, &col24);
    MPI_Type_commit(&col24);

    for (int root = 0; root < size; root++) {
        uint64_t seed = 500 + (uint64_t)root;
        snprintf(what, sizeof what, "algo '%s' 24 ints->column (one cell)", algo);
        check_types(comm, ref, MPI_INT, 24, col24, 1, root, seed + 8, what);
        snprintf(what, sizeof what, "algo '%s' column->24 ints (one cell)", algo);
        check_types(comm, ref, col24, 1, MPI_INT, 24, root, seed + 9, what);
        snprintf(what, sizeof what, "algo '%s' column->ints", algo);
        check_types(comm, ref, col, 1, MPI_INT, n, root, seed, what);
        snprintf(what, sizeof what, "algo '%s' ints->column", algo);
        check_types(comm, ref, MPI_INT, n, col, 1, root, seed + 1, what);
        check_types(comm, ref, MPI_INT, n, colr, 1, root, seed + 6, what);
        snprintf(what, sizeof what, "algo '%s' struct->struct'", algo);
        check_types(comm, ref, st, 3000, st2, 3000, root, seed + 2, what);
        /* 12-byte elements against 24-byte ones over many segments: elements cut by
         * segment boundaries on both sides. */
        snprintf(what, sizeof what, "algo '%s' struct->struct' over segments", algo);
        check_types(comm, ref, st, 90001, st2, 90001, root, seed + 7, what);
        snprintf(what, sizeof what, "algo '%s' small struct", algo);
        check_types(comm, ref, st, 2, st2, 2, root, seed + 3, what);
        snprintf(what, sizeof what, "algo '%s' permuted->ints", algo);
        check_types(comm, ref, perm, 9000, MPI_INT, 18000, root, seed + 4, what);
        snprintf(what, sizeof what, "algo '%s' contiguous(4)->ints", algo);
        check_types(comm, ref, c4, 5000, MPI_INT, 20000, root, seed + 5, what);
    }
    MPI_Type_free(&col);
    MPI_Type_free(&colr);
    MPI_Type_free(&st);
    MPI_Type_free(&st2raw);
    MPI_Type_free(&st2);
    MPI_Type_free(&perm);
    MPI_Type_free(&c4);
    MPI_Type_free(&col24);
    MPI_Comm_free(&ref);
}

/* One MPI_BYTE broadcast of the pattern `seed` from root into buf (want: scratch of the same
 * size); 1 when a reader's copy differs. */
static long checked_bcast(MPI_Comm comm, unsigned char *buf, unsigned char *want, size_t bytes,
                          int root, uint64_t seed)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    hc_t_fill(want, bytes, seed);
    if (rank == root)
        memcpy(buf, want, bytes);
    else
        memset(buf, 0, bytes);
    MPI_Bcast(buf, (int)bytes, MPI_BYTE, root, comm);
    return hc_t_first_diff(buf, want, bytes) >= 0;
}

/* Back-to-back calls with varying roots and sizes on three communicators in turn. */
static void back_to_back(int calls)
{
    MPI_Comm a = hc_t_algo_dup(MPI_COMM_WORLD, "shm", ""), b, c = hc_t_algo_dup(MPI_COMM_WORLD, "", "");
    MPI_Comm_split(MPI_COMM_WORLD, 0, hc_t_size - hc_t_rank, &b);
    MPI_Comm comms[3] = {a, b, c};
    size_t cap = 3 * frag + 100;
    unsigned char *buf = malloc(cap), *want = malloc(cap);
    long bad = 0;
    for (int i = 0; i < calls; i++) {
        MPI_Comm comm = comms[i % 3];
        int size;
        MPI_Comm_size(comm, &size);
        size_t bytes = (size_t)(i * 7919) % (i % 10 == 0 ? cap : 200);
        int root = (i / 3) % size;
        bad += checked_bcast(comm, buf, want, bytes, root, (uint64_t)i);
    }
    HC_T_CHECK(bad == 0, "%ld of %d back-to-back calls wrong", bad, calls);
    free(buf);
    free(want);
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
    MPI_Comm_free(&c);
}

/* Chunk of the cooperative CMA broadcast (HC_CMA_CHUNK, collectives/bcast_cma.c). */
#define CMA_CHUNK ((size_t)256 << 10)

/* The cooperative CMA path, when HIERCOLL_BCAST=shm-cma forces it: one chunk or less, several
 * chunks with a partial last one, at every root; root and readers with different (count,
 * type), packed and direct; then back-to-back calls with rotating roots and sizes, where a
 * reader that finished early publishes its next buffer while the last root still pushes. */
static void cma_chunks(MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm ref = hc_t_vendor_dup(comm);
    size_t sizes[] = {INLINE_MAX + 1, CMA_CHUNK - 1, CMA_CHUNK, CMA_CHUNK + 1, 5 * CMA_CHUNK + 777};
    char what[96];
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (int root = 0; root < size; root++) {
            snprintf(what, sizeof what, "cma size %zu", sizes[k]);
            /* The vendor is slow oversubscribed: its reference at root 0 only for big sizes. */
            int use_ref = sizes[k] <= CMA_CHUNK || root == 0;
            check_bytes(comm, use_ref ? ref : MPI_COMM_NULL, sizes[k], root,
                        (uint64_t)(9000 + k * 31 + (size_t)root), what);
        }

    /* 1311200 bytes: 5 chunks and 480 bytes. A strided column is packed on the readers; a
     * contiguous(4) of ints against doubles lands straight in the user buffers. */
    int nints = 327800;
    MPI_Datatype col, c4;
    MPI_Type_vector(nints, 1, 3, MPI_INT, &col);
    MPI_Type_commit(&col);
    MPI_Type_contiguous(4, MPI_INT, &c4);
    MPI_Type_commit(&c4);
    for (int root = 0; root < size; root++) {
        uint64_t seed = 9500 + (uint64_t)root;
        check_types(comm, ref, MPI_INT, nints, col, 1, root, seed, "cma ints->column");
        check_types(comm, ref, col, 1, MPI_INT, nints, root, seed + 1, "cma column->ints");
        check_types(comm, ref, MPI_DOUBLE, nints / 2, c4, nints / 4, root, seed + 2,
                    "cma doubles->contiguous(4)");
    }
    MPI_Type_free(&col);
    MPI_Type_free(&c4);
    MPI_Comm_free(&ref);

    size_t cap = 3 * CMA_CHUNK + 4096;
    unsigned char *buf = malloc(cap), *want = malloc(cap);
    int calls = size > 4 ? 60 : 200;
    long bad = 0;
    for (int i = 0; i < calls; i++) {
        size_t bytes = INLINE_MAX + 1 + (size_t)i * 104729 % (cap - INLINE_MAX - 1);
        int root = (i * 5 + i / size) % size;
        bad += checked_bcast(comm, buf, want, bytes, root, 7000 + (uint64_t)i);
    }
    HC_T_CHECK(bad == 0, "cma: %ld of %d back-to-back calls wrong", bad, calls);
    free(buf);
    free(want);
}

/* Buffers at offsets all over their pages, different on root and readers: the root cuts its
 * first fragment short so the rest start on its buffer's 4 KiB boundaries (bcast_shm.c), and
 * readers follow the lengths the cells give. Sizes around a fragment and beyond the queue,
 * every root. */
static void buffer_offsets(MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const size_t offs[] = {1, 4095, 2048, 4048, 0};
    size_t sizes[] = {INLINE_MAX + 1, frag - 1, frag, frag + 1, 2 * frag + 4095, queue * frag + 4097};
    size_t cap = queue * frag + 4097 + 4096 + 1;
    unsigned char *mem = malloc(cap), *want = malloc(cap);
    for (int k = 0; k < 5; k++)
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
            for (int root = 0; root < size; root++) {
                size_t bytes = sizes[z], off = (offs[k] + 40 * (size_t)rank) % 4096;
                unsigned char *got = mem + off;
                uint64_t seed = 9000 + 100 * (uint64_t)k + 10 * z + (uint64_t)root;
                hc_t_fill(want, bytes, seed);
                if (rank == root)
                    memcpy(got, want, bytes);
                else
                    hc_t_fill(got, bytes, seed + 1 + (uint64_t)rank);
                got[bytes] = 0xA5;
                hc_t_bcast_c(got, (MPI_Count)bytes, MPI_BYTE, root, comm);
                long d = hc_t_first_diff(got, want, bytes);
                HC_T_CHECK(d < 0 && got[bytes] == 0xA5,
                           "offset %zu: %zu bytes from root %d differ at %ld (guard %s)", off,
                           bytes, root, d, got[bytes] == 0xA5 ? "kept" : "overwritten");
            }
    free(mem);
    free(want);
}

int main(int argc, char **argv)
{
    hc_t_init(&argc, &argv);
    frag = env_size("HIERCOLL_BCAST_FRAG", frag);
    /* A fragment size alone keeps the queue's 256 KiB (collectives/bcast_shm.c). */
    queue = env_size("HIERCOLL_BCAST_QUEUE", getenv("HIERCOLL_BCAST_FRAG") ? (256u << 10) / frag : queue);
    const char *forced = getenv("HIERCOLL_BCAST");
    if (forced && strcmp(forced, "shm-cma") == 0) {
        /* The suite below runs too, its "auto" and split communicators on CMA. */
        MPI_Comm comm = hc_t_algo_dup(MPI_COMM_WORLD, "", "");
        cma_chunks(comm);
        MPI_Comm_free(&comm);
    }
    int big = hc_t_size > 4;
    for (int k = 0; k < (big ? 2 : NALGOS); k++) {
        MPI_Comm comm = hc_t_algo_dup(MPI_COMM_WORLD, algos[k], "");
        sizes_all_roots(comm, algos[k][0] ? algos[k] : "auto", k == 0 || !big);
        if (k < 2 || !big)
            derived_types(comm, algos[k][0] ? algos[k] : "auto");
        MPI_Comm_free(&comm);
    }
    /* Sub-communicators with other rank orders. */
    MPI_Comm rev, alt;
    MPI_Comm_split(MPI_COMM_WORLD, 0, (hc_t_rank * 5) % hc_t_size * 1000 - hc_t_rank, &rev);
    sizes_all_roots(rev, "reordered", 0);
    MPI_Comm_split(MPI_COMM_WORLD, hc_t_rank % 2, hc_t_size - hc_t_rank, &alt);
    sizes_all_roots(alt, "alternate", 0);
    MPI_Comm_free(&rev);
    MPI_Comm_free(&alt);
    back_to_back(big ? 1500 : 4000);
    buffer_offsets(MPI_COMM_WORLD);
    return hc_t_finish();
}
