/* Bandwidth of each level of the machine: see hc_bandwidth.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hc_bandwidth.h"
#include "hc_config.h"
#include "hc_perffile.h"

#define MAX_LEVELS 16

/* Appends one reason to warn, "; "-separated. */
__attribute__((format(printf, 3, 4))) static void add_warn(char *warn, size_t len,
                                                           const char *fmt, ...)
{
    size_t o = strlen(warn);
    if (o + 3 >= len)
        return;
    if (o)
        o += (size_t)snprintf(warn + o, len - o, "; ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(warn + o, len - o, fmt, ap);
    va_end(ap);
}

/* The list's value for a level by its name, when the list has a value per level the machine
 * has (L with the slot level, inner without), or is "network,package,core". */
static int from_list(const char *const *names, int n, const double *v, int nv, double *bw)
{
    int inner = n - (n > 0 && !strcmp(names[n - 1], "slot"));
    if (nv == inner || nv == n) {
        for (int l = 0; l < n; l++)
            bw[l] = v[l < nv ? l : nv - 1];
        return 0;
    }
    if (nv != 3)
        return -1;
    for (int l = 0; l < n; l++)
        bw[l] = l == 0 ? v[0] : !strcmp(names[l], "package") ? v[1] : v[2];
    return 0;
}

static int from_file(const char *const *names, int n, const hc_perf *p, double *bw)
{
    for (int l = 0; l < n; l++) {
        const char *which = l == 0                         ? "network"
                            : !strcmp(names[l], "package") ? "node,package,numa"
                                                           : "package,numa,node";
        bw[l] = hc_perf_bandwidth(p, which);
        if (l > 0 && !(bw[l] > 0))
            bw[l] = bw[l - 1]; /* a level the file does not measure: as the one above */
        if (!(bw[l] > 0))
            return -1;
    }
    return 0;
}

hc_bw_source hc_bandwidths(const char *const *names, int n, const char *list, const char *file,
                           double *bw, char *desc, size_t desclen, char *warn, size_t warnlen)
{
    warn[0] = 0;
    if (list && *list) {
        double v[MAX_LEVELS];
        int nv = hc_parse_floats(list, v, MAX_LEVELS);
        if (nv > 0 && from_list(names, n, v, nv, bw) == 0) {
            snprintf(desc, desclen, "HIERCOLL_BANDWIDTHS");
            return HC_BW_FROM_LIST;
        }
        int inner = n - (n > 0 && !strcmp(names[n - 1], "slot"));
        if (nv > 0)
            add_warn(warn, warnlen, "HIERCOLL_BANDWIDTHS has %d values but the machine has %d "
                     "levels: ignored", nv, inner);
        else
            add_warn(warn, warnlen, "HIERCOLL_BANDWIDTHS '%s' is not a list of positive "
                     "numbers: ignored", list);
    }
    if (file && *file) {
        hc_perf p;
        char err[512];
        if (hc_perf_read(&p, file, err, sizeof err) != 0) {
            add_warn(warn, warnlen, "HIERCOLL_MACHINE_FILE: %s: ignored", err);
        } else if (from_file(names, n, &p, bw) != 0) {
            add_warn(warn, warnlen, "HIERCOLL_MACHINE_FILE %s has no 'network' level: ignored",
                     file);
        } else {
            snprintf(desc, desclen, "%s", file);
            return HC_BW_FROM_FILE;
        }
    }
    for (int l = 0; l < n; l++)
        bw[l] = l == 0 ? HC_BW_NETWORK : !strcmp(names[l], "package") ? HC_BW_PACKAGE : HC_BW_CORE;
    snprintf(desc, desclen, "built-in");
    return HC_BW_BUILTIN;
}
