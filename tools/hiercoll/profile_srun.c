/* hiercoll profile under srun: the profiler's variables reach the ranks through srun's
 * --export (srun itself stays free of the library), and next-run.sh is written again after
 * the run from srun's command line, which the ranks cannot see (their parent is slurmstepd). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hc_mapfile.h"
#include "hc_next_run.h"
#include "launcher.h"
#include "profile_srun.h"

extern char **environ;

/* The value of the launcher's --export in argv[1..prog) (*at: its index, or -1), else
 * SLURM_EXPORT_ENV, else srun's default ALL. */
static const char *export_of(char **argv, int prog, int *at)
{
    *at = -1;
    const char *v = NULL;
    for (int i = 1; i < prog; i++) {
        hc_launch_opt o;
        hc_launch_opt_at(HC_LAUNCH_SRUN, argv + i, prog - i, &o);
        if (!strncmp(argv[i], "--export=", 9))
            v = argv[i] + 9, *at = i;
        else if (!strcmp(argv[i], "--export") && o.words == 2)
            v = argv[i + 1], *at = i;
        i += o.words - 1;
    }
    const char *env = getenv("SLURM_EXPORT_ENV");
    return v ? v : env && *env ? env : "ALL";
}

char **hc_srun_command(char **argv, int argc, const char *lib, const char *dir, char **export)
{
    if (strchr(lib, ',') || strchr(dir, ',')) {
        fprintf(stderr, "hiercoll profile: srun's --export cannot carry a path with a comma: "
                        "%s\n", strchr(lib, ',') ? lib : dir);
        return NULL;
    }
    int prog = hc_launch_program_index(HC_LAUNCH_SRUN, argv, argc), at;
    const char *base = export_of(argv, prog, &at);
    size_t len = strlen(base) + strlen(lib) + strlen(dir) + 64;
    char *exp = malloc(len);
    char **cmd = calloc((size_t)argc + 2, sizeof *cmd);
    if (!exp || !cmd) {
        free(exp);
        free(cmd);
        fprintf(stderr, "hiercoll profile: out of memory\n");
        return NULL;
    }
    /* "NONE,..." still sets the listed ones; ours come last, so they win */
    snprintf(exp, len, "--export=%s,LD_PRELOAD=%s,HIERCOLL_PROFILE=%s", base, lib, dir);
    int n = 0;
    cmd[n++] = argv[0];
    for (int i = 1; i < argc; i++) {
        if (i == at) {
            i += strncmp(argv[i], "--export=", 9) != 0; /* its value was the next word */
            continue;
        }
        if (i == prog)
            cmd[n++] = exp; /* just before the program: after every option of the user's */
        cmd[n++] = argv[i];
    }
    if (prog >= argc)
        cmd[n++] = exp;
    cmd[n] = NULL;
    *export = exp;
    return cmd;
}

/* This program's path, for next-run.sh. */
static void self_path(char *buf, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    buf[n > 0 ? n : 0] = 0;
    if (n <= 0)
        snprintf(buf, len, "hiercoll");
}

int hc_srun_next_run(const char *dir, char **argv, int argc, const char *lib,
                     hc_mpi_family fam)
{
    char path[PATH_MAX + 32], err[512], tool[PATH_MAX], cwd[PATH_MAX];
    snprintf(path, sizeof path, "%s/mapping.txt", dir);
    hc_mapfile f;
    if (access(path, R_OK) != 0)
        return 0; /* no mapping, no next run */
    if (hc_mapfile_read(&f, path, err, sizeof err) != 0) {
        fprintf(stderr, "hiercoll profile: %s\n", err);
        return -1;
    }
    self_path(tool, sizeof tool);
    if (!getcwd(cwd, sizeof cwd))
        snprintf(cwd, sizeof cwd, ".");
    /* what the ranks got: the library, and this environment's HIERCOLL_* (srun's --export) */
    int nenv = 0;
    for (char **e = environ; *e; e++)
        nenv++;
    char **env = malloc(sizeof *env * (size_t)(nenv + 1)), pre[PATH_MAX + 16];
    snprintf(pre, sizeof pre, "LD_PRELOAD=%s", lib);
    nenv = 0;
    if (env) {
        env[nenv++] = pre;
        for (char **e = environ; *e; e++)
            if (!strncmp(*e, "HIERCOLL_", 9))
                env[nenv++] = *e;
    }
    int prog = hc_launch_program_index(HC_LAUNCH_SRUN, argv, argc);
    hc_launch l = {.kind = HC_LAUNCH_SRUN, .family = fam, .launcher = argv[0],
                   .opts = argv + 1, .nopts = prog - 1, .prog = argv + prog,
                   .nprog = argc - prog, .env = env, .nenv = nenv, .cwd = cwd, .tool = tool,
                   .slurm = 1};
    int rc = env ? hc_next_run_write(dir, &l, &f, err, sizeof err) : -1;
    if (rc != 0)
        fprintf(stderr, "hiercoll profile: %s\n", env ? err : "out of memory");
    free(env);
    hc_mapfile_free(&f);
    return rc;
}
