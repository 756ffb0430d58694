/* next-run.sh, written by rank 0 at finalize beside the mapping: the second run launched like
 * the first. The launcher is found among rank 0's ancestors and its command line kept, except
 * what is about placement (process counts, hosts, binding, mapping), which the mapping
 * replaces: MPICH's Hydra gets the machinefile on several hosts and `hiercoll bind` in front
 * of the program, Open MPI's mpirun the rankfile. Without a launcher among the ancestors (srun,
 * a wrapper script) the environment decides the family and only LD_PRELOAD and HIERCOLL_*
 * are carried over. */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hc_mapfile.h"
#include "hc_next_run.h"

extern char **environ;

enum launcher { HYDRA, OMPI };

/* A process's command line as arguments (into buf, which the caller frees). */
typedef struct {
    char *buf;
    char *argv[512];
    int argc;
} cmdline;

static int read_cmdline(long pid, cmdline *c)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
    memset(c, 0, sizeof *c);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t cap = 4096, len = 0, n;
    c->buf = malloc(cap + 1);
    while (c->buf && (n = fread(c->buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            char *b = realloc(c->buf, 2 * cap + 1);
            if (!b)
                free(c->buf);
            c->buf = b;
            cap *= 2;
        }
    }
    fclose(f);
    if (!c->buf)
        return -1;
    c->buf[len] = 0;
    for (size_t i = 0; i < len && c->argc < (int)(sizeof c->argv / sizeof c->argv[0]);
         i += strlen(c->buf + i) + 1)
        c->argv[c->argc++] = c->buf + i;
    if (c->argc > 0)
        return 0;
    free(c->buf);
    c->buf = NULL;
    return -1;
}

static long parent_of(long pid)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    long ppid = -1;
    if (f && fgets(line, sizeof line, f)) {
        const char *end = strrchr(line, ')'); /* the name may hold spaces */
        if (end)
            sscanf(end + 1, " %*c %ld", &ppid);
    }
    if (f)
        fclose(f);
    return ppid;
}

static const char *base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Which launcher a process is, from the program it runs: 1 found (kind set), else 0. */
static int launcher_kind(long pid, const char *argv0, enum launcher *kind)
{
    char link[64], exe[PATH_MAX];
    snprintf(link, sizeof link, "/proc/%ld/exe", pid);
    ssize_t n = readlink(link, exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    const char *e = base(exe), *a = base(argv0);
    if (!strcmp(e, "mpiexec.hydra") || !strncmp(a, "mpiexec.mpich", 13) ||
        !strncmp(a, "mpirun.mpich", 12) || !strcmp(a, "mpiexec.hydra"))
        return *kind = HYDRA, 1;
    if (!strcmp(e, "orterun") || !strcmp(e, "prterun") || !strcmp(a, "mpirun.openmpi") ||
        !strcmp(a, "orterun"))
        return *kind = OMPI, 1;
    return 0;
}

/* Options (without their leading dashes) that say how many ranks run where and how they are
 * bound: the mapping replaces them. takes: how many arguments follow. */
typedef struct {
    const char *name;
    int takes;
} opt;
static const opt hydra_placement[] = {
    {"n", 1}, {"np", 1}, {"f", 1}, {"machinefile", 1}, {"hostfile", 1}, {"hosts", 1},
    {"host", 1}, {"ppn", 1}, {"bind-to", 1}, {"binding", 1}, {"map-by", 1},
    {"order-nodes", 1}, {"configfile", 1}, {NULL, 0}};
static const opt ompi_placement[] = {
    {"n", 1}, {"np", 1}, {"c", 1}, {"H", 1}, {"host", 1}, {"hostfile", 1},
    {"machinefile", 1}, {"default-hostfile", 1}, {"rf", 1}, {"rankfile", 1}, {"map-by", 1},
    {"bind-to", 1}, {"rank-by", 1}, {"npernode", 1}, {"N", 1}, {"npersocket", 1},
    {"ppr", 1}, {"cpu-set", 1}, {"cpu-list", 1}, {"cpus-per-proc", 1}, {"cpus-per-rank", 1},
    {"bynode", 0}, {"byslot", 0}, {"bycore", 0}, {"bysocket", 0}, {"bind-to-core", 0},
    {"bind-to-socket", 0}, {"bind-to-none", 0}, {NULL, 0}};

static const opt *find_opt(const opt *table, const char *arg)
{
    if (arg[0] != '-')
        return NULL;
    const char *name = arg + (arg[1] == '-' ? 2 : 1);
    size_t len = strcspn(name, "=");
    for (const opt *o = table; o->name; o++)
        if (strlen(o->name) == len && !strncmp(o->name, name, len))
            return o;
    return NULL;
}

/* Variables whose value belongs to one run only: the next run gets its own. */
static int run_specific(const char *var, size_t len)
{
    return (len == 16 && !strncmp(var, "HIERCOLL_PROFILE", 16)) ||
           (len == 16 && !strncmp(var, "HIERCOLL_MAPPING", 16));
}

/* The environment options of each launcher: NAME VALUE (Hydra), NAME[=VALUE] (Open MPI). */
static int env_option(enum launcher k, char **a, int n, const char **var, size_t *len)
{
    const char *o = a[0] + (a[0][1] == '-' ? 2 : 1);
    if (a[0][0] != '-')
        return 0;
    if (k == HYDRA && (!strcmp(o, "genv") || !strcmp(o, "env")) && n >= 3)
        return *var = a[1], *len = strlen(a[1]), 3;
    if (k == OMPI && !strcmp(o, "x") && n >= 2)
        return *var = a[1], *len = strcspn(a[1], "="), 2;
    return 0;
}

static void shell_quote(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++)
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    fputc('\'', f);
}

