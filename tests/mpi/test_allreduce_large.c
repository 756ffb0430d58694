/* MPI_Allreduce_c with a count beyond INT_MAX: MPI_BYTE BXOR from a separate send buffer and
 * MPI_UINT8_T SUM in place, through the shared-memory node engine and the point-to-point ring
 * (ring1d), and through the single-copy engine on the second line. Every byte is checked
 * against its exact value recomputed from the ranks' patterns (the vendor would double the
 * time). Two 2 GiB buffers per rank. MPI 3.1 (Open MPI 4.1) has no MPI_Allreduce_c: there the
 * same bytes go as half as many elements of a contiguous pair of them, so the library still
 * reduces more than INT_MAX elements of the named type.
 * hc-test: np=2 preload=yes timeout=300
 * hc-test: np=2 preload=yes timeout=300 env=HIERCOLL_ALLREDUCE_CMA_THRESHOLD=0
 */
#include "hc_mpitest.h"

/* Bytes of rank r's input, 8 at a time (2 GiB per pass must stay quick); the tail bytes
 * beyond the last whole word come from tail(). */
static inline uint64_t word(size_t w, int r, int k)
{
    uint64_t x = (w + 1) * 0x9E3779B97F4A7C15ull ^ ((uint64_t)r << 59) ^ (uint64_t)k << 61;
    return x ^ (x >> 29);
}
static inline unsigned char tail(size_t i, int r, int k) { return (unsigned char)(i * 7 + (size_t)r * 31 + (size_t)k); }

/* Eight byte-wise sums (mod 256) at once, without carries between the bytes. */
static inline uint64_t add8(uint64_t a, uint64_t b)
{
    const uint64_t hi = 0x8080808080808080ull;
    return ((a & ~hi) + (b & ~hi)) ^ ((a ^ b) & hi);
}

static void fill(unsigned char *buf, size_t bytes, int r, int k)
{
    size_t nw = bytes / 8;
    for (size_t w = 0; w < nw; w++) {
        uint64_t v = word(w, r, k);
        memcpy(buf + 8 * w, &v, 8);
    }
    for (size_t i = 8 * nw; i < bytes; i++)
        buf[i] = tail(i, r, k);
}

/* Index of the first wrong byte, or -1; *bad counts wrong words and tail bytes. */
static long long check(const unsigned char *buf, size_t bytes, int size, int sum, int k, size_t *bad)
{
    long long first = -1;
    size_t nw = bytes / 8;
    *bad = 0;
    for (size_t w = 0; w < nw; w++) {
        uint64_t want = word(w, 0, k), g;
        for (int r = 1; r < size; r++)
            want = sum ? add8(want, word(w, r, k)) : want ^ word(w, r, k);
        memcpy(&g, buf + 8 * w, 8);
        if (g != want && (*bad)++ == 0)
            first = (long long)(8 * w);
    }
    for (size_t i = 8 * nw; i < bytes; i++) {
        unsigned char want = tail(i, 0, k);
        for (int r = 1; r < size; r++)
            want = sum ? (unsigned char)(want + tail(i, r, k)) : want ^ tail(i, r, k);
        if (buf[i] != want && (*bad)++ == 0)
            first = (long long)i;
    }
    return first;
}

static void allreduce_bytes(const void *in, void *out, size_t bytes, MPI_Datatype dt, MPI_Op op,
                            MPI_Comm comm)
{
#if HC_T_MPI4
    MPI_Allreduce_c(in, out, (MPI_Count)bytes, dt, op, comm);
#else
    MPI_Datatype pair;
    MPI_Type_contiguous(2, dt, &pair);
    MPI_Type_commit(&pair);
    MPI_Allreduce(in, out, (int)(bytes / 2), pair, op, comm);
    MPI_Type_free(&pair);
#endif
}

int main(int argc, char **argv)
{
    hc_t_init(&argc, &argv);
    size_t bytes = (size_t)INT32_MAX + 4099; /* even, not a multiple of 8: the tail is checked too */
    unsigned char *in = malloc(bytes), *out = malloc(bytes);
    HC_T_CHECK(in && out, "cannot allocate 2 x %zu bytes", bytes);
    static const char *algos[] = {"", "ring1d"}; /* "": one node, so the shared-memory engine */
    for (int a = 0; a < 2 && in && out; a++) {
        MPI_Comm comm = hc_t_algo_dup(MPI_COMM_WORLD, "", algos[a]);
        for (int k = 0; k < 2; k++) {
            int sum = k == 1, key = 2 * a + k;
            fill(sum ? out : in, bytes, hc_t_rank, key);
            if (!sum)
                memset(out, 0x5a, bytes);
            allreduce_bytes(sum ? MPI_IN_PLACE : in, out, bytes, sum ? MPI_UINT8_T : MPI_BYTE,
                            sum ? MPI_SUM : MPI_BXOR, comm);
            size_t bad;
            long long first = check(out, bytes, hc_t_size, sum, key, &bad);
            HC_T_CHECK(bad == 0, "%s %s%s: %zu wrong words of %zu bytes, first at %lld",
                       a ? algos[a] : "auto", sum ? "uint8_t SUM" : "byte BXOR", sum ? " in place" : "",
                       bad, bytes, first);
        }
        MPI_Comm_free(&comm);
    }
    free(in);
    free(out);
    return hc_t_finish();
}
