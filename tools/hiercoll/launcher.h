/* MPI launchers as the hiercoll command drives them, beyond what the launcher module knows
 * (mapping/hc_launcher.h): the family of a launcher that does not say it by its name, and the
 * options the command adds to run its MPI tools. */
#ifndef HC_CLI_LAUNCHER_H
#define HC_CLI_LAUNCHER_H

#include "hc_launcher.h"

/* By the launcher's name (hc_launch_by_name), the file a launcher name without a family
 * suffix resolves to, else what `LAUNCHER --version` says. HC_UNKNOWN_MPI for srun. */
hc_mpi_family hc_launcher_family(const char *launcher);
/* The family of an MPI program by the MPI library it links (libmpich: MPICH, libmpi.so.40:
 * Open MPI), found on PATH when it has no slash; HC_UNKNOWN_MPI if neither. */
hc_mpi_family hc_program_family(const char *program);

/* Appends the options that pin each rank to a core, and, for Open MPI, --oversubscribe when
 * np exceeds the cores (Hydra allows that by itself). */
void hc_launcher_placement(hc_mpi_family f, char **args, int *n, long np);

#endif
