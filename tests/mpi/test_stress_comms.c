/* Communicator churn: create, use with a broadcast (and every 8th with an allreduce), free,
 * 10 000 times. The library's per-communicator state (context, sub-communicators, shared
 * segment) must go with each communicator: resident memory, open descriptors, shared-memory
 * mappings (but the few segments kept for reuse) and /dev/shm files stay flat. Checked after
 * a warm-up, on every rank.
 * HC_STRESS_FULL=1 (make stress): 10 000 at 2 ranks, 2 000 at 4; `make test` does 500
 * at 2 ranks and 80 at 4 (a communicator's shared-memory setup costs tens of ms on
 * this loaded machine). HC_STRESS_COMMS sets the number. A watchdog (alarm) ends a run that
 * takes far too long, so a slow leak cannot hold `make test` for the whole timeout.
 * hc-test: np=2 preload=both timeout=1800
 * hc-test: np=4 preload=yes timeout=1800 env=HIERCOLL_VIRTUAL_NODE_SIZE=2
 */
#include <dirent.h>
#include <unistd.h>

#include "hc_mpitest.h"

#define HC_MAX(a, b) ((a) > (b) ? (a) : (b))

static long rss_kib(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static int count_dir(const char *path, const char *prefix)
{
    DIR *d = opendir(path);
    int n = 0;
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.' && (!prefix || strncmp(e->d_name, prefix, strlen(prefix)) == 0))
            n++;
    closedir(d);
    return n;
}

/* Mappings of shared segments: named ones (unlinked, "(deleted)") and memfds. */
static int shm_mappings(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int n = 0;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        n += strstr(line, "/dev/shm/") != NULL || strstr(line, "memfd:") != NULL;
    fclose(f);
    return n;
}

typedef struct usage {
    long rss_kib;
    int fds, maps, shm_files;
} usage;

static usage measure(const char *shm_prefix)
{
    return (usage){rss_kib(), count_dir("/proc/self/fd", NULL), shm_mappings(),
                   count_dir("/dev/shm", shm_prefix)};
}

int main(int argc, char **argv)
{
    hc_t_init(&argc, &argv);
    const char *full = getenv("HC_STRESS_FULL");
    int is_full = full && *full && strcmp(full, "0") != 0;
    long n = is_full ? (hc_t_size <= 2 ? 10000 : 2000) : hc_t_size <= 2 ? 500 : 80, warmup = n / 10;
    const char *n_env = getenv("HC_STRESS_COMMS");
    if (n_env)
        n = atol(n_env), warmup = n / 10;
    alarm(is_full ? 1750 : 300);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "hiercoll-%u-", (unsigned)getuid());

    enum { BYTES = 8192 };
    unsigned char *buf = malloc(BYTES), *want = malloc(BYTES);
    usage base = {0}, peak = {0};
    double t0 = MPI_Wtime();
    for (long i = 0; i < n; i++) {
        MPI_Comm c;
        if (i % 3 == 2)
            MPI_Comm_split(MPI_COMM_WORLD, 0, hc_t_size - hc_t_rank, &c);
        else
            MPI_Comm_dup(MPI_COMM_WORLD, &c);
        int rank, size;
        MPI_Comm_rank(c, &rank);
        MPI_Comm_size(c, &size);
        int root = (int)(i % size);
        hc_t_fill(want, BYTES, (uint64_t)i);
        if (rank == root)
            memcpy(buf, want, BYTES);
        else
            memset(buf, 0, BYTES);
        MPI_Bcast(buf, BYTES, MPI_BYTE, root, c);
        HC_T_CHECK(memcmp(buf, want, BYTES) == 0, "communicator %ld: bcast wrong", i);
        if (i % 8 == 0) {
            long x = rank + i, s = 0;
            MPI_Allreduce(&x, &s, 1, MPI_LONG, MPI_SUM, c);
            HC_T_CHECK(s == (long)size * (size - 1) / 2 + (long)size * i,
                       "communicator %ld: allreduce gave %ld", i, s);
        }
        MPI_Comm_free(&c);
        if (i == warmup - 1)
            base = peak = measure(prefix);
        if (i >= warmup && i % 97 == 0) {
            usage u = measure(prefix);
            peak.rss_kib = HC_MAX(peak.rss_kib, u.rss_kib);
            peak.fds = HC_MAX(peak.fds, u.fds);
            peak.maps = HC_MAX(peak.maps, u.maps);
            peak.shm_files = HC_MAX(peak.shm_files, u.shm_files);
        }
    }
    double secs = MPI_Wtime() - t0;
    usage end = measure(prefix);
    peak.rss_kib = HC_MAX(peak.rss_kib, end.rss_kib);
    /* Allocator noise is a few hundred KiB; a leak of 100 bytes per communicator is 1 MiB. */
    long grew = peak.rss_kib - base.rss_kib;
#if defined(__SANITIZE_ADDRESS__)
    grew = 0; /* ASan keeps freed blocks in quarantine: resident memory says nothing here */
#endif
    HC_T_CHECK(grew < 2048, "resident memory grew by %ld KiB over %ld communicators (%ld -> %ld)",
               grew, n - warmup, base.rss_kib, peak.rss_kib);
    HC_T_CHECK(peak.fds <= base.fds, "open descriptors grew: %d -> %d", base.fds, peak.fds);
    /* A process keeps up to 8 freed segments for the next communicator of the same ranks
     * (collectives/hc_shm.h); a leak grows with the communicators. */
    HC_T_CHECK(end.maps <= base.maps + 8 && peak.maps <= base.maps + 8,
               "shared-memory mappings grew: %d -> peak %d, end %d", base.maps, peak.maps, end.maps);
    /* Files in /dev/shm are the machine's, not only ours: the runner checks ours by name after
     * the run; here only that our churn did not pile them up. */
    HC_T_CHECK(end.shm_files <= base.shm_files + 4, "/dev/shm files grew: %d -> %d",
               base.shm_files, end.shm_files);
    if (hc_t_rank == 0)
        printf("comms: %ld communicators created, used and freed in %.1f s (%.0f us each); "
               "after warm-up: RSS %ld -> %ld KiB (peak), fds %d -> %d, /dev/shm mappings %d -> "
               "%d\n",
               n, secs, 1e6 * secs / (double)n, base.rss_kib, peak.rss_kib, base.fds, end.fds,
               base.maps, end.maps);
    free(buf);
    free(want);
    return hc_t_finish();
}
