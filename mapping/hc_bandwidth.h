/* Bandwidth of each level of the machine, read in one place for everything that models it (the
 * mapping at finalize and offline, the collectives' cost models): HIERCOLL_BANDWIDTHS first,
 * else the machine-perf file of `hiercoll commperf` (HIERCOLL_MACHINE_FILE), else built-in
 * values. No MPI. */
#ifndef HC_BANDWIDTH_H
#define HC_BANDWIDTH_H

#include <stddef.h>

/* Built-in bandwidths, bytes/s: between hosts (10 Gb/s Ethernet), between packages of a host,
 * between cores of a package. docs/formats-mapping.md. */
#define HC_BW_NETWORK 1.25e9
#define HC_BW_PACKAGE 1.0e10
#define HC_BW_CORE 2.0e10

/* Where the values came from. */
typedef enum { HC_BW_FROM_LIST, HC_BW_FROM_FILE, HC_BW_BUILTIN } hc_bw_source;

/* Bandwidths bw[l] of the n levels named names[l], from the top; a level's name is what its
 * children are, as in a machine model: "node" (between hosts: the network), "package"
 * (between packages of a host), "core" (between cores of a package, or of a host without a
 * package level), "slot" (ranks sharing a core: the innermost value).
 *   list  "b1,b2,..." (HIERCOLL_BANDWIDTHS; NULL or "" = none): one value per level, with or
 *         without the slot level; or three values "network,package,core" for a machine with
 *         fewer levels (the values of the levels it has).
 *   file  the machine-perf file (HIERCOLL_MACHINE_FILE; NULL or "" = none): "network" for the
 *         top level, "node" (else "package", "numa") between packages, "package" (else "numa",
 *         "node") between cores.
 * desc gets what was used ("HIERCOLL_BANDWIDTHS", the file's path, "built-in"); warn gets one
 * line when a list or file was given but could not be used ("" otherwise). */
hc_bw_source hc_bandwidths(const char *const *names, int n, const char *list, const char *file,
                           double *bw, char *desc, size_t desclen, char *warn, size_t warnlen);

#endif
