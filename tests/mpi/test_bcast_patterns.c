/* MPI_Bcast called the way programs call it (hiercoll bench's calling patterns) equals the
 * vendor's, byte for byte:
 *   - a fixed root broadcasting one warm buffer again and again, a few elements changed between
 *     calls, the readers' buffers never rewritten;
 *   - a root that changes from call to call on the same buffers;
 *   - a buffer freed and allocated again (at the same address, as malloc usually gives it) with
 *     new contents;
 *   - every rank passing a different buffer each call, at other page offsets than the root's;
 *   - a buffer broadcast again unchanged, which readers then copy straight out of the root's
 *     shared heap (collectives/bcast_direct.c), then changed only between the words the root
 *     samples to notice a change: the readers must still get the new bytes;
 *   - messages on both sides of 4 KiB, where the root's copy into the queue changes to
 *     non-temporal stores (collectives/bcast_select.c), carried by datatypes that differ
 *     between root and readers (contiguous, vector with holes, struct);
 *   - back to back, a root that changes every call and a length that alternates between two
 *     values: a reader done with one call may already announce the next call's length while
 *     the previous root still serves the others (the single copy once took that length for
 *     its own call's and stopped the job with a false signature error; run at 5 ranks on 2
 *     cores, as it was seen).
 * hc-test: np=2,3 preload=both timeout=120
 * hc-test: np=4 preload=yes timeout=180 env=HIERCOLL_VIRTUAL_NODE_SIZE=2
 * hc-test: np=3 preload=yes timeout=120 env=HIERCOLL_BCAST=shm-cma
 * hc-test: np=3 preload=yes timeout=120 env=HIERCOLL_BCAST_DIRECT=on
 * hc-test: np=4 preload=yes timeout=180 env=HIERCOLL_VIRTUAL_NODE_SIZE=2,HIERCOLL_BCAST_DIRECT=on
 * hc-test: np=5 preload=yes timeout=240 env=HIERCOLL_BCAST=shm-cma
 */
#include "hc_mpitest.h"

static MPI_Comm tested, ref;
static const size_t sizes[] = {100, 4095, 4096, 4097, 40000, 300000};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* Broadcasts `bytes` of buf from root on the tested communicator, and the same message on the
 * vendor's into a copy, then compares the two byte for byte. */
static void bcast_and_check(unsigned char *buf, size_t bytes, int root, const char *what)
{
    unsigned char *want = malloc(bytes);
    memcpy(want, buf, bytes); /* the root's data; readers' copies are overwritten */
    MPI_Bcast(want, (int)bytes, MPI_BYTE, root, ref);
    MPI_Bcast(buf, (int)bytes, MPI_BYTE, root, tested);
    long at = hc_t_first_diff(buf, want, bytes);
    HC_T_CHECK(at < 0, "%s: %zu bytes from root %d differ from byte %ld", what, bytes, root, at);
    free(want);
}

/* One element in 61 changes on the root between calls, as a solver's step changes its state;
 * nobody rewrites anything else, so the root's data stays hot and the readers' buffers hold
 * the previous message. */
static void warm_buffer(int rotate)
{
    for (size_t s = 0; s < NSIZES; s++) {
        unsigned char *buf = malloc(sizes[s]);
        hc_t_fill(buf, sizes[s], 7); /* every rank starts with the same bytes */
        for (int k = 0; k < 24; k++) {
            int root = rotate ? k % hc_t_size : 0;
            if (hc_t_rank == root)
                for (size_t i = (size_t)k % 61; i < sizes[s]; i += 61)
                    buf[i] = (unsigned char)(buf[i] * 31 + k + 1);
            char what[64];
            snprintf(what, sizeof what, "%s root, call %d", rotate ? "rotating" : "fixed", k);
            bcast_and_check(buf, sizes[s], root, what);
        }
        free(buf);
    }
}

