/* Communication profiler: internal interface shared by the prof_*.c files.
 *
 * Recording is per thread (no lock, no atomics on the hot path): each thread owns a sparse
 * table of (sender, receiver) world-rank pairs and a table of call sites, registered once in
 * a global list that MPI_Finalize merges. Every wrapper is
 *     if (!hc_prof_on) return PMPI_X(...);     (a load and a branch when profiling is off)
 *     t0 = hc_prof_ticks(); rc = PMPI_X(...); <record edges>; hc_prof_call_end(...);
 */
#ifndef HC_PROF_H
#define HC_PROF_H

#include <stdint.h>
#include <stdio.h>

#include "hc_graph.h"
#include "hc_hosttopo.h"
#include "hc_mapfile.h"
#include "hc_mpi.h"
#include "hc_preload.h"
#include "hc_util.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

/* Every function the profiler times, in the order of the report's function table. */
#define HC_PROF_FUNCS(X)                                                                       \
    X(Send) X(Bsend) X(Ssend) X(Rsend) X(Isend) X(Ibsend) X(Issend) X(Irsend)                   \
    X(Send_init) X(Bsend_init) X(Ssend_init) X(Rsend_init) X(Start) X(Startall)                 \
    X(Sendrecv) X(Sendrecv_replace) X(Isendrecv) X(Isendrecv_replace)                          \
    X(Recv) X(Irecv) X(Probe) X(Wait) X(Waitall) X(Waitany) X(Waitsome) X(Test) X(Testall)       \
    X(Put) X(Get) X(Accumulate) X(Get_accumulate) X(Fetch_and_op) X(Compare_and_swap)          \
    X(Rput) X(Rget) X(Raccumulate) X(Rget_accumulate)                                          \
    X(Win_fence) X(Win_lock) X(Win_unlock) X(Win_flush)                                        \
    X(Bcast) X(Allreduce) X(Reduce) X(Gather) X(Gatherv) X(Scatter) X(Scatterv) X(Allgather)    \
    X(Allgatherv) X(Alltoall) X(Alltoallv) X(Alltoallw) X(Reduce_scatter)                      \
    X(Reduce_scatter_block) X(Scan) X(Exscan) X(Barrier) X(Neighbor_allgather)                 \
    X(Neighbor_allgatherv) X(Neighbor_alltoall) X(Neighbor_alltoallv) X(Neighbor_alltoallw)   \
    X(Ibcast) X(Iallreduce) X(Ireduce) X(Igather) X(Iscatter) X(Iallgather) X(Ialltoall)        \
    X(Ibarrier)

enum hc_prof_fn {
#define HC_PROF_ENUM(name) HC_PF_##name,
    HC_PROF_FUNCS(HC_PROF_ENUM)
#undef HC_PROF_ENUM
    HC_PF_COUNT
};
extern const char *const hc_prof_fn_name[HC_PF_COUNT]; /* "MPI_Send", ... */

/* What an edge's bytes are: point-to-point, collective (logical model), one-sided. */
enum hc_prof_kind { HC_PK_P2P, HC_PK_COLL, HC_PK_RMA, HC_PK_COUNT };

#define HC_PROF_MAXDEPTH 16

typedef struct hc_prof_edge {
    uint64_t key; /* ((src << 32) | dst) + 1; 0 = empty slot */
    uint64_t bytes[HC_PK_COUNT], msgs[HC_PK_COUNT];
    uint64_t odd[HC_PK_COUNT]; /* of bytes, those sent in odd epochs (HC_PROF_EPOCH_SHIFT) */
} hc_prof_edge;
/* The run is cut into epochs of 2^26 clock ticks from MPI_Init (20-30 ms of TSC, 67 ms of
 * nanoseconds), and
 * each edge also counts the bytes of its odd epochs: two interleaved halves of the run's
 * traffic, so the mapping can be fitted on one and checked on the other (mapping/model.c). */
#define HC_PROF_EPOCH_SHIFT 26

typedef struct hc_prof_site {
    uint64_t hash;           /* 0 = empty slot */
    int fn, depth;
    uintptr_t pc[HC_PROF_MAXDEPTH];
    uint64_t calls, bytes, ticks;
} hc_prof_site;

typedef struct hc_prof_thread {
    hc_prof_edge *edges;
    size_t edge_cap, edge_count; /* cap: power of two */
    hc_prof_site *sites;
    size_t site_cap, site_count;
    int oom;                     /* a table could not grow: the profile is incomplete */
    struct { uint64_t calls, bytes, ticks; } fn[HC_PF_COUNT];
    /* The recording of the sampled calls (hc_prof_returned); the thread's first call apart:
     * it sets up the thread's tables and the unwinder once, and is not a typical call. */
    uint64_t cost_ns, cost_samples, first_ns;
    int first_done;
    int odd_epoch; /* the epoch of the thread's last call end: its next call's edges count in it */
    struct hc_prof_thread *next;
} hc_prof_thread;

