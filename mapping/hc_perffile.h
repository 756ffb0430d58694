/* The machine-perf file written by `hiercoll commperf` ("# hiercoll machine-perf v1", lines
 * "level NAME latency_us L bandwidth_Bps B", levels from the top), read for bandwidths. */
#ifndef HC_PERFFILE_H
#define HC_PERFFILE_H

#include <stddef.h>

#define HC_PERF_MAX_LEVELS 16

typedef struct hc_perf {
    int nlevels;
    char name[HC_PERF_MAX_LEVELS][32]; /* network, node, package, numa */
    double latency_us[HC_PERF_MAX_LEVELS], bandwidth[HC_PERF_MAX_LEVELS];
} hc_perf;

/* 0, or -1 with "FILE:LINE: reason" in err. */
int hc_perf_read(hc_perf *p, const char *path, char *err, size_t errlen);
/* Bandwidth of the first of the comma-separated names present ("package,numa,node"), or 0. */
double hc_perf_bandwidth(const hc_perf *p, const char *names);

#endif