/* The launcher's options before the program (launcher argv[1..prog-1]), or -1: the program
 * is rank 0's own command line at the launcher's end (its first word may be a resolved path). */
static int program_at(const cmdline *l, const cmdline *self)
{
    int tail = self->argc;
    for (int p = l->argc - tail; p >= 1; p--) {
        int same = !strcmp(base(l->argv[p]), base(self->argv[0]));
        for (int i = 1; same && i < tail; i++)
            same = !strcmp(l->argv[p + i], self->argv[i]);
        if (same && p + tail == l->argc)
            return p;
    }
    return -1;
}

/* Writes the kept launcher options; names of the variables they set are appended to set. */
static void write_options(FILE *out, enum launcher k, char **a, int n, char *set, size_t setlen)
{
    const opt *table = k == HYDRA ? hydra_placement : ompi_placement;
    size_t used = strlen(set);
    for (int i = 0; i < n;) {
        const char *var = NULL;
        size_t len = 0;
        int take = env_option(k, a + i, n - i, &var, &len);
        const opt *o = take ? NULL : find_opt(table, a[i]);
        /* `hiercoll bind --mapping FILE --` in front of the program: a second run's own. */
        if (!strcmp(base(a[i]), "hiercoll") && i + 1 < n && !strcmp(a[i + 1], "bind"))
            break;
        if (o) {
            i += 1 + (strchr(a[i], '=') ? 0 : o->takes);
            continue;
        }
        if (k == OMPI && i + 2 < n && (!strcmp(a[i], "--mca") || !strcmp(a[i], "-mca")) &&
            (!strcmp(a[i + 1], "rmaps_rank_file_physical") ||
             !strcmp(a[i + 1], "rmaps_rank_file_path") || !strcmp(a[i + 1], "orte_rankfile"))) {
            i += 3;
            continue;
        }
        if (take && run_specific(var, len)) {
            i += take;
            continue;
        }
        if (take && used + len + 2 < setlen) {
            snprintf(set + used, setlen - used, " %.*s ", (int)len, var);
            used = strlen(set);
        }
        /* an option starts a line, its arguments follow it */
        int words = take ? take : 1;
        if (a[i][0] == '-')
            fputs(" \\\n   ", out);
        for (int w = 0; w < words; w++) {
            fputc(' ', out);
            shell_quote(out, a[i + w]);
        }
        i += words;
    }
}

