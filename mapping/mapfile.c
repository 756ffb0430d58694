/* mapping.txt reader and writer, launcher inputs. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "hc_mapfile.h"

#define HC_MAPFILE_MAGIC "# hiercoll mapping v1"

int hc_mapfile_alloc(hc_mapfile *f, int nranks)
{
    memset(f, 0, sizeof *f);
    f->nranks = nranks;
    f->host = calloc((size_t)(nranks ? nranks : 1), sizeof *f->host);
    f->core = malloc(sizeof(int) * (size_t)(nranks ? nranks : 1));
    if (!f->host || !f->core) {
        hc_mapfile_free(f);
        return -1;
    }
    for (int r = 0; r < nranks; r++)
        f->core[r] = -1;
    return 0;
}

void hc_mapfile_free(hc_mapfile *f)
{
    free(f->host);
    free(f->core);
    memset(f, 0, sizeof *f);
}

int hc_mapfile_write(const hc_mapfile *f, FILE *out)
{
    fprintf(out, "%s\n", HC_MAPFILE_MAGIC);
    fprintf(out, "# rank R host H core C: run rank R on OS core C of host H (H#k: virtual node k "
                 "of H)\n# cost: the model objective, max over ranks and sum over edges, "
                 "seconds\n");
    fprintf(out, "ranks %d\nalgorithm %s\n", f->nranks, f->algorithm[0] ? f->algorithm : "?");
    if (f->machine[0])
        fprintf(out, "machine %s\n", f->machine);
    if (f->bandwidths[0])
        fprintf(out, "bandwidths %s\n", f->bandwidths);
    for (int c = 0; c < f->ncosts; c++)
        fprintf(out, "cost %s max %.9g sum %.9g\n", f->cost[c].label, f->cost[c].max,
                f->cost[c].sum);
    for (int r = 0; r < f->nranks; r++)
        fprintf(out, "rank %d host %s core %d\n", r, f->host[r], f->core[r]);
    return ferror(out) ? -1 : 0;
}

static int fail(char *err, size_t errlen, const char *path, long line, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(err, errlen, "%s:%ld: %s", path, line, msg);
    return -1;
}

int hc_mapfile_read(hc_mapfile *f, const char *path, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    FILE *in = fopen(path, "r");
    if (!in)
        return fail(err, errlen, path, 0, "cannot open: %s", strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    int rc = -1, seen = 0;
    while (getline(&line, &cap, in) >= 0) {
        lineno++;
        line[strcspn(line, "\r\n")] = 0;
        if (lineno == 1) {
            if (strcmp(line, HC_MAPFILE_MAGIC) != 0) {
                fail(err, errlen, path, 1, "first line must be '%s'", HC_MAPFILE_MAGIC);
                goto out;
            }
            continue;
        }
        if (line[0] == '#' || line[0] == 0)
            continue;
        char key[32], rest[300] = "";
        if (sscanf(line, "%31s %299[^\n]", key, rest) < 1)
            continue;
        if (!strcmp(key, "ranks")) {
            char *end;
            long n = strtol(rest, &end, 10);
            if (end == rest || *end || n < 1 || n > (1 << 24) || f->host) {
                fail(err, errlen, path, lineno, "'ranks' needs one count in 1..%d, once", 1 << 24);
                goto out;
            }
            if (hc_mapfile_alloc(f, (int)n) != 0) {
                fail(err, errlen, path, lineno, "out of memory");
                goto out;
            }
        } else if (!strcmp(key, "algorithm")) {
            snprintf(f->algorithm, sizeof f->algorithm, "%s", rest);
        } else if (!strcmp(key, "machine")) {
            snprintf(f->machine, sizeof f->machine, "%s", rest);
        } else if (!strcmp(key, "bandwidths")) {
            snprintf(f->bandwidths, sizeof f->bandwidths, "%s", rest);
        } else if (!strcmp(key, "cost")) {
            hc_mapfile_cost c;
            char tail;
            if (f->ncosts == 8 || sscanf(rest, "%31s max %lg sum %lg %c", c.label, &c.max, &c.sum,
                                         &tail) != 3) {
                fail(err, errlen, path, lineno, "expected 'cost LABEL max X sum Y'");
                goto out;
            }
            f->cost[f->ncosts++] = c;
        } else if (!strcmp(key, "rank")) {
            int r, core, n = 0;
            char host[HC_MAPFILE_HOSTLEN];
            if (!f->host) {
                fail(err, errlen, path, lineno, "'rank' line before the 'ranks' count");
                goto out;
            }
            if (sscanf(rest, "%d host %63s core %d%n", &r, host, &core, &n) != 3 || rest[n]) {
                fail(err, errlen, path, lineno, "expected 'rank R host H core C'");
                goto out;
            }
            if (r < 0 || r >= f->nranks || core < 0) {
                fail(err, errlen, path, lineno, "rank %d outside 0..%d or negative core", r,
                     f->nranks - 1);
                goto out;
            }
            if (f->core[r] >= 0) {
                fail(err, errlen, path, lineno, "rank %d listed twice", r);
                goto out;
            }
            snprintf(f->host[r], sizeof f->host[r], "%s", host);
            f->core[r] = core;
            seen++;
        } else {
            fail(err, errlen, path, lineno, "unknown keyword '%s'", key);
            goto out;
        }
    }
    if (lineno == 0) {
        fail(err, errlen, path, 0, "empty file");
        goto out;
    }
    if (!f->host || seen != f->nranks) {
        fail(err, errlen, path, lineno, "%d rank lines, 'ranks' says %d", seen,
             f->host ? f->nranks : 0);
        goto out;
    }
    rc = 0;
out:
    if (rc != 0)
        hc_mapfile_free(f);
    free(line);
    fclose(in);
    return rc;
}

void hc_mapfile_physical_host(const char *host, char *buf, size_t len)
{
    snprintf(buf, len, "%s", host);
    char *hash = strchr(buf, '#');
    if (hash)
        *hash = 0;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int hc_mapfile_rank_cores(const hc_mapfile *f, int r, int *cores, int max)
{
    int *all = malloc(sizeof(int) * (size_t)f->nranks), n = 0, distinct = 0, shared = 0;
    for (int q = 0; all && q < f->nranks; q++)
        if (!strcmp(f->host[q], f->host[r]))
            all[n++] = f->core[q];
    if (all)
        qsort(all, (size_t)n, sizeof *all, cmp_int);
    for (int i = 0; i < n; i++) {
        if (distinct && all[distinct - 1] == all[i])
            shared = 1;
        else
            all[distinct++] = all[i];
    }
    int k = 0;
    if (shared)
        for (; k < distinct && k < max; k++)
            cores[k] = all[k];
    else if (max > 0)
        cores[k++] = f->core[r];
    free(all);
    return k;
}

static FILE *open_in(const char *dir, const char *name, char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    return f;
}

int hc_mapfile_write_launchers(const hc_mapfile *f, const char *dir, char *err, size_t errlen)
{
    FILE *mf = open_in(dir, "machinefile", err, errlen);
    FILE *rf = mf ? open_in(dir, "rankfile", err, errlen) : NULL;
    FILE *sf = rf ? open_in(dir, "slurm.hostfile", err, errlen) : NULL;
    if (!sf) {
        if (mf)
            fclose(mf);
        if (rf)
            fclose(rf);
        return -1;
    }
    fprintf(mf, "# hiercoll machinefile v1 (MPICH Hydra: mpiexec -f machinefile); "
                "one line per run of consecutive ranks on one host\n");
    /* slot= is the OS index of the core's first processor, hence "physical" */
    fprintf(rf, "# hiercoll rankfile v1 (Open MPI: mpirun --mca rmaps_rank_file_physical 1 "
                "--rankfile rankfile)\n");
    /* slurm.hostfile has no comment syntax: one host per rank, nothing else */
    char h[HC_MAPFILE_HOSTLEN], prev[HC_MAPFILE_HOSTLEN];
    int cores[HC_MAPFILE_MAXCORES];
    for (int r = 0; r < f->nranks;) {
        hc_mapfile_physical_host(f->host[r], prev, sizeof prev);
        int end = r + 1;
        while (end < f->nranks) {
            hc_mapfile_physical_host(f->host[end], h, sizeof h);
            if (strcmp(h, prev) != 0)
                break;
            end++;
        }
        /* One pass over the run: each rank's cores, found once, go to all three files (a
         * rank bound to several cores: "c1+c2" in the machinefile, "c1,c2" in the rankfile). */
        fprintf(mf, "%s:%d binding=user:", prev, end - r);
        for (int q = r; q < end; q++) {
            int n = hc_mapfile_rank_cores(f, q, cores, HC_MAPFILE_MAXCORES);
            fprintf(rf, "rank %d=%s slot=", q, prev);
            for (int i = 0; i < n; i++) {
                fprintf(mf, "%s%d", i ? "+" : q > r ? "," : "", cores[i]);
                fprintf(rf, "%s%d", i ? "," : "", cores[i]);
            }
            fputc('\n', rf);
            fprintf(sf, "%s\n", prev);
        }
        fputc('\n', mf);
        r = end;
    }
    int bad = ferror(mf) || ferror(rf) || ferror(sf);
    bad |= fclose(mf) != 0;
    bad |= fclose(rf) != 0;
    bad |= fclose(sf) != 0;
    if (bad)
        snprintf(err, errlen, "write error in %s", dir);
    return bad ? -1 : 0;
}

int hc_mapfile_write_dir(const hc_mapfile *f, const char *dir, char *err, size_t errlen)
{
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/mapping.txt", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *out = fopen(tmp, "w");
    if (!out)
        return snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno)), -1;
    int bad = hc_mapfile_write(f, out) != 0;
    bad |= fclose(out) != 0;
    if (bad || rename(tmp, path) != 0) {
        snprintf(err, errlen, "cannot write %s", path);
        remove(tmp);
        return -1;
    }
    return hc_mapfile_write_launchers(f, dir, err, errlen);
}
