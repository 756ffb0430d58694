/* MPI_Bcast_c with a count beyond INT_MAX, once through the queue and once through CMA: every
 * byte arrives (checked against the recomputed pattern; the vendor would double the time).
 * Skipped with MPI 3.1 (Open MPI 4.1), where broadcasts beyond 2 GiB go to the vendor.
 * hc-test: np=2 preload=yes timeout=180
 */
#include "hc_mpitest.h"

/* Byte i of the payload, computed 8 bytes at a time (2 GiB per pass must stay quick). */
static inline uint64_t word(size_t w, int root, int k)
{
    return (w * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)root << 56) ^ (uint64_t)k;
}

static void fill(unsigned char *buf, size_t bytes, int root, int k)
{
    size_t nw = bytes / 8;
    for (size_t w = 0; w < nw; w++) {
        uint64_t v = word(w, root, k);
        memcpy(buf + 8 * w, &v, 8);
    }
    for (size_t i = 8 * nw; i < bytes; i++)
        buf[i] = (unsigned char)(i ^ (size_t)k);
}

/* Index of the first wrong byte, or -1; *bad counts wrong 8-byte words and tail bytes. */
static long long check(const unsigned char *buf, size_t bytes, int root, int k, size_t *bad)
{
    long long first = -1;
    size_t nw = bytes / 8;
    *bad = 0;
    for (size_t w = 0; w < nw; w++) {
        uint64_t v = word(w, root, k), g;
        memcpy(&g, buf + 8 * w, 8);
        if (g != v && (*bad)++ == 0)
            first = (long long)(8 * w);
    }
    for (size_t i = 8 * nw; i < bytes; i++)
        if (buf[i] != (unsigned char)(i ^ (size_t)k) && (*bad)++ == 0)
            first = (long long)i;
    return first;
}

int main(int argc, char **argv)
{
    hc_t_init(&argc, &argv);
    if (!HC_T_MPI4) {
        if (hc_t_rank == 0)
            printf("skip: MPI %d.%d has no MPI_Bcast_c; beyond 2 GiB hiercoll leaves MPI_Bcast "
                   "to the vendor\n", MPI_VERSION, MPI_SUBVERSION);
        MPI_Finalize();
        return 77;
    }
    size_t bytes = (size_t)INT32_MAX + 4099;
    unsigned char *buf = malloc(bytes);
    HC_T_CHECK(buf != NULL, "cannot allocate %zu bytes", bytes);
    static const char *algos[] = {"shm", "shm-cma"};
    for (int k = 0; k < 2 && buf; k++) {
        MPI_Comm comm = hc_t_algo_dup(MPI_COMM_WORLD, algos[k], "");
        int root = (hc_t_size - 1 + k) % hc_t_size;
        if (hc_t_rank == root)
            fill(buf, bytes, root, k);
        else
            memset(buf, 0, bytes);
        hc_t_bcast_c(buf, (MPI_Count)bytes, MPI_BYTE, root, comm);
        size_t bad;
        long long first = check(buf, bytes, root, k, &bad);
        HC_T_CHECK(bad == 0, "%s: %zu wrong words of %zu bytes, first at %lld", algos[k], bad,
                   bytes, first);
        MPI_Comm_free(&comm);
    }
    free(buf);
    return hc_t_finish();
}
