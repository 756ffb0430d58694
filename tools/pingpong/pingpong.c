/* hiercoll-pingpong: the profiler's overhead, in one run. The driver runs this program under
 * its MPI's launcher four ways (vendor alone, preload with profiling off, profiling without call sites,
 * profiling with call sites of depth 1), interleaved over several rounds so that the load of a
 * shared machine hits every mode alike, and prints medians:
 *   - 8-byte ping-pong one-way latency between 2 ranks (each one-way trip crosses two
 *     intercepted calls: a send and the matching receive), and its ratio to the vendor's;
 *   - MPI_Sendrecv of 8 bytes to oneself, CPU time per call (one intercepted, counted call,
 *     without a peer to wait for): the most direct measure of the cost added to a call.
 * Usage: hiercoll-pingpong [--rounds R] [--iters N] [--reps K] [--lib PATH]
 * (the child mode, --child, is what the driver launches). MPIEXEC names the launcher; by
 * default the launcher and the library are those of the family this binary was built for
 * (hiercoll-pingpong: MPICH, hiercoll-pingpong-ompi: Open MPI). */
#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hc_launcher.h"

#ifdef OPEN_MPI
#define BUILT_FOR HC_OMPI
#else
#define BUILT_FOR HC_MPICH
#endif

#define MODES 4
#define MAXSAMPLES 4096

#define SELF_FACTOR 50 /* self calls per ping-pong iteration: they are far cheaper */

static double clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}
static double now_ns(void)
{
    return clock_ns(CLOCK_MONOTONIC);
}
/* CPU time of this thread: on a loaded machine, wall time of a loop that never waits for a
 * peer mostly measures how long other processes held the core. */
