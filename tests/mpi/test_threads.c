/* MPI_THREAD_MULTIPLE: several threads per rank run broadcasts, allreduces and point-to-point
 * at the same time, each on its own communicator (duplicates and splits of MPI_COMM_WORLD,
 * some first used from inside the threads, so contexts are built concurrently), with the
 * profiler on. Results are checked against local references; the profile written at
 * MPI_Finalize is read back. The fourth line runs the single-copy paths (off by default), the
 * last the program's point-to-point waits yielding (HIERCOLL_P2P_YIELD).
 * hc-test: np=2 preload=both timeout=300
 * hc-test: np=4 preload=yes timeout=300
 * hc-test: np=4 preload=yes timeout=300 env=HIERCOLL_VIRTUAL_NODE_SIZE=2
 * hc-test: np=2 preload=yes timeout=300 env=HIERCOLL_BCAST=shm-cma,HIERCOLL_ALLREDUCE_CMA_THRESHOLD=0
 * hc-test: np=2 preload=yes timeout=300 env=HIERCOLL_P2P_YIELD=on
 */
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hc_mpitest.h"

#define NTHREADS 4

typedef struct job {
    int id;
    MPI_Comm comm; /* used by this thread only */
    long iters;
    long failures;
    long bytes;
} job;

static void *worker(void *arg)
{
    job *j = arg;
    int rank, size;
    MPI_Comm_rank(j->comm, &rank);
    MPI_Comm_size(j->comm, &size);
    enum { MAXB = 1 << 17 };
    unsigned char *buf = malloc(MAXB), *want = malloc(MAXB);
    long *in = malloc(sizeof(long) * 4096), *out = malloc(sizeof(long) * 4096);
    for (long it = 0; it < j->iters; it++) {
        uint64_t seed = (uint64_t)j->id * 1000003u + (uint64_t)it;
        size_t bytes = (size_t)(seed * 2654435761u % MAXB);
        if (it % 5 == 0)
            bytes %= 64; /* small messages take other paths */
        int root = (int)(it % size);
        hc_t_fill(want, bytes, seed);
        if (rank == root)
            memcpy(buf, want, bytes);
        else
            memset(buf, 0xcc, bytes);
        MPI_Bcast(buf, (int)bytes, MPI_BYTE, root, j->comm);
        if (memcmp(buf, want, bytes) != 0 && j->failures++ < 3)
            fprintf(stderr, "[rank %d thread %d] bcast %ld of %zu bytes wrong\n", hc_t_rank, j->id,
                    it, bytes);

        int n = (int)(1 + seed % 4096);
        for (int i = 0; i < n; i++)
            in[i] = (long)rank * 7 + i + (long)it;
        MPI_Allreduce(in, out, n, MPI_LONG, MPI_SUM, j->comm);
        long bad = 0;
        for (int i = 0; i < n; i++)
            bad += out[i] != 7L * size * (size - 1) / 2 + (long)size * (i + it);
        if (bad && j->failures++ < 3)
            fprintf(stderr, "[rank %d thread %d] allreduce %ld: %ld of %d wrong\n", hc_t_rank,
                    j->id, it, bad, n);

        /* A ring exchange on the same communicator. */
        long s = (long)rank * 100 + it, r = -1;
        MPI_Sendrecv(&s, 1, MPI_LONG, (rank + 1) % size, 5, &r, 1, MPI_LONG,
                     (rank + size - 1) % size, 5, j->comm, MPI_STATUS_IGNORE);
        if (r != (long)((rank + size - 1) % size) * 100 + it && j->failures++ < 3)
            fprintf(stderr, "[rank %d thread %d] sendrecv %ld got %ld\n", hc_t_rank, j->id, it, r);
        j->bytes += (long)bytes;
    }
    free(buf);
    free(want);
    free(in);
    free(out);
    return NULL;
}

/* The profile directory: the same path on every rank of the node (the launcher's proxy is
 * everyone's parent), set before MPI_Init so the library reads it there. */
