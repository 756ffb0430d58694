/* next-run.sh and next-run.sbatch: see hc_next_run.h. The first run's launcher options are
 * kept, except what is about placement (process counts, hosts, binding, mapping), which the
 * mapping replaces:
 *   Hydra    -f machinefile (several hosts) and `hiercoll bind` in front of the program;
 *   mpirun   the rankfile, with physical core numbers;
 *   srun     --distribution=arbitrary with SLURM_HOSTFILE=slurm.hostfile, and `hiercoll bind`
 *            in front of the program: Slurm's own binding applies one list to every node by
 *            node-local task id, so a mapping that permutes ranks differently on each node
 *            needs the ranks to bind themselves. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hc_next_run.h"

static void quote(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++)
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    fputc('\'', f);
}

/* The env entry NAME=VALUE named name, or NULL. */
static const char *env_get(const hc_launch *l, const char *name)
{
    size_t len = strlen(name);
    for (int i = 0; i < l->nenv; i++)
        if (!strncmp(l->env[i], name, len) && l->env[i][len] == '=')
            return l->env[i] + len + 1;
    return NULL;
}

/* srun's --export list without the variables that belong to one run (the profiler's, put
 * there by `hiercoll profile`) nor LD_PRELOAD (the next run preloads through hiercoll bind). */
static void srun_export(FILE *out, const char *list)
{
    char buf[4096], kept[4096] = "";
    snprintf(buf, sizeof buf, "%s", list);
    size_t used = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        size_t len = strcspn(t, "=");
        if (hc_launch_run_specific(t, len) || (len == 10 && !strncmp(t, "LD_PRELOAD", 10)))
            continue;
        used += (size_t)snprintf(kept + used, sizeof kept - used, "%s%s", used ? "," : "", t);
    }
    if (!strcmp(kept, "ALL") || !kept[0])
        return; /* srun's default */
    fputs(" \\\n    --export=", out);
    quote(out, kept);
}

/* The kept options; names of the variables they set go into set (" NAME " each). */
static void write_options(FILE *out, const hc_launch *l, char *set, size_t setlen)
{
    size_t used = strlen(set);
    for (int i = 0; i < l->nopts;) {
        char *const *a = l->opts + i;
        int n = l->nopts - i;
        /* `hiercoll bind ... --` in front of the program: a second run's own. */
        if (!strcmp(a[0], l->tool) || (n > 1 && !strcmp(a[1], "bind") &&
                                       strstr(a[0], "hiercoll")))
            break;
        hc_launch_opt o;
        hc_launch_opt_at(l->kind, a, n, &o);
        i += o.words;
        if (o.placement || (o.var && hc_launch_run_specific(o.var, o.var_len)))
            continue;
        if (l->kind == HC_LAUNCH_SRUN && !strncmp(a[0], "--export", 8)) {
            srun_export(out, a[0][8] == '=' ? a[0] + 9 : o.words > 1 ? a[1] : "");
            continue;
        }
        if (o.var && used + o.var_len + 2 < setlen) {
            snprintf(set + used, setlen - used, " %.*s ", (int)o.var_len, o.var);
            used = strlen(set);
        }
        /* an option starts a line, its arguments follow it */
        if (o.option)
            fputs(" \\\n   ", out);
        for (int w = 0; w < o.words; w++) {
            fputc(' ', out);
            quote(out, a[w]);
        }
    }
}

/* How many cores of the hosts the mapping uses: fewer than ranks when ranks share a core, and
 * then the launcher must allow more ranks than CPUs (srun --overcommit). An allocation asks
 * for these cores, not for --overcommit, with which Slurm gives one CPU per node. */
static int cores_used(const hc_mapfile *f)
{
    int n = 0;
    for (int r = 0; r < f->nranks; r++) {
        char h[HC_MAPFILE_HOSTLEN], g[HC_MAPFILE_HOSTLEN];
        int seen = 0;
        hc_mapfile_physical_host(f->host[r], h, sizeof h);
        for (int q = 0; q < r && !seen; q++) {
            hc_mapfile_physical_host(f->host[q], g, sizeof g);
            seen = f->core[q] == f->core[r] && !strcmp(g, h);
        }
        n += !seen;
    }
    return n;
}

