/* Saving what this run learned as a tuning file (learn_save.c). */
#ifndef HC_LEARN_SAVE_H
#define HC_LEARN_SAVE_H

#include "hc_coll.h"
#include "learn.h"

/* Keeps entry e of collective coll (HC_COLL_*) on communicator c, as the communicator's
 * state goes: the caller says which entries are this rank's to save. */
void hc_learn_keep(int coll, const hc_comm *c, const hc_learn_entry *e);

/* Collective over world at finalize: every rank's kept rules as lines, on rank 0 (NULL
 * elsewhere, or when memory is short). */
char *hc_learn_gather(MPI_Comm world);

/* Rank 0: the gathered lines (modified) as a tuning file's text, duplicates merged; date
 * goes into its header. NULL when memory is short. */
char *hc_learn_file_text(char *lines, const char *date);

#endif
