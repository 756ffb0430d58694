/* The tuning file's reader (format in docs/tuning.md), without MPI: the runtime, the unit
 * tests and the fuzzer share it. */
#ifndef HC_TUNING_FILE_H
#define HC_TUNING_FILE_H

#include <stddef.h>

typedef struct hc_tuning_rule {
    char coll[16];          /* "bcast" or "allreduce" */
    long long lo, hi;       /* bytes in [lo, hi); hi < 0: no upper bound */
    int rlo, rhi, nlo, nhi; /* ranks and nodes, inclusive */
    int algo;               /* index in HIERCOLL_BCAST's or HIERCOLL_ALLREDUCE's accepted list */
} hc_tuning_rule;

/* Reads the whole file into a new table (*out, free() it). Returns 0, or -1 with
 * "path:line: reason" (or "path: reason") in err; nothing is kept from a rejected file. */
int hc_tuning_read(const char *path, hc_tuning_rule **out, int *nout, char *err, size_t errlen);

#endif