static double cpu_ns(void)
{
    return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* --- child: the measurement under mpiexec.mpich--------------------------------------------- */
static int child(int iters, int reps)
{
    int rank, size;
    char buf[8] = {0}, in[8];
    MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "hiercoll-pingpong: the child needs 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    int peer = 1 - rank;
    for (int r = -1; r < reps; r++) { /* r = -1 warms up */
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = now_ns();
        for (int i = 0; i < iters; i++) {
            if (rank == 0) {
                MPI_Send(buf, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
                MPI_Recv(in, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(in, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
            }
        }
        double pp = (now_ns() - t0) / iters / 2;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = cpu_ns();
        long self_iters = (long)iters * SELF_FACTOR;
        for (long i = 0; i < self_iters; i++)
            MPI_Sendrecv(buf, 8, MPI_BYTE, rank, 1, in, 8, MPI_BYTE, rank, 1, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
        double self = (cpu_ns() - t0) / (double)self_iters;
        if (rank == 0 && r >= 0)
            printf("sample %.1f %.1f\n", pp, self);
    }
    MPI_Finalize();
    return 0;
}

/* --- driver ---------------------------------------------------------------------------- */
static const char *mode_name[MODES] = {"vendor (no preload)", "preload, profiling off",
                                       "profiling, no call sites", "profiling, call sites 1"};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    if (n == 0)
        return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Runs one child; appends its samples. */
static int run_mode(int mode, const char *launcher, const char *self, const char *lib,
                    const char *tmp, int run, int iters, int reps, double *pp, double *sc, int *n)
{
    char profdir[PATH_MAX + 32], it[16], rp[16];
    char *args[32];
    int na = 0;
    args[na++] = (char *)launcher;
    args[na++] = "-n";
    args[na++] = "2";
    hc_mpi_family fam = hc_launch_family(hc_launch_by_name(launcher));
    if (fam == HC_UNKNOWN_MPI)
        fam = BUILT_FOR;
    int bad = 0; /* a mode without its variables must not be timed as if it had them */
    if (mode >= 1)
        bad |= hc_launcher_env(fam, args, &na, "LD_PRELOAD", lib);
    if (mode >= 2) {
        snprintf(profdir, sizeof profdir, "%s/run%d", tmp, run);
        bad |= hc_launcher_env(fam, args, &na, "HIERCOLL_PROFILE", profdir);
        bad |= hc_launcher_env(fam, args, &na, "HIERCOLL_CALLSITES", mode == 3 ? "1" : "0");
    }
    if (bad)
        return -1;
    snprintf(it, sizeof it, "%d", iters);
    snprintf(rp, sizeof rp, "%d", reps);
    args[na++] = (char *)self;
    args[na++] = "--child";
    args[na++] = it;
    args[na++] = rp;
    args[na] = NULL;
    int out[2];
    if (pipe(out) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(out[0]);
        close(out[1]);
        return -1;
    }
    if (pid == 0) { /* the launcher: its output into the pipe, its complaints nowhere */
        dup2(out[1], STDOUT_FILENO);
        if (!freopen("/dev/null", "w", stderr))
            _exit(127);
        close(out[0]);
        close(out[1]);
        execvp(args[0], args);
        _exit(127);
    }
    close(out[1]);
    FILE *p = fdopen(out[0], "r");
    char line[256];
    double a, b;
    while (p && fgets(line, sizeof line, p))
        if (sscanf(line, "sample %lf %lf", &a, &b) == 2 && *n < MAXSAMPLES) {
            pp[*n] = a;
            sc[*n] = b;
            (*n)++;
        }
    if (p)
        fclose(p);
    else
        close(out[0]);
    int status;
    pid_t w;
    while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
        ;
    return w == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    int rounds = 5, iters = 2000, reps = 3;
    const char *lib = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--child") == 0 && i + 2 < argc)
            return child(atoi(argv[i + 1]), atoi(argv[i + 2]));
        else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc)
            iters = atoi(argv[++i]);
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--lib") == 0 && i + 1 < argc)
            lib = argv[++i];
        else {
            fprintf(stderr, "usage: hiercoll-pingpong [--rounds R] [--iters N] [--reps K] "
                            "[--lib libhiercoll.so]\n");
            return strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    if (rounds < 1 || iters < 1 || reps < 1 || rounds * reps > MAXSAMPLES) {
        fprintf(stderr, "hiercoll-pingpong: rounds, iters, reps must be positive\n");
        return 2;
    }
    char self[PATH_MAX], deflib[PATH_MAX + 32];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sl <= 0) {
        perror("hiercoll-pingpong: /proc/self/exe");
        return 1;
    }
    self[sl] = 0;
    if (!lib) { /* BUILD/bin/hiercoll-pingpong -> BUILD/lib/libhiercoll.so */
        snprintf(deflib, sizeof deflib, "%s", self);
        char *slash = strrchr(deflib, '/');
        *slash = 0;
        snprintf(slash, sizeof deflib - (size_t)(slash - deflib), "/../lib/libhiercoll%s.so",
                 hc_family_suffix(BUILT_FOR));
        lib = deflib;
    }
    if (access(lib, R_OK) != 0) {
        fprintf(stderr, "hiercoll-pingpong: %s not found (use --lib)\n", lib);
        return 1;
    }
    const char *launcher = getenv("MPIEXEC") ? getenv("MPIEXEC") : hc_family_launcher(BUILT_FOR);
    char tmp[] = "/tmp/hiercoll-pingpong.XXXXXX";
    if (!mkdtemp(tmp)) {
        perror("hiercoll-pingpong: mkdtemp");
        return 1;
    }
    static double pp[MODES][MAXSAMPLES], sc[MODES][MAXSAMPLES];
    int n[MODES] = {0}, run = 0, rc = 0;
    printf("hiercoll-pingpong: 8-byte messages, 2 ranks, %d rounds x %d repetitions x %d "
           "iterations per mode (medians)\n",
           rounds, reps, iters);
    fflush(stdout);
    for (int r = 0; r < rounds && rc == 0; r++)
        for (int m = 0; m < MODES && rc == 0; m++)
            if (run_mode(m, launcher, self, lib, tmp, run++, iters, reps, pp[m], sc[m], &n[m])) {
                fprintf(stderr, "hiercoll-pingpong: the run in mode '%s' failed\n", mode_name[m]);
                rc = 1;
            }
    char rm[sizeof tmp + 16];
    snprintf(rm, sizeof rm, "rm -rf '%s'", tmp);
    if (system(rm) != 0)
        fprintf(stderr, "hiercoll-pingpong: could not remove %s\n", tmp);
    if (rc)
        return rc;
    double mpp[MODES], msc[MODES];
    for (int m = 0; m < MODES; m++) {
        mpp[m] = median(pp[m], n[m]);
        msc[m] = median(sc[m], n[m]);
    }
    printf("%-26s %12s %8s %12s %14s %14s\n", "mode", "one-way ns", "/vendor", "self cpu ns",
           "+ns/call (pp)", "+ns/call (self)");
    for (int m = 0; m < MODES; m++) {
        /* Added cost per intercepted call against the preload with profiling off: a one-way
         * trip crosses two calls. */
        if (m < 2)
            printf("%-26s %12.1f %8.3f %12.1f %14s %14s\n", mode_name[m], mpp[m], mpp[m] / mpp[0],
                   msc[m], "-", "-");
        else
            printf("%-26s %12.1f %8.3f %12.1f %14.1f %14.1f\n", mode_name[m], mpp[m],
                   mpp[m] / mpp[0], msc[m], (mpp[m] - mpp[1]) / 2, msc[m] - msc[1]);
    }
    return 0;
}
