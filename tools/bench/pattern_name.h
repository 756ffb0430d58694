/* Calling patterns by name (bench.h says what each means). Header-only, so `hiercoll bench`
 * checks a --pattern before it launches anything. */
#ifndef HC_PATTERN_NAME_H
#define HC_PATTERN_NAME_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ROOT_ROTATE, ROOT_FIXED, ROOT_SWITCH, NROOT };
enum { BUF_FRESH, BUF_WARM, BUF_COLD, BUF_STRIDE, BUF_BLOCK, BUF_WARM2STRIDE, NBUF };
enum { TIME_LATENCY, TIME_STREAM, NTIME };
typedef struct pattern {
    int root, buf, timing;
} pattern;
#define MAX_PATTERNS (NROOT * NBUF * NTIME)

static const char *const pattern_root_names[NROOT] = {"rotate", "fixed", "switch"};
static const char *const pattern_buf_names[NBUF] = {"fresh", "warm", "cold", "stride", "block",
                                                    "warm2stride"};
static const char *const pattern_time_names[NTIME] = {"latency", "stream"};

/* Named sets of patterns, each a list in the syntax below. `classic` is the twelve the
 * broadcast's rule was tuned on (docs/algorithms-bcast.md); --tune measures those. */
static const struct {
    const char *name, *list;
} pattern_sets[] = {
    {"all", "*-*-*"},
    {"classic", "rotate-fresh-*,rotate-warm-*,rotate-cold-*,fixed-fresh-*,fixed-warm-*,fixed-cold-*"},
    {"partial", "rotate-stride-*,rotate-block-*,fixed-stride-*,fixed-block-*"},
    {"midrun", "switch-fresh-*,switch-warm-*,switch-stride-*,rotate-warm2stride-*,"
               "fixed-warm2stride-*"},
};

/* A pattern whose behaviour changes after half of each path's calls (the root, or the
 * buffers): its halves are timed and reported apart. */
static inline int pattern_midrun(pattern p)
{
    return p.root == ROOT_SWITCH || p.buf == BUF_WARM2STRIDE;
}

/* What the buffers do in half h (1 or 2; 0 for a pattern that does not change). */
static inline int pattern_buf_in(pattern p, int half)
{
    if (p.buf == BUF_WARM2STRIDE)
        return half == 2 ? BUF_STRIDE : BUF_WARM;
    return p.buf;
}

/* The root of a path's call number `call` (its own count) in half h, among n ranks. */
static inline int pattern_root_of(pattern p, int half, long long call, int n)
{
    if (p.root == ROOT_ROTATE)
        return (int)(call % n);
    return p.root == ROOT_SWITCH && half == 2 ? n - 1 : 0;
}

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
    const char *d1 = strchr(t, '-'), *d2 = d1 ? strchr(d1 + 1, '-') : NULL;
    if (!d2 || strchr(d2 + 1, '-')) {
        snprintf(err, errlen, "'%s' is not ROOT-BUFFERS-TIMING (or all, classic, partial, midrun)",
                 t);
        return -1;
    }
    int r = pattern_field(t, (size_t)(d1 - t), pattern_root_names, NROOT);
    int b = pattern_field(d1 + 1, (size_t)(d2 - d1 - 1), pattern_buf_names, NBUF);
    int m = pattern_field(d2 + 1, strlen(d2 + 1), pattern_time_names, NTIME);
    if (r == -2 || b == -2 || m == -2) {
        snprintf(err, errlen,
                 "'%s': root is rotate|fixed|switch, buffers fresh|warm|cold|stride|block|"
                 "warm2stride, timing latency|stream (or * for each)", t);
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

/* A comma-separated list of patterns ("rotate-fresh-latency"; a field may be '*', as in
 * "fixed-*-stream") and set names (pattern_sets). Returns 0, or -1 with a reason in err. */
static inline int pattern_parse(const char *text, pattern *out, int *n, char *err, size_t errlen)
{
    char *list = strdup(text), *save = NULL;
    int rc = 0;
    *n = 0;
    for (char *t = strtok_r(list, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save)) {
        const char *set = NULL;
        for (size_t s = 0; s < sizeof pattern_sets / sizeof pattern_sets[0]; s++)
            if (!strcmp(t, pattern_sets[s].name))
                set = pattern_sets[s].list;
        if (!set) {
            rc = pattern_parse_one(t, out, n, err, errlen);
            continue;
        }
        char *members = strdup(set), *save2 = NULL;
        for (char *m = strtok_r(members, ",", &save2); m && !rc; m = strtok_r(NULL, ",", &save2))
            rc = pattern_parse_one(m, out, n, err, errlen);
        free(members);
    }
    free(list);
    if (!rc && !*n) {
        snprintf(err, errlen, "no pattern given");
        rc = -1;
    }
    return rc;
}

#endif
