/* Libraries that only some runs need, opened on first use rather than linked: METIS and
 * Scotch (a mapping: the profiler's finalize, `hiercoll map`) and libunwind (call sites deeper
 * than one frame). A library linked to the preload enters the global symbol scope of every
 * program the preload is loaded into: its names come before the program's own (libunwind's
 * `_Unwind_*` took the place of the C++ runtime's unwinder in programs that reach libgcc_s
 * only through libstdc++) and each of the program's symbol lookups walks past it and its
 * dependencies (docs/design.md, "What the preload brings into a program"). Opened with
 * RTLD_LOCAL, their symbols are seen by no one but the code that asks for them. */
#ifndef HC_LATE_LIB_H
#define HC_LATE_LIB_H

#include <pthread.h>

/* The sonames, as the build's linker found them (Makefile); these defaults otherwise. */
#ifndef HC_METIS_SONAME
#define HC_METIS_SONAME "libmetis.so.5"
#endif
#ifndef HC_SCOTCH_SONAME
#define HC_SCOTCH_SONAME "libscotch-7.0.so"
#endif
#ifndef HC_UNWIND_SONAME
#define HC_UNWIND_SONAME "libunwind.so.8"
#endif

/* One library: opened once (under `once`, so threads may ask together); ok once every
 * function asked for was found, else why says what failed. */
typedef struct hc_late_lib {
    const char *file;
    pthread_once_t once;
    int ok;
    char why[256];
} hc_late_lib;
#define HC_LATE_LIB(file) {file, PTHREAD_ONCE_INIT, 0, ""}

/* dlopen(l->file, RTLD_NOW | RTLD_LOCAL); sets l->ok, or l->why. */
void *hc_late_open(hc_late_lib *l);
/* The address of name in h; NULL (l->ok = 0, l->why) when it is missing. */
void *hc_late_sym(hc_late_lib *l, void *h, const char *name);

/* A table of a library's functions, typed by the library's own header: a list macro
 * LIST(X) names them, HC_LATE_FIELD makes the fields, HC_LATE_LOAD fills one. */
#define HC_LATE_FIELD(f) __typeof__(f) *f;
#define HC_LATE_LOAD(lib, table, h, f) \
    if ((lib).ok) \
        (table).f = (__typeof__((table).f))hc_late_sym(&(lib), h, #f);

#endif
