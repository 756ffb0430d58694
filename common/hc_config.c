/* HIERCOLL_* parsing: one table (hc_config_vars.def), one parser, no MPI. */
#include "hc_config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

hc_config hc_cfg;

#define HC_VAR(field, name, type, def, acc, help) \
    {name, type, def, acc, help, offsetof(hc_config, field)},
const hc_var_desc hc_var_table[] = {
#include "hc_config_vars.def"
};
#undef HC_VAR
const int hc_var_count = sizeof hc_var_table / sizeof hc_var_table[0];

/* strtod/strtoll skip leading blanks and take "inf"/"nan"; a value from the environment
 * with either is a mistake to report, not to guess at. */
static int starts_number(const char *p)
{
    return *p && !isspace((unsigned char)*p);
}

int hc_parse_bool(const char *text)
{
    static const char *on[] = {"on", "1", "yes", "true"}, *off[] = {"off", "0", "no", "false"};
    for (int k = 0; k < 4; k++) {
        if (strcasecmp(text, on[k]) == 0)
            return 1;
        if (strcasecmp(text, off[k]) == 0)
            return 0;
    }
    return -1;
}

int hc_parse_size(const char *text, long long *out)
{
    if (!text || !starts_number(text))
        return -1;
    errno = 0;
    char *end;
    double v = strtod(text, &end);
    if (end == text || errno || !isfinite(v) || v < 0)
        return -1;
    long long mult = 1;
    if (*end) {
        switch (toupper((unsigned char)*end)) {
        case 'K': mult = 1LL << 10; break;
        case 'M': mult = 1LL << 20; break;
        case 'G': mult = 1LL << 30; break;
        case 'T': mult = 1LL << 40; break;
        default: return -1;
        }
        end++;
        if (toupper((unsigned char)*end) == 'I')
            end++;
        if (toupper((unsigned char)*end) == 'B')
            end++;
        if (*end)
            return -1;
    }
    double bytes = v * (double)mult;
    if (bytes > (double)LLONG_MAX / 2 || bytes != (double)(long long)bytes)
        return -1;
    *out = (long long)bytes;
    return 0;
}

void hc_format_size(long long v, char *out, size_t len)
{
    static const char unit[] = "KMGT";
    int u = -1;
    while (u < 3 && v >= 1024 && v % 1024 == 0)
        v /= 1024, u++;
    if (u < 0)
        snprintf(out, len, "%lld", v);
    else
        snprintf(out, len, "%lld%c", v, unit[u]);
}

static int parse_int(const char *text, long long *out)
{
    if (!text || !starts_number(text))
        return -1;
    errno = 0;
    char *end;
    long long v = strtoll(text, &end, 10);
    if (*end || errno)
        return -1;
    *out = v;
    return 0;
}

int hc_parse_dims(const char *text, int *dims, int maxdims)
{
    if (!text || !*text)
        return -1;
    if (strcmp(text, "auto") == 0)
        return 0;
    int n = 0;
    const char *p = text;
    for (;;) {
        if (!isdigit((unsigned char)*p))
            return -1;
        char *end;
        long v = strtol(p, &end, 10);
        if (v < 1 || v > 1 << 24 || n >= maxdims)
            return -1;
        dims[n++] = (int)v;
        if (!*end)
            return n;
        if (*end != 'x' && *end != 'X')
            return -1;
        p = end + 1;
    }
}

int hc_parse_floats(const char *text, double *vals, int maxvals)
{
    if (!text || !*text)
        return -1;
    int n = 0;
    const char *p = text;
    for (;;) {
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        if (!starts_number(p) || end == p || errno || !(v > 0) || !isfinite(v) || n >= maxvals)
            return -1;
        vals[n++] = v;
        if (!*end)
            return n;
        if (*end != ',')
            return -1;
        p = end + 1;
    }
}

int hc_config_enum_index(const hc_var_desc *v, const char *value)
{
    const char *a = v->accepted;
    size_t len = strlen(value);
    for (int idx = 0; *a; idx++) {
        const char *bar = strchr(a, '|');
        size_t alen = bar ? (size_t)(bar - a) : strlen(a);
        if (alen == len && strncmp(a, value, len) == 0)
            return idx;
        if (!bar)
            break;
        a = bar + 1;
    }
    return -1;
}

void hc_config_enum_name(const hc_var_desc *v, int i, char *out, size_t len)
{
    const char *a = v && i >= 0 ? v->accepted : "";
    for (int k = 0; k < i && *a; k++) {
        const char *bar = strchr(a, '|');
        a = bar ? bar + 1 : "";
    }
    size_t n = strcspn(a, "|");
    snprintf(out, len, "%.*s", (int)(n ? n : 1), n ? a : "?");
}

static int parse_range(const char *accepted, long long *lo, long long *hi, int sizes)
{
    char buf[64];
    const char *dots = strstr(accepted, "..");
    if (!dots || (size_t)(dots - accepted) >= sizeof buf)
        return -1;
    memcpy(buf, accepted, (size_t)(dots - accepted));
    buf[dots - accepted] = 0;
    if (sizes)
        return hc_parse_size(buf, lo) || hc_parse_size(dots + 2, hi) ? -1 : 0;
    return parse_int(buf, lo) || parse_int(dots + 2, hi) ? -1 : 0;
}

