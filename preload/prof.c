/* Communication profiler: recording state, per-thread tables, the clock. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hc_config.h"
#include "hc_log.h"
#include "hc_mpi.h"
#include "prof.h"

int hc_prof_on;
int hc_prof_depth;
hc_prof_thread *hc_prof_threads;
__thread hc_prof_thread *hc_prof_self __attribute__((tls_model("initial-exec")));
__thread unsigned hc_prof_cost_countdown __attribute__((tls_model("initial-exec"))) = 1;
__thread uint64_t hc_prof_cost_from __attribute__((tls_model("initial-exec")));
__thread uintptr_t hc_prof_caller __attribute__((tls_model("initial-exec")));

const char *const hc_prof_fn_name[HC_PF_COUNT] = {
#define HC_PROF_NAME(name) "MPI_" #name,
    HC_PROF_FUNCS(HC_PROF_NAME)
#undef HC_PROF_NAME
};

static pthread_mutex_t threads_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t calib_tick0, calib_ns0;
static double ns_per_tick = 1.0;
static uint64_t init_ns; /* what hc_prof_init took */

/* Nanoseconds since this process started (Linux: its start time in /proc/self/stat, in clock
 * ticks since boot; 0 where that cannot be read). */
static uint64_t process_age_ns(void)
{
    char buf[1024];
    FILE *f = fopen("/proc/self/stat", "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')'); /* the command's name may hold spaces and parentheses */
    unsigned long long start = 0;
    /* after the name: state (field 3) ... starttime (field 22) */
    if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
                            "%*d %*d %*d %*d %llu", &start) != 1)
        return 0;
    struct timespec boot;
    long hz = sysconf(_SC_CLK_TCK);
    if (hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &boot) != 0)
        return 0;
    uint64_t now = (uint64_t)boot.tv_sec * 1000000000ull + (uint64_t)boot.tv_nsec,
             began = (uint64_t)(start / (unsigned long long)hz) * 1000000000ull +
                     (uint64_t)(start % (unsigned long long)hz) * (1000000000ull / (uint64_t)hz);
    return now > began ? now - began : 0;
}

/* Thread state is never freed before finalize: a thread that exits keeps its counts. */
hc_prof_thread *hc_prof_thread_new(void)
{
    hc_prof_thread *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->edge_cap = 64;
    t->edges = calloc(t->edge_cap, sizeof *t->edges);
    if (!t->edges) {
        free(t);
        return NULL;
    }
    pthread_mutex_lock(&threads_lock);
    t->next = hc_prof_threads;
    hc_prof_threads = t;
    pthread_mutex_unlock(&threads_lock);
    hc_prof_self = t;
    return t;
}

static inline size_t edge_slot(uint64_t key, size_t mask)
{
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 20) & mask;
}

static int edges_grow(hc_prof_thread *t)
{
    size_t cap = t->edge_cap * 2;
    hc_prof_edge *e = calloc(cap, sizeof *e);
    if (!e)
        return -1;
    for (size_t i = 0; i < t->edge_cap; i++) {
        if (!t->edges[i].key)
            continue;
        size_t s = edge_slot(t->edges[i].key, cap - 1);
        while (e[s].key)
            s = (s + 1) & (cap - 1);
        e[s] = t->edges[i];
    }
    free(t->edges);
    t->edges = e;
    t->edge_cap = cap;
    return 0;
}

void hc_prof_edge_add(hc_prof_thread *t, int src, int dst, int kind, uint64_t bytes,
                      int count_empty)
{
    if (!t || src < 0 || dst < 0 || (!bytes && !count_empty))
        return;
    uint64_t key = (((uint64_t)src << 32) | (uint32_t)dst) + 1;
    size_t mask = t->edge_cap - 1, s = edge_slot(key, mask);
    while (t->edges[s].key && t->edges[s].key != key)
        s = (s + 1) & mask;
    if (!t->edges[s].key) {
        if (2 * (t->edge_count + 1) > t->edge_cap) {
            if (edges_grow(t) != 0) {
                t->oom = 1;
                return;
            }
            hc_prof_edge_add(t, src, dst, kind, bytes, count_empty);
            return;
        }
        t->edges[s].key = key;
        t->edge_count++;
    }
    t->edges[s].bytes[kind] += bytes;
    t->edges[s].msgs[kind]++;
    if (t->odd_epoch)
        t->edges[s].odd[kind] += bytes;
}

/* The end of a sampled call's recording (hc_prof_returned marked its start). */
static void cost_sample_end(hc_prof_thread *t)
{
    uint64_t from = hc_prof_cost_from, now = hc_now_ns();
    int first = t && !t->first_done;
    hc_prof_cost_from = 0;
    hc_prof_cost_countdown = first ? HC_PROF_COST_FIRST_SAMPLE - 1 : HC_PROF_COST_EVERY;
    if (!t)
        return;
    t->first_done = 1;
    if (first) /* counted whatever it took: once a thread, and it may really be long */
        t->first_ns = now > from ? now - from : 1;
    else if (now >= from && now - from <= HC_PROF_COST_DESCHEDULED_NS)
        t->cost_ns += now - from, t->cost_samples++;
}

