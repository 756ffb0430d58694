/* Reader of the machine-perf file of `hiercoll commperf`. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hc_perffile.h"

int hc_perf_read(hc_perf *p, const char *path, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s:0: cannot open: %s", path, strerror(errno));
        return -1;
    }
    char line[1024];
    int ln = 0, rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        ln++;
        line[strcspn(line, "\r\n")] = 0;
        if (ln == 1) {
            if (strcmp(line, "# hiercoll machine-perf v1") != 0) {
                snprintf(err, errlen, "%s:1: not a '# hiercoll machine-perf v1' file", path);
                rc = -1;
            }
            continue;
        }
        if (line[0] == '#' || line[strspn(line, " \t")] == 0)
            continue;
        int k = p->nlevels, used = 0;
        if (k == HC_PERF_MAX_LEVELS) {
            snprintf(err, errlen, "%s:%d: more than %d levels", path, ln, HC_PERF_MAX_LEVELS);
            rc = -1;
        } else if (sscanf(line, "level %31s latency_us %lf bandwidth_Bps %lf %n", p->name[k],
                          &p->latency_us[k], &p->bandwidth[k], &used) != 3 || line[used]) {
            snprintf(err, errlen, "%s:%d: expected 'level NAME latency_us L bandwidth_Bps B'",
                     path, ln);
            rc = -1;
        } else if (!(p->bandwidth[k] > 0) || !(p->latency_us[k] >= 0)) {
            snprintf(err, errlen, "%s:%d: bandwidth must be positive", path, ln);
            rc = -1;
        } else {
            p->nlevels++;
        }
    }
    if (rc == 0 && p->nlevels == 0) {
        snprintf(err, errlen, "%s:%d: no 'level' lines", path, ln);
        rc = -1;
    }
    fclose(f);
    return rc;
}

double hc_perf_bandwidth(const hc_perf *p, const char *names)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", names);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
        for (int l = 0; l < p->nlevels; l++)
            if (!strcmp(p->name[l], t))
                return p->bandwidth[l];
    return 0;
}
