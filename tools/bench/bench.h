/* hiercoll-bench: shared types of the benchmark's parts.
 *   main.c     options, and the loop over collectives, sizes and patterns
 *   pattern_name.h  calling patterns by name
 *   pattern.c  the buffers each call of a pattern uses (fill, stamp, verify)
 *   measure.c  one size in one pattern: every path in alternating blocks, timed
 *   refs.c     the two copies a broadcast is compared with (memcpy, xcopy)
 *   report.c   tables, the summary across patterns, and the tuning file (--tune) */
#ifndef HC_BENCH_H
#define HC_BENCH_H

#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

enum coll { COLL_BCAST, COLL_ALLREDUCE };
extern const char *const coll_names[2];

/* How a program calls the collective (docs/usage.md, "hiercoll bench"):
 *   root    rotate (call k from rank k mod n) or fixed (always rank 0); allreduce has no root
 *   buffers fresh (both sides rewritten in full before each call), warm (the same data goes
 *           out each call; readers' buffers only stamped) or cold (cycled through a pool larger
 *           than the last-level cache)
 *   timing  latency (a barrier before each call, the slowest rank's time) or stream (calls back
 *           to back, each rank's total over a block / calls, the slowest rank's) */
#include "pattern_name.h"

/* The buffers of one size in one pattern, the same for every path so they compete on equal
 * terms. Call numbers k grow across blocks and paths. */
typedef struct bufset bufset;
bufset *bufset_new(enum coll which, pattern p, long long bytes, int rank, int nranks);
void bufset_free(bufset *b);
/* Start of a block of calls on one path: warm buffers get this block's data here. */
void bufset_block(bufset *b, long long block);
/* Before call k from root: fresh rewrites, the others stamp the receiving side. Returns the
 * send buffer (the broadcast's buffer) and sets *out (allreduce's receive buffer). */
void *bufset_before(bufset *b, long long k, int root, void **out);
/* After call k: wrong bytes or elements; full = every byte, else the stamped ones only. */
long bufset_check(bufset *b, long long k, int root, int full);

/* The paths compared: [0] is the vendor, the others hiercoll algorithms forced by info key. */
#define MAX_PATHS 8
typedef struct path {
    const char *algo;
    MPI_Comm comm;
} path;

typedef struct stats {
    double median, min, max;
    long errors;
} stats;
stats stats_of(double *t, int n, long errors);

/* Checkable contents: n bytes of content `id` (inverted: certainly different), and how many
 * 8-byte words or tail bytes of p differ from them. */
void fill_bytes(unsigned char *p, long long n, unsigned long long id, int invert);
long check_bytes(const unsigned char *p, long long n, unsigned long long id);

/* One size, one pattern: every path's stats (slowest rank's µs per call), on rank 0. Returns
 * the calls timed per path. */
typedef struct measure_opts {
    int max_iters, warmup;
} measure_opts;
int measure(enum coll which, pattern p, long long bytes, const path *paths, int npaths,
             const measure_opts *o, stats *out);

/* References: a hot memcpy on one core (rank 0's figure), and one copy of the message from rank
 * 0's memory by rank 1 (0 where they do not share a node; -1 if the copy came out wrong). */
double ref_memcpy(long long bytes, int iters);
double ref_xcopy(long long bytes, int iters);

/* One measured row. */
typedef struct row {
    enum coll which;
    pattern p;
    long long bytes;
    int iters;
    stats s[MAX_PATHS];
    double memcpy_us, xcopy_us;
} row;

/* algo[c][q]: path q's algorithm for collective c ([c][0] = "vendor"). */
typedef struct report {
    FILE *out;
    int csv, csv_header_done;
    const char *algo[2][MAX_PATHS];
    int npaths[2];
    int nranks, nnodes;
    row *rows;
    int nrows, cap;
} report;
void report_header(report *r, enum coll which, pattern p);
void report_row(report *r, const row *x);
/* With several patterns: per size and path, the worst and the median ratio across them. */
void report_summary(report *r, enum coll which);
/* The tuning file: per size, the path whose worst ratio across patterns is lowest. */
int report_tune(const report *r, const char *file, char *err, size_t errlen);

void size_label(long long b, char *out, size_t len);

#endif
