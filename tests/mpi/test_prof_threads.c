/* Profiler under MPI_THREAD_MULTIPLE: 4 threads per rank send concurrently (thread t sends
 * (t + 1) * 100 bytes to the next rank, ITERS times, and its own persistent request to the rank
 * after); per-thread tables must add up exactly, and call sites of all threads merge.
 * Run by tests/e2e/prof_matrix.sh with a fresh HIERCOLL_PROFILE directory.
 */
#include <pthread.h>

#include "test_prof.h"

#define THREADS 4
#define ITERS 50

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg, n = hc_t_size, r = hc_t_rank;
    int next = (r + 1) % n, prev = (r + n - 1) % n;
    char out[512] = {0}, in[512];
    for (int i = 0; i < ITERS; i++) {
        MPI_Request req;
        MPI_Isend(out, (t + 1) * 100, MPI_BYTE, next, t, MPI_COMM_WORLD, &req);
        MPI_Recv(in, sizeof in, MPI_BYTE, prev, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    /* A persistent send started from this thread. */
    MPI_Request p[2];
    MPI_Status st[2];
    int to = (r + 2) % n, from = (r + n - 2) % n;
    MPI_Send_init(out, t + 1, MPI_INT, to, 100 + t, MPI_COMM_WORLD, &p[0]);
    MPI_Recv_init(in, t + 1, MPI_INT, from, 100 + t, MPI_COMM_WORLD, &p[1]);
    for (int i = 0; i < 3; i++) {
        MPI_Startall(2, p);
        MPI_Waitall(2, p, st);
    }
    MPI_Request_free(&p[0]);
    MPI_Request_free(&p[1]);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = tp_init_provided(&argc, &argv, MPI_THREAD_MULTIPLE);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (hc_t_rank == 0)
            printf("MPI_THREAD_MULTIPLE not provided (%d): skipped\n", provided);
        MPI_Finalize();
        return 77;
    }
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    int n = hc_t_size;
    for (int s = 0; s < n; s++)
        for (int t = 0; t < THREADS; t++) {
            tp_expect(s, (s + 1) % n, TP_P2P, (unsigned long long)ITERS * (t + 1) * 100, ITERS);
            tp_expect(s, (s + 2) % n, TP_P2P, 3ull * (t + 1) * 4, 3);
        }
    return tp_finish();
}
