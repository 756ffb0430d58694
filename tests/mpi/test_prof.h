/* Helpers for the profiler tests. A test program runs traffic whose matrix it knows; rank 0
 * writes the expected matrix down from the pattern's formula (tp_expect*), tp_finish calls
 * MPI_Finalize, and then rank 0 parses every file of $HIERCOLL_PROFILE back and compares
 * every entry exactly. The programs are run by tests/e2e/prof_matrix.sh, which gives each
 * run a fresh directory; without HIERCOLL_PROFILE they only run the traffic.
 */
#ifndef TEST_PROF_H
#define TEST_PROF_H

#include <unistd.h>

#include "hc_mpitest.h"
/* The METIS reader the tools use, for the round trip (mapping/ has no MPI dependency). */
#include "../../mapping/graph.c"

enum { TP_P2P, TP_COLL, TP_RMA, TP_KINDS };
static unsigned long long *tp_bytes, *tp_msgs; /* [kind][src][dst], rank 0 only */
static const char *tp_dir;

static inline unsigned long long *tp_at(unsigned long long *m, int kind, int s, int d)
{
    return &m[((size_t)kind * hc_t_size + (size_t)s) * hc_t_size + (size_t)d];
}

/* MPI_Init_thread(required) unless required < 0; returns the level provided. */
static inline int tp_init_provided(int *argc, char ***argv, int required)
{
    int provided = MPI_THREAD_SINGLE;
    if (required >= 0)
        provided = hc_t_init_thread(argc, argv, required);
    else
        hc_t_init(argc, argv);
    tp_dir = getenv("HIERCOLL_PROFILE");
    if (tp_dir && !*tp_dir)
        tp_dir = NULL;
    if (hc_t_rank == 0) {
        size_t cells = (size_t)TP_KINDS * hc_t_size * hc_t_size;
        tp_bytes = calloc(cells, sizeof *tp_bytes);
        tp_msgs = calloc(cells, sizeof *tp_msgs);
    }
    return provided;
}
#define tp_init(argc, argv, required) ((void)tp_init_provided(argc, argv, required))

/* Expected traffic src -> dst (world ranks), noted on rank 0. */
static inline void tp_expect(int src, int dst, int kind, unsigned long long bytes,
                             unsigned long long msgs)
{
    if (!tp_bytes)
        return;
    *tp_at(tp_bytes, kind, src, dst) += bytes;
    *tp_at(tp_msgs, kind, src, dst) += msgs;
}

/* The collective model (docs/formats-profile.md), on a communicator whose ranks are the world
 * ranks w[0..p-1]: one message per pair with bytes. */
static inline void tp_coll(const int *w, int i, int j, unsigned long long bytes)
{
    if (i != j && bytes)
        tp_expect(w[i], w[j], TP_COLL, bytes, 1);
}
static inline void tp_model_bcast(const int *w, int p, int root, unsigned long long bytes)
{
    for (int j = 0; j < p; j++)
        tp_coll(w, root, j, bytes);
}
static inline void tp_model_reduce(const int *w, int p, int root, unsigned long long bytes)
{
    for (int i = 0; i < p; i++)
        tp_coll(w, i, root, bytes);
}
static inline void tp_model_allreduce(const int *w, int p, long count, int size)
{
    for (int i = 0; i < p; i++)
        for (int j = 0; j < p; j++) {
            long bi = count / p + (i < count % p), bj = count / p + (j < count % p);
            tp_coll(w, i, j, (unsigned long long)((bi + bj) * size));
        }
}
static inline void tp_model_alltoall(const int *w, int p, unsigned long long bytes)
{
    for (int i = 0; i < p; i++)
        for (int j = 0; j < p; j++)
            tp_coll(w, i, j, bytes);
}

/* --- parsing back ---------------------------------------------------------------------- */
static char *tp_path(const char *name)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", tp_dir, name);
    return path;
}

/* Opens a file and checks its first line; the caller reads the rest. */
static FILE *tp_open(const char *name, const char *first)
{
    char line[512] = "";
    FILE *f = fopen(tp_path(name), "r");
    HC_T_CHECK(f != NULL, "%s missing", name);
    if (!f)
        return NULL;
    if (!fgets(line, sizeof line, f))
        line[0] = 0;
    line[strcspn(line, "\n")] = 0;
    HC_T_CHECK(strcmp(line, first) == 0, "%s: first line '%s', want '%s'", name, line, first);
    return f;
}

