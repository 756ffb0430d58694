/* hiercoll profile under srun (profile_srun.c). */
#ifndef HC_PROFILE_SRUN_H
#define HC_PROFILE_SRUN_H

#include "hc_launcher.h"

/* srun's command argv[0..argc) with the library and the profile directory added to its
 * --export (merged with the user's own, or SLURM_EXPORT_ENV's), NULL-terminated; NULL after a
 * message on stderr. The array and *export (its one new word) are the caller's to free. */
char **hc_srun_command(char **argv, int argc, const char *lib, const char *dir, char **export);
/* next-run.sh (and next-run.sbatch) in the profile directory dir again, from srun's command
 * line: 0 (also when there is no mapping), or -1 after a message. */
int hc_srun_next_run(const char *dir, char **argv, int argc, const char *lib, hc_mpi_family fam);

#endif
