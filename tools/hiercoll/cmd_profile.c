/* hiercoll profile: runs an MPI launcher command with libhiercoll.so preloaded and
 * HIERCOLL_PROFILE set, then prints the profile summary and where the files are. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli_util.h"
#include "hc_cli.h"
#include "launcher.h"
#include "profile_srun.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: hiercoll profile [--out DIR] [--mpi mpich|ompi] [--] LAUNCHER ARGS...\n"
            "  e.g. hiercoll profile --out prof -- mpiexec.mpich -n 4 ./app input\n"
            "       hiercoll profile --out prof -- mpirun.openmpi -n 4 ./app input\n"
            "       hiercoll profile --out prof -- srun -n 4 --mpi=pmi2 ./app input\n"
            "  Runs the command with libhiercoll.so preloaded and HIERCOLL_PROFILE=DIR; at\n"
            "  MPI_Finalize rank 0 writes the profile and the recommended mapping into DIR.\n"
            "  --out DIR   profile directory (default hiercoll-profile-YYYYmmdd-HHMMSS)\n"
            "  --mpi F     the program's MPI family when the launcher does not tell (srun):\n"
            "              mpich or ompi (libhiercoll-ompi.so); default: the MPI library\n"
            "              the program links, else mpich\n"
            "  MPICH's Hydra gets -genv, Open MPI's mpirun.openmpi -x, srun --export; other\n"
            "  launchers the environment. Under sbatch or salloc, run hiercoll profile inside\n"
            "  the job: salloc -N 2 hiercoll profile -- srun ./app\n");
}

static int print_file(const char *dir, const char *name)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, n, stdout);
    fclose(f);
    return 0;
}

#define MAX_NUMBERED 1000 /* as the profiler: DIR, DIR.1 ... DIR.999 */

static void numbered(const char *dir, int k, char *out, size_t len)
{
    if (k == 0)
        snprintf(out, len, "%s", dir);
    else
        snprintf(out, len, "%s.%d", dir, k);
}

static int exists_numbered(const char *dir, int k)
{
    char path[PATH_MAX + 16];
    struct stat st;
    numbered(dir, k, path, sizeof path);
    return stat(path, &st) == 0;
}

/* out made absolute (ranks may run elsewhere); parent directories created. */
static int absolute(const char *out, char *dir, size_t len)
{
    char cwd[PATH_MAX];
    int w;
    if (out[0] == '/')
        w = snprintf(dir, len, "%s", out);
    else if (getcwd(cwd, sizeof cwd))
        w = snprintf(dir, len, "%s/%s", cwd, out);
    else
        return fprintf(stderr, "hiercoll profile: getcwd: %s\n", strerror(errno)), -1;
    if (w < 0 || (size_t)w >= len)
        return fprintf(stderr, "hiercoll profile: path too long: %s\n", out), -1;
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        dir[--n] = 0;
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        int rc = mkdir(dir, 0777);
        *p = '/';
        if (rc != 0 && errno != EEXIST) {
            fprintf(stderr, "hiercoll profile: cannot create %s: %s\n", dir, strerror(errno));
            return -1;
        }
    }
    return 0;
}

static int exists(const char *dir, const char *name)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, R_OK) == 0;
}