static void tp_check_header(FILE *f, const char *name, const char *header)
{
    char line[512] = "";
    if (!fgets(line, sizeof line, f))
        line[0] = 0;
    line[strcspn(line, "\n")] = 0;
    HC_T_CHECK(strcmp(line, header) == 0, "%s: header '%s', want '%s'", name, line, header);
}

/* comm_bytes.csv or comm_msgs.csv against the expectation, every cell. */
static void tp_check_matrix(const char *name, const char *tag, unsigned long long *want)
{
    int n = hc_t_size;
    char first[64];
    snprintf(first, sizeof first, "# hiercoll %s v1", tag);
    FILE *f = tp_open(name, first);
    if (!f)
        return;
    tp_check_header(f, name, "sender,receiver,p2p,collective,total,rma");
    unsigned long long *got = calloc((size_t)TP_KINDS * n * n, sizeof *got);
    long prev = -1, rows = 0;
    unsigned long long s, d, p, c, t, r;
    int k;
    while ((k = fscanf(f, "%llu,%llu,%llu,%llu,%llu,%llu\n", &s, &d, &p, &c, &t, &r)) == 6) {
        rows++;
        HC_T_CHECK(s < (unsigned)n && d < (unsigned)n, "%s: rank out of range %llu,%llu", name, s,
                   d);
        if (s >= (unsigned)n || d >= (unsigned)n)
            continue;
        long key = (long)(s * n + d);
        HC_T_CHECK(key > prev, "%s: row %llu,%llu out of order", name, s, d);
        prev = key;
        HC_T_CHECK(p + c == t && t > 0 && r <= p, "%s: row %llu,%llu: %llu+%llu != %llu or rma %llu",
                   name, s, d, p, c, t, r);
        *tp_at(got, TP_P2P, (int)s, (int)d) = p - r;
        *tp_at(got, TP_COLL, (int)s, (int)d) = c;
        *tp_at(got, TP_RMA, (int)s, (int)d) = r;
    }
    HC_T_CHECK(k == EOF, "%s: malformed row after %ld rows", name, rows);
    fclose(f);
    static const char *kind[] = {"p2p", "collective", "rma"};
    for (int q = 0; q < TP_KINDS; q++)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                HC_T_CHECK(*tp_at(got, q, i, j) == *tp_at(want, q, i, j),
                           "%s: %s %d -> %d is %llu, want %llu", name, kind[q], i, j,
                           *tp_at(got, q, i, j), *tp_at(want, q, i, j));
    free(got);
}

/* Expected task-graph weight of {i, j}. */
static unsigned long long tp_weight(int i, int j, int with_coll)
{
    unsigned long long w = 0;
    for (int q = 0; q < TP_KINDS; q++)
        if (q != TP_COLL || with_coll)
            w += *tp_at(tp_bytes, q, i, j) + *tp_at(tp_bytes, q, j, i);
    return w;
}

static void tp_check_graph(void)
{
    const char *coll = getenv("HIERCOLL_PROFILE_COLLECTIVES");
    int with_coll = !(coll && strcmp(coll, "off") == 0);
    FILE *f = tp_open("taskgraph.graph", "% hiercoll taskgraph v1");
    if (f)
        fclose(f);
    hc_graph g;
    char err[512] = "";
    int rc = hc_graph_read_metis(&g, tp_path("taskgraph.graph"), err, sizeof err);
    HC_T_CHECK(rc == 0, "METIS reader: %s", err);
    if (rc != 0)
        return;
    HC_T_CHECK(g.n == hc_t_size, "graph has %d vertices", g.n);
    long edges = 0;
    for (int i = 0; i < g.n && g.n == hc_t_size; i++)
        for (int j = 0; j < g.n; j++) {
            unsigned long long want = i == j ? 0 : tp_weight(i, j, with_coll);
            double got = hc_graph_weight(&g, i, j);
            edges += i < j && want;
            HC_T_CHECK(got == (double)want, "graph weight %d-%d is %.0f, want %llu", i, j, got,
                       want);
        }
    HC_T_CHECK(g.xadj[g.n] == 2 * edges, "graph has %lld adjacencies, want %ld", g.xadj[g.n],
               2 * edges);
    /* The DOT file draws the same edges. */
    f = tp_open("taskgraph.dot", "// hiercoll taskgraph v1");
    long dot_edges = 0;
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        int a, b;
        double w;
        if (sscanf(line, " %d -- %d [label=\"%lf\"", &a, &b, &w) == 3) {
            dot_edges++;
            HC_T_CHECK(w == hc_graph_weight(&g, a, b), "dot edge %d-%d weight %.0f", a, b, w);
        }
    }
    if (f)
        fclose(f);
    HC_T_CHECK(dot_edges == edges, "dot has %ld edges, want %ld", dot_edges, edges);
    hc_graph_free(&g);
}

