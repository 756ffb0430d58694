/* Calling patterns by name (bench.h says what each means). Header-only, so `hiercoll bench`
 * checks a --pattern before it launches anything. */
#ifndef HC_PATTERN_NAME_H
#define HC_PATTERN_NAME_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ROOT_ROTATE, ROOT_FIXED, NROOT };
enum { BUF_FRESH, BUF_WARM, BUF_COLD, NBUF };
enum { TIME_LATENCY, TIME_STREAM, NTIME };
typedef struct pattern {
    int root, buf, timing;
} pattern;
#define MAX_PATTERNS (NROOT * NBUF * NTIME)

static const char *const pattern_root_names[NROOT] = {"rotate", "fixed"};
static const char *const pattern_buf_names[NBUF] = {"fresh", "warm", "cold"};
static const char *const pattern_time_names[NTIME] = {"latency", "stream"};

static inline void pattern_name(pattern p, char *out, size_t len)
{
    snprintf(out, len, "%s-%s-%s", pattern_root_names[p.root], pattern_buf_names[p.buf],
             pattern_time_names[p.timing]);
}

/* One field: its index in names, or -1 for '*'; -2 if unknown. */
static inline int pattern_field(const char *s, size_t n, const char *const *names, int count)
{
    if (n == 1 && *s == '*')
        return -1;
    for (int i = 0; i < count; i++)
        if (strlen(names[i]) == n && !strncmp(s, names[i], n))
            return i;
    return -2;
}

static inline int pattern_parse_one(const char *t, pattern *out, int *n, char *err, size_t errlen)
{
    if (!strcmp(t, "all"))
        t = "*-*-*";
    const char *d1 = strchr(t, '-'), *d2 = d1 ? strchr(d1 + 1, '-') : NULL;
    if (!d2 || strchr(d2 + 1, '-')) {
        snprintf(err, errlen, "'%s' is not ROOT-BUFFERS-TIMING", t);
        return -1;
    }
    int r = pattern_field(t, (size_t)(d1 - t), pattern_root_names, NROOT);
    int b = pattern_field(d1 + 1, (size_t)(d2 - d1 - 1), pattern_buf_names, NBUF);
    int m = pattern_field(d2 + 1, strlen(d2 + 1), pattern_time_names, NTIME);
    if (r == -2 || b == -2 || m == -2) {
        snprintf(err, errlen,
                 "'%s': root is rotate|fixed, buffers fresh|warm|cold, timing latency|stream "
                 "(or * for each)", t);
        return -1;
    }
    for (int i = 0; i < NROOT; i++)
        for (int j = 0; j < NBUF; j++)
            for (int k = 0; k < NTIME; k++) {
                if ((r >= 0 && i != r) || (b >= 0 && j != b) || (m >= 0 && k != m))
                    continue;
                int seen = 0;
                for (int x = 0; x < *n; x++)
                    seen |= out[x].root == i && out[x].buf == j && out[x].timing == k;
                if (!seen)
                    out[(*n)++] = (pattern){i, j, k};
            }
    return 0;
}

/* "rotate-fresh-latency"; a field may be '*' ("fixed-*-stream"), "all" is "*-*-*"; a list is
 * comma-separated. Returns 0, or -1 with a reason in err. */
static inline int pattern_parse(const char *text, pattern *out, int *n, char *err, size_t errlen)
{
    char *list = strdup(text), *save = NULL;
    int rc = 0;
    *n = 0;
    for (char *t = strtok_r(list, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save))
        rc = pattern_parse_one(t, out, n, err, errlen);
    free(list);
    if (!rc && !*n) {
        snprintf(err, errlen, "no pattern given");
        rc = -1;
    }
    return rc;
}

#endif
