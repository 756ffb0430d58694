/* The tuning file's reader (format in docs/tuning.md), without MPI: the runtime, `hiercoll
 * report`, the unit tests and the fuzzer share it. */
#ifndef HC_TUNING_FILE_H
#define HC_TUNING_FILE_H

#include <stddef.h>

#include "hc_algos.h"

#define HC_TUNING_MAX_TIMES 8

typedef struct hc_tuning_rule {
    int coll;               /* HC_COLL_BCAST or HC_COLL_ALLREDUCE */
    long long lo, hi;       /* bytes in [lo, hi); hi < 0: no upper bound */
    int rlo, rhi, nlo, nhi; /* ranks and nodes, inclusive */
    int algo;               /* HC_BCAST_* or HC_ALLREDUCE_* */
    hc_params params;       /* parameters written after the name ("shm:seg=256K") */
    /* Version 2's options. */
    char site[248];         /* site=MODULE+0xOFF: calls from there only ("" any; broadcast) */
    int root;               /* root=N: broadcasts from rank N only (-1 any) */
    int learned;            /* from=learned: a starting point that the learning keeps checking */
    long long calls;        /* calls=N: how many calls the choice was learned from (0 unknown) */
    char seen[248];         /* seen=MODULE+0xOFF: where the learning run called it (told only) */
    int ntimes;             /* times=ALGO:US,...: what each algorithm took when it was learned */
    int time_algo[HC_TUNING_MAX_TIMES];
    double time_us[HC_TUNING_MAX_TIMES];
} hc_tuning_rule;

/* Reads the whole file into a new table (*out, free() it). Returns 0, or -1 with
 * "path:line: reason" (or "path: reason") in err; nothing is kept from a rejected file. */
int hc_tuning_read(const char *path, hc_tuning_rule **out, int *nout, char *err, size_t errlen);

/* The first rule of tab that matches a call (first match wins; docs/tuning.md). site: the
 * caller's site key ("module+0xoff", hc_site_key) or NULL, which only rules without a site
 * match; root -1 matches only rules without a root. NULL when none does. */
const hc_tuning_rule *hc_tuning_match(const hc_tuning_rule *tab, int n, int coll,
                                      long long bytes, int ranks, int nodes, const char *site,
                                      int root);

#endif