static void tp_check_ranks_machine(void)
{
    int n = hc_t_size;
    FILE *f = tp_open("ranks.csv", "# hiercoll ranks v1");
    if (f) {
        tp_check_header(f, "ranks.csv",
                        "rank,host,core,numa,mpi_time_us,p2p_bytes_sent,coll_bytes_sent,calls,"
                        "incomplete");
        for (int r = 0; r < n; r++) {
            int rank = -1, core, numa, inc = 1;
            char host[128];
            double t = -1;
            unsigned long long p2p = 0, coll = 0, calls = 0, wp = 0, wc = 0;
            int k = fscanf(f, "%d,%127[^,],%d,%d,%lf,%llu,%llu,%llu,%d\n", &rank, host, &core,
                           &numa, &t, &p2p, &coll, &calls, &inc);
            HC_T_CHECK(k == 9 && rank == r, "ranks.csv row %d malformed (%d fields)", r, k);
            for (int j = 0; j < n; j++) {
                wp += *tp_at(tp_bytes, TP_P2P, r, j) + *tp_at(tp_bytes, TP_RMA, r, j);
                wc += *tp_at(tp_bytes, TP_COLL, r, j);
            }
            HC_T_CHECK(p2p == wp && coll == wc, "ranks.csv rank %d sent %llu/%llu, want %llu/%llu",
                       r, p2p, coll, wp, wc);
            HC_T_CHECK(t >= 0 && calls > 0 && inc == 0, "ranks.csv rank %d time %f calls %llu",
                       r, t, calls);
        }
        fclose(f);
    }
    f = tp_open("machine.txt", "# hiercoll machine v1");
    int ranks = 0, hosts = 0;
    char line[4096];
    while (f && fgets(line, sizeof line, f)) {
        int r, core, numa;
        char host[128], topo[4000];
        if (sscanf(line, "rank %d host %127s core %d numa %d", &r, host, &core, &numa) == 4) {
            HC_T_CHECK(r == ranks, "machine.txt rank line %d names rank %d", ranks, r);
            ranks++;
        } else if (sscanf(line, "host %127s topology %3999[^\n]", host, topo) == 2) {
            hosts++;
        } else if (sscanf(line, "host %127s cores %d %3999s", host, &core, topo) == 3) {
            HC_T_CHECK(core >= 1, "machine.txt: %d packages on %s", core, host);
        } else if (!strncmp(line, "slurm job ", 10)) {
            HC_T_CHECK(getenv("SLURM_JOB_ID") != NULL, "machine.txt: a Slurm job outside Slurm");
        } else {
            HC_T_CHECK(0, "machine.txt: unexpected line '%s'", line);
        }
    }
    if (f)
        fclose(f);
    HC_T_CHECK(ranks == n && hosts >= 1, "machine.txt: %d rank lines, %d hosts", ranks, hosts);
}

