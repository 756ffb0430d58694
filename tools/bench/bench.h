/* hiercoll-bench: shared types of the benchmark's parts.
 *   main.c     options, and the loop over collectives, sizes and patterns
 *   pattern_name.h  calling patterns by name
 *   contents.h what every word of a buffer holds (partial rewrites included); no MPI
 *   pattern.c  the buffers each call of a pattern uses (fill, stamp, rewrite, verify)
 *   paths.c    the paths compared: communicators with info keys, the plan a path ran
 *   peers.h    the other collectives a user could pick (MPICH's variables, Open MPI's
 *              components); peers.c sets MPICH's between blocks
 *   measure.c  one size in one pattern: every path in alternating blocks, timed
 *   netbytes.c what crossed the hosts' network interfaces per call (--net-bytes)
 *   refs.c     the two copies a broadcast is compared with (memcpy, xcopy)
 *   cell.c     one table line from the rows of one or several runs (medians, best peer)
 *   report.c   tables and CSV; summary.c the summary across patterns and the tuning file
 *   merge.c    tables from the CSV of several runs (--merge, no MPI) */
#ifndef HC_BENCH_H
#define HC_BENCH_H

#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

enum coll { COLL_BCAST, COLL_ALLREDUCE };
extern const char *const coll_names[2];

/* How a program calls the collective (docs/usage.md, "hiercoll bench"):
 *   root    rotate (call k from rank k mod n), fixed (always rank 0) or switch (rank 0, then
 *           the last rank from half of each path's calls); allreduce has no root
 *   buffers fresh (both sides rewritten in full before each call), warm (the same data goes
 *           out each call; readers' buffers only stamped), cold (cycled through a pool larger
 *           than the last-level cache), stride / block (as warm, but before each call the
 *           sending side rewrites one word in 64 / one 16th of the buffer, where contents.h
 *           says), warm2stride (warm, then stride from half of the calls)
 *   timing  latency (a barrier before each call, the slowest rank's time) or stream (calls back
 *           to back, each rank's total over a block / calls, the slowest rank's) */
#include "pattern_name.h"

/* The buffers of one size in one pattern, the same for every path so they compete on equal
 * terms. Call numbers k grow across blocks and paths. */
typedef struct bufset bufset;
bufset *bufset_new(enum coll which, pattern p, long long bytes, int rank, int nranks);
void bufset_free(bufset *b);
/* Start of a block of calls on one path, whose first call is first_call, in half `half`
 * (0: the pattern does not change mid-run): warm and partial buffers get the block's data. */
void bufset_block(bufset *b, long long block, long long first_call, int half);
/* Before call k from root: fresh rewrites, partial rewrites part of the sending side, the
 * others stamp the receiving side. Returns the send buffer (the broadcast's buffer) and sets
 * *out (allreduce's receive buffer). */
void *bufset_before(bufset *b, long long k, int root, void **out);
/* After call k: wrong bytes or elements; full = every word, else the stamped ones only. */
long bufset_check(bufset *b, long long k, int root, int full);

/* MPICH's algorithm variables a peer sets for its blocks (peers.c): MPI_T indices, values. */
#define MAX_CVARS 4
typedef struct cvar_set {
    int n, index[MAX_CVARS], value[MAX_CVARS];
} cvar_set;

/* The paths compared, on communicators of their own (paths.c): first the peers (the vendor's
 * collective as the library's default picks it, and with --peers the others a user could
 * pick), then hiercoll algorithms forced by info key. */
#define MAX_PATHS 16
typedef struct path {
    const char *algo;
    MPI_Comm comm;
    cvar_set cvars; /* in force during the path's blocks; none: MPICH's defaults */
} path;
/* A communicator of MPI_COMM_WORLD's ranks whose collectives take the path (info key). */
MPI_Comm path_comm(enum coll which, const char *algo);
/* The algorithm the last call on the path's communicator ran, as the library reports it
 * (info key hiercoll_bcast_last / hiercoll_allreduce_last), or "" where it does not. */
void path_last_plan(const path *p, enum coll which, char *out, size_t len);
/* The peers of a collective: the vendor's default first (named `label`, the peer this launch
 * selected, if given), then with `peers` MPICH's others that this MPICH has; every rank
 * resolves the same variables of the same library, and all agree before a peer joins.
 * Returns their number. A peer left out is said on notes (NULL: nothing said). */
int paths_peers(enum coll which, int peers, const char *label, FILE *notes, path *paths);
/* Then hiercoll's: the comma-separated list, less the names this build of the library does
 * not accept (its info key would ignore them and run auto under a wrong name). Returns the
 * number of paths in all. */
int paths_algos(enum coll which, const char *algos, FILE *notes, path *paths, int np);

/* Peers (peers.h): MPICH's, resolved to MPI_T variables; 0, or -1 with a reason. */
int peers_resolve(const char *settings, cvar_set *out, char *err, size_t errlen);
/* Puts a path's variables in force, and MPICH's defaults for the others (NULL: all). */
void peers_enter(const cvar_set *s);

