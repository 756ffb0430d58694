/* Scotch's gmap run as a program: file formats of the Scotch 7 user's manual (source graph
 * "0 / n 2m / base flags / per vertex: degree, then weight and neighbour per edge"; mapping
 * "n / vertex target" lines). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hc_map.h"
#include "gmap.h"

int hc_gmap_write_graph(const hc_graph *g, const hc_machine *m, const char *path)
{
    hc_tleaf t;
    if (hc_map_tleaf(m, 1, &t) != 0)
        return -1;
    double scale = hc_map_scotch_scale(g, m);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "0\n%d %lld\n0 010\n", g->n, g->xadj[g->n]);
    for (int v = 0; v < g->n; v++) {
        fprintf(f, "%lld", g->xadj[v + 1] - g->xadj[v]);
        for (long long e = g->xadj[v]; e < g->xadj[v + 1]; e++)
            fprintf(f, " %lld %d", hc_map_scotch_weight(g->adjwgt[e], scale), g->adjncy[e]);
        fputc('\n', f);
    }
    int bad = ferror(f);
    return fclose(f) == 0 && !bad ? 0 : -1;
}

int hc_gmap_write_target(const hc_machine *m, int cumulative, const char *path)
{
    hc_tleaf t;
    if (hc_map_tleaf(m, cumulative, &t) != 0)
        return -1;
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "tleaf %d", t.n);
    for (int k = 0; k < t.n; k++)
        fprintf(f, " %d %d", t.size[k], t.link[k]);
    fputc('\n', f);
    return fclose(f) == 0 ? 0 : -1;
}

int hc_gmap_run(const char *gmap, const char *grf, const char *tgt, const char *options,
                  const char *mapout, double *cpu, char *err, size_t errlen)
{
    char opts[256], *argv[16];
    int argc = 0;
    snprintf(opts, sizeof opts, "%s", options ? options : "");
    argv[argc++] = (char *)gmap;
    argv[argc++] = (char *)grf;
    argv[argc++] = (char *)tgt;
    argv[argc++] = (char *)mapout;
    for (char *tok = strtok(opts, " "); tok && argc < 15; tok = strtok(NULL, " "))
        argv[argc++] = tok;
    argv[argc] = NULL;
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        /* gmap's log and errors go to /dev/null: its verdict is its exit status */
        FILE *null = freopen("/dev/null", "w", stderr);
        (void)null;
        execvp(gmap, argv);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0) {
        snprintf(err, errlen, "wait: %s", strerror(errno));
        return -1;
    }
    *cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        snprintf(err, errlen, "%s %s failed (%s %d)", gmap, options ? options : "",
                 WIFEXITED(status) ? "exit status" : "signal",
                 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
        return -1;
    }
    return 0;
}

int hc_gmap_read_mapping(const char *path, int M, int ntargets, int *map, char *err,
                           size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s:0: cannot open: %s", path, strerror(errno));
        return -1;
    }
    long long n, v, t;
    int line = 1, rc = -1;
    for (int i = 0; i < M; i++)
        map[i] = -1;
    if (fscanf(f, "%lld", &n) != 1 || n != M) {
        snprintf(err, errlen, "%s:1: expected the vertex count %d", path, M);
        goto out;
    }
    for (long long k = 0; k < n; k++) {
        line++;
        if (fscanf(f, "%lld %lld", &v, &t) != 2 || v < 0 || v >= M || t < 0 || t >= ntargets ||
            map[v] >= 0) {
            snprintf(err, errlen, "%s:%d: expected a new vertex in 0..%d and a target in 0..%d",
                     path, line, M - 1, ntargets - 1);
            goto out;
        }
        map[v] = (int)t;
    }
    rc = 0;
out:
    fclose(f);
    return rc;
}

static int on_path(const char *prog)
{
    const char *path = getenv("PATH");
    char buf[4096];
    while (path && *path) {
        size_t len = strcspn(path, ":");
        snprintf(buf, sizeof buf, "%.*s/%s", (int)len, path, prog);
        if (access(buf, X_OK) == 0)
            return 1;
        path += len + (path[len] == ':');
    }
    return 0;
}

const char *hc_gmap_find(void)
{
    static const char *const names[] = {"gmap", "scotch_gmap"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (on_path(names[i]))
            return names[i];
    return NULL;
}
