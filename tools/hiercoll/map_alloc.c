/* hiercoll map --profile DIR --allocation: the profile's mapping for the Slurm allocation this
 * runs in. When the mapping's hosts are in the allocation with enough of its CPUs, it stands;
 * otherwise the mapping is computed again onto the allocation's hosts by what finalize runs
 * (mapping/model.c), each host with the cores the profile recorded for it (machine.txt), or
 * this host's for a host the profile did not see, as many of them as Slurm gave the job there.
 * Prints the directory whose mapping.txt and launcher files to use. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hc_cli.h"
#include "hc_graph.h"
#include "hc_map.h"
#include "hc_model.h"
#include "map_alloc.h"

#define MAX_HOSTS 4096

typedef struct alloc {
    int n;
    char (*host)[HC_HOST_NAMELEN];
    int *cpus;
} alloc;

/* SLURM_JOB_CPUS_PER_NODE, "2(x3),1": a count per node, in the node list's order. */
static int expand_cpus(const char *s, int *cpus, int max)
{
    int n = 0;
    while (*s) {
        char *e;
        long c = strtol(s, &e, 10), times = 1;
        if (e == s || c < 1)
            return -1;
        if (!strncmp(e, "(x", 2)) {
            times = strtol(e + 2, &e, 10);
            if (*e++ != ')' || times < 1)
                return -1;
        }
        while (times-- > 0 && n < max)
            cpus[n++] = (int)c;
        if (*e && *e != ',')
            return -1;
        s = *e ? e + 1 : e;
    }
    return n;
}

/* The allocation's hosts (scontrol expands Slurm's host list syntax) and CPUs. */
static int read_alloc(alloc *a, char *err, size_t errlen)
{
    const char *nodes = getenv("SLURM_JOB_NODELIST"), *cpus = getenv("SLURM_JOB_CPUS_PER_NODE");
    memset(a, 0, sizeof *a);
    if (!nodes || !cpus)
        return snprintf(err, errlen, "no Slurm allocation here (SLURM_JOB_NODELIST, "
                                     "SLURM_JOB_CPUS_PER_NODE): run it inside salloc or sbatch"),
               -1;
    if (strchr(nodes, '\'') || strpbrk(nodes, " \t\n"))
        return snprintf(err, errlen, "SLURM_JOB_NODELIST '%s' is not a host list", nodes), -1;
    a->host = calloc(MAX_HOSTS, sizeof *a->host);
    a->cpus = calloc(MAX_HOSTS, sizeof *a->cpus);
    char cmd[8192], line[512];
    snprintf(cmd, sizeof cmd, "scontrol show hostnames '%s'", nodes);
    FILE *p = a->host && a->cpus ? popen(cmd, "r") : NULL;
    while (p && a->n < MAX_HOSTS && fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = 0;
        if (*line)
            snprintf(a->host[a->n++], HC_HOST_NAMELEN, "%.63s", line);
    }
    int st = p ? pclose(p) : -1;
    if (st != 0 || a->n == 0)
        return snprintf(err, errlen, "scontrol show hostnames '%s' failed", nodes), -1;
    if (expand_cpus(cpus, a->cpus, MAX_HOSTS) != a->n)
        return snprintf(err, errlen, "SLURM_JOB_CPUS_PER_NODE '%s' does not give the %d hosts of "
                                     "%s their CPUs", cpus, a->n, nodes), -1;
    return 0;
}

static void free_alloc(alloc *a)
{
    free(a->host);
    free(a->cpus);
}

