/* MPI launchers, known in one place: MPICH's Hydra (mpiexec.mpich), Open MPI's mpirun and
 * Slurm's srun. How to spot each (by its program's name, or the helper it runs on every host),
 * which MPI family it serves, which of its options are about placement (the mapping replaces
 * them) and which set variables in the ranks. The preload (next-run.sh at finalize) and the
 * hiercoll command (profile, next-run.sh for srun) both use it; the next run itself is written
 * by hc_next_run_write (hc_next_run.h). No MPI. */
#ifndef HC_LAUNCHER_H
#define HC_LAUNCHER_H

#include <stddef.h>

typedef enum { HC_MPICH, HC_OMPI, HC_UNKNOWN_MPI } hc_mpi_family;
typedef enum { HC_LAUNCH_NONE, HC_LAUNCH_HYDRA, HC_LAUNCH_MPIRUN, HC_LAUNCH_SRUN } hc_launch_kind;

/* The launcher a program is, by its name or path: mpiexec.mpich, mpirun.mpich, mpiexec.hydra
 * (Hydra); mpirun.openmpi, orterun, prterun (Open MPI); srun. NONE for anything else, the
 * unsuffixed mpiexec and mpirun included (they may be either family). */
hc_launch_kind hc_launch_by_name(const char *name);
/* The launcher whose helper process a program is: hydra_pmi_proxy (Hydra), orted, prted
 * (Open MPI), slurmstepd (srun). A rank's ancestors show the helper when the launcher runs on
 * another host or started the helper through another launcher (Hydra and mpirun inside a
 * Slurm allocation start their helpers with srun). */
hc_launch_kind hc_launch_helper_by_name(const char *name);
/* The family a launcher serves; HC_UNKNOWN_MPI for srun, which serves both. */
hc_mpi_family hc_launch_family(hc_launch_kind k);
/* The family's launcher program: mpiexec.mpich, mpirun.openmpi. */
const char *hc_family_launcher(hc_mpi_family f);
/* Appends to args[*n...] the family's launcher options that set NAME=VALUE in every rank:
 * -genv NAME VALUE (Hydra), -x NAME=VALUE (Open MPI; the pair is allocated). 0, or -1 when
 * out of memory (nothing appended). */
int hc_launcher_env(hc_mpi_family f, char **args, int *n, const char *name, const char *value);
/* "mpich" / "ompi" (as given to --mpi) -> family; HC_UNKNOWN_MPI otherwise. */
hc_mpi_family hc_family_named(const char *name);
/* The suffix of the family's library and tools: "" (MPICH, and unknown), "-ompi". */
const char *hc_family_suffix(hc_mpi_family f);

/* The launcher's word at a[0] of its command line (n words from there on). */
typedef struct hc_launch_opt {
    int words;       /* the words it spans with its arguments (1 for a non-option) */
    int option;      /* a[0] is an option */
    int placement;   /* about where ranks run or how they are bound: the mapping replaces it */
    const char *var; /* an option that sets a variable in the ranks: the name (var_len long) */
    size_t var_len;
} hc_launch_opt;
void hc_launch_opt_at(hc_launch_kind k, char *const *a, int n, hc_launch_opt *o);
/* The index in argv[0..argc) of the program the launcher argv[0] runs: the first word after
 * argv[0] that is neither an option nor an option's argument (argc if none). Only srun's
 * options are all known; for the others the index is a guess (the preload finds the program
 * by rank 0's own command line instead). */
int hc_launch_program_index(hc_launch_kind k, char *const *argv, int argc);

/* Whether the options opts[0..n) hold --name (with or without a value) or, for srun, the
 * short flag c alone or in a bundle ("-lO"). */
int hc_launch_has_flag(hc_launch_kind k, char *const *opts, int n, const char *name, char c);

/* Variables whose value belongs to one run only: the next run gets its own. */
int hc_launch_run_specific(const char *name, size_t len);

#endif
