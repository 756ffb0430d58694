/* MPI launchers as the hiercoll command drives them: which MPI family a launcher belongs to,
 * the library and MPI tools built for that family, and how the launcher sets a variable in
 * every rank. */
#ifndef HC_LAUNCHER_H
#define HC_LAUNCHER_H

typedef enum { HC_MPICH, HC_OMPI, HC_UNKNOWN_MPI } hc_mpi_family;

/* By the launcher's name (mpiexec.mpich, mpiexec.hydra, mpirun.openmpi, orterun), the file a
 * launcher name without a family suffix resolves to, else what `LAUNCHER --version` says. */
hc_mpi_family hc_launcher_family(const char *launcher);
/* "mpich" / "ompi" as given to --mpi; HC_UNKNOWN_MPI otherwise. */
hc_mpi_family hc_family_named(const char *name);
/* The suffix of the family's library and tools: "" (MPICH, and unknown), "-ompi". */
const char *hc_family_suffix(hc_mpi_family f);

/* Appends to args[*n...] the options that set NAME=VALUE in every rank: -genv NAME VALUE
 * (Hydra), -x NAME=VALUE (Open MPI). */
void hc_launcher_env(hc_mpi_family f, char **args, int *n, const char *name, const char *value);
/* Appends the options that pin each rank to a core, and, for Open MPI, --oversubscribe when
 * np exceeds the cores (Hydra allows that by itself). */
void hc_launcher_placement(hc_mpi_family f, char **args, int *n, long np);

#endif
