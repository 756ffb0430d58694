/* Small helpers shared by every folder. */
#ifndef HC_UTIL_H
#define HC_UTIL_H

#include <stdint.h>
#include <time.h>
#include <unistd.h>

#define HC_CACHELINE 64
#define HC_MIN(a, b) ((a) < (b) ? (a) : (b))
#define HC_MAX(a, b) ((a) > (b) ? (a) : (b))
#define HC_LIKELY(x) __builtin_expect(!!(x), 1)
#define HC_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define HC_ALIGN_UP(x, a) (((x) + (a) - 1) / (a) * (a))

static inline uint64_t hc_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* FNV-1a over 64-bit words: start from HC_FNV_START, add one word at a time. */
#define HC_FNV_START 0xcbf29ce484222325ull
static inline uint64_t hc_fnv_add(uint64_t h, uint64_t word)
{
    return (h ^ word) * 0x100000001b3ull;
}

/* More ranks on this node than it has online cores: a rank that waits without yielding may
 * hold the core the rank it waits for needs. */
static inline int hc_ranks_outnumber_cores(long ranks)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 0 && ranks > cores;
}

#endif
