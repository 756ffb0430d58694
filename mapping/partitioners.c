/* METIS and Scotch opened on first use (hc_partitioners.h). */
#include "hc_partitioners.h"

/* A library's table of functions, filled once, and its two accessors. */
#define LOAD(f) HC_LATE_LOAD(*lib, *table, h, f)
#define LATE_TABLE(name, fns_type, soname, FUNCTIONS)                                      \
    static hc_late_lib name##_lib = HC_LATE_LIB(soname);                                   \
    static fns_type name##_fns;                                                            \
    static void open_##name(void)                                                          \
    {                                                                                      \
        hc_late_lib *lib = &name##_lib;                                                    \
        fns_type *table = &name##_fns;                                                     \
        void *h = hc_late_open(lib);                                                       \
        FUNCTIONS(LOAD)                                                                    \
    }                                                                                      \
    const fns_type *hc_##name(void)                                                        \
    {                                                                                      \
        pthread_once(&name##_lib.once, open_##name);                                       \
        return name##_lib.ok ? &name##_fns : NULL;                                         \
    }                                                                                      \
    const char *hc_##name##_error(void) { return hc_##name() ? "" : name##_lib.why; }

LATE_TABLE(metis, hc_metis_fns, HC_METIS_SONAME, HC_METIS_FUNCTIONS)
LATE_TABLE(scotch, hc_scotch_fns, HC_SCOTCH_SONAME, HC_SCOTCH_FUNCTIONS)