static char profdir[256];
static long expect_p2p; /* bytes of the threads' sendrecvs, summed over ranks */

static int check_profile(void)
{
    char path[300], line[256];
    snprintf(path, sizeof path, "%s/comm_bytes.csv", profdir);
    FILE *f = fopen(path, "r");
    if (!f) {
        printf("threads: no %s written\n", path);
        return 1;
    }
    long rows = 0, coll = 0, p2p = 0;
    while (fgets(line, sizeof line, f)) {
        long a, b, p, c, t;
        if (sscanf(line, "%ld,%ld,%ld,%ld,%ld", &a, &b, &p, &c, &t) == 5) {
            rows++;
            p2p += p;
            coll += c;
            if (t != p + c) {
                printf("threads: comm_bytes.csv row %ld,%ld: total %ld != %ld + %ld\n", a, b, t,
                       p, c);
                fclose(f);
                return 1;
            }
        }
    }
    fclose(f);
    printf("threads: profile %s: %ld pairs, %ld p2p bytes, %ld collective bytes\n", profdir, rows,
           p2p, coll);
    /* The only user point-to-point traffic is each thread's 8-byte sendrecv per iteration;
     * the library's own PMPI traffic must not be counted. */
    if (p2p != expect_p2p)
        printf("threads: profile counts %ld p2p bytes, the threads sent %ld\n", p2p, expect_p2p);
    return rows > 0 && p2p == expect_p2p && coll > 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    int preloaded = hc_t_preloaded();
    if (preloaded && !getenv("HIERCOLL_PROFILE")) {
        snprintf(profdir, sizeof profdir, "/tmp/hc-threads-prof-%d", (int)getppid());
        setenv("HIERCOLL_PROFILE", profdir, 1);
    }
    int provided = hc_t_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (hc_t_rank == 0)
            printf("threads: MPI_THREAD_MULTIPLE not provided (%d): skipped\n", provided);
        MPI_Finalize();
        return 77;
    }
    const char *full = getenv("HC_STRESS_FULL");
    long iters = 50; /* the vendor's path is slow with 4 threads per rank on 2 cores */
    if (full && *full && strcmp(full, "0") != 0)
        iters *= 10;

    job jobs[NTHREADS];
    pthread_t th[NTHREADS];
    for (int t = 0; t < NTHREADS; t++) {
        jobs[t] = (job){t, MPI_COMM_NULL, iters, 0, 0};
        if (t % 2)
            MPI_Comm_dup(MPI_COMM_WORLD, &jobs[t].comm);
        else /* different orders, so the threads' communicators differ in roots and nodes */
            MPI_Comm_split(MPI_COMM_WORLD, 0, (hc_t_rank * (t + 1)) % hc_t_size * hc_t_size + hc_t_rank,
                           &jobs[t].comm);
    }
    for (int t = 0; t < NTHREADS; t++)
        pthread_create(&th[t], NULL, worker, &jobs[t]);
    long fails = 0, bytes = 0;
    for (int t = 0; t < NTHREADS; t++) {
        pthread_join(th[t], NULL);
        fails += jobs[t].failures;
        bytes += jobs[t].bytes;
        MPI_Comm_free(&jobs[t].comm);
    }
    HC_T_CHECK(fails == 0, "%ld wrong results in threads", fails);
    long all_fails = 0;
    MPI_Allreduce(&hc_t_failures, &all_fails, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (hc_t_rank == 0)
        printf("threads: %d threads x %ld iterations (bcast, allreduce, sendrecv) on %d ranks, "
               "%ld failed\n",
               NTHREADS, iters, hc_t_size, all_fails);
    expect_p2p = (long)NTHREADS * iters * (long)sizeof(long) * hc_t_size;
    MPI_Finalize();
    int rc = all_fails ? 1 : 0;
    if (hc_t_rank == 0 && profdir[0]) {
        rc |= check_profile();
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'.[0-9]*", profdir, profdir);
        if (system(cmd) != 0)
            rc = 1;
    }
    return rc;
}
