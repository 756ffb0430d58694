/* Where each rank runs, seen from inside it: "rank R host H cpus C..." (the cores it may run
 * on), written to DIR/rank.R (argv[1]; the launchers' merged output may split lines). No
 * message between ranks, so the job's exit does not depend on the MPI library's cross-host
 * finalize (docs/cluster.md). */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char host[64], line[512];
    gethostname(host, sizeof host);
    cpu_set_t set;
    sched_getaffinity(0, sizeof set, &set);
    int n = snprintf(line, sizeof line, "rank %d host %s cpus", rank, host);
    for (int c = 0; c < CPU_SETSIZE && n < (int)sizeof line - 8; c++)
        if (CPU_ISSET(c, &set))
            n += snprintf(line + n, sizeof line - n, " %d", c);
    char path[4096];
    snprintf(path, sizeof path, "%s/rank.%d", argc > 1 ? argv[1] : ".", rank);
    FILE *f = fopen(path, "w");
    if (!f || fprintf(f, "%s\n", line) < 0 || fclose(f) != 0)
        perror(path);
    MPI_Finalize();
    return 0;
}
