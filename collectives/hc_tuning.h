/* How `auto` chooses an algorithm: each collective's built-in rule, overridden by the rules of
 * a measured tuning file (HIERCOLL_TUNING, format in docs/tuning.md). */
#ifndef HC_TUNING_H
#define HC_TUNING_H

#include "hc_coll.h"

/* collective: "bcast" or "allreduce". Returns the index, in that collective's HIERCOLL_BCAST /
 * HIERCOLL_ALLREDUCE accepted list, of the algorithm the tuning file gives for a call of
 * `bytes` on communicator c, or builtin_choice when no rule of the file matches (or there is
 * no file). */
int hc_tuning_choose(const char *collective, long long bytes, const hc_comm *c, int builtin_choice);

/* Reads the file HIERCOLL_TUNING names, if any (MPI_Init does, before the vendor's init).
 * 0, or -1 with "FILE:LINE: reason" in err. */
int hc_tuning_load(char *err, size_t errlen);

#endif
