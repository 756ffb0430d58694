/* Profiler, one-sided: Put, Get (data flows target -> origin), Accumulate, Get_accumulate
 * (both ways; none to the target with MPI_NO_OP), Fetch_and_op, Compare_and_swap, Rput,
 * large-count Put, MPI_PROC_NULL targets, and a window on a reversed communicator (window
 * ranks translated to world ranks). Every entry of the one-sided column is checked.
 * Run by tests/e2e/prof_matrix.sh with a fresh HIERCOLL_PROFILE directory.
 */
#include "test_prof.h"

static void expect_rma(int s, int d, unsigned long long bytes)
{
    tp_expect(s, d, TP_RMA, bytes, 1);
}

int main(int argc, char **argv)
{
    tp_init(&argc, &argv, -1);
    int n = hc_t_size, r = hc_t_rank;
    int *mem = calloc(1024, sizeof(int));
    MPI_Win win;
    MPI_Win_create(mem, 1024 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);

    /* Fence epoch. */
    int put[10], acc[4] = {1, 2, 3, 4};
    double got[3];
    for (int i = 0; i < 10; i++)
        put[i] = 100 * r + i;
    MPI_Win_fence(0, win);
    MPI_Put(put, 10, MPI_INT, (r + 1) % n, 0, 10, MPI_INT, win);
    MPI_Get(got, 3, MPI_DOUBLE, (r + 2) % n, 512, 3, MPI_DOUBLE, win);
    MPI_Accumulate(acc, 4, MPI_INT, (r + 1) % n, 20, 4, MPI_INT, MPI_SUM, win);
    hc_t_put_c(put, 6, MPI_BYTE, (r + 3) % n, 100, 6, MPI_BYTE, win);
    MPI_Put(put, 10, MPI_INT, MPI_PROC_NULL, 0, 10, MPI_INT, win);
    MPI_Win_fence(0, win);
    int from = (r + n - 1) % n;
    HC_T_CHECK(mem[9] == 100 * from + 9, "put delivered %d", mem[9]);
    for (int s = 0; s < n; s++) {
        expect_rma(s, (s + 1) % n, 40);
        expect_rma((s + 2) % n, s, 24);
        expect_rma(s, (s + 1) % n, 16);
        expect_rma(s, (s + 3) % n, 6);
    }

    /* Passive target epoch. */
    int t = (r + 1) % n, one = 1, res[2], cmp = 0;
    MPI_Request req;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win);
    MPI_Get_accumulate(acc, 2, MPI_INT, res, 2, MPI_INT, t, 40, 2, MPI_INT, MPI_SUM, win);
    MPI_Get_accumulate(NULL, 0, MPI_INT, res, 2, MPI_INT, t, 40, 2, MPI_INT, MPI_NO_OP, win);
    MPI_Fetch_and_op(&one, res, MPI_INT, t, 50, MPI_SUM, win);
    MPI_Compare_and_swap(&one, &cmp, res, MPI_INT, t, 60, win);
    MPI_Rput(put, 7, MPI_BYTE, t, 200, 7, MPI_BYTE, win, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Win_unlock(t, win);
    for (int s = 0; s < n; s++) {
        int d = (s + 1) % n;
        expect_rma(s, d, 8), expect_rma(d, s, 8);  /* get_accumulate */
        expect_rma(d, s, 8);                       /* get_accumulate, MPI_NO_OP */
        expect_rma(s, d, 4), expect_rma(d, s, 4);  /* fetch_and_op */
        expect_rma(s, d, 8), expect_rma(d, s, 4);  /* compare_and_swap */
        expect_rma(s, d, 7);                       /* rput */
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);

    /* A window on the reversed communicator: window rank k is world rank n-1-k. */
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, n - r, &rev);
    int k;
    MPI_Comm_rank(rev, &k);
    MPI_Win_create(mem, 1024 * sizeof(int), sizeof(int), MPI_INFO_NULL, rev, &win);
    MPI_Win_fence(0, win);
    MPI_Put(put, 5, MPI_INT, (k + 1) % n, 0, 5, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Comm_free(&rev);
    for (int s = 0; s < n; s++)
        expect_rma(s, n - 1 - ((n - 1 - s + 1) % n), 20);
    free(mem);
    return tp_finish();
}
