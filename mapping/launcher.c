/* MPI launchers: see hc_launcher.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hc_launcher.h"

static const char *base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

hc_launch_kind hc_launch_by_name(const char *name)
{
    const char *b = base(name);
    if (!strcmp(b, "mpiexec.hydra") || !strncmp(b, "mpiexec.mpich", 13) ||
        !strncmp(b, "mpirun.mpich", 12))
        return HC_LAUNCH_HYDRA;
    if (!strcmp(b, "mpirun.openmpi") || !strcmp(b, "mpiexec.openmpi") || !strcmp(b, "orterun") ||
        !strcmp(b, "prterun"))
        return HC_LAUNCH_MPIRUN;
    if (!strcmp(b, "srun"))
        return HC_LAUNCH_SRUN;
    return HC_LAUNCH_NONE;
}

hc_launch_kind hc_launch_helper_by_name(const char *name)
{
    const char *b = base(name);
    if (!strcmp(b, "hydra_pmi_proxy"))
        return HC_LAUNCH_HYDRA;
    if (!strcmp(b, "orted") || !strcmp(b, "prted"))
        return HC_LAUNCH_MPIRUN;
    if (!strncmp(b, "slurmstepd", 10)) /* "slurmstepd: [12.0]" once it names its step */
        return HC_LAUNCH_SRUN;
    return HC_LAUNCH_NONE;
}

hc_mpi_family hc_launch_family(hc_launch_kind k)
{
    return k == HC_LAUNCH_HYDRA ? HC_MPICH : k == HC_LAUNCH_MPIRUN ? HC_OMPI : HC_UNKNOWN_MPI;
}

const char *hc_family_launcher(hc_mpi_family f)
{
    return f == HC_OMPI ? "mpirun.openmpi" : "mpiexec.mpich";
}

int hc_launcher_env(hc_mpi_family f, char **args, int *n, const char *name, const char *value)
{
    if (f == HC_OMPI) {
        size_t len = strlen(name) + strlen(value) + 2;
        char *kv = malloc(len);
        if (!kv)
            return -1;
        snprintf(kv, len, "%s=%s", name, value);
        args[(*n)++] = "-x";
        args[(*n)++] = kv;
    } else {
        args[(*n)++] = "-genv";
        args[(*n)++] = (char *)name;
        args[(*n)++] = (char *)value;
    }
    return 0;
}

hc_mpi_family hc_family_named(const char *name)
{
    return !strcmp(name, "mpich") ? HC_MPICH : !strcmp(name, "ompi") ? HC_OMPI : HC_UNKNOWN_MPI;
}

const char *hc_family_suffix(hc_mpi_family f) { return f == HC_OMPI ? "-ompi" : ""; }

int hc_launch_run_specific(const char *var, size_t len)
{
    return (len == 16 && !strncmp(var, "HIERCOLL_PROFILE", 16)) ||
           (len == 16 && !strncmp(var, "HIERCOLL_MAPPING", 16));
}

/* A long option (without its dashes): how many arguments follow it, whether it is about
 * placement. Hydra and Open MPI accept one dash or two. */
typedef struct opt {
    const char *name;
    int takes, placement;
} opt;

static const opt hydra_opts[] = {
    {"n", 1, 1}, {"np", 1, 1}, {"f", 1, 1}, {"machinefile", 1, 1}, {"hostfile", 1, 1},
    {"hosts", 1, 1}, {"host", 1, 1}, {"ppn", 1, 1}, {"bind-to", 1, 1}, {"binding", 1, 1},
    {"map-by", 1, 1}, {"order-nodes", 1, 1}, {"configfile", 1, 1},
    {"genv", 2, 0}, {"env", 2, 0}, {"genvlist", 1, 0}, {"envlist", 1, 0}, {"launcher", 1, 0},
    {"launcher-exec", 1, 0}, {"bootstrap", 1, 0}, {"bootstrap-exec", 1, 0}, {"rmk", 1, 0},
    {"demux", 1, 0}, {"iface", 1, 0}, {"wdir", 1, 0}, {"prepend-pattern", 1, 0},
    {"outfile-pattern", 1, 0}, {"errfile-pattern", 1, 0}, {"nameserver", 1, 0},
    {NULL, 0, 0}};

