/* next-run.sh at finalize (rank 0): how this run was launched, as far as this process can see
 * it, handed to the launcher module (mapping/next_run.c). The launcher among rank 0's
 * ancestors gives its command line; where only its helper is there (srun's slurmstepd, or
 * Hydra and mpirun inside a Slurm allocation, whose helpers srun started) its options are not
 * known, and `hiercoll profile`, which ran the launcher, writes next-run.sh again with them.
 * Without either, the MPI family this library is built for decides. */
#include <dlfcn.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hc_launch_proc.h"
#include "hc_log.h"
#include "hc_next_run.h"
#include "hc_preload.h"

extern char **environ;

/* hiercoll beside this library: .../lib/libhiercoll*.so -> .../bin/hiercoll, else on PATH. */
static void tool_path(char *tool, size_t len)
{
    snprintf(tool, len, "hiercoll");
    Dl_info info;
    char lib[PATH_MAX], path[PATH_MAX + 16], real[PATH_MAX];
    if (!dladdr((void *)tool_path, &info) || !info.dli_fname || !realpath(info.dli_fname, lib))
        return;
    char *slash = strrchr(lib, '/');
    if (!slash)
        return;
    *slash = 0;
    snprintf(path, sizeof path, "%s/../bin/hiercoll", lib);
    if (realpath(path, real) && access(real, X_OK) == 0)
        snprintf(tool, len, "%s", real);
}

int hc_write_next_run(const char *dir, const hc_mapfile *f)
{
    hc_launch_found found;
    if (hc_launch_find(&found) != 0)
        return -1;
    char tool[PATH_MAX], cwd[PATH_MAX], err[512];
    tool_path(tool, sizeof tool);
    if (!getcwd(cwd, sizeof cwd)) {
        hc_launch_found_free(&found);
        return -1;
    }
    /* LD_PRELOAD and HIERCOLL_* of this rank */
    int nenv = 0;
    for (char **e = environ; *e; e++)
        nenv++;
    char **env = malloc(sizeof *env * (size_t)(nenv + 1));
    nenv = 0;
    for (char **e = environ; env && *e; e++)
        if (!strncmp(*e, "LD_PRELOAD=", 11) || !strncmp(*e, "HIERCOLL_", 9))
            env[nenv++] = *e;
    const char *mpiexec = getenv("MPIEXEC");
    int direct = found.kind != HC_LAUNCH_NONE && !found.helper && found.prog >= 0;
    hc_launch l = {
        .kind = found.kind,
#ifdef OPEN_MPI
        .family = HC_OMPI,
#else
        .family = HC_MPICH,
#endif
        .launcher = !found.helper && found.kind != HC_LAUNCH_NONE ? found.launcher.argv[0]
                    : found.kind == HC_LAUNCH_NONE && mpiexec && *mpiexec ? mpiexec
                                                                          : NULL,
        .opts = direct ? found.launcher.argv + 1 : NULL,
        .nopts = direct ? found.prog - 1 : 0,
        .prog = found.self.argv,
        .nprog = found.self.argc,
        .env = env,
        .nenv = nenv,
        .cwd = cwd,
        .tool = tool,
        .slurm = getenv("SLURM_JOB_ID") != NULL,
        .note = direct ? NULL
                : found.helper ? "the first run's launcher ran on another host or through "
                                 "srun: its options are not repeated"
                : found.kind != HC_LAUNCH_NONE ? "the first run's launcher ran another program "
                                                 "first: its options are not repeated"
                                               : "the first run's launcher was not found: its "
                                                 "options are not repeated"};
    if (l.kind == HC_LAUNCH_NONE && mpiexec && *mpiexec)
        l.kind = hc_launch_by_name(mpiexec);
    /* srun's PMI plugin, which the ranks need to form one job, is in the tasks' environment */
    char mpi[128], *srun_opts[1] = {mpi};
    const char *type = getenv("SLURM_MPI_TYPE");
    if (l.kind == HC_LAUNCH_SRUN && !l.opts && type && *type && strcmp(type, "none") != 0) {
        snprintf(mpi, sizeof mpi, "--mpi=%s", type);
        l.opts = srun_opts;
        l.nopts = 1;
    }
    int rc = env ? hc_next_run_write(dir, &l, f, err, sizeof err) : -1;
    if (rc != 0)
        hc_warn("mapping: %s", env ? err : "out of memory writing next-run.sh");
    free(env);
    hc_launch_found_free(&found);
    return rc;
}