/* Each host's cores from the profile's machine.txt ("host H cores ..."), real hosts only. */
static int read_topos(const char *dir, hc_host_topo *t, int max, char *err, size_t errlen)
{
    char path[PATH_MAX + 32], line[9000];
    snprintf(path, sizeof path, "%s/machine.txt", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return snprintf(err, errlen, "%.900s: %s", path, strerror(errno)), -1;
    int n = 0;
    while (n < max && fgets(line, sizeof line, f)) {
        char host[HC_HOST_NAMELEN], cores[8800];
        line[strcspn(line, "\n")] = 0;
        if (sscanf(line, "host %63s cores %8799[^\n]", host, cores) != 2 || strchr(host, '#') ||
            hc_host_topo_find(t, n, host) >= 0)
            continue;
        memset(&t[n], 0, sizeof t[n]);
        snprintf(t[n].host, sizeof t[n].host, "%s", host);
        if (hc_host_topo_parse(&t[n], cores) != 0) {
            fclose(f);
            snprintf(err, errlen, "%.600s: bad cores of host %s: '%.200s'", path, host, cores);
            return -1;
        }
        n++;
    }
    fclose(f);
    return n;
}

/* The allocation's index of host, or -1. */
static int alloc_index(const alloc *a, const char *host)
{
    for (int i = 0; i < a->n; i++)
        if (!strcmp(a->host[i], host))
            return i;
    return -1;
}

/* Whether the mapping f runs as it is in a: its hosts there, using no more of a host's cores
 * than Slurm gave the job (the first ones in hwloc's order, as a job on an idle node gets). */
static int fits(const hc_mapfile *f, const alloc *a, const hc_host_topo *t, int nt, char *why,
                size_t len)
{
    for (int r = 0; r < f->nranks; r++) {
        char h[HC_MAPFILE_HOSTLEN];
        hc_mapfile_physical_host(f->host[r], h, sizeof h);
        int i = alloc_index(a, h), k = hc_host_topo_find(t, nt, h);
        if (i < 0)
            return snprintf(why, len, "host %s of rank %d is not in the allocation", h, r), 0;
        int pos = k >= 0 && f->core[r] <= t[k].maxpu ? t[k].pu_core[f->core[r]] : f->core[r];
        if (pos < 0 || pos >= a->cpus[i])
            return snprintf(why, len, "core %d of host %s (rank %d) is beyond the %d CPUs the "
                                      "allocation has there", f->core[r], h, r, a->cpus[i]), 0;
    }
    return 1;
}

/* The mapping onto the allocation's hosts, into out. 0, or -1 with a reason. */
static int remap(const char *dir, const hc_mapfile *f0, const alloc *a, const hc_host_topo *t,
                 int nt, const char *out, char *err, size_t errlen)
{
    char path[PATH_MAX + 32], warn[1024];
    snprintf(path, sizeof path, "%s/taskgraph.graph", dir);
    hc_graph g;
    if (hc_graph_read_metis(&g, path, err, errlen) != 0)
        return -1;
    int total = 0, rc = -1;
    for (int i = 0; i < a->n; i++)
        total += a->cpus[i];
    hc_model_host *hosts = calloc((size_t)a->n, sizeof *hosts);
    hc_model md = {0};
    hc_mapfile f = {0};
    if (g.n != f0->nranks) {
        snprintf(err, errlen, "%.900s has %d ranks, its mapping %d", path, g.n, f0->nranks);
        goto out;
    }
    /* Ranks share cores only where the first run's mapping did (next-run.sh then overcommits)
     * or the allocation allows it. */
    int shared = 0;
    for (int r = 0; r < f0->nranks && !shared; r++)
        for (int q = 0; q < r && !shared; q++)
            shared = f0->core[q] == f0->core[r] && !strcmp(f0->host[q], f0->host[r]);
    if (total < g.n && !shared && !getenv("SLURM_OVERCOMMIT")) {
        snprintf(err, errlen, "the allocation has %d CPU%s for %d ranks: ask for --ntasks=%d",
                 total, total == 1 ? "" : "s", g.n, g.n);
        goto out;
    }
    for (int i = 0; hosts && i < a->n; i++) {
        snprintf(hosts[i].name, sizeof hosts[i].name, "%s", a->host[i]);
        int k = hc_host_topo_find(t, nt, a->host[i]);
        int ok = k >= 0 ? hc_host_topo_copy(&hosts[i].topo, &t[k])
                        : hc_host_topo_load(&hosts[i].topo, a->host[i]);
        if (ok != 0) {
            snprintf(err, errlen, "no cores known for host %s", a->host[i]);
            goto out;
        }
        if (k < 0)
            fprintf(stderr, "hiercoll map: the profile did not see host %s: taken to have this "
                            "host's %d cores\n", a->host[i], hosts[i].topo.ncores);
        hosts[i].usable = a->cpus[i];
    }
    if (!hosts) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    const char *list = getenv("HIERCOLL_BANDWIDTHS");
    if (hc_model_build(&md, hosts, a->n, g.n, list && *list ? list : f0->bandwidths,
                       getenv("HIERCOLL_MACHINE_FILE"), warn, sizeof warn, err, errlen) != 0)
        goto out;
    if (warn[0])
        fprintf(stderr, "hiercoll map: %s\n", warn);
    const char *algo_s = getenv("HIERCOLL_MAP_ALGO");
    int algo = hc_map_algo_parse(algo_s && *algo_s ? algo_s : "auto");
    if (algo < 0) {
        snprintf(err, errlen, "HIERCOLL_MAP_ALGO '%s' is no mapping algorithm", algo_s);
        goto out;
    }
    if (hc_model_recommend(&g, NULL, &md, algo, NULL, &f, err, errlen) != 0)
        goto out;
    if (mkdir(out, 0777) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %.900s: %s", out, strerror(errno));
        goto out;
    }
    rc = hc_mapfile_write_dir(&f, out, err, errlen);
out:
    hc_mapfile_free(&f);
    hc_model_free(&md);
    for (int i = 0; hosts && i < a->n; i++)
        hc_host_topo_free(&hosts[i].topo);
    free(hosts);
    hc_graph_free(&g);
    return rc;
}

int hc_map_allocation(const char *dir, const char *out)
{
    char path[PATH_MAX + 32], err[1024], why[512], outdir[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/mapping.txt", dir);
    hc_mapfile f0;
    alloc a;
    hc_host_topo t[MAX_HOSTS / 16];
    int nt = -1, rc = HC_EXIT_FAIL;
    if (hc_mapfile_read(&f0, path, err, sizeof err) != 0) {
        fprintf(stderr, "hiercoll map: %s\n", err);
        return HC_EXIT_FAIL;
    }
    if (read_alloc(&a, err, sizeof err) != 0 ||
        (nt = read_topos(dir, t, (int)(sizeof t / sizeof t[0]), err, sizeof err)) < 0) {
        fprintf(stderr, "hiercoll map: %s\n", err);
        goto out;
    }
    if (fits(&f0, &a, t, nt, why, sizeof why)) {
        printf("%s\n", dir);
        rc = HC_EXIT_OK;
        goto out;
    }
    if (out)
        snprintf(outdir, sizeof outdir, "%s", out);
    else
        snprintf(outdir, sizeof outdir, "%s/alloc-%s", dir,
                 getenv("SLURM_JOB_ID") ? getenv("SLURM_JOB_ID") : "job");
    if (remap(dir, &f0, &a, t, nt, outdir, err, sizeof err) != 0) {
        fprintf(stderr, "hiercoll map: %s, and it cannot be mapped again onto the allocation: "
                        "%s\n", why, err);
        goto out;
    }
    fprintf(stderr, "hiercoll map: %s: mapped again onto the allocation in %s\n", why, outdir);
    printf("%s\n", outdir);
    rc = HC_EXIT_OK;
out:
    for (int i = 0; i < nt; i++)
        hc_host_topo_free(&t[i]);
    free_alloc(&a);
    hc_mapfile_free(&f0);
    return rc;
}