/* The same buffer from the same root, unchanged for a few calls (the direct path from the
 * second), then changed away from the sampled words (bcast_direct.c samples 8 words, the i-th
 * at i * (n - 8) / 7), and in a sampled word. Readers scribble over their buffers first. */
static void unchanged_buffer(int root)
{
    static const size_t big[] = {300000, 1 << 20};
    for (size_t s = 0; s < 2; s++) {
        size_t n = big[s], step = (n - 8) / 7;
        unsigned char *buf = malloc(n);
        hc_t_fill(buf, n, hc_t_rank == root ? 4242 : 1);
        for (int k = 0; k < 8; k++) {
            if (hc_t_rank != root)
                memset(buf, 0x55, n);
            else if (k == 4)
                buf[9] ^= 0xff, buf[3 * step + 100] ^= 0x0f; /* between samples */
            else if (k == 6)
                buf[2 * step + 1] ^= 0x01; /* inside a sample */
            char what[64];
            snprintf(what, sizeof what, "unchanged buffer, call %d", k);
            bcast_and_check(buf, n, root, what);
        }
        free(buf);
    }
}

/* Freed and allocated again between calls: same size (so usually the same address), new
 * contents on the root, stale bytes on the readers. */
static void reallocated_buffer(void)
{
    int same_address = 0;
    for (size_t s = 0; s < NSIZES; s++) {
        void *last = NULL;
        for (int k = 0; k < 6; k++) {
            unsigned char *buf = malloc(sizes[s]);
            same_address += buf == last;
            last = buf;
            hc_t_fill(buf, sizes[s], hc_t_rank == 0 ? 1000 + (uint64_t)k : 77);
            bcast_and_check(buf, sizes[s], 0, "reallocated buffer");
            free(buf);
        }
    }
    if (hc_t_rank == 0)
        printf("reallocated buffers: %d of %zu came back at the same address\n", same_address,
               5 * NSIZES);
}

/* Each call, every rank takes another of three buffers, at page offsets 0, 1 and 4000. */
static void moving_buffers(void)
{
    static const size_t shift[3] = {0, 1, 4000};
    for (size_t s = 0; s < NSIZES; s++) {
        unsigned char *pool[3];
        for (int b = 0; b < 3; b++)
            pool[b] = aligned_alloc(4096, (sizes[s] + shift[b] + 4095) / 4096 * 4096);
        for (int k = 0; k < 9; k++) {
            int b = (hc_t_rank + k) % 3, root = (k / 3) % hc_t_size;
            unsigned char *buf = pool[b] + shift[b];
            hc_t_fill(buf, sizes[s], hc_t_rank == root ? 5000 + (uint64_t)k : 3);
            bcast_and_check(buf, sizes[s], root, "moving buffers");
        }
        for (int b = 0; b < 3; b++)
            free(pool[b]);
    }
}

/* The datatype rank r receives `bytes` with: root MPI_BYTE, then by rank a contiguous type,
 * a vector with holes (ints, stride 2: packed), a struct {int, char[3]} packed in pairs.
 * Sets *count and returns the type (to be freed unless named); *extent is the span in bytes. */
