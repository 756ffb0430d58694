/* Reader of the tuning file (docs/tuning.md): "hiercoll-tuning 1" or "hiercoll-tuning 2",
 * then rules "collective bytes ranks nodes algorithm[:key=value,...]" and, in version 2,
 * options "site=... root=... from=learned calls=... times=...", '#' comments. */
#include "hc_tuning_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hc_config.h"

#define TUNING_MAGIC "hiercoll-tuning "
#define MAX_FIELDS 12
#define FIELD_MAX 256 /* options; the five fields of a rule stay below 64 */

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

/* "*", "n" or "lo-hi" (inclusive) of integers from `least`. */
static int parse_count(const char *t, int least, int *lo, int *hi)
{
    *lo = least;
    *hi = 1 << 30;
    if (strcmp(t, "*") == 0)
        return 0;
    char *end;
    long a = strtol(t, &end, 10), b = a;
    if (end == t || a < least || a > 1 << 30)
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
static int split_fields(char *line, char fields[][FIELD_MAX], int max)
{
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(line, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        if (strlen(tok) >= FIELD_MAX || (n < 5 && strlen(tok) >= 64))
            return -1;
        if (n < max)
            strcpy(fields[n], tok);
        if (++n > max)
            return n;
    }
    return n;
}

/* "ALGO:US,ALGO:US,..." into the rule. */
static int parse_times(const char *t, hc_tuning_rule *r)
{
    char buf[FIELD_MAX], *save = NULL;
    snprintf(buf, sizeof buf, "%s", t);
    r->ntimes = 0;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *colon = strrchr(tok, ':'), *end;
        if (!colon || r->ntimes == HC_TUNING_MAX_TIMES)
            return -1;
        *colon = 0;
        int a = hc_algo_find(r->coll, tok);
        double us = strtod(colon + 1, &end);
        if (a < 0 || end == colon + 1 || *end || !(us >= 0 && us < 1e12))
            return -1;
        r->time_algo[r->ntimes] = a;
        r->time_us[r->ntimes++] = us;
    }
    return r->ntimes ? 0 : -1;
}

/* A version-2 option "key=value" into r; NULL, or why it is wrong. */
static const char *parse_option(const char *t, hc_tuning_rule *r)
{
    const char *eq = strchr(t, '=');
    if (!eq)
        return "options are key=value: site=, root=, from=learned, calls=, times=, seen=";
    const char *v = eq + 1;
    size_t k = (size_t)(eq - t);
    char *end;
    if (k == 4 && !strncmp(t, "site", 4)) {
        if (r->coll != HC_COLL_BCAST)
            return "site= is for bcast rules only: every rank of an allreduce must take the "
                   "same choice, and ranks may call it from different sites";
        if (!*v || strlen(v) >= sizeof r->site || !strstr(v, "+0x"))
            return "site= must be MODULE+0xOFFSET";
        strcpy(r->site, v);
    } else if (k == 4 && !strncmp(t, "root", 4)) {
        long x = strtol(v, &end, 10);
        if (r->coll != HC_COLL_BCAST || end == v || *end || x < 0 || x >= 1 << 30)
            return "root= must be a rank (bcast rules only)";
        r->root = (int)x;
    } else if (k == 4 && !strncmp(t, "from", 4)) {
        if (strcmp(v, "learned") != 0)
            return "from= must be 'learned'";
        r->learned = 1;
    } else if (k == 5 && !strncmp(t, "calls", 5)) {
        long long x = strtoll(v, &end, 10);
        if (end == v || *end || x < 0)
            return "calls= must be a count";
        r->calls = x;
    } else if (k == 4 && !strncmp(t, "seen", 4)) {
        /* where the learning run called it from: shown by hiercoll report, never matched */
        if (!*v || strlen(v) >= sizeof r->seen)
            return "seen= must name a call site";
        strcpy(r->seen, v);
    } else if (k == 5 && !strncmp(t, "times", 5)) {
        if (parse_times(v, r) != 0)
            return "times= must be ALGO:MICROSECONDS,... with the collective's algorithms";
    } else {
        return "unknown option: use site=, root=, from=learned, calls=, times=, seen=";
    }
    return NULL;
}

