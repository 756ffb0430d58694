/* next-run.sh (and, for a first run under Slurm, next-run.sbatch): the second run launched
 * like the first, with the mapping. Written by rank 0 at finalize (from what it sees of its
 * launcher) and by `hiercoll profile` for srun, whose command line only it knows. No MPI. */
#ifndef HC_NEXT_RUN_H
#define HC_NEXT_RUN_H

#include <stddef.h>

#include "hc_launcher.h"
#include "hc_mapfile.h"

/* How the first run was launched. */
typedef struct hc_launch {
    hc_launch_kind kind;    /* NONE: not known; the family's launcher is written */
    hc_mpi_family family;   /* the program's */
    const char *launcher;   /* the launcher program as the first run named it (NULL: default) */
    char *const *opts;      /* its options before the program; NULL: not known */
    int nopts;
    char *const *prog;      /* the program and its arguments */
    int nprog;
    char *const *env;       /* NAME=VALUE every rank gets (LD_PRELOAD, HIERCOLL_*) */
    int nenv;
    const char *cwd;        /* where the first run started */
    const char *tool;       /* the hiercoll command */
    int slurm;              /* the first run ran under Slurm (SLURM_JOB_ID) */
    const char *note;       /* why the launcher's options are not repeated, or NULL */
} hc_launch;

/* Writes dir/next-run.sh for the mapping f in dir (and dir/next-run.sbatch under Slurm),
 * each through a temporary name. 0, or -1 with a reason. */
int hc_next_run_write(const char *dir, const hc_launch *l, const hc_mapfile *f, char *err,
                      size_t errlen);

#endif
