/* Rank 0 at finalize: the profile directory. Everything goes into DIR.tmp-PID first and is
 * renamed to DIR (or DIR.1, DIR.2, ... when DIR exists and is not empty) only when every file
 * is complete, so existing files are never touched and a failure leaves nothing behind. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hc_config.h"
#include "hc_graph.h"
#include "hc_log.h"
#include "hc_model.h"
#include "prof.h"

#define MAX_NUMBERED 1000

static uint64_t p2p_of(const uint64_t *v)
{
    return v[HC_PK_P2P] + v[HC_PK_RMA];
}

FILE *hc_prof_open_mode(const char *dir, const char *name, const char *mode)
{
    char path[PATH_MAX];
    int len = snprintf(path, sizeof path, "%s/%s", dir, name);
    if (len < 0 || (size_t)len >= sizeof path) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    return fopen(path, mode);
}

FILE *hc_prof_open(const char *dir, const char *name) { return hc_prof_open_mode(dir, name, "w"); }

/* 0 if everything written reached the file. */
int hc_prof_close(FILE *f)
{
    if (!f)
        return -1;
    int bad = ferror(f);
    return (fclose(f) != 0 || bad) ? -1 : 0;
}

static int write_matrix(const char *dir, const hc_prof_data *d, int msgs)
{
    FILE *f = hc_prof_open(dir, msgs ? "comm_msgs.csv" : "comm_bytes.csv");
    if (!f)
        return -1;
    fprintf(f, "# hiercoll %s v1\nsender,receiver,p2p,collective,total,rma\n",
            msgs ? "comm_msgs" : "comm_bytes");
    for (long long i = 0; i < d->nrows; i++) {
        const uint64_t *v = msgs ? d->rows[i].msgs : d->rows[i].bytes;
        uint64_t p = p2p_of(v), c = v[HC_PK_COLL];
        if (p + c)
            fprintf(f, "%llu,%llu,%llu,%llu,%llu,%llu\n", (unsigned long long)d->rows[i].src,
                    (unsigned long long)d->rows[i].dst, (unsigned long long)p,
                    (unsigned long long)c, (unsigned long long)(p + c),
                    (unsigned long long)v[HC_PK_RMA]);
    }
    return hc_prof_close(f);
}

/* Task graph: p2p (with one-sided) plus, unless HIERCOLL_PROFILE_COLLECTIVES=off, collectives;
 * of the whole run (half 0), or of its even (1) or odd (2) epochs only. */
static int build_graph(hc_graph *g, const hc_prof_data *d, int half)
{
    long long n = d->nrows;
    int *src = malloc(sizeof(int) * (size_t)(n + 1)), *dst = malloc(sizeof(int) * (size_t)(n + 1));
    double *w = malloc(sizeof(double) * (size_t)(n + 1));
    int rc = -1;
    if (src && dst && w) {
        for (long long i = 0; i < n; i++) {
            const hc_prof_row *r = &d->rows[i];
            uint64_t v[HC_PK_COUNT];
            for (int k = 0; k < HC_PK_COUNT; k++)
                v[k] = half == 0 ? r->bytes[k] : half == 2 ? r->odd[k] : r->bytes[k] - r->odd[k];
            src[i] = (int)r->src;
            dst[i] = (int)r->dst;
            w[i] = (double)p2p_of(v) + (hc_cfg.profile_collectives.i ? (double)v[HC_PK_COLL] : 0.0);
        }
        rc = hc_graph_from_triples(g, d->nranks, n, src, dst, w);
    }
    free(src);
    free(dst);
    free(w);
    return rc;
}

