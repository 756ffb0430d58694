/* hiercoll bind --mapping FILE -- PROGRAM ARGS: binds this process to the core the mapping
 * gives its rank, then runs the program in its place. Used under the launcher:
 *   mpiexec.mpich -n 8 hiercoll bind --mapping mapping.txt -- ./app args
 * The rank comes from PMI_RANK, PMI_ID, SLURM_PROCID or OMPI_COMM_WORLD_RANK. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hc_cli.h"
#include "hc_mapfile.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: hiercoll bind --mapping FILE [--quiet] -- PROGRAM [ARGS...]\n"
                 "  Binds this rank to the core FILE (a mapping.txt) assigns it, sets\n"
                 "  HIERCOLL_MAPPING=FILE so the preload checks it, and runs PROGRAM.\n"
                 "  The rank is read from PMI_RANK, PMI_ID, SLURM_PROCID or OMPI_COMM_WORLD_RANK.\n"
                 "Exit status: PROGRAM's; 1 if binding failed, 2 usage error.\n");
}

static int my_rank(void)
{
    static const char *const vars[] = {"PMI_RANK", "PMI_ID", "SLURM_PROCID",
                                       "OMPI_COMM_WORLD_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        char *end;
        if (v && *v) {
            long r = strtol(v, &end, 10);
            if (!*end && r >= 0 && r < (1L << 30))
                return (int)r;
        }
    }
    return -1;
}

int hc_cmd_bind(int argc, char **argv)
{
    const char *path = NULL;
    int quiet = 0, i = 1;
    for (; i < argc; i++) {
        if (!strcmp(argv[i], "--")) {
            i++;
            break;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return HC_EXIT_OK;
        } else if (!strcmp(argv[i], "--mapping") && i + 1 < argc) {
            path = argv[++i];
        } else if (!strncmp(argv[i], "--mapping=", 10)) {
            path = argv[i] + 10;
        } else if (!strcmp(argv[i], "--quiet")) {
            quiet = 1;
        } else {
            fprintf(stderr, "hiercoll bind: unexpected '%s'\n", argv[i]);
            usage(stderr);
            return HC_EXIT_USAGE;
        }
    }
    if (!path || i >= argc) {
        fprintf(stderr, "hiercoll bind: need --mapping FILE and -- PROGRAM\n");
        usage(stderr);
        return HC_EXIT_USAGE;
    }
    int rank = my_rank();
    if (rank < 0) {
        fprintf(stderr, "hiercoll bind: no rank in PMI_RANK, PMI_ID, SLURM_PROCID or "
                        "OMPI_COMM_WORLD_RANK (run it under the MPI launcher)\n");
        return HC_EXIT_FAIL;
    }
    hc_mapfile f;
    char err[512];
    if (hc_mapfile_read(&f, path, err, sizeof err) != 0) {
        fprintf(stderr, "hiercoll bind: %s\n", err);
        return HC_EXIT_FAIL;
    }
    if (rank >= f.nranks) {
        fprintf(stderr, "hiercoll bind: rank %d, but %s maps %d ranks\n", rank, path, f.nranks);
        hc_mapfile_free(&f);
        return HC_EXIT_FAIL;
    }
    int core = f.core[rank];
    char host[HC_MAPFILE_HOSTLEN], me[256] = "";
    hc_mapfile_physical_host(f.host[rank], host, sizeof host);
    gethostname(me, sizeof me - 1);
    if (strcmp(host, me) != 0 && !quiet)
        fprintf(stderr, "hiercoll bind: rank %d is on %s, the mapping puts it on %s\n", rank, me,
                host);
    cpu_set_t set;
    CPU_ZERO(&set);
    if (core >= CPU_SETSIZE) {
        fprintf(stderr, "hiercoll bind: core %d out of range\n", core);
        hc_mapfile_free(&f);
        return HC_EXIT_FAIL;
    }
    CPU_SET(core, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        fprintf(stderr, "hiercoll bind: rank %d: cannot bind to core %d: %s\n", rank, core,
                strerror(errno));
        hc_mapfile_free(&f);
        return HC_EXIT_FAIL;
    }
    hc_mapfile_free(&f);
    setenv("HIERCOLL_MAPPING", path, 0);
    execvp(argv[i], argv + i);
    fprintf(stderr, "hiercoll bind: cannot run %s: %s\n", argv[i], strerror(errno));
    return 127;
}
