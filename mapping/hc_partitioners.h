/* METIS and Scotch, opened on first use (common/hc_late_lib.h says why they are not linked).
 * Each returns its table of functions, or NULL when the library cannot be opened; the
 * _error function then says why. Safe to call from several threads. */
#ifndef HC_PARTITIONERS_H
#define HC_PARTITIONERS_H

#include <metis.h>
#include <stdint.h>
#include <stdio.h> /* scotch.h needs FILE */
#include <scotch.h>

#include "hc_late_lib.h"

#define HC_METIS_FUNCTIONS(X) \
    X(METIS_SetDefaultOptions) X(METIS_PartGraphKway) X(METIS_PartGraphRecursive)
#define HC_SCOTCH_FUNCTIONS(X)                                                                \
    X(SCOTCH_contextInit) X(SCOTCH_contextExit) X(SCOTCH_contextOptionSetNum)                 \
    X(SCOTCH_contextRandomSeed) X(SCOTCH_contextThreadSpawn) X(SCOTCH_contextBindGraph)       \
    X(SCOTCH_graphInit) X(SCOTCH_graphExit) X(SCOTCH_graphBuild) X(SCOTCH_graphMap)           \
    X(SCOTCH_archInit) X(SCOTCH_archExit) X(SCOTCH_archTleaf) X(SCOTCH_archSub)               \
    X(SCOTCH_stratInit) X(SCOTCH_stratExit) X(SCOTCH_stratGraphMapBuild)

typedef struct hc_metis_fns {
    HC_METIS_FUNCTIONS(HC_LATE_FIELD)
} hc_metis_fns;
typedef struct hc_scotch_fns {
    HC_SCOTCH_FUNCTIONS(HC_LATE_FIELD)
} hc_scotch_fns;

const hc_metis_fns *hc_metis(void);
const hc_scotch_fns *hc_scotch(void);
const char *hc_metis_error(void);
const char *hc_scotch_error(void);

#endif