static int write_graph(const char *dir, const hc_graph *g, const hc_prof_data *d)
{
    FILE *f = hc_prof_open(dir, "taskgraph.graph");
    if (!f)
        return -1;
    int rc = hc_graph_write_metis(g, f);
    if (hc_prof_close(f) != 0 || rc != 0)
        return -1;

    f = hc_prof_open(dir, "taskgraph.dot");
    if (!f)
        return -1;
    double wmax = 1;
    for (long long e = 0; e < g->xadj[g->n]; e++)
        wmax = HC_MAX(wmax, g->adjwgt[e]);
    fprintf(f, "// hiercoll taskgraph v1\ngraph taskgraph {\n  node [shape=circle];\n");
    for (int i = 0; i < g->n; i++)
        fprintf(f, "  %d [tooltip=\"%s core %d\"];\n", i, d->ranks[i].host, d->ranks[i].core);
    for (int i = 0; i < g->n; i++)
        for (long long e = g->xadj[i]; e < g->xadj[i + 1]; e++)
            if (g->adjncy[e] > i)
                fprintf(f, "  %d -- %d [label=\"%.0f\", penwidth=%.2f];\n", i, g->adjncy[e],
                        g->adjwgt[e], 0.5 + 4.5 * g->adjwgt[e] / wmax);
    fprintf(f, "}\n");
    return hc_prof_close(f);
}

static int write_ranks(const char *dir, const hc_prof_data *d)
{
    uint64_t *p2p = calloc((size_t)d->nranks, sizeof *p2p);
    uint64_t *coll = calloc((size_t)d->nranks, sizeof *coll);
    FILE *f = p2p && coll ? hc_prof_open(dir, "ranks.csv") : NULL;
    if (!f) {
        free(p2p);
        free(coll);
        return -1;
    }
    for (long long i = 0; i < d->nrows; i++)
        if (d->rows[i].src < (uint64_t)d->nranks) {
            p2p[d->rows[i].src] += p2p_of(d->rows[i].bytes);
            coll[d->rows[i].src] += d->rows[i].bytes[HC_PK_COLL];
        }
    fprintf(f, "# hiercoll ranks v1\n"
               "rank,host,core,numa,mpi_time_us,p2p_bytes_sent,coll_bytes_sent,calls,incomplete\n");
    for (int r = 0; r < d->nranks; r++) {
        const hc_prof_rank *k = &d->ranks[r];
        fprintf(f, "%d,%s,%d,%d,%.3f,%llu,%llu,%llu,%d\n", r, k->host, k->core, k->numa,
                (double)k->mpi_ns / 1e3, (unsigned long long)p2p[r], (unsigned long long)coll[r],
                (unsigned long long)k->calls, k->incomplete);
    }
    free(p2p);
    free(coll);
    return hc_prof_close(f);
}

/* Where the ranks ran, each host's topology and cores as its node leader read them, and the
 * Slurm allocation the job ran in. */
static int write_machine(const char *dir, const hc_prof_data *d)
{
    FILE *f = hc_prof_open(dir, "machine.txt");
    if (!f)
        return -1;
    fprintf(f, "# hiercoll machine v1\n");
    const char *job = getenv("SLURM_JOB_ID"), *nodes = getenv("SLURM_JOB_NODELIST");
    const char *cpus = getenv("SLURM_JOB_CPUS_PER_NODE");
    if (job && nodes && cpus && !strpbrk(nodes, " \t\n") && !strpbrk(cpus, " \t\n"))
        fprintf(f, "slurm job %s nodes %s cpus_per_node %s\n", job, nodes, cpus);
    for (int r = 0; r < d->nranks; r++)
        fprintf(f, "rank %d host %s core %d numa %d\n", r, d->ranks[r].host, d->ranks[r].core,
                d->ranks[r].numa);
    for (int r = 0; r < d->nranks; r++) {
        int first = 1;
        for (int q = 0; q < r && first; q++)
            first = strcmp(d->ranks[q].host, d->ranks[r].host) != 0;
        if (!first)
            continue;
        char real[HC_MAPFILE_HOSTLEN], cores[8192];
        hc_mapfile_physical_host(d->ranks[r].host, real, sizeof real); /* a virtual node's */
        int t = hc_host_topo_find(d->hosts, d->nhosts, real);
        fprintf(f, "host %s topology %s\n", d->ranks[r].host, t >= 0 ? d->hosts[t].synthetic : "?");
        if (t >= 0) {
            hc_host_topo_format(&d->hosts[t], cores, sizeof cores);
            fprintf(f, "host %s cores %s\n", d->ranks[r].host, cores);
        }
    }
    return hc_prof_close(f);
}