/* functions.csv and callsites.csv: per function, the call sites add up to the calls. */
static void tp_check_functions_sites(void)
{
    enum { MAXF = 64 };
    char fname[MAXF][40];
    unsigned long long fcalls[MAXF] = {0}, scalls[MAXF] = {0};
    int nf = 0;
    char line[8192];
    FILE *f = tp_open("functions.csv", "# hiercoll functions v1");
    if (f) {
        tp_check_header(f, "functions.csv", "rank,function,calls,bytes,time_us");
        while (fgets(line, sizeof line, f)) {
            int r;
            char fn[40];
            unsigned long long calls, bytes;
            double t;
            int k = sscanf(line, "%d,%39[^,],%llu,%llu,%lf", &r, fn, &calls, &bytes, &t);
            HC_T_CHECK(k == 5, "functions.csv: malformed '%s'", line);
            int i = 0;
            while (i < nf && strcmp(fname[i], fn) != 0)
                i++;
            if (i == nf && nf < MAXF)
                snprintf(fname[nf++], sizeof fname[0], "%s", fn);
            if (i < MAXF)
                fcalls[i] += calls;
        }
        fclose(f);
    }
    const char *cs = getenv("HIERCOLL_CALLSITES");
    int depth = cs ? atoi(cs) : 1;
    char exe[4096] = "";
    ssize_t el = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[el > 0 ? el : 0] = 0;
    f = tp_open("callsites.csv", "# hiercoll callsites v1");
    int sites = 0, in_exe = 0;
    if (f) {
        tp_check_header(f, "callsites.csv",
                        "site,function,calls,bytes,time_us,module,offset,symbol,stack");
        while (fgets(line, sizeof line, f)) {
            int site;
            char fn[40], module[4096], off[64], stack[4096];
            unsigned long long calls, bytes;
            double t;
            int k = sscanf(line, "%d,%39[^,],%llu,%llu,%lf,%4095[^,],%63[^,],%*[^,],%4095[^\n]",
                           &site, fn, &calls, &bytes, &t, module, off, stack);
            HC_T_CHECK(k == 8 && site == sites + 1 && strncmp(off, "0x", 2) == 0,
                       "callsites.csv: malformed '%s'", line);
            sites++;
            in_exe += strcmp(module, exe) == 0;
            int frames = 1;
            for (const char *p = stack; *p; p++)
                frames += *p == ';';
            HC_T_CHECK(frames <= depth, "callsites.csv: %d frames at depth %d", frames, depth);
            for (int i = 0; i < nf; i++)
                if (strcmp(fname[i], fn) == 0)
                    scalls[i] += calls;
        }
        fclose(f);
    }
    if (depth > 0) {
        /* Every call the program made is at a site in the program itself. */
        HC_T_CHECK(sites > 0 && in_exe == sites, "callsites: %d sites, %d in %s", sites, in_exe,
                   exe);
        for (int i = 0; i < nf; i++)
            HC_T_CHECK(scalls[i] == fcalls[i], "%s: call sites add up to %llu calls, want %llu",
                       fname[i], scalls[i], fcalls[i]);
    } else {
        HC_T_CHECK(sites == 0, "callsites off, yet %d sites", sites);
    }
    f = tp_open("summary.txt", "# hiercoll summary v1");
    int has_ranks = 0;
    unsigned long long total = 0, odd = 0, p2p_b = 0, coll_b = 0;
    double odd_pc = -1;
    while (f && fgets(line, sizeof line, f)) {
        int r;
        has_ranks |= sscanf(line, "ranks %d,", &r) == 1 && r == hc_t_size;
        sscanf(line, "bytes: p2p %llu (one-sided included), collective %llu (model), total %llu",
               &p2p_b, &coll_b, &total);
        sscanf(line, "bytes in the odd epochs: %llu, %lf%%", &odd, &odd_pc);
    }
    if (f)
        fclose(f);
    HC_T_CHECK(has_ranks, "summary.txt lacks 'ranks %d'", hc_t_size);
    /* the odd epochs' bytes are part of the bytes (a half of the run for the mapping's check) */
    HC_T_CHECK(odd_pc >= 0 && odd <= total && total == p2p_b + coll_b &&
                   (total == 0 || (odd_pc - 100.0 * (double)odd / (double)total < 0.051 &&
                                   100.0 * (double)odd / (double)total - odd_pc < 0.051)),
               "summary.txt: %llu bytes in odd epochs (%.1f%%) of %llu", odd, odd_pc, total);
}

/* The profiler's own time, last in summary.txt: the busiest rank's calls are its calls in
 * functions.csv, its recording at least those calls at the mean it prints, and the share is
 * recomputed from the two times and the run's length. */
