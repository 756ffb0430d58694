/* Reader of the tuning file (docs/tuning.md): "hiercoll-tuning 1", then rules
 * "collective bytes ranks nodes algorithm", '#' comments. */
#include "hc_tuning_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hc_config.h"

#define TUNING_MAGIC "hiercoll-tuning 1"

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
    if (end == t || a < 1 || a > 1 << 30)
        return -1;
    if (*end == '-') {
        const char *s = end + 1;
        b = strtol(s, &end, 10);
        if (end == s || b < a || b > 1 << 30)
            return -1;
    }
    if (*end)
        return -1;
    *lo = (int)a;
    *hi = (int)b;
    return 0;
}

/* Splits line (modified) at blanks into at most max fields; returns how many there are
 * (more than max counts as max + 1, the first ones kept), or -1 when one is too long to keep
 * whole: a cut token would be read as two fields. */
static int split_fields(char *line, char fields[][64], int max)
{
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(line, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        if (strlen(tok) >= sizeof fields[0])
            return -1;
        if (n < max)
            strcpy(fields[n], tok);
        if (++n > max)
            return n;
    }
    return n;
}

int hc_tuning_read(const char *path, hc_tuning_rule **out, int *nout, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap_line = 0;
    ssize_t len;
    int lineno = 0, n = 0, cap = 0, seen_magic = 0, rc = 0;
    hc_tuning_rule *tab = NULL;
    while ((len = getline(&line, &cap_line, f)) >= 0) {
        lineno++;
        const char *why_line = memchr(line, 0, (size_t)len) ? "NUL byte in the line"
                               : len > 512                  ? "line longer than 512 bytes"
                                                            : NULL;
        if (why_line) {
            snprintf(err, errlen, "%s:%d: %s", path, lineno, why_line);
            rc = -1;
            break;
        }
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
        char f[6][64] = {{0}};
        int got = split_fields(line, f, 6);
        if (got == 0)
            continue;
        const char *f1 = f[0], *f2 = f[1], *f3 = f[2], *f4 = f[3], *f5 = f[4];
        hc_tuning_rule r;
        const char *var = strcmp(f1, "bcast") == 0       ? "HIERCOLL_BCAST"
                          : strcmp(f1, "allreduce") == 0 ? "HIERCOLL_ALLREDUCE"
                                                         : NULL;
        const char *why = NULL;
        char why_algo[256];
        if (got < 0)
            why = "a field longer than 63 characters";
        else if (got != 5)
            why = "expected 5 fields: collective bytes ranks nodes algorithm";
        else if (!var)
            why = "collective must be bcast or allreduce";
        else if (parse_bytes(f2, &r.lo, &r.hi) != 0)
            why = "bytes must be *, N, LO-HI, LO- or -HI (K/M/G suffixes)";
        else if (parse_count(f3, &r.rlo, &r.rhi) != 0)
            why = "ranks must be *, N or LO-HI";
        else if (parse_count(f4, &r.nlo, &r.nhi) != 0)
            why = "nodes must be *, N or LO-HI";
        else if ((r.algo = hc_config_enum_index(hc_config_find(var), f5)) < 0) {
            snprintf(why_algo, sizeof why_algo, "unknown %s algorithm '%s': use one of %s", f1, f5,
                     hc_config_find(var)->accepted);
            why = why_algo;
        }
        if (why) {
            snprintf(err, errlen, "%s:%d: %s", path, lineno, why);
            rc = -1;
            break;
        }
        strcpy(r.coll, var[9] == 'B' ? "bcast" : "allreduce"); /* f1, now known short */
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            hc_tuning_rule *grown = realloc(tab, sizeof *grown * (size_t)cap);
            if (!grown) {
                snprintf(err, errlen, "%s:%d: out of memory", path, lineno);
                rc = -1;
                break;
            }
            tab = grown;
        }
        tab[n++] = r;
    }
    if (rc == 0 && !seen_magic) {
        snprintf(err, errlen, "%s:1: empty file (first line must be '%s')", path, TUNING_MAGIC);
        rc = -1;
    }
    free(line);
    fclose(f);
    if (rc != 0) {
        free(tab);
        return -1;
    }
    *out = tab;
    *nout = n;
    return 0;
}
