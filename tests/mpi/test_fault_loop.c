/* A loop of checked broadcasts and allreduces for the fault scripts (tests/e2e/fault_*.sh,
 * badenv_*.sh). Not run by itself (no hc-test line): the scripts launch it and inject faults.
 *
 *   test_fault_loop [--iters N] [--bytes B] [--comms K] [--kill R:I] [--abort R:I]
 *                   [--stall R:I] [--pids]
 *     --iters N   iterations (default 20); 0 runs until killed
 *     --bytes B   broadcast size in bytes (default 65536)
 *     --comms K   cycle over K communicators: world, then dups and splits (default 3)
 *     --kill R:I  rank R sends itself SIGKILL in iteration I, after the others entered the
 *                 broadcast (they are inside the collective when it dies)
 *     --abort R:I rank R calls MPI_Abort there instead
 *     --stall R:I rank R sleeps forever there (the script then kills it or the launcher)
 *     --pids      every rank prints "pid RANK PID" first (the scripts look for its segments)
 * Prints "fault_loop: N iterations, C checks, F failed" on rank 0; exits 1 on a wrong result. */
#include <signal.h>
#include <unistd.h>

#include "hc_mpitest.h"

static int parse_pair(const char *s, int *a, int *b) { return sscanf(s, "%d:%d", a, b) == 2; }

/* What rank r contributes in iteration it: deterministic, so every rank knows every input. */
static int input_of(int r, int it, int i) { return (r + 1) * 1000 + it * 7 + i % 13; }

int main(int argc, char **argv)
{
    long iters = 20, bytes = 65536;
    int ncomms = 3, kill_r = -1, kill_i = -1, abort_r = -1, abort_i = -1, stall_r = -1,
        stall_i = -1, pids = 0;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--iters") && a + 1 < argc)
            iters = atol(argv[++a]);
        else if (!strcmp(argv[a], "--bytes") && a + 1 < argc)
            bytes = atol(argv[++a]);
        else if (!strcmp(argv[a], "--comms") && a + 1 < argc)
            ncomms = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--kill") && a + 1 < argc)
            parse_pair(argv[++a], &kill_r, &kill_i);
        else if (!strcmp(argv[a], "--abort") && a + 1 < argc)
            parse_pair(argv[++a], &abort_r, &abort_i);
        else if (!strcmp(argv[a], "--stall") && a + 1 < argc)
            parse_pair(argv[++a], &stall_r, &stall_i);
        else if (!strcmp(argv[a], "--pids"))
            pids = 1;
    }
    hc_t_init(&argc, &argv);
    if (pids) {
        printf("pid %d %d\n", hc_t_rank, (int)getpid());
        fflush(stdout);
    }
    if (ncomms < 1)
        ncomms = 1;
    MPI_Comm *comms = malloc(sizeof(MPI_Comm) * (size_t)ncomms);
    comms[0] = MPI_COMM_WORLD;
    for (int k = 1; k < ncomms; k++) {
        if (k % 2)
            MPI_Comm_dup(MPI_COMM_WORLD, &comms[k]);
        else /* reversed order: local rank 0 is not world rank 0 */
            MPI_Comm_split(MPI_COMM_WORLD, 0, hc_t_size - hc_t_rank, &comms[k]);
    }
    unsigned char *buf = malloc((size_t)bytes + 1), *want = malloc((size_t)bytes + 1);
    int ints = 1 + (int)(bytes / 64);
    int *in = malloc(sizeof(int) * (size_t)ints), *out = malloc(sizeof(int) * (size_t)ints);
    long it;
    for (it = 0; iters == 0 || it < iters; it++) {
        MPI_Comm comm = comms[it % ncomms];
        int rank, size;
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &size);
        int root = (int)(it % size);
        hc_t_fill(want, (size_t)bytes, (uint64_t)it);
        if (rank == root)
            memcpy(buf, want, (size_t)bytes);
        else
            memset(buf, 0xee, (size_t)bytes);
        if (hc_t_rank == kill_r && it == kill_i) {
            usleep(200000); /* the others are now waiting inside the broadcast */
            raise(SIGKILL);
        }
        if (hc_t_rank == abort_r && it == abort_i) {
            usleep(200000);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        if (hc_t_rank == stall_r && it == stall_i)
            for (;;)
                pause();
        MPI_Bcast(buf, (int)bytes, MPI_BYTE, root, comm);
        long d = hc_t_first_diff(buf, want, (size_t)bytes);
        HC_T_CHECK(d < 0, "iteration %ld: bcast of %ld bytes from %d differs at %ld", it, bytes,
                   root, d);

        int crank;
        MPI_Comm_rank(comm, &crank);
        for (int i = 0; i < ints; i++)
            in[i] = input_of(crank, (int)it, i);
        MPI_Allreduce(in, out, ints, MPI_INT, MPI_SUM, comm);
        int bad = 0;
        for (int i = 0; i < ints; i++) {
            long long s = 0;
            for (int r = 0; r < size; r++)
                s += input_of(r, (int)it, i);
            bad += out[i] != (int)s;
        }
        HC_T_CHECK(bad == 0, "iteration %ld: allreduce of %d ints: %d wrong", it, ints, bad);
    }
    for (int k = 1; k < ncomms; k++)
        MPI_Comm_free(&comms[k]);
    free(comms);
    free(buf);
    free(want);
    free(in);
    free(out);
    if (hc_t_rank == 0)
        printf("fault_loop: %ld iterations on %d ranks\n", it, hc_t_size);
    return hc_t_finish();
}