static void remove_tree(const char *dir)
{
    DIR *dp = opendir(dir);
    if (dp) {
        struct dirent *e;
        while ((e = readdir(dp))) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char path[PATH_MAX];
            int len = snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            if (len > 0 && (size_t)len < sizeof path)
                unlink(path);
        }
        closedir(dp);
    }
    rmdir(dir);
}

/* What the run learned, for the next run's HIERCOLL_TUNING (collectives/learn_save.c). */
static int write_learned(const char *dir, const hc_prof_data *d)
{
    if (!d->learned)
        return 0;
    FILE *f = hc_prof_open(dir, "tuning.txt");
    if (f)
        fputs(d->learned, f);
    return hc_prof_close(f);
}

/* Renames tmp to dir (absent or an empty directory), or else to the first free dir.N; the
 * name used goes to final. */
static int publish(const char *tmp, const char *dir, char *final, size_t len)
{
    for (int k = 0; k < MAX_NUMBERED; k++) {
        int n = k ? snprintf(final, len, "%s.%d", dir, k) : snprintf(final, len, "%s", dir);
        if (n < 0 || (size_t)n >= len) {
            errno = ENAMETOOLONG;
            return -1;
        }
        if (renameat2(AT_FDCWD, tmp, AT_FDCWD, final, RENAME_NOREPLACE) == 0)
            return 0;
        if (errno != EEXIST && errno != ENOTEMPTY)
            return -1;
        /* An existing empty directory (made ready by a launcher script) is taken: rename
         * replaces it atomically, and fails if anything appeared in it meanwhile. */
        struct stat st;
        if (stat(final, &st) == 0 && S_ISDIR(st.st_mode) && rename(tmp, final) == 0)
            return 0;
    }
    errno = EEXIST;
    return -1;
}

int hc_prof_write(const char *dir, const hc_prof_data *d)
{
    char tmp[PATH_MAX], final[PATH_MAX];
    size_t dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/')
        dl--; /* "out/" names the directory out */
    snprintf(tmp, sizeof tmp, "%.*s.tmp-%ld", (int)dl, dir, (long)getpid());
    char target[PATH_MAX];
    snprintf(target, sizeof target, "%.*s", (int)dl, dir);
    if (mkdir(tmp, 0755) != 0) {
        hc_warn("profile not written: cannot create %s: %s", tmp, strerror(errno));
        return -1;
    }
    hc_graph g;
    memset(&g, 0, sizeof g);
    const char *failed = NULL;
    if (build_graph(&g, d, 0) != 0)
        failed = "out of memory building the task graph";
    else if (write_matrix(tmp, d, 0) || write_matrix(tmp, d, 1) || write_graph(tmp, &g, d) ||
             write_ranks(tmp, d) || write_machine(tmp, d) || hc_prof_write_report(tmp, d) ||
             write_learned(tmp, d))
        failed = strerror(errno ? errno : EIO);
    if (!failed && publish(tmp, target, final, sizeof final) != 0)
        failed = strerror(errno);
    if (failed) {
        hc_warn("profile not written to %s: %s", target, failed);
        remove_tree(tmp);
        if (g.xadj)
            hc_graph_free(&g);
        return -1;
    }
    if (strcmp(final, target) != 0)
        hc_warn("profile directory %s exists: profile written to %s instead", target, final);
    else
        hc_log(NULL, "profile written to %s", final);

    hc_graph halves[2];
    memset(halves, 0, sizeof halves);
    int have_halves = hc_model_checks_halves(&g) && build_graph(&halves[0], d, 1) == 0 &&
                      build_graph(&halves[1], d, 2) == 0;
    hc_map_finalize(final, &g, have_halves ? halves : NULL, d);
    hc_graph_free(&halves[0]);
    hc_graph_free(&halves[1]);
    hc_graph_free(&g);
    hc_prof_write_cost(final, d);
    return 0;
}