int hc_cmd_profile(int argc, char **argv)
{
    static const struct option opts[] = {{"out", required_argument, 0, 'o'},
                                         {"mpi", required_argument, 0, 'm'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    hc_mpi_family forced = HC_UNKNOWN_MPI;
    char defdir[64];
    time_t now = time(NULL);
    strftime(defdir, sizeof defdir, "hiercoll-profile-%Y%m%d-%H%M%S", localtime(&now));
    const char *out = defdir;
    int c;
    optind = 1;
    /* '+': stop at the launcher, whose options are its own. */
    while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'm':
            if ((forced = hc_family_named(optarg)) == HC_UNKNOWN_MPI) {
                fprintf(stderr, "hiercoll profile: bad --mpi '%s' (mpich or ompi)\n", optarg);
                return HC_EXIT_USAGE;
            }
            break;
        case 'h': usage(stdout); return HC_EXIT_OK;
        default: usage(stderr); return HC_EXIT_USAGE;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "hiercoll profile: no command to run\n");
        usage(stderr);
        return HC_EXIT_USAGE;
    }
    if (!*out) {
        fprintf(stderr, "hiercoll profile: --out is empty\n");
        return HC_EXIT_USAGE;
    }
    /* The launcher says the family, and how it passes variables to the ranks (keeping
     * itself free of the library); --mpi decides for launchers that do not tell. */
    const char *b = strrchr(argv[optind], '/') ? strrchr(argv[optind], '/') + 1 : argv[optind];
    if (!strcmp(b, "sbatch") || !strcmp(b, "salloc")) {
        fprintf(stderr, "hiercoll profile: %s does not run the MPI launcher itself: run "
                        "hiercoll profile inside the job (e.g. salloc -N 2 hiercoll profile "
                        "-- srun ./app)\n", b);
        return HC_EXIT_USAGE;
    }
    int srun = hc_launch_by_name(argv[optind]) == HC_LAUNCH_SRUN;
    hc_mpi_family launcher = hc_launcher_family(argv[optind]);
    hc_mpi_family fam = forced != HC_UNKNOWN_MPI ? forced : launcher;
    if (srun && fam == HC_UNKNOWN_MPI) { /* srun serves both: the program tells */
        int prog = hc_launch_program_index(HC_LAUNCH_SRUN, argv + optind, argc - optind);
        fam = prog < argc - optind ? hc_program_family(argv[optind + prog]) : HC_UNKNOWN_MPI;
    }
    const char *lib = hc_preload_lib(hc_family_suffix(fam));
    if (!lib)
        return HC_EXIT_FAIL;
    /* The profiler never overwrites: when DIR exists it writes DIR.1, DIR.2, ... So DIR is
     * not created here, and the directory this run wrote is found afterwards. */
    char dir[PATH_MAX];
    if (absolute(out, dir, sizeof dir) != 0)
        return HC_EXIT_FAIL;
    unsigned char *existed = calloc(MAX_NUMBERED, 1);
    for (int k = 0; k < MAX_NUMBERED; k++)
        existed[k] = exists_numbered(dir, k);

    int ncmd = argc - optind;
    char **args = calloc((size_t)ncmd + 8, sizeof *args);
    int n = 0;
    args[n++] = argv[optind];
    setenv("HIERCOLL_PROFILE", dir, 1);
    char **srun_cmd = NULL, *export = NULL;
    if (srun) {
        if (!(srun_cmd = hc_srun_command(argv + optind, argc - optind, lib, dir, &export))) {
            free(args);
            free(existed);
            return HC_EXIT_FAIL;
        }
        free(args);
        args = srun_cmd;
    } else if (launcher != HC_UNKNOWN_MPI) {
        hc_launcher_env(launcher, args, &n, "LD_PRELOAD", lib);
        hc_launcher_env(launcher, args, &n, "HIERCOLL_PROFILE", dir);
    } else {
        hc_env_add_preload(lib);
    }
    for (int i = optind + 1; !srun && i < argc; i++)
        args[n++] = argv[i];
    if (!srun)
        args[n] = NULL;

    fprintf(stderr, "hiercoll profile: running with the profiler, profile in %s\n", dir);
    int rc = hc_run(args);
    free(export);
    free(args);
    if (rc != 0)
        fprintf(stderr, "hiercoll profile: the program failed (exit status %d)\n", rc);
    char written[PATH_MAX + 16] = "";
    for (int k = 0; k < MAX_NUMBERED && !written[0]; k++)
        if (!existed[k] && exists_numbered(dir, k))
            numbered(dir, k, written, sizeof written);
    free(existed);
    if (!written[0] || print_file(written, "summary.txt") != 0) {
        fprintf(stderr,
                "hiercoll profile: no profile was written to %s (the program must call "
                "MPI_Init and MPI_Finalize, built with the launcher's MPI)\n",
                dir);
        return HC_EXIT_FAIL;
    }
    if (strcmp(written, dir) != 0)
        fprintf(stderr, "hiercoll profile: %s existed: the profile is in %s\n", dir, written);
    if (srun && hc_srun_next_run(written, argv + optind, argc - optind, lib, fam) != 0)
        rc = -1;
    const char *d = written;
    printf("\nProfile: %s\n", d);
    static const char *files[] = {"taskgraph.graph", "comm_bytes.csv", "comm_msgs.csv",
                                  "ranks.csv",       "callsites.txt",  "machine.txt",
                                  "mapping.txt",     "next-run.sh"};
    printf("  files:");
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        if (exists(d, files[i]))
            printf(" %s", files[i]);
    printf("\n  report:   hiercoll report %s --html %s/report.html\n", d, d);
    if (exists(d, "next-run.sh"))
        printf("  next run: sh %s/next-run.sh   (the recommended mapping)\n", d);
    return rc == 0 ? HC_EXIT_OK : HC_EXIT_FAIL;
}