extern int hc_prof_on;    /* recording; set between MPI_Init and the start of MPI_Finalize */
extern int hc_prof_depth; /* HIERCOLL_CALLSITES */
extern hc_prof_thread *hc_prof_threads; /* every thread's state, newest first */
extern __thread hc_prof_thread *hc_prof_self __attribute__((tls_model("initial-exec")));

hc_prof_thread *hc_prof_thread_new(void);
static inline hc_prof_thread *hc_prof_thread_get(void)
{
    hc_prof_thread *t = hc_prof_self;
    return HC_LIKELY(t != NULL) ? t : hc_prof_thread_new();
}

/* A cheap monotonic clock: the TSC on x86 (converted with a rate calibrated between init and
 * finalize), nanoseconds elsewhere. */
static inline uint64_t hc_prof_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __rdtsc();
#else
    return hc_now_ns();
#endif
}
double hc_prof_ns_per_tick(void);
/* This rank's time from its process's start to until_ns (*run_ns), the profiler's own
 * time in it (*record_ns: hc_prof_init's, each thread's first call's, and the other calls
 * times the mean of the sampled calls' recording, or of the first calls' where no thread
 * reached a sampled call) and that mean (*per_call_ns). After
 * hc_prof_calibrate. */
void hc_prof_own_time(uint64_t calls, uint64_t until_ns, uint64_t *run_ns, uint64_t *record_ns,
                      uint64_t *per_call_ns);
void hc_prof_calibrate(void); /* at finalize, before converting ticks */

/* The profiler's own time (docs/formats-profile.md, "Overhead"): a thread's 64th call and
 * then every HC_PROF_COST_EVERY-th have their recording timed, from hc_prof_returned to the
 * end of hc_prof_call_end; finalize multiplies the mean by the calls. The first call, which
 * sets up the thread's tables, is timed and counted apart; the next ones are still cold
 * (the unwinder's first walks of each path) and would weigh on a mean of few samples. Timing every call would double the clock
 * reads the profiler costs. A sample above HC_PROF_COST_DESCHEDULED_NS is a rank that lost
 * its core meanwhile (common with more ranks than cores; recording takes nanoseconds) and
 * is left out: the thread's CPU clock would tell exactly, but a system call a sample costs
 * more than the recording. */
#define HC_PROF_COST_EVERY 256
#define HC_PROF_COST_FIRST_SAMPLE 64
#define HC_PROF_COST_DESCHEDULED_NS 100000
extern __thread unsigned hc_prof_cost_countdown __attribute__((tls_model("initial-exec")));
extern __thread uint64_t hc_prof_cost_from __attribute__((tls_model("initial-exec")));
/* Where the program called the wrapper being recorded: its return address, taken by the
 * wrapper (0: none). At one frame of call site (the default) that frame is this address
 * whenever it lies outside the frames the unwinder skips, and prof_site.c reads it instead of
 * walking the stack: a walk cost 50-400 ns a call, most of the profiler's recording. */
extern __thread uintptr_t hc_prof_caller __attribute__((tls_model("initial-exec")));
static inline void hc_prof_returned_to(void *caller)
{
    hc_prof_caller = (uintptr_t)caller;
    if (HC_UNLIKELY(--hc_prof_cost_countdown == 0))
        hc_prof_cost_from = hc_now_ns();
}
/* Called by a wrapper right after the vendor's call returned, before it records. A macro, so
 * that the return address is the wrapper's own (an inlined helper's is its caller's too:
 * GCC's documented behaviour); an address inside this library only costs the walk. */
#define hc_prof_returned() hc_prof_returned_to(__builtin_return_address(0))

/* Adds bytes (and one message when bytes > 0 or count_empty) to edge src -> dst. */
void hc_prof_edge_add(hc_prof_thread *t, int src, int dst, int kind, uint64_t bytes,
                      int count_empty);
/* Ends a timed call: per-function totals and, with call sites on, the caller's site. */
void hc_prof_call_end(hc_prof_thread *t, int fn, uint64_t t0, uint64_t bytes);

/* Body of a wrapper: the vendor call alone when profiling is off; else timed (t0_), then
 * the recording statements (which end with hc_prof_call_end). */
#define HC_PROF_WRAP(call, ...)                                                  \
    do {                                                                         \
        if (HC_LIKELY(!hc_prof_on))                                              \
            return call;                                                         \
        uint64_t t0_ = hc_prof_ticks();                                          \
        int rc_ = call;                                                          \
        hc_prof_returned();                                                      \
        __VA_ARGS__;                                                             \
        return rc_;                                                              \
    } while (0)