/* The value as quoted in a message: control characters shown as '?', long values cut, so
 * the message stays one line whatever the environment holds. */
static const char *shown(const char *text, char *buf, size_t len)
{
    size_t i = 0;
    for (; text[i] && i + 4 < len; i++)
        buf[i] = (unsigned char)text[i] < 0x20 || text[i] == 0x7f ? '?' : text[i];
    if (text[i])
        buf[i++] = '.', buf[i++] = '.', buf[i++] = '.';
    buf[i] = 0;
    return buf;
}

int hc_config_parse_value(const hc_var_desc *v, const char *raw, hc_value *out,
                          char *err, size_t errlen)
{
    char buf[100];
    const char *text = shown(raw, buf, sizeof buf);
    out->s = raw;
    out->i = 0;
    long long lo, hi;
    switch (v->type) {
    case HC_ENUM:
        out->i = hc_config_enum_index(v, raw);
        if (out->i < 0) {
            snprintf(err, errlen, "%s='%s' is not accepted: use one of %s", v->name, text,
                     v->accepted);
            return -1;
        }
        return 0;
    case HC_SIZE:
    case HC_INT:
        if ((v->type == HC_SIZE ? hc_parse_size(raw, &out->i) : parse_int(raw, &out->i)) != 0) {
            snprintf(err, errlen, "%s='%s' is not %s: use a value in %s", v->name, text,
                     v->type == HC_SIZE ? "a size (e.g. 64K, 4M)" : "an integer", v->accepted);
            return -1;
        }
        if (parse_range(v->accepted, &lo, &hi, v->type == HC_SIZE) == 0 &&
            (out->i < lo || out->i > hi)) {
            snprintf(err, errlen, "%s='%s' is out of range: use a value in %s", v->name, text,
                     v->accepted);
            return -1;
        }
        return 0;
    case HC_BOOL:
        out->i = hc_parse_bool(raw);
        if (out->i < 0) {
            snprintf(err, errlen, "%s='%s' is not accepted: use on or off", v->name, text);
            return -1;
        }
        return 0;
    case HC_DIMS: {
        int dims[16];
        if (hc_parse_dims(raw, dims, 16) < 0) {
            snprintf(err, errlen, "%s='%s' is not accepted: use auto or AxBx... (positive integers)",
                     v->name, text);
            return -1;
        }
        return 0;
    }
    case HC_FLOATS: {
        double vals[32];
        if (*raw && hc_parse_floats(raw, vals, 32) < 0) {
            snprintf(err, errlen,
                     "%s='%s' is not accepted: use a comma-separated list of positive numbers",
                     v->name, text);
            return -1;
        }
        return 0;
    }
    case HC_STRING:
        return 0;
    }
    return 0;
}

const hc_var_desc *hc_config_find(const char *name)
{
    for (int i = 0; i < hc_var_count; i++)
        if (strcmp(hc_var_table[i].name, name) == 0)
            return &hc_var_table[i];
    return NULL;
}

static int edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 99;
    int d[64][64];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            int del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
            d[i][j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
    return d[la][lb];
}

int hc_config_load(hc_config *cfg, char *const *envp, char *err, size_t errlen, char *warn,
                   size_t warnlen)
{
    if (warn && warnlen)
        warn[0] = 0;
    for (int i = 0; i < hc_var_count; i++) {
        const hc_var_desc *v = &hc_var_table[i];
        hc_value *slot = (hc_value *)((char *)cfg + v->offset);
        const char *env = getenv(v->name);
        if (hc_config_parse_value(v, v->def, slot, err, errlen) != 0)
            return -1; /* a bad default is a bug in the table; the unit test catches it */
        slot->from_env = 0;
        if (env) {
            if (!*env) {
                snprintf(err, errlen, "%s is set but empty: unset it or give %s", v->name,
                         v->accepted);
                return -1;
            }
            if (hc_config_parse_value(v, env, slot, err, errlen) != 0)
                return -1;
            slot->from_env = 1;
        }
    }
    for (char *const *e = envp; e && *e; e++) {
        if (strncmp(*e, "HIERCOLL_", 9) != 0)
            continue;
        char name[128];
        const char *eq = strchr(*e, '=');
        size_t n = eq ? (size_t)(eq - *e) : strlen(*e);
        if (n >= sizeof name)
            n = sizeof name - 1;
        memcpy(name, *e, n);
        name[n] = 0;
        if (hc_config_find(name))
            continue;
        const char *best = NULL;
        int bestd = 1 << 30;
        for (int i = 0; i < hc_var_count; i++) {
            int d = edit_distance(name, hc_var_table[i].name);
            if (d < bestd) {
                bestd = d;
                best = hc_var_table[i].name;
            }
        }
        if (warn && warnlen) {
            size_t used = strlen(warn);
            snprintf(warn + used, warnlen - used,
                     "hiercoll: warning: unknown variable %s ignored; did you mean %s?\n", name,
                     best ? best : "?");
        }
    }
    return 0;
}
