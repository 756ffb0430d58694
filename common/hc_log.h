/* Diagnostics on stderr, prefixed "hiercoll[rank]:". No MPI: preload sets hc_log_rank. */
#ifndef HC_LOG_H
#define HC_LOG_H

#include <stdatomic.h>

extern int hc_log_rank;      /* MPI_COMM_WORLD rank, -1 before init */
extern int hc_log_verbosity; /* HIERCOLL_VERBOSE */

void hc_log(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define hc_warn(...) hc_log("warning", __VA_ARGS__)
#define hc_error(...) hc_log("error", __VA_ARGS__)
#define hc_info(level, ...)                                                      \
    do {                                                                         \
        if (hc_log_verbosity >= (level))                                         \
            hc_log(NULL, __VA_ARGS__);                                           \
    } while (0)
/* A warning printed once per process, whichever thread gets there first. */
#define hc_warn_once(...)                                                        \
    do {                                                                         \
        static atomic_int hc_warned_;                                            \
        if (!atomic_exchange(&hc_warned_, 1))                                    \
            hc_warn(__VA_ARGS__);                                                \
    } while (0)

#endif