/* A wrapper that only times its call. */
#define HC_PROF_TIMED(fn, call)                                                  \
    HC_PROF_WRAP(call, hc_prof_call_end(hc_prof_thread_get(), HC_PF_##fn, t0_, 0))

/* Size in bytes of count elements of dt (0 for MPI_DATATYPE_NULL or errors). The common
 * predefined types are answered without a call. */
uint64_t hc_prof_bytes_slow(MPI_Count count, MPI_Datatype dt);
static inline uint64_t hc_prof_bytes(MPI_Count count, MPI_Datatype dt)
{
    if (count <= 0)
        return 0;
    if (dt == MPI_BYTE || dt == MPI_CHAR || dt == MPI_UNSIGNED_CHAR)
        return (uint64_t)count;
    if (dt == MPI_INT || dt == MPI_FLOAT || dt == MPI_UNSIGNED)
        return (uint64_t)count * 4;
    if (dt == MPI_DOUBLE || dt == MPI_LONG_LONG || dt == MPI_INT64_T || dt == MPI_UINT64_T)
        return (uint64_t)count * 8;
    return hc_prof_bytes_slow(count, dt);
}

/* Point-to-point send to dest of comm, recorded at the sender in world ranks. */
void hc_prof_p2p(int fn, uint64_t t0, MPI_Count count, MPI_Datatype dt, int dest, MPI_Comm comm);

/* MPI_Bcast / MPI_Allreduce (timed in preload/coll_entry.c, modelled in prof_coll.c). */
void hc_prof_bcast(uint64_t t0, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm);
void hc_prof_allreduce(uint64_t t0, MPI_Count count, MPI_Datatype dt, MPI_Comm comm);

/* Call sites (prof_site.c). */
void hc_prof_site_init(void);
void hc_prof_site_record(hc_prof_thread *t, int fn, uint64_t bytes, uint64_t ticks);
/* Appends this rank's sites as text lines "S\tfn\tcalls\tbytes\tns\tframes" to buf. */
struct hc_prof_buf;
void hc_prof_site_dump(struct hc_prof_buf *b, double ns_per_tick);

/* A growable text buffer (finalize only). */
typedef struct hc_prof_buf {
    char *p;
    size_t len, cap;
    int oom;
} hc_prof_buf;
void hc_prof_buf_printf(hc_prof_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void hc_prof_buf_append(hc_prof_buf *b, const void *bytes, size_t len);

/* Writing at finalize (prof_write.c): rank 0 only. */
typedef struct hc_prof_row {
    uint64_t src, dst;
    uint64_t bytes[HC_PK_COUNT], msgs[HC_PK_COUNT], odd[HC_PK_COUNT];
} hc_prof_row;
typedef struct hc_prof_rank {
    char host[64]; /* as placed: "host#vnode" with virtual nodes */
    int core, numa;
    int incomplete; /* a table of this rank could not grow: counts are lower bounds */
    int nrows, text_len, topo_len; /* what the rank sends at finalize */
    int host_cpus;                 /* CPUs online on its host: ranks beyond share them */
    int pad;
    uint64_t mpi_ns, calls;
    uint64_t run_ns;    /* from the process's start to the start of the profiler's finalize */
    uint64_t record_ns; /* the profiler's own time in that span: calls x the sampled mean */
    uint64_t record_per_call_ns;
    uint64_t local_ns; /* its finalize's own part before the gathers (its host's record included) */
} hc_prof_rank;
typedef struct hc_prof_data {
    int nranks;
    hc_prof_row *rows; /* merged, sorted by src then dst, no duplicates */
    long long nrows;
    hc_prof_rank *ranks;
    char *text;        /* every rank's text lines (call sites, functions) */
    size_t text_len;
    hc_host_topo *hosts; /* each host's cores, from its node leader (the real host's name) */
    int nhosts;
    const char *learned; /* the tuning file of what the run learned (tuning.txt), or NULL */
    uint64_t finalize_t0_ns; /* rank 0's clock (hc_now_ns) when the profiler's finalize began */
    uint64_t gathered_ns;    /* and when every rank's record had reached it */
} hc_prof_data;
/* Writes the profile directory; 0, or -1 after one warning. */
int hc_prof_write(const char *dir, const hc_prof_data *d);
/* fopen of dir/name for writing (or in another fopen mode); hc_prof_close is 0 only if every
 * byte reached the file. */
FILE *hc_prof_open(const char *dir, const char *name);
FILE *hc_prof_open_mode(const char *dir, const char *name, const char *mode);
int hc_prof_close(FILE *f);
/* callsites.csv, callsites.txt, functions.csv, summary.txt into dir (prof_report.c); 0 or -1. */
int hc_prof_write_report(const char *dir, const hc_prof_data *d);
/* Appends the profiler's own time to dir/summary.txt, once everything else is written (the
 * mapping included); 0 or -1. */
int hc_prof_write_cost(const char *dir, const hc_prof_data *d);
/* After the profile files: the recommended mapping for the machine the job ran on, written
 * with the launcher files and next-run.sh into dir (map_finalize.c); halves: the task graphs
 * of the run's even and odd epochs (NULL: not known). 0, or -1 after one warning. */
int hc_map_finalize(const char *dir, const hc_graph *g, const hc_graph *halves,
                    const hc_prof_data *d);
/* next-run.sh (and next-run.sbatch under Slurm) for the mapping f in dir, launched as this
 * run was (next_run.c). 0, or -1 after one warning. */
int hc_write_next_run(const char *dir, const hc_mapfile *f);

#endif
