/* hiercoll bind --mapping FILE -- PROGRAM ARGS: binds this process to the core the mapping
 * gives its rank (to its host's mapped cores where the mapping puts two ranks on a core: see
 * hc_mapfile_rank_cores), then runs the program in its place. Used under the launcher:
 *   mpiexec.mpich -n 8 hiercoll bind --mapping mapping.txt -- ./app args
 *   srun -n 8 --distribution=arbitrary hiercoll bind --mapping mapping.txt \
 *        --preload libhiercoll.so --env HIERCOLL_X=1 -- ./app args
 * The rank comes from PMI_RANK, PMI_ID, SLURM_PROCID or OMPI_COMM_WORLD_RANK. A rank on
 * another host than its mapped one, or a core outside the CPUs this process may use (those
 * Slurm's or the launcher's binding gave it), is an error, never a silent wrong binding. */
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
    fprintf(out, "usage: hiercoll bind --mapping FILE [--preload LIB] [--env NAME=VALUE]...\n"
                 "                     [--quiet] -- PROGRAM [ARGS...]\n"
                 "  Binds this rank to the core FILE (a mapping.txt) assigns it (to every core\n"
                 "  FILE uses on its host where FILE puts two ranks on one core), sets\n"
                 "  HIERCOLL_MAPPING=FILE so the preload checks it, and runs PROGRAM.\n"
                 "  The rank is read from PMI_RANK, PMI_ID, SLURM_PROCID or OMPI_COMM_WORLD_RANK.\n"
                 "  --preload LIB     PROGRAM runs with LIB in LD_PRELOAD (not this command)\n"
                 "  --env NAME=VALUE  PROGRAM runs with NAME set to VALUE\n"
                 "  --quiet           no warning when the mapping's host has another name\n"
                 "Exit status: PROGRAM's; 1 if binding failed (another host, a core this\n"
                 "process may not use), 2 usage error.\n");
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

/* Prepends lib to LD_PRELOAD for the program. */
static int add_preload(const char *lib)
{
    const char *old = getenv("LD_PRELOAD");
    size_t n = strlen(lib) + (old ? strlen(old) : 0) + 2;
    char *v = malloc(n);
    if (!v)
        return -1;
    snprintf(v, n, "%s%s%s", lib, old && *old ? ":" : "", old && *old ? old : "");
    int rc = setenv("LD_PRELOAD", v, 1);
    free(v);
    return rc;
}

int hc_cmd_bind(int argc, char **argv)
{
    const char *path = NULL, *preload = NULL;
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
        } else if (!strcmp(argv[i], "--preload") && i + 1 < argc) {
            preload = argv[++i];
        } else if (!strcmp(argv[i], "--env") && i + 1 < argc) {
            char *eq = strchr(argv[++i], '=');
            if (!eq || eq == argv[i]) {
                fprintf(stderr, "hiercoll bind: --env '%s' is not NAME=VALUE\n", argv[i]);
                return HC_EXIT_USAGE;
            }
            *eq = 0;
            setenv(argv[i], eq + 1, 1);
            *eq = '=';
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
    /* Under Slurm the host is decided by the allocation: another one is a wrong placement,
     * not a name (the mapping's hosts are Slurm's node names, which are the host names). */
    if (strcmp(host, me) != 0 && getenv("SLURM_JOB_ID")) {
        fprintf(stderr, "hiercoll bind: rank %d is on %s, but %s puts it on %s (another "
                        "allocation: map again with hiercoll map --profile DIR --allocation)\n",
                rank, me, path, host);
        hc_mapfile_free(&f);
        return HC_EXIT_FAIL;
    }
    if (strcmp(host, me) != 0 && !quiet)
        fprintf(stderr, "hiercoll bind: rank %d is on %s, the mapping puts it on %s\n", rank, me,
                host);
    int cores[HC_MAPFILE_MAXCORES], ncores = hc_mapfile_rank_cores(&f, rank, cores,
                                                                   HC_MAPFILE_MAXCORES);
    cpu_set_t set, allowed;
    CPU_ZERO(&set);
    /* the CPUs this process may use: a cgroup's (Slurm's cores of the job), or the launcher's */
    int know_allowed = sched_getaffinity(0, sizeof allowed, &allowed) == 0;
    for (int k = 0; k < ncores; k++) {
        if (cores[k] >= CPU_SETSIZE) {
            fprintf(stderr, "hiercoll bind: core %d out of range\n", cores[k]);
            hc_mapfile_free(&f);
            return HC_EXIT_FAIL;
        }
        if (know_allowed && !CPU_ISSET(cores[k], &allowed)) {
            fprintf(stderr, "hiercoll bind: rank %d: core %d of %s is not among the CPUs this "
                            "process may use on %s\n", rank, cores[k], path, me);
            hc_mapfile_free(&f);
            return HC_EXIT_FAIL;
        }
        CPU_SET(cores[k], &set);
    }
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        fprintf(stderr, "hiercoll bind: rank %d: cannot bind to core %d%s: %s\n", rank, core,
                ncores > 1 ? " and its host's other mapped cores" : "", strerror(errno));
        hc_mapfile_free(&f);
        return HC_EXIT_FAIL;
    }
    hc_mapfile_free(&f);
    setenv("HIERCOLL_MAPPING", path, 0);
    if (preload && add_preload(preload) != 0) {
        fprintf(stderr, "hiercoll bind: out of memory\n");
        return HC_EXIT_FAIL;
    }
    execvp(argv[i], argv + i);
    fprintf(stderr, "hiercoll bind: cannot run %s: %s\n", argv[i], strerror(errno));
    return 127;
}
