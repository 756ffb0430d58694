/* Helpers shared by the hiercoll subcommands: JSON text, running programs, finding files. */
#ifndef HC_CLI_UTIL_H
#define HC_CLI_UTIL_H

#include <stdio.h>

/* Writes s as a JSON string literal (quotes included). */
void hc_json_str(FILE *out, const char *s);

/* Runs argv (PATH searched), waits, returns its exit status (128+signal if killed, 127 if it
 * could not be started). */
int hc_run(char *const argv[]);

/* Prints argv on one line (what --dry-run shows). */
void hc_print_argv(char *const argv[]);

/* The MPI launcher: $MPIEXEC, else mpiexec.mpich. */
const char *hc_mpiexec(void);
/* libhiercoll.so beside this program (../lib/), or NULL with a message on stderr; suffix
 * names the MPI family's build ("" MPICH, "-ompi" Open MPI: launcher.h). */
const char *hc_preload_lib(const char *suffix);
/* A hiercoll-NAME program beside this one (of the family of suffix), or NULL with a message
 * on stderr. */
const char *hc_tool(const char *name, const char *suffix);

/* Prepends lib to LD_PRELOAD in this process's environment (inherited by children). */
void hc_env_add_preload(const char *lib);

/* Strict integer option parsing: 0, or -1 after "hiercoll CMD: bad OPT 'TEXT'" on stderr. */
int hc_opt_int(const char *cmd, const char *opt, const char *text, long lo, long hi, long *out);

#endif