typedef struct stats {
    double median, min, max;
    long errors;
} stats;
stats stats_of(double *t, int n, long errors);

/* Checkable contents: n bytes of content `id` (inverted: certainly different), and how many
 * 8-byte words or tail bytes of p differ from them. */
void fill_bytes(unsigned char *p, long long n, unsigned long long id, int invert);
long check_bytes(const unsigned char *p, long long n, unsigned long long id);

/* One measured row: one size in one pattern (one half of it, for a pattern that changes
 * mid-run), every path of one run. */
typedef struct row {
    enum coll which;
    pattern p;
    long long bytes;
    int half;  /* 0: the whole run; 1, 2: the halves of a pattern that changes mid-run */
    int iters; /* calls timed per path (in this half) */
    int run;   /* which run, when several are merged */
    stats s[MAX_PATHS];      /* slowest rank's µs per call; median 0: not measured in this run */
    double link[MAX_PATHS];  /* --net-bytes: bytes per call over the busiest link direction */
    char ran[MAX_PATHS][24]; /* the plan the path's last call ran, "" if not known */
    double memcpy_us, xcopy_us;
} row;

/* One size, one pattern: every path's stats, on rank 0; one row, or one per half. Returns
 * the number of rows. */
typedef struct measure_opts {
    int max_iters, warmup, min_calls;
    int net; /* count the bytes on the hosts' network interfaces */
} measure_opts;
int measure(enum coll which, pattern p, long long bytes, const path *paths, int npaths,
            const measure_opts *o, row *out);

/* --net-bytes (netbytes.c): the interfaces' counters on each host's first rank (0 elsewhere),
 * after a barrier; and a path's bytes per call over the busiest host's busier direction. */
void net_read(MPI_Comm comm, double *tx, double *rx);
double net_per_call(MPI_Comm comm, double tx, double rx, long long calls);

/* References: a hot memcpy on one core (rank 0's figure), and one copy of the message from rank
 * 0's memory by rank 1 (0 where they do not share a node; -1 if the copy came out wrong). */
double ref_memcpy(long long bytes, int iters);
double ref_xcopy(long long bytes, int iters);

/* algo[c][q]: path q's name for collective c; paths below npeers[c] are peers ([c][0]: the
 * vendor's default, "vendor" without --peers), the others hiercoll's. */
typedef struct report {
    FILE *out;
    int csv, csv_header_done;
    const char *algo[2][MAX_PATHS];
    int npaths[2], npeers[2];
    int nranks, nnodes;
    int runs; /* how many runs the rows come from */
    int net;  /* rows carry link bytes: a line of them under each table line */
    row *rows;
    int nrows, cap;
} report;

/* Runs merged at most: hiercoll bench --rounds 100 with Open MPI's three peers is 300. */
#define MAX_RUNS 512

/* One table line: the rows of one key (collective, pattern, size, half) over the runs.
 * Ratios are to the best peer (the vendor, without peers): where runs were merged, the
 * median over the best peer's runs of path / peer in the same run. */
typedef struct cell {
    const row *first;
    double peer_us[MAX_PATHS]; /* peers: median time over the runs that measured them */
    int best;                  /* the best peer: the lowest time relative to the yardstick */
    int yardstick;             /* auto, else the first hiercoll path; -1 if none */
    double ratio[MAX_PATHS];   /* hiercoll paths / best peer */
    double yard_us;            /* the yardstick's median time */
    int best_fixed;            /* the fastest plan auto could have kept: the vendor or a fixed path */
    double auto_best;          /* auto / that plan in the same run (median); 0: no auto */
    char ran[48];              /* the plans auto ended on, '/' between different ones */
    double memcpy_us, xcopy_us;
    double link[MAX_PATHS]; /* bytes per call over the busiest link, median over the runs */
    long errors;
} cell;
int cell_of(const report *r, const row *key, cell *c);
int path_auto(const report *r, enum coll which); /* auto's path index, or -1 */

void report_header(report *r, enum coll which, pattern p);
void report_row(report *r, const row *x); /* keeps it, and prints it unless runs are merged */
void report_keep(report *r, const row *x);
void report_line(report *r, const row *key); /* prints the line of the row's key */
void report_print_all(report *r); /* every kept row: CSV, or tables and summaries */
/* With several patterns: per size and path, the worst and the median ratio across them. */
void report_summary(report *r, enum coll which);
/* The tuning file: per size, the path whose worst ratio across patterns is lowest. */
int report_tune(const report *r, const char *file, char *err, size_t errlen);
/* --merge: the tables of several runs' CSV files; 0, or -1 with a message. */
int merge_runs(report *r, char **files, int nfiles);

void size_label(long long b, char *out, size_t len);
void half_label(const row *x, char *out, size_t len);

#endif