static const opt ompi_opts[] = {
    {"n", 1, 1}, {"np", 1, 1}, {"c", 1, 1}, {"H", 1, 1}, {"host", 1, 1}, {"hostfile", 1, 1},
    {"machinefile", 1, 1}, {"default-hostfile", 1, 1}, {"rf", 1, 1}, {"rankfile", 1, 1},
    {"map-by", 1, 1}, {"bind-to", 1, 1}, {"rank-by", 1, 1}, {"npernode", 1, 1}, {"N", 1, 1},
    {"npersocket", 1, 1}, {"ppr", 1, 1}, {"cpu-set", 1, 1}, {"cpu-list", 1, 1},
    {"cpus-per-proc", 1, 1}, {"cpus-per-rank", 1, 1}, {"bynode", 0, 1}, {"byslot", 0, 1},
    {"bycore", 0, 1}, {"bysocket", 0, 1}, {"bind-to-core", 0, 1}, {"bind-to-socket", 0, 1},
    {"bind-to-none", 0, 1},
    {"x", 1, 0}, {"mca", 2, 0}, {"gmca", 2, 0}, {"am", 1, 0}, {"prefix", 1, 0}, {"wdir", 1, 0},
    {"wd", 1, 0}, {"path", 1, 0}, {"tune", 1, 0}, {"output-filename", 1, 0}, {NULL, 0, 0}};

/* Open MPI's MCA parameters that say where ranks go (--mca NAME VALUE). */
static const char *const ompi_placement_mca[] = {
    "rmaps_rank_file_physical", "rmaps_rank_file_path", "orte_rankfile",
    "rmaps_base_mapping_policy", "rmaps_base_ranking_policy", "hwloc_base_binding_policy", NULL};

/* srun's: every option (22.05's `srun --help`) that takes an argument, and the placement ones.
 * Short options: those taking an argument; the rest are flags. */
static const char srun_short_args[] = "AbBcCdDeGiJLmMnNopqrStTwWx";
static const char srun_short_placement[] = "BcmnNrwx";
static const opt srun_opts[] = {
    {"ntasks", 1, 1}, {"nodes", 1, 1}, {"nodelist", 1, 1}, {"exclude", 1, 1},
    {"distribution", 1, 1}, {"cpu-bind", 1, 1}, {"cpu_bind", 1, 1}, {"ntasks-per-node", 1, 1},
    {"ntasks-per-socket", 1, 1}, {"ntasks-per-core", 1, 1}, {"cpus-per-task", 1, 1},
    {"hint", 1, 1}, {"extra-node-info", 1, 1}, {"sockets-per-node", 1, 1},
    {"cores-per-socket", 1, 1}, {"threads-per-core", 1, 1}, {"relative", 1, 1},
    {"spread-job", 0, 1}, {"use-min-nodes", 0, 1}, {"nodefile", 1, 1},
    {"account", 1, 0}, {"acctg-freq", 1, 0}, {"bb", 1, 0}, {"bbf", 1, 0}, {"begin", 1, 0},
    {"chdir", 1, 0}, {"cluster-constraint", 1, 0}, {"clusters", 1, 0}, {"comment", 1, 0},
    {"constraint", 1, 0}, {"core-spec", 1, 0}, {"cpu-freq", 1, 0}, {"cpus-per-gpu", 1, 0},
    {"deadline", 1, 0}, {"delay-boot", 1, 0}, {"dependency", 1, 0}, {"epilog", 1, 0},
    {"error", 1, 0}, {"export", 1, 0}, {"gpu-bind", 1, 0}, {"gpu-freq", 1, 0},
    {"gpus-per-node", 1, 0}, {"gpus-per-socket", 1, 0}, {"gpus-per-task", 1, 0}, {"gpus", 1, 0},
    {"gres-flags", 1, 0}, {"gres", 1, 0}, {"het-group", 1, 0}, {"input", 1, 0},
    {"job-name", 1, 0}, {"jobid", 1, 0}, {"licenses", 1, 0}, {"mail-type", 1, 0},
    {"mail-user", 1, 0}, {"mcs-label", 1, 0}, {"mem-bind", 1, 0}, {"mem-per-cpu", 1, 0},
    {"mem-per-gpu", 1, 0}, {"mem", 1, 0}, {"mincpus", 1, 0}, {"mpi", 1, 0}, {"output", 1, 0},
    {"partition", 1, 0}, {"power", 1, 0}, {"priority", 1, 0}, {"profile", 1, 0},
    {"prolog", 1, 0}, {"qos", 1, 0}, {"reservation", 1, 0}, {"signal", 1, 0},
    {"slurmd-debug", 1, 0}, {"switches", 1, 0}, {"task-epilog", 1, 0}, {"task-prolog", 1, 0},
    {"thread-spec", 1, 0}, {"threads", 1, 0}, {"time-min", 1, 0}, {"time", 1, 0},
    {"tmp", 1, 0}, {"wait", 1, 0}, {"wckey", 1, 0}, {NULL, 0, 0}};