/* The physical hosts of the mapping, comma-separated, in order of first appearance. */
static int host_list(const hc_mapfile *f, char *buf, size_t len)
{
    size_t o = 0;
    int n = 0;
    buf[0] = 0;
    for (int r = 0; r < f->nranks; r++) {
        char h[HC_MAPFILE_HOSTLEN + 2];
        hc_mapfile_physical_host(f->host[r], h + 1, sizeof h - 1);
        h[0] = ',';
        size_t hl = strlen(h + 1);
        char *p = buf;
        int seen = 0;
        while (!seen && (p = strstr(p, h + 1)) != NULL) {
            seen = (p == buf || p[-1] == ',') && (p[hl] == ',' || !p[hl]);
            p += hl;
        }
        if (!seen && o + hl + 2 < len) {
            o += (size_t)snprintf(buf + o, len - o, "%s", n ? h : h + 1);
            n++;
        }
    }
    return n;
}

/* The variables of env that no kept option sets, in the launcher's way. srun's go to
 * `hiercoll bind --env` (srun's own --export cannot carry a value with a comma, and it would
 * preload srun itself). */
static void write_env(FILE *out, const hc_launch *l, const char *set)
{
    for (int i = 0; i < l->nenv; i++) {
        const char *e = l->env[i], *eq = strchr(e, '=');
        size_t len = eq ? (size_t)(eq - e) : 0;
        char name[300];
        snprintf(name, sizeof name, " %.*s ", (int)len, e);
        if (!eq || hc_launch_run_specific(e, len) || strstr(set, name))
            continue;
        if (l->kind == HC_LAUNCH_SRUN) {
            if (len == 10 && !strncmp(e, "LD_PRELOAD", 10))
                continue; /* --preload */
            fputs(" \\\n    --env ", out);
            quote(out, e);
        } else if (l->kind == HC_LAUNCH_MPIRUN) {
            fputs(" \\\n    -x ", out);
            quote(out, e);
        } else {
            fprintf(out, " \\\n    -genv %.*s ", (int)len, e);
            quote(out, eq + 1);
        }
    }
}

static void write_script(FILE *out, const char *dir, const hc_launch *l, const hc_mapfile *f)
{
    char hosts[4096];
    int nhosts = host_list(f, hosts, sizeof hosts), over = cores_used(f) < f->nranks;
    fprintf(out, "#!/bin/sh\n# hiercoll next-run v2: the second run with the mapping in "
                 "%s/mapping.txt\n# HIERCOLL_PROFILE=DIR sh next-run.sh also profiles it into "
                 "DIR.\n", dir);
    if (l->note)
        fprintf(out, "# (%s)\n", l->note);
    fputs("cd ", out);
    quote(out, l->cwd);
    fputs(" || exit 1\nprof=", out);
    quote(out, dir);
    fputs("\nmap=$prof\n", out);
    if (l->slurm) {
        /* srun makes an allocation of the mapping's hosts by itself, but with one CPU a node
         * when it must overcommit */
        if (l->kind != HC_LAUNCH_SRUN || over) {
            fprintf(out, "# outside an allocation: one of the mapping's hosts and cores\n"
                         "[ -n \"${SLURM_JOB_ID:-}\" ] || exec salloc --nodes=%d --nodelist=%s "
                         "--ntasks=%d sh \"$0\"\n",
                    nhosts, hosts, cores_used(f));
        }
        fputs("# inside an allocation, the mapping must fit its hosts and cores: hiercoll map "
              "maps\n# again onto them when they differ, or says why it cannot\n"
              "if [ -n \"${SLURM_JOB_ID:-}\" ]; then\n    map=$(", out);
        quote(out, l->tool);
        fputs(" map --profile \"$prof\" --allocation) || exit 1\nfi\n", out);
    }
    /* the first run's learned tuning, when it is there at run time (it may come later) */
    int tuning = !env_get(l, "HIERCOLL_TUNING");
    if (tuning)
        fputs("tuning=\n[ -f \"$prof/tuning.txt\" ] && tuning=$prof/tuning.txt\n", out);
    if (l->kind == HC_LAUNCH_SRUN)
        fputs("SLURM_HOSTFILE=$map/slurm.hostfile\nexport SLURM_HOSTFILE\n", out);
    fputs("exec ", out);
    quote(out, l->launcher ? l->launcher
               : l->kind == HC_LAUNCH_SRUN ? "srun" : hc_family_launcher(l->family));
    char set[4096] = " ";
    if (l->opts)
        write_options(out, l, set, sizeof set);
    fprintf(out, " \\\n    -n %d", f->nranks);
    if (l->kind == HC_LAUNCH_SRUN) {
        /* a rank that cannot bind ends the step at once (the others would wait in MPI_Init) */
        fputs(" --distribution=arbitrary --cpu-bind=none", out);
        if (!hc_launch_has_flag(l->kind, l->opts, l->nopts, "kill-on-bad-exit", 'K'))
            fputs(" --kill-on-bad-exit", out);
        if (over && !hc_launch_has_flag(l->kind, l->opts, l->nopts, "overcommit", 'O'))
            fputs(" --overcommit", out);
        fputs(" \\\n    ", out);
        quote(out, l->tool);
        fputs(" bind --mapping \"$map/mapping.txt\"", out);
        const char *pre = env_get(l, "LD_PRELOAD");
        if (pre) {
            fputs(" --preload ", out);
            quote(out, pre);
        }
        write_env(out, l, set);
        if (tuning)
            fputs(" \\\n    ${tuning:+--env \"HIERCOLL_TUNING=$tuning\"}", out);
        fputs(" \\\n    ${HIERCOLL_PROFILE:+--env \"HIERCOLL_PROFILE=$HIERCOLL_PROFILE\"} --",
              out);
    } else if (l->kind == HC_LAUNCH_MPIRUN ||
               (l->kind == HC_LAUNCH_NONE && l->family == HC_OMPI)) {
        /* The rankfile's slots are OS (physical) processor numbers. */
        fputs(" --mca rmaps_rank_file_physical 1 --rankfile \"$map/rankfile\"", out);
        write_env(out, l, set);
        if (tuning)
            fputs(" \\\n    ${tuning:+-x \"HIERCOLL_TUNING=$tuning\"}", out);
        /* HIERCOLL_PROFILE when the caller exports it (an empty value is rejected at init) */
        fputs(" \\\n    ${HIERCOLL_PROFILE:+-x HIERCOLL_PROFILE} "
              "-x \"HIERCOLL_MAPPING=$map/mapping.txt\"", out);
    } else {
        if (nhosts > 1)
            fputs(" -f \"$map/machinefile\"", out);
        write_env(out, l, set);
        if (tuning)
            fputs(" \\\n    ${tuning:+-genv HIERCOLL_TUNING \"$tuning\"}", out);
        /* Hydra passes the caller's environment on: HIERCOLL_PROFILE too */
        fputs(" \\\n    -genv HIERCOLL_MAPPING \"$map/mapping.txt\" \\\n    ", out);
        quote(out, l->tool);
        fputs(" bind --mapping \"$map/mapping.txt\" --", out);
    }
    for (int i = 0; i < l->nprog; i++) {
        fputc(' ', out);
        quote(out, l->prog[i]);
    }
    fputc('\n', out);
}