static MPI_Datatype type_for(int r, size_t bytes, int *count, size_t *extent)
{
    MPI_Datatype t;
    switch (r % 4) {
    case 0:
        *count = (int)bytes, *extent = bytes;
        return MPI_BYTE;
    case 1:
        MPI_Type_contiguous((int)bytes, MPI_BYTE, &t);
        *count = 1, *extent = bytes;
        break;
    case 2: /* whole ints with a hole after each, then the tail as bytes */
    {
        int n = (int)(bytes / 4), tail = (int)(bytes % 4);
        MPI_Datatype v, parts[2] = {0, MPI_BYTE};
        MPI_Type_vector(n, 1, 2, MPI_INT, &v);
        parts[0] = v;
        int lens[2] = {1, tail};
        MPI_Aint disp[2] = {0, (MPI_Aint)n * 8};
        MPI_Type_create_struct(tail ? 2 : 1, lens, disp, parts, &t);
        MPI_Type_free(&v);
        *count = 1, *extent = (size_t)n * 8 + (size_t)tail;
        break;
    }
    default: /* 7-byte elements {int, 3 chars}, then bytes */
    {
        int n = (int)(bytes / 7), tail = (int)(bytes % 7);
        int lens[3] = {1, 3, tail};
        MPI_Aint disp[3] = {0, 4, 0};
        MPI_Datatype one, ty[3] = {MPI_INT, MPI_CHAR, MPI_BYTE}, vec;
        MPI_Type_create_struct(2, lens, disp, ty, &one);
        MPI_Type_contiguous(n, one, &vec);
        MPI_Type_free(&one);
        MPI_Aint ext = 0, lb;
        MPI_Type_get_extent(vec, &lb, &ext);
        MPI_Datatype parts[2] = {vec, MPI_BYTE};
        int plens[2] = {1, tail};
        MPI_Aint pdisp[2] = {0, ext};
        MPI_Type_create_struct(tail ? 2 : 1, plens, pdisp, parts, &t);
        MPI_Type_free(&vec);
        *count = 1, *extent = (size_t)ext + (size_t)tail;
        break;
    }
    }
    MPI_Type_commit(&t);
    return t;
}

static void mixed_datatypes(void)
{
    for (size_t s = 0; s < NSIZES; s++)
        for (int root = 0; root < hc_t_size; root++) {
            int count;
            size_t extent;
            MPI_Datatype t = type_for(hc_t_rank, sizes[s], &count, &extent);
            unsigned char *buf = malloc(extent), *want = malloc(extent);
            hc_t_fill(buf, extent, hc_t_rank == root ? 9000 + s : 11);
            memcpy(want, buf, extent);
            MPI_Bcast(want, count, t, root, ref);
            MPI_Bcast(buf, count, t, root, tested);
            long at = hc_t_first_diff(buf, want, extent);
            HC_T_CHECK(at < 0, "mixed datatypes: %zu bytes from root %d: rank %d's type differs at "
                       "byte %ld", sizes[s], root, hc_t_rank, at);
            free(buf);
            free(want);
            if (t != MPI_BYTE)
                MPI_Type_free(&t);
        }
}

/* Calls back to back, root k % size, 179 and 136 bytes in turn (above a cell's inline bytes, so
 * the single copy carries them when forced), the contents a function of the call: checked
 * without the vendor, so that nothing slows the calls down between them. */
static void lengths_alternating(void)
{
    enum { CALLS = 20000 };
    unsigned char buf[179];
    long bad = -1;
    for (int k = 0; k < CALLS; k++) {
        size_t bytes = k & 1 ? 136 : 179;
        int root = k % hc_t_size;
        if (hc_t_rank == root)
            hc_t_fill(buf, bytes, (uint64_t)k);
        else
            memset(buf, 0, sizeof buf);
        MPI_Bcast(buf, (int)bytes, MPI_BYTE, root, tested);
        unsigned char want[179];
        hc_t_fill(want, bytes, (uint64_t)k);
        if (bad < 0 && hc_t_first_diff(buf, want, bytes) >= 0)
            bad = k;
    }
    HC_T_CHECK(bad < 0, "alternating lengths, rotating root: call %ld got other bytes", bad);
}

int main(int argc, char **argv)
{
    hc_t_init(&argc, &argv);
    MPI_Comm_dup(MPI_COMM_WORLD, &tested);
    ref = hc_t_vendor_dup(MPI_COMM_WORLD);
    warm_buffer(0);
    warm_buffer(1);
    unchanged_buffer(0);
    unchanged_buffer(hc_t_size - 1);
    reallocated_buffer();
    moving_buffers();
    mixed_datatypes();
    lengths_alternating();
    MPI_Comm_free(&tested);
    MPI_Comm_free(&ref);
    return hc_t_finish();
}
