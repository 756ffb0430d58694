/* hiercoll: subcommand dispatcher. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hc_cli.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
} commands[] = {
    {"profile", hc_cmd_profile, "run an MPI program with the profiler and show the summary"},
    {"report", hc_cmd_report, "summarise a profile directory (text, SVG heat map, HTML page)"},
    {"map", hc_cmd_map, "compute a rank-to-core mapping from a task graph and a machine"},
    {"bind", hc_cmd_bind, "bind this rank to the core a mapping gives, then run the program"},
    {"commperf", hc_cmd_commperf, "measure latency and bandwidth per hierarchy level"},
    {"bench", hc_cmd_bench, "compare hiercoll's collectives with the vendor's"},
    {"info", hc_cmd_info, "configuration variables and the topology of this machine"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
    fprintf(out, "usage: hiercoll <command> [options]   (hiercoll <command> --help)\n\n"
                 "commands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
}

const char *hc_cli_bindir(void)
{
    static char dir[PATH_MAX];
    if (!dir[0]) {
        ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
        if (n <= 0) {
            strcpy(dir, ".");
        } else {
            dir[n] = 0;
            char *slash = strrchr(dir, '/');
            if (slash)
                *slash = 0;
        }
    }
    return dir;
}

const char *hc_cli_path(const char *rel)
{
    static char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", hc_cli_bindir(), rel);
    return path;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return HC_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return HC_EXIT_OK;
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "hiercoll: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return HC_EXIT_USAGE;
}
