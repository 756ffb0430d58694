/* An erroneous broadcast: the root sends ROOT_BYTES, the other ranks ask for argv[1] bytes
 * (argv[2] = root). MPI forbids it; hiercoll must stop the job with one clear line rather than
 * overrun the smaller buffer or wait for bytes that never come. Run by
 * tests/e2e/bcast_mismatch.sh (no hc-test line: the job is meant to fail). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    size_t want = (size_t)atol(argv[1]), root_bytes = (size_t)atol(argv[2]);
    size_t n = rank == 0 ? root_bytes : want;
    char *buf = calloc(n + 64, 1);
    memset(buf + n, 0x5a, 64);
    MPI_Bcast(buf, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD);
    for (int i = 0; i < 64; i++)
        if ((unsigned char)buf[n + i] != 0x5a) {
            printf("rank %d: buffer overrun\n", rank);
            return 3;
        }
    printf("rank %d: broadcast returned\n", rank);
    MPI_Finalize();
    return 0;
}