/* next-run.sbatch: a batch job of the mapping's hosts that runs next-run.sh. */
static void write_sbatch(FILE *out, const char *dir, const hc_mapfile *f)
{
    char hosts[4096];
    int nhosts = host_list(f, hosts, sizeof hosts);
    fprintf(out, "#!/bin/sh\n#SBATCH --job-name=hiercoll-next-run\n#SBATCH --nodes=%d\n"
                 "#SBATCH --nodelist=%s\n#SBATCH --ntasks=%d\n",
            nhosts, hosts, cores_used(f));
    fprintf(out, "# hiercoll next-run v2: the second run as a batch job (sbatch next-run.sbatch);"
                 "\n# another allocation than these hosts is mapped again (next-run.sh)\n"
                 "exec sh ");
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/next-run.sh", dir);
    quote(out, path);
    fputc('\n', out);
}

/* Writes dir/name through dir/name.tmp. */
static int publish(const char *dir, const char *name, const hc_launch *l, const hc_mapfile *f,
                   char *err, size_t errlen)
{
    char path[PATH_MAX + 64], tmp[PATH_MAX + 80];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *out = fopen(tmp, "w");
    if (!out)
        return snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno)), -1;
    if (strstr(name, ".sbatch"))
        write_sbatch(out, dir, f);
    else
        write_script(out, dir, l, f);
    int bad = ferror(out);
    bad |= fclose(out) != 0;
    if (bad || chmod(tmp, 0755) != 0 || rename(tmp, path) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno ? errno : EIO));
        remove(tmp);
        return -1;
    }
    return 0;
}

int hc_next_run_write(const char *dir, const hc_launch *l, const hc_mapfile *f, char *err,
                      size_t errlen)
{
    char abs[PATH_MAX];
    if (!realpath(dir, abs))
        return snprintf(err, errlen, "%s: %s", dir, strerror(errno)), -1;
    if (publish(abs, "next-run.sh", l, f, err, errlen) != 0)
        return -1;
    return l->slurm ? publish(abs, "next-run.sbatch", l, f, err, errlen) : 0;
}
