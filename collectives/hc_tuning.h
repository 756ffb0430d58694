/* The tuning file of this run (HIERCOLL_TUNING, format in docs/tuning.md): read once at
 * MPI_Init, asked by the selectors. */
#ifndef HC_TUNING_H
#define HC_TUNING_H

#include "hc_coll.h"
#include "hc_tuning_file.h"

/* The first rule that matches a call of `bytes` on c (hc_tuning_match: site NULL and root
 * -1 ask for rules every rank reads alike), or NULL: no file, or no rule. The rule stays
 * valid for the run. */
const hc_tuning_rule *hc_tuning_rule_for(int coll, long long bytes, const hc_comm *c,
                                         const char *site, int root);

/* Reads the file HIERCOLL_TUNING names, if any (MPI_Init does, before the vendor's init,
 * and nothing after it: hc_tuning_rule_for reads the table without a lock). 0, or -1 with
 * "FILE:LINE: reason" in err, and then no rule applies. */
int hc_tuning_load(char *err, size_t errlen);

#endif
