/* next-run.sh: the second run launched like the first, with the mapping (preload/next_run.c). */
#ifndef HC_NEXT_RUN_H
#define HC_NEXT_RUN_H

#include "hc_mapfile.h"

/* Writes DIR/next-run.sh for the mapping f (rank 0 at finalize; multihost: the mapping spans
 * several physical hosts). 0, or -1 when it cannot be written. */
int hc_write_next_run(const char *dir, const hc_mapfile *f, int multihost);

#endif
