/* The launcher of this process, found among its ancestors in /proc: the launcher itself (its
 * command line gives the first run's options), or only its helper on this host (Hydra's proxy,
 * Open MPI's daemon, Slurm's slurmstepd), whose launcher runs elsewhere. No MPI. */
#ifndef HC_LAUNCH_PROC_H
#define HC_LAUNCH_PROC_H

#include "hc_launcher.h"

/* A process's command line as arguments (in buf, which hc_cmdline_free releases). */
typedef struct hc_cmdline {
    char *buf;
    char *argv[512];
    int argc;
} hc_cmdline;
int hc_cmdline_read(long pid, hc_cmdline *c);
void hc_cmdline_free(hc_cmdline *c);

typedef struct hc_launch_found {
    hc_launch_kind kind; /* NONE: neither launcher nor helper among the ancestors */
    int helper;          /* only the launcher's helper was found */
    hc_cmdline self;     /* this process's command line */
    hc_cmdline launcher; /* the launcher's (argc 0 when only the helper was found) */
    int prog;            /* index of the program in launcher.argv: self's command line at its
                          * end; -1 when not there (the launcher ran another program first) */
} hc_launch_found;

/* Walks up to 6 ancestors of this process. 0, or -1 if its own command line is unreadable. */
int hc_launch_find(hc_launch_found *f);
void hc_launch_found_free(hc_launch_found *f);

#endif
