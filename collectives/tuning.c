/* Tuning file (docs/tuning.md): rules "collective bytes ranks nodes algorithm", first match
 * wins. Read once per path, on first use; a malformed file is reported (FILE:LINE: reason)
 * and ignored as a whole, so a typo never half-applies. */
#include "hc_tuning.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hc_config.h"
#include "hc_log.h"

#define TUNING_MAGIC "hiercoll-tuning 1"

typedef struct rule {
    char coll[16];
    long long lo, hi;       /* bytes in [lo, hi) */
    int rlo, rhi, nlo, nhi; /* ranks and nodes, inclusive */
    int algo;
} rule;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char loaded_path[4096];
static rule *rules;
static int nrules;

/* "*", "lo-hi", "lo-", "-hi" (sizes, half-open) or "n" (exactly n). */
static int parse_bytes(const char *t, long long *lo, long long *hi)
{
    *lo = 0;
    *hi = -1; /* open */
    if (strcmp(t, "*") == 0)
        return 0;
    const char *dash = strchr(t, '-');
    char a[64] = "", b[64] = "";
    if (!dash) {
        if (hc_parse_size(t, lo) != 0)
            return -1;
        *hi = *lo + 1;
        return 0;
    }
    if ((size_t)(dash - t) >= sizeof a || strlen(dash + 1) >= sizeof b)
        return -1;
    memcpy(a, t, (size_t)(dash - t));
    strcpy(b, dash + 1);
    if (*a && hc_parse_size(a, lo) != 0)
        return -1;
    if (*b && hc_parse_size(b, hi) != 0)
        return -1;
    return *hi >= 0 && *hi <= *lo ? -1 : 0;
}

/* "*", "n" or "lo-hi" (inclusive) of positive integers. */
static int parse_count(const char *t, int *lo, int *hi)
{
    *lo = 1;
    *hi = 1 << 30;
    if (strcmp(t, "*") == 0)
        return 0;
    char *end;
    long a = strtol(t, &end, 10), b = a;
    if (end == t || a < 1)
        return -1;
    if (*end == '-') {
        const char *s = end + 1;
        b = strtol(s, &end, 10);
        if (end == s || b < a)
            return -1;
    }
    if (*end)
        return -1;
    *lo = (int)a;
    *hi = (int)b;
    return 0;
}

/* Parses the whole file into a new table; -1 with "path:line: reason" in err. */
static int parse_file(const char *path, rule **out, int *nout, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    char line[512];
    int lineno = 0, n = 0, cap = 0, seen_magic = 0, rc = 0;
    rule *tab = NULL;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = 0;
        if (!seen_magic) {
            if (strcmp(line, TUNING_MAGIC) != 0) {
                snprintf(err, errlen, "%s:%d: first line must be '%s'", path, lineno,
                         TUNING_MAGIC);
                rc = -1;
                break;
            }
            seen_magic = 1;
            continue;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        char f1[32], f2[64], f3[32], f4[32], f5[32], extra[8];
        int got = sscanf(line, "%31s %63s %31s %31s %31s %7s", f1, f2, f3, f4, f5, extra);
        if (got <= 0)
            continue;
        rule r;
        const char *var = strcmp(f1, "bcast") == 0       ? "HIERCOLL_BCAST"
                          : strcmp(f1, "allreduce") == 0 ? "HIERCOLL_ALLREDUCE"
                                                         : NULL;
        const char *why = NULL;
        if (got != 5)
            why = "expected 5 fields: collective bytes ranks nodes algorithm";
        else if (!var)
            why = "collective must be bcast or allreduce";
        else if (parse_bytes(f2, &r.lo, &r.hi) != 0)
            why = "bytes must be *, N, LO-HI, LO- or -HI (K/M/G suffixes)";
        else if (parse_count(f3, &r.rlo, &r.rhi) != 0)
            why = "ranks must be *, N or LO-HI";
        else if (parse_count(f4, &r.nlo, &r.nhi) != 0)
            why = "nodes must be *, N or LO-HI";
        else if ((r.algo = hc_config_enum_index(hc_config_find(var), f5)) < 0)
            why = "unknown algorithm";
        if (why) {
            snprintf(err, errlen, "%s:%d: %s", path, lineno, why);
            rc = -1;
            break;
        }
        strcpy(r.coll, var[9] == 'B' ? "bcast" : "allreduce"); /* f1, now known short */
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            rule *grown = realloc(tab, sizeof(rule) * (size_t)cap);
            if (!grown) {
                snprintf(err, errlen, "%s: out of memory", path);
                rc = -1;
                break;
            }
            tab = grown;
        }
        tab[n++] = r;
    }
    if (rc == 0 && !seen_magic) {
        snprintf(err, errlen, "%s: empty file (first line must be '%s')", path, TUNING_MAGIC);
        rc = -1;
    }
    fclose(f);
    if (rc != 0) {
        free(tab);
        return -1;
    }
    *out = tab;
    *nout = n;
    return 0;
}

int hc_tuning_choose(const char *collective, long long bytes, const hc_comm *c, int builtin_choice)
{
    const char *path = hc_cfg.tuning.s;
    if (!path || !*path)
        return builtin_choice;
    pthread_mutex_lock(&lock);
    if (strcmp(path, loaded_path) != 0) {
        free(rules);
        rules = NULL;
        nrules = 0;
        char err[600];
        if (parse_file(path, &rules, &nrules, err, sizeof err) != 0)
            hc_warn("tuning file ignored: %s", err);
        snprintf(loaded_path, sizeof loaded_path, "%s", path);
    }
    int choice = builtin_choice;
    for (int i = 0; i < nrules; i++) {
        const rule *r = &rules[i];
        if (strcmp(r->coll, collective) == 0 && bytes >= r->lo && (r->hi < 0 || bytes < r->hi) &&
            c->size >= r->rlo && c->size <= r->rhi && c->num_nodes >= r->nlo &&
            c->num_nodes <= r->nhi) {
            choice = r->algo;
            break;
        }
    }
    pthread_mutex_unlock(&lock);
    return choice;
}