/* One rule's fields into r; NULL, or why the line is wrong (why_buf may hold it). */
static const char *parse_rule(char f[][FIELD_MAX], int got, int version, hc_tuning_rule *r,
                              char *why_buf, size_t why_len)
{
    memset(r, 0, sizeof *r);
    r->root = -1;
    if (got < 0)
        return "a field longer than 63 characters (options: 255)";
    if (got < 5 || (version == 1 && got != 5) || got > MAX_FIELDS)
        return version == 1 ? "expected 5 fields: collective bytes ranks nodes algorithm"
                            : "expected collective bytes ranks nodes algorithm [options]";
    if ((r->coll = hc_coll_find(f[0])) < 0)
        return "collective must be bcast or allreduce";
    if (parse_bytes(f[1], &r->lo, &r->hi) != 0)
        return "bytes must be *, N, LO-HI, LO- or -HI (K/M/G suffixes)";
    if (parse_count(f[2], 1, &r->rlo, &r->rhi) != 0)
        return "ranks must be *, N or LO-HI";
    if (parse_count(f[3], 1, &r->nlo, &r->nhi) != 0)
        return "nodes must be *, N or LO-HI";
    if (hc_algo_parse(r->coll, f[4], &r->algo, &r->params, why_buf, why_len) != 0)
        return why_buf;
    for (int i = 5; i < got; i++) {
        const char *why = parse_option(f[i], r);
        if (why)
            return why;
    }
    return NULL;
}

int hc_tuning_read(const char *path, hc_tuning_rule **out, int *nout, char *err, size_t errlen)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap_line = 0;
    ssize_t len;
    int lineno = 0, n = 0, cap = 0, version = 0, rc = 0;
    hc_tuning_rule *tab = NULL;
    char f[MAX_FIELDS][FIELD_MAX];
    while ((len = getline(&line, &cap_line, fp)) >= 0) {
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
        if (!version) {
            if (strcmp(line, TUNING_MAGIC "1") == 0 || strcmp(line, TUNING_MAGIC "2") == 0) {
                version = line[strlen(TUNING_MAGIC)] - '0';
                continue;
            }
            snprintf(err, errlen, "%s:%d: first line must be '" TUNING_MAGIC "1' or '"
                     TUNING_MAGIC "2'", path, lineno);
            rc = -1;
            break;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        int got = split_fields(line, f, MAX_FIELDS);
        if (got == 0)
            continue;
        hc_tuning_rule r;
        char why_buf[512];
        const char *why = parse_rule(f, got, version, &r, why_buf, sizeof why_buf);
        if (why) {
            snprintf(err, errlen, "%s:%d: %s", path, lineno, why);
            rc = -1;
            break;
        }
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
    if (rc == 0 && !version) {
        snprintf(err, errlen, "%s:1: empty file (first line must be '" TUNING_MAGIC "2')", path);
        rc = -1;
    }
    free(line);
    fclose(fp);
    if (rc != 0) {
        free(tab);
        return -1;
    }
    *out = tab;
    *nout = n;
    return 0;
}

/* Site keys compare by module basename and offset: a binary moved between runs is the same. */
static int same_site(const char *rule, const char *call)
{
    const char *a = strrchr(rule, '/'), *b = strrchr(call, '/');
    return strcmp(a ? a + 1 : rule, b ? b + 1 : call) == 0;
}

const hc_tuning_rule *hc_tuning_match(const hc_tuning_rule *tab, int n, int coll,
                                      long long bytes, int ranks, int nodes, const char *site,
                                      int root)
{
    for (int i = 0; i < n; i++) {
        const hc_tuning_rule *r = &tab[i];
        if (r->coll == coll && bytes >= r->lo && (r->hi < 0 || bytes < r->hi) &&
            ranks >= r->rlo && ranks <= r->rhi && nodes >= r->nlo && nodes <= r->nhi &&
            (!r->site[0] || (site && same_site(r->site, site))) &&
            (r->root < 0 || r->root == root))
            return r;
    }
    return NULL;
}
