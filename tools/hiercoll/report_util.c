/* hiercoll report: orders, levels, formatting, and call sites resolved with addr2line. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"

const char *const rep_level_names[REP_NLEVELS] = {"same NUMA domain", "same node, other NUMA",
                                                   "between nodes"};

int rep_level(const rep_profile *p, int a, int b)
{
    const rep_rank *x = &p->ranks[a], *y = &p->ranks[b];
    if (strcmp(x->host, y->host) != 0)
        return REP_LVL_NETWORK;
    return x->numa != y->numa ? REP_LVL_NODE : REP_LVL_NUMA;
}

/* qsort has no context argument: the keys being sorted. */
static const char *const *sort_host;
static const int *sort_core;

static int slot_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    int c = strverscmp(sort_host[x], sort_host[y]); /* node2 before node10 */
    if (c)
        return c;
    if (sort_core[x] != sort_core[y])
        return sort_core[x] < sort_core[y] ? -1 : 1;
    return (x > y) - (x < y);
}

static void order_by(int n, const char **host, const int *core, int *order)
{
    for (int i = 0; i < n; i++)
        order[i] = i;
    sort_host = host;
    sort_core = core;
    qsort(order, (size_t)n, sizeof *order, slot_cmp);
}

const char **rep_hosts(const rep_profile *p, int mapped)
{
    const char **host = malloc(sizeof *host * (size_t)(p->nranks + 1));
    for (int r = 0; host && r < p->nranks; r++)
        host[r] = mapped ? p->map.host[r] : p->ranks[r].host;
    return host;
}

void rep_order_as_run(const rep_profile *p, int *order)
{
    const char **host = rep_hosts(p, 0);
    int *core = malloc(sizeof *core * (size_t)p->nranks);
    for (int r = 0; r < p->nranks; r++)
        core[r] = p->ranks[r].core;
    order_by(p->nranks, host, core, order);
    free(host);
    free(core);
}

int rep_order_mapped(const rep_profile *p, int *order)
{
    if (!p->has_mapping)
        return -1;
    const char **host = rep_hosts(p, 1);
    order_by(p->nranks, host, p->map.core, order);
    free(host);
    return 0;
}

static const rep_pair *top_base;
static int top_cmp(const void *a, const void *b)
{
    const rep_pair *x = &top_base[*(const long long *)a], *y = &top_base[*(const long long *)b];
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    return *(const long long *)a < *(const long long *)b ? -1 : 1;
}

long long *rep_top_pairs(const rep_profile *p)
{
    long long *idx = malloc(sizeof *idx * (size_t)(p->npairs + 1));
    if (!idx)
        return NULL;
    for (long long i = 0; i < p->npairs; i++)
        idx[i] = i;
    top_base = p->pairs;
    qsort(idx, (size_t)p->npairs, sizeof *idx, top_cmp);
    return idx;
}

void rep_xml(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(*s, out);
        }
    }
}

const char *rep_bytes(double b, char *buf, size_t len)
{
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (b >= 1024 && u < 5)
        b /= 1024, u++;
    if (u == 0)
        snprintf(buf, len, "%.0f B", b);
    else
        snprintf(buf, len, "%.1f %s", b, unit[u]);
    return buf;
}

/* Runs addr2line -f -C -e MODULE for the sites of one module; fills func and where. */
static void resolve_module(rep_site *sites, const char *module, int *idx, int n)
{
    char **argv = calloc((size_t)n + 6, sizeof *argv);
    char (*addr)[24] = calloc((size_t)n, sizeof *addr);
    int fd[2];
    if (!argv || !addr || access(module, R_OK) != 0 || pipe(fd) != 0) {
        free(argv);
        free(addr);
        return;
    }
    int a = 0;
    argv[a++] = "addr2line";
    argv[a++] = "-f";
    argv[a++] = "-C";
    argv[a++] = "-e";
    argv[a++] = (char *)module;
    for (int i = 0; i < n; i++) {
        /* a return address: the call is the byte before it */
        unsigned long long off = sites[idx[i]].offset;
        snprintf(addr[i], sizeof addr[i], "0x%llx", off ? off - 1 : 0);
        argv[a++] = addr[i];
    }
    argv[a] = NULL;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        execvp("addr2line", argv);
        _exit(127);
    }
    close(fd[1]);
    FILE *in = pid > 0 ? fdopen(fd[0], "r") : NULL;
    char fline[1024], wline[1024];
    for (int i = 0; in && i < n; i++) {
        if (!fgets(fline, sizeof fline, in) || !fgets(wline, sizeof wline, in))
            break;
        fline[strcspn(fline, "\n")] = 0;
        wline[strcspn(wline, "\n")] = 0;
        char *disc = strstr(wline, " (discriminator");
        if (disc)
            *disc = 0;
        rep_site *s = &sites[idx[i]];
        if (strcmp(fline, "??") != 0)
            snprintf(s->func, sizeof s->func, "%.255s", fline);
        if (strncmp(wline, "??", 2) != 0)
            snprintf(s->where, sizeof s->where, "%.511s", wline);
    }
    if (in)
        fclose(in);
    else
        close(fd[0]);
    if (pid > 0)
        waitpid(pid, NULL, 0);
    free(argv);
    free(addr);
}

static void resolve_list(rep_site *sites, int nsites)
{
    int *idx = malloc(sizeof(int) * (size_t)(nsites + 1));
    char *done = calloc((size_t)nsites + 1, 1);
    for (int i = 0; idx && done && i < nsites; i++) {
        if (done[i])
            continue;
        int n = 0;
        for (int j = i; j < nsites; j++)
            if (!done[j] && strcmp(sites[j].module, sites[i].module) == 0) {
                idx[n++] = j;
                done[j] = 1;
            }
        resolve_module(sites, sites[i].module, idx, n);
    }
    for (int i = 0; i < nsites; i++) {
        rep_site *s = &sites[i];
        if (!s->func[0])
            snprintf(s->func, sizeof s->func, "%s", strcmp(s->symbol, "") ? s->symbol : "?");
        if (!s->where[0]) {
            const char *base = strrchr(s->module, '/');
            snprintf(s->where, sizeof s->where, "%.480s+0x%llx", base ? base + 1 : s->module,
                     s->offset);
        }
    }
    free(idx);
    free(done);
}

void rep_resolve_sites(rep_profile *p)
{
    resolve_list(p->sites, p->nsites);
    rep_site *learned = calloc((size_t)p->nlearned + 1, sizeof *learned);
    for (int i = 0; learned && i < p->nlearned; i++)
        learned[i] = p->learned[i].site;
    if (learned)
        resolve_list(learned, p->nlearned);
    for (int i = 0; learned && i < p->nlearned; i++)
        p->learned[i].site = learned[i];
    free(learned);
}
