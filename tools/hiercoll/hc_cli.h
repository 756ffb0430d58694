/* The hiercoll command: one file per subcommand, each `int hc_cmd_NAME(int argc, char **argv)`
 * with argv[0] the subcommand name. Exit status: 0 ok, 1 failure, 2 usage error. */
#ifndef HC_CLI_H
#define HC_CLI_H

#define HC_EXIT_OK 0
#define HC_EXIT_FAIL 1
#define HC_EXIT_USAGE 2

int hc_cmd_info(int argc, char **argv);
int hc_cmd_profile(int argc, char **argv);
int hc_cmd_report(int argc, char **argv);
int hc_cmd_map(int argc, char **argv);
int hc_cmd_bind(int argc, char **argv);
int hc_cmd_commperf(int argc, char **argv);
int hc_cmd_bench(int argc, char **argv);

/* Directory holding this executable (build/bin or PREFIX/bin), to find libhiercoll.so in
 * ../lib and the hiercoll-* programs beside it. */
const char *hc_cli_bindir(void);
/* Path of a file relative to the bindir, e.g. hc_cli_path("../lib/libhiercoll.so"). */
const char *hc_cli_path(const char *rel);

#endif