static void tp_check_own_time(void)
{
    unsigned long long *calls_of = calloc((size_t)hc_t_size, sizeof *calls_of);
    char line[8192];
    FILE *f = tp_open("functions.csv", "# hiercoll functions v1");
    while (f && calls_of && fgets(line, sizeof line, f)) {
        int r;
        unsigned long long calls;
        if (sscanf(line, "%d,%*[^,],%llu,", &r, &calls) == 2 && r >= 0 && r < hc_t_size)
            calls_of[r] += calls;
    }
    if (f)
        fclose(f);
    double rec_ms = -1, shared_ms = 0, shared_sum_ms = 0, fin_ms = -1, share = -1, run_s = -1;
    double own_ms = -1, waited_ms = -1;
    int shared_ranks = 0, shared_cpus = 0;
    int busiest = -1, every = 0;
    unsigned long long calls = 0, per_call = 0;
    f = tp_open("summary.txt", "# hiercoll summary v1");
    while (f && fgets(line, sizeof line, f)) {
        sscanf(line, " recording %lf ms on the busiest rank (rank %d: %llu calls, %llu ns each, "
                     "every %dth timed)", &rec_ms, &busiest, &calls, &per_call, &every);
        sscanf(line, " shared %lf ms a CPU on %*s (its %d ranks' %lf ms on %d CPUs)", &shared_ms,
               &shared_ranks, &shared_sum_ms, &shared_cpus);
        sscanf(line, " finalize %lf ms (the slowest rank's own part %lf ms", &fin_ms, &own_ms);
        sscanf(line, " waited %lf ms on rank 0", &waited_ms);
        sscanf(line, " share %lf%% of rank 0's %lf s", &share, &run_s);
    }
    if (f)
        fclose(f);
    HC_T_CHECK(busiest >= 0 && busiest < hc_t_size && fin_ms >= 0 && share >= 0 && run_s > 0,
               "summary.txt: no profiler's own time (recording %.3f ms, rank %d, finalize %.3f "
               "ms, share %.2f%%, run %.3f s)", rec_ms, busiest, fin_ms, share, run_s);
    if (busiest < 0 || busiest >= hc_t_size || !calls_of) {
        free(calls_of);
        return;
    }
    HC_T_CHECK(calls == calls_of[busiest], "summary.txt: rank %d made %llu calls, functions.csv "
               "says %llu", busiest, calls, calls_of[busiest]);
    /* Every wrapper marks its calls, so a rank that called has a mean; a sample above 100 us
     * (a rank that lost its core) is left out, and a first call that long stands for itself
     * only: no mean above it. */
    HC_T_CHECK(calls == 0 || (per_call > 0 && per_call <= 100000),
               "summary.txt: %llu ns a call over %llu calls", per_call, calls);
    HC_T_CHECK(rec_ms * 1e6 + 1e3 >= (double)(calls > 0 ? calls - 1 : 0) * (double)per_call,
               "summary.txt: recording %.3f ms < %llu calls x %llu ns", rec_ms, calls, per_call);
    /* Within the rounding of what is printed: 2 decimals of the share, 3 of the run's seconds */
    /* A host with more ranks than CPUs: their recording shared over the CPUs, when larger */
    if (shared_ms > 0) {
        HC_T_CHECK(shared_ranks > shared_cpus && shared_cpus > 0 &&
                       shared_ms * shared_cpus > shared_sum_ms - 0.002 * shared_cpus &&
                       shared_ms * shared_cpus < shared_sum_ms + 0.002 * shared_cpus,
                   "summary.txt: shared %.3f ms a CPU, %d ranks' %.3f ms on %d CPUs", shared_ms,
                   shared_ranks, shared_sum_ms, shared_cpus);
    }
    double recording = shared_ms > rec_ms ? shared_ms : rec_ms;
    double want = 100.0 * (recording + fin_ms) / 1e3 / run_s, tol = 0.006 + want * 0.0006 / run_s;
    HC_T_CHECK(share - want <= tol && want - share <= tol,
               "summary.txt: share %.2f%%, the "
               "times give %.2f%%", share, want);
    HC_T_CHECK(fin_ms / 1e3 < run_s, "summary.txt: finalize %.3f ms of a %.3f s run", fin_ms,
               run_s);
    /* the slowest rank's own part is in the finalize; the wait for the last rank is not */
    HC_T_CHECK(own_ms > 0 && own_ms <= fin_ms + 0.001 && waited_ms >= 0 &&
                   (fin_ms + waited_ms) / 1e3 < run_s,
               "summary.txt: finalize %.3f ms, own part %.3f ms, waited %.3f ms", fin_ms, own_ms,
               waited_ms);
    free(calls_of);
}

/* Agrees on the checks so far (one allreduce, part of the expected traffic), finalizes, and
 * on rank 0 checks the profile. Returns the exit status. */
static inline int tp_finish(void)
{
    long failures = hc_t_failures, all = 0;
    int *world = malloc(sizeof(int) * (size_t)hc_t_size);
    for (int i = 0; i < hc_t_size; i++)
        world[i] = i;
    tp_model_allreduce(world, hc_t_size, 1, (int)sizeof(long));
    free(world);
    MPI_Allreduce(&failures, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    if (hc_t_rank != 0)
        return all ? 1 : 0;
    hc_t_failures = all;
    if (tp_dir) {
        tp_check_matrix("comm_bytes.csv", "comm_bytes", tp_bytes);
        tp_check_matrix("comm_msgs.csv", "comm_msgs", tp_msgs);
        tp_check_graph();
        tp_check_ranks_machine();
        tp_check_functions_sites();
        tp_check_own_time();
    } else {
        printf("HIERCOLL_PROFILE not set: traffic only, no profile checked\n");
    }
    printf("%ld checks on %d ranks, %ld failed\n", hc_t_checks, hc_t_size, hc_t_failures);
    return hc_t_failures ? 1 : 0;
}

#endif