int hc_write_next_run(const char *dir, const hc_mapfile *f, int multihost)
{
    char path[PATH_MAX + 16], cwd[PATH_MAX], absdir[PATH_MAX];
    if (!realpath(dir, absdir) || !getcwd(cwd, sizeof cwd))
        return -1;
    char mapping[PATH_MAX + 16], launchfile[PATH_MAX + 16];
    snprintf(mapping, sizeof mapping, "%s/mapping.txt", absdir);

    /* The launcher among the ancestors (Hydra's proxy or Open MPI's daemon in between). */
    enum launcher kind = getenv("OMPI_COMM_WORLD_SIZE") ? OMPI : HYDRA;
    cmdline self, launcher = {0};
    int have_self = read_cmdline((long)getpid(), &self) == 0, found = 0, prog = -1;
    long pid = (long)getppid();
    for (int depth = 0; have_self && pid > 1 && depth < 6; depth++, pid = parent_of(pid)) {
        if (read_cmdline(pid, &launcher) != 0)
            break;
        if ((found = launcher_kind(pid, launcher.argv[0], &kind))) {
            prog = program_at(&launcher, &self);
            break;
        }
        free(launcher.buf);
        launcher.buf = NULL;
    }
    /* hiercoll beside our library: .../lib/libhiercoll*.so -> .../bin/hiercoll */
    char tool[PATH_MAX] = "hiercoll";
    Dl_info info;
    if (dladdr((void *)hc_write_next_run, &info) && info.dli_fname) {
        char lib[PATH_MAX], real[PATH_MAX];
        char *slash = realpath(info.dli_fname, lib) ? strrchr(lib, '/') : NULL;
        if (slash) {
            *slash = 0;
            snprintf(tool, sizeof tool, "%.4000s/../bin/hiercoll", lib);
            if (realpath(tool, real) && access(real, X_OK) == 0)
                snprintf(tool, sizeof tool, "%s", real);
            else
                snprintf(tool, sizeof tool, "hiercoll");
        }
    }

    snprintf(path, sizeof path, "%s/next-run.sh", dir);
    FILE *out = fopen(path, "w");
    if (!out) {
        free(self.buf);
        free(launcher.buf);
        return -1;
    }
    fprintf(out, "#!/bin/sh\n# hiercoll next-run v1: the second run with the mapping in %s\n"
                 "# HIERCOLL_PROFILE=DIR sh next-run.sh also profiles it into DIR.\n",
            mapping);
    if (prog < 0)
        fprintf(out, "# (the first run's launcher %s: its options are not repeated)\n",
                found ? "ran another program first" : "was not found");
    fputs("cd ", out);
    shell_quote(out, cwd);
    fputs(" || exit 1\nexec ", out);
    const char *mpiexec = getenv("MPIEXEC");
    shell_quote(out, found                     ? launcher.argv[0]
                     : mpiexec && *mpiexec     ? mpiexec
                     : kind == OMPI            ? "mpirun.openmpi"
                                               : "mpiexec.mpich");
    char set[4096] = " ";
    if (prog >= 0)
        write_options(out, kind, launcher.argv + 1, prog - 1, set, sizeof set);
    fprintf(out, " \\\n    -n %d", f->nranks);
    if (kind == OMPI) {
        /* The rankfile's slots are OS (physical) processor numbers. */
        snprintf(launchfile, sizeof launchfile, "%s/rankfile", absdir);
        fputs(" --mca rmaps_rank_file_physical 1 --rankfile ", out);
        shell_quote(out, launchfile);
    } else if (multihost) {
        snprintf(launchfile, sizeof launchfile, "%s/machinefile", absdir);
        fputs(" -f ", out);
        shell_quote(out, launchfile);
    }
    /* LD_PRELOAD and HIERCOLL_* of this rank that no kept option sets already. */
    for (char **e = environ; *e; e++) {
        const char *eq = strchr(*e, '=');
        size_t len = eq ? (size_t)(eq - *e) : 0;
        char name[256];
        snprintf(name, sizeof name, " %.*s ", (int)len, *e);
        int keep = eq && len < 250 &&
                   (!strncmp(*e, "LD_PRELOAD=", 11) || !strncmp(*e, "HIERCOLL_", 9)) &&
                   !run_specific(*e, len) && !strstr(set, name);
        if (!keep)
            continue;
        if (kind == OMPI) {
            fputs(" \\\n    -x ", out);
            shell_quote(out, *e);
        } else {
            fprintf(out, " \\\n    -genv %.*s ", (int)len, *e);
            shell_quote(out, eq + 1);
        }
    }
    /* HIERCOLL_PROFILE, when the caller exports it: Hydra passes the caller's environment on,
     * Open MPI is told (an empty value would be rejected at init). */
    if (kind == OMPI) {
        fputs(" \\\n    ${HIERCOLL_PROFILE:+-x HIERCOLL_PROFILE} -x ", out);
        char kv[PATH_MAX + 40];
        snprintf(kv, sizeof kv, "HIERCOLL_MAPPING=%s", mapping);
        shell_quote(out, kv);
    } else {
        fputs(" \\\n    -genv HIERCOLL_MAPPING ", out);
        shell_quote(out, mapping);
        fputs(" \\\n    ", out);
        shell_quote(out, tool);
        fputs(" bind --mapping ", out);
        shell_quote(out, mapping);
        fputs(" --", out);
    }
    for (int i = 0; have_self && i < self.argc; i++) {
        fputc(' ', out);
        shell_quote(out, self.argv[i]);
    }
    fputc('\n', out);
    free(self.buf);
    free(launcher.buf);
    int bad = ferror(out);
    bad |= fclose(out) != 0;
    if (!bad)
        chmod(path, 0755);
    return bad ? -1 : 0;
}
