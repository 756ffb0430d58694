/* A rank that checks its own place: it sends (rank + 1) * 100 bytes to the next rank around a
 * ring, 5 times (a task graph whose matrix the test knows exactly), then, when it runs under
 * a mapping (HIERCOLL_MAPPING, as `hiercoll bind` or next-run.sh set it), compares the host
 * and the one CPU it is bound to with the mapping's line for its rank. It writes one line to
 * DIR/job-J/rank.R (argv[1], J the Slurm job: both passes run the same command line):
 *   "rank R host H cpus C... ok|wrong (mapping says host H' core C')|unmapped"
 * No message crosses hosts after the ring, and the ring itself is short, so that MPICH's exit
 * across hosts is as unlikely to hang as it can be (docs/cluster.md). */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The mapping's host and core of rank r, from a mapping.txt: 0, or -1. */
static int mapped(const char *path, int r, char *host, size_t len, int *core)
{
    FILE *f = fopen(path, "r");
    char line[512], h[256];
    int rank, c, found = -1;
    while (f && found < 0 && fgets(line, sizeof line, f))
        if (sscanf(line, "rank %d host %255s core %d", &rank, h, &c) == 3 && rank == r) {
            snprintf(host, len, "%s", h);
            *core = c;
            found = 0;
        }
    if (f)
        fclose(f);
    return found;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char buf[6400] = {0}, in[6400];
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (int i = 0; i < 5 && size > 1; i++)
        MPI_Sendrecv(buf, (rank + 1) * 100, MPI_BYTE, next, 0, in, sizeof in, MPI_BYTE, prev, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    char me[256], line[1024], want[256];
    gethostname(me, sizeof me);
    cpu_set_t set;
    sched_getaffinity(0, sizeof set, &set);
    int n = snprintf(line, sizeof line, "rank %d host %s cpus", rank, me), only = -1;
    for (int c = 0; c < CPU_SETSIZE && n < (int)sizeof line - 64; c++)
        if (CPU_ISSET(c, &set)) {
            n += snprintf(line + n, sizeof line - (size_t)n, " %d", c);
            only = CPU_COUNT(&set) == 1 ? c : -1;
        }
    const char *path = getenv("HIERCOLL_MAPPING");
    int core;
    if (!path)
        snprintf(line + n, sizeof line - (size_t)n, " unmapped");
    else if (mapped(path, rank, want, sizeof want, &core) != 0)
        snprintf(line + n, sizeof line - (size_t)n, " wrong (no rank %d in %s)", rank, path);
    else {
        char *hash = strchr(want, '#'); /* a virtual node runs on its real host */
        if (hash)
            *hash = 0;
        int ok = !strcmp(want, me) && only == core;
        snprintf(line + n, sizeof line - (size_t)n, ok ? " ok" : " wrong (mapping says host %s "
                 "core %d)", want, core);
    }
    char out[4096];
    const char *job = getenv("SLURM_JOB_ID");
    snprintf(out, sizeof out, "%s/job-%s", argc > 1 ? argv[1] : ".", job ? job : "none");
    mkdir(out, 0777); /* every rank tries; one makes it */
    snprintf(out + strlen(out), sizeof out - strlen(out), "/rank.%d", rank);
    FILE *f = fopen(out, "w");
    if (!f || fprintf(f, "%s\n", line) < 0 || fclose(f) != 0)
        perror(out);
    MPI_Finalize();
    return 0;
}
