/* MPI_Bcast_c with a count beyond INT_MAX, once through the queue and once through CMA: every
 * byte arrives (checked against the recomputed pattern; the vendor would double the time).
 * hc-test: np=2 preload=yes timeout=180
 */
#include "hc_mpitest.h"

static inline unsigned char pat(size_t i, int root, int k)
{
    return (unsigned char)((i * 131 + (size_t)root * 7 + (size_t)k) >> 3);
}

int main(int argc, char **argv)
{
    hc_t_init(&argc, &argv);
    size_t bytes = (size_t)INT32_MAX + 4099;
    unsigned char *buf = malloc(bytes);
    HC_T_CHECK(buf != NULL, "cannot allocate %zu bytes", bytes);
    static const char *algos[] = {"shm", "shm-cma"};
    for (int k = 0; k < 2 && buf; k++) {
        MPI_Comm comm = hc_t_algo_dup(MPI_COMM_WORLD, algos[k], "");
        int root = (hc_t_size - 1 + k) % hc_t_size;
        for (size_t i = 0; i < bytes; i++)
            buf[i] = hc_t_rank == root ? pat(i, root, k) : 0;
        MPI_Bcast_c(buf, (MPI_Count)bytes, MPI_BYTE, root, comm);
        size_t bad = 0, first = 0;
        for (size_t i = 0; i < bytes; i++)
            if (buf[i] != pat(i, root, k) && bad++ == 0)
                first = i;
        HC_T_CHECK(bad == 0, "%s: %zu of %zu bytes wrong, first at %zu", algos[k], bad, bytes,
                   first);
        MPI_Comm_free(&comm);
    }
    free(buf);
    return hc_t_finish();
}