void hc_prof_call_end(hc_prof_thread *t, int fn, uint64_t t0, uint64_t bytes)
{
    uint64_t now = hc_prof_ticks(), dt = now - t0;
    if (t) {
        /* from MPI_Init, so that ranks on other hosts (other clocks) agree on the epochs to
         * within their start's skew; from the clock this call's timing reads anyway */
        t->odd_epoch = (int)(((now - calib_tick0) >> HC_PROF_EPOCH_SHIFT) & 1);
        t->fn[fn].calls++;
        t->fn[fn].bytes += bytes;
        t->fn[fn].ticks += dt;
        if (hc_prof_depth)
            hc_prof_site_record(t, fn, bytes, dt);
    }
    if (HC_UNLIKELY(hc_prof_cost_from))
        cost_sample_end(t);
}

void hc_prof_own_time(uint64_t calls, uint64_t until_ns, uint64_t *run_ns, uint64_t *record_ns,
                      uint64_t *per_call_ns)
{
    uint64_t ns = 0, samples = 0, first = 0, firsts = 0;
    for (hc_prof_thread *t = hc_prof_threads; t; t = t->next) {
        ns += t->cost_ns;
        samples += t->cost_samples;
        first += t->first_ns;
        firsts += t->first_done;
    }
    /* A rank whose threads made fewer calls than the first sample: their first calls stand
     * for every call (on the high side), but no more than a sample may take: a first call
     * that lost its core for milliseconds counts whole, once, not for each call after it. */
    double per_call = samples  ? (double)ns / (double)samples
                      : firsts ? HC_MIN((double)first / (double)firsts,
                                        (double)HC_PROF_COST_DESCHEDULED_NS)
                               : 0;
    /* the process's age now, less the time since until_ns (read here, not in MPI_Init) */
    uint64_t age = process_age_ns(), since = hc_now_ns() - until_ns;
    *run_ns = age > since ? age - since : 0;
    *per_call_ns = (uint64_t)(per_call + 0.5);
    *record_ns = init_ns + first +
                 (uint64_t)(per_call * (double)(calls > firsts ? calls - firsts : 0));
}

uint64_t hc_prof_bytes_slow(MPI_Count count, MPI_Datatype dt)
{
    MPI_Count size = 0;
    if (count <= 0 || dt == MPI_DATATYPE_NULL || hc_type_size(dt, &size) != MPI_SUCCESS ||
        size <= 0)
        return 0;
    return (uint64_t)count * (uint64_t)size;
}

void hc_prof_p2p(int fn, uint64_t t0, MPI_Count count, MPI_Datatype dt, int dest, MPI_Comm comm)
{
    hc_prof_thread *t = hc_prof_thread_get();
    uint64_t bytes = 0;
    if (dest != MPI_PROC_NULL && dest >= 0) {
        hc_comm *c = hc_comm_get(comm);
        int n = c ? (c->is_inter ? c->remote_size : c->size) : 0;
        if (c && c->world_rank_of && dest < n) {
            bytes = hc_prof_bytes(count, dt);
            hc_prof_edge_add(t, hc_world_rank, c->world_rank_of[dest], HC_PK_P2P, bytes, 1);
        }
    }
    hc_prof_call_end(t, fn, t0, bytes);
}

double hc_prof_ns_per_tick(void)
{
    return ns_per_tick;
}

/* Called at the start of finalize: the rate over the whole run is accurate to ppm. */
void hc_prof_calibrate(void)
{
#if defined(__x86_64__) || defined(__i386__)
    uint64_t dtick = hc_prof_ticks() - calib_tick0, dns = hc_now_ns() - calib_ns0;
    if (dtick > 0 && dns > 0)
        ns_per_tick = (double)dns / (double)dtick;
#endif
}

void hc_prof_init(void)
{
    const char *dir = hc_cfg.profile.s;
    if (!dir || !dir[0])
        return;
    uint64_t t0 = hc_now_ns();
    calib_tick0 = hc_prof_ticks();
    calib_ns0 = hc_now_ns();
    hc_prof_depth = (int)hc_cfg.callsites.i;
    if (hc_prof_depth > HC_PROF_MAXDEPTH)
        hc_prof_depth = HC_PROF_MAXDEPTH;
    if (hc_prof_depth)
        hc_prof_site_init();
    hc_prof_thread_get();
    init_ns = hc_now_ns() - t0;
    hc_prof_on = 1;
}

/* Room for need more bytes (and a terminating 0) in b: 0, or -1 with b->oom set. */
static int buf_room(hc_prof_buf *b, size_t need)
{
    if (b->p && b->len + need < b->cap)
        return 0;
    size_t cap = HC_MAX(b->cap * 2, b->len + need + 4096);
    char *p = realloc(b->p, cap);
    if (!p) {
        b->oom = 1;
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

void hc_prof_buf_printf(hc_prof_buf *b, const char *fmt, ...)
{
    for (;;) {
        size_t room = b->cap - b->len;
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0)
            return;
        if (b->p && (size_t)n < room) {
            b->len += (size_t)n;
            return;
        }
        if (buf_room(b, (size_t)n) != 0)
            return;
    }
}

void hc_prof_buf_append(hc_prof_buf *b, const void *bytes, size_t len)
{
    if (buf_room(b, len) != 0)
        return;
    memcpy(b->p + b->len, bytes, len);
    b->len += len;
}