static const opt *find_long(const opt *table, const char *name, size_t len)
{
    for (const opt *o = table; o->name; o++)
        if (strlen(o->name) == len && !strncmp(o->name, name, len))
            return o;
    return NULL;
}

/* srun's short options, possibly bundled ("-lO", "-n8", "-ln 8"). */
static void srun_short(char *const *a, int n, hc_launch_opt *o)
{
    for (const char *c = a[0] + 1; *c; c++) {
        o->placement |= strchr(srun_short_placement, *c) != NULL;
        if (strchr(srun_short_args, *c)) {
            if (!c[1] && n > 1)
                o->words = 2; /* its argument is the next word */
            return;
        }
    }
}

void hc_launch_opt_at(hc_launch_kind k, char *const *a, int n, hc_launch_opt *o)
{
    memset(o, 0, sizeof *o);
    o->words = 1;
    if (n < 1 || a[0][0] != '-' || !a[0][1])
        return;
    o->option = 1;
    int two = a[0][1] == '-';
    if (k == HC_LAUNCH_SRUN && !two) {
        srun_short(a, n, o);
        return;
    }
    if (two && !a[0][2])
        return; /* "--" */
    const char *name = a[0] + 1 + two;
    size_t len = strcspn(name, "=");
    int attached = name[len] == '=';
    const opt *table = k == HC_LAUNCH_HYDRA ? hydra_opts : k == HC_LAUNCH_MPIRUN ? ompi_opts
                       : k == HC_LAUNCH_SRUN ? srun_opts : NULL;
    const opt *t = table ? find_long(table, name, len) : NULL;
    if (!t)
        return;
    o->placement = t->placement;
    o->words = attached ? 1 : 1 + t->takes;
    if (o->words > n)
        o->words = n;
    if (k == HC_LAUNCH_HYDRA && (!strcmp(t->name, "genv") || !strcmp(t->name, "env")) && n >= 3) {
        o->var = a[1];
        o->var_len = strlen(a[1]);
    } else if (k == HC_LAUNCH_MPIRUN && !strcmp(t->name, "x") && n >= 2) {
        o->var = a[1];
        o->var_len = strcspn(a[1], "=");
    } else if (k == HC_LAUNCH_MPIRUN && !strcmp(t->name, "mca") && n >= 3) {
        for (const char *const *p = ompi_placement_mca; *p; p++)
            o->placement |= !strcmp(a[1], *p);
    }
}

int hc_launch_program_index(hc_launch_kind k, char *const *argv, int argc)
{
    int i = 1;
    while (i < argc) {
        hc_launch_opt o;
        hc_launch_opt_at(k, argv + i, argc - i, &o);
        if (!o.option)
            return i;
        i += o.words;
        if (!strcmp(argv[i - o.words], "--"))
            return i;
    }
    return argc;
}

int hc_launch_has_flag(hc_launch_kind k, char *const *opts, int n, const char *name, char c)
{
    size_t len = strlen(name);
    for (int i = 0; opts && i < n;) {
        const char *a = opts[i];
        hc_launch_opt o;
        hc_launch_opt_at(k, opts + i, n - i, &o);
        i += o.words;
        if (!o.option)
            continue;
        if (a[1] == '-' && !strncmp(a + 2, name, len) && (!a[2 + len] || a[2 + len] == '='))
            return 1;
        if (k == HC_LAUNCH_SRUN && a[1] != '-' && c) {
            /* a flag of the bundle, before any option there that takes an argument */
            for (const char *p = a + 1; *p; p++) {
                if (*p == c)
                    return 1;
                if (strchr(srun_short_args, *p))
                    break;
            }
        }
    }
    return 0;
}
