/* Scotch's gmap as an external program: its graph and tleaf target files written from
 * hiercoll's graph and machine, its mapping read back. */
#ifndef HC_GMAP_H
#define HC_GMAP_H

#include <stddef.h>

#include "hc_graph.h"
#include "hc_machine.h"

/* Source graph (.grf, version 0, edge weights only), weights as libscotch gets them from
 * hiercoll (hc_map_scotch_weight) for machine m. */
int hc_gmap_write_graph(const hc_graph *g, const hc_machine *m, const char *path);
/* The tleaf target of a tree machine (hc_map_tleaf). */
int hc_gmap_write_target(const hc_machine *m, int cumulative, const char *path);
/* Runs gmap with extra options separated by spaces (e.g. "-cb -b0", or ""); CPU seconds of
 * the child in *cpu. 0, or -1 with a reason in err. */
int hc_gmap_run(const char *gmap, const char *grf, const char *tgt, const char *options,
                  const char *mapout, double *cpu, char *err, size_t errlen);
/* Reads gmap's output into map[M] (target index of every vertex). 0, or -1 with
 * "FILE:LINE: reason". */
int hc_gmap_read_mapping(const char *path, int M, int ntargets, int *map, char *err,
                           size_t errlen);
/* "gmap", or Debian's name for it, "scotch_gmap", whichever is on PATH; NULL if neither. */
const char *hc_gmap_find(void);

#endif
