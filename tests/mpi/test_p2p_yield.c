/* The program's blocking point-to-point calls as the preload completes them where they yield
 * (HIERCOLL_P2P_YIELD, preload/p2p_yield.c): each keeps its MPI semantics.
 * Every send mode into a derived datatype, MPI_Sendrecv's status (source, tag, count) with
 * wildcards and MPI_PROC_NULL, receives from MPI_PROC_NULL, MPI_Waitall / Waitany / Waitsome
 * over null, persistent and inactive requests down to MPI_UNDEFINED, MPI_Probe, large-count
 * forms; MPI_Ssend (and MPI_Barrier, left to the vendor) must not return before their
 * partner arrives. Where the calls yield (HIERCOLL_P2P_YIELD=on, or auto under MPICH with
 * more ranks than cores) a rank waiting 0.3 s in MPI_Recv must also leave most of that time
 * to others: its CPU time below half of it (the vendors' own waits poll through it). Open
 * MPI's mpi_yield_when_idle exported for every family, as make apps does, must not turn auto
 * off under MPICH.
 * hc-test: np=2,3 preload=both timeout=120
 * hc-test: np=2,4 preload=yes timeout=120 env=HIERCOLL_P2P_YIELD=on
 * hc-test: np=3 preload=yes timeout=120 env=HIERCOLL_P2P_YIELD=off
 * hc-test: np=4 preload=yes timeout=120 env=OMPI_MCA_mpi_yield_when_idle=1
 */
#include <sys/resource.h>
#include <unistd.h>

#include "hc_mpitest.h"

#define N 1000

static double value(int from, int k, int i) { return from * 1e6 + k * 1e3 + i; }

/* r sends N doubles to r+1 in each mode; r+1 receives them every other element (a vector
 * type), from its known source or MPI_ANY_SOURCE. */
static void send_modes(void)
{
    int n = hc_t_size, r = hc_t_rank, next = (r + 1) % n, prev = (r + n - 1) % n;
    static double out[N], in[2 * N];
    MPI_Datatype every_other;
    MPI_Type_vector(N, 1, 2, MPI_DOUBLE, &every_other);
    MPI_Type_commit(&every_other);
    int bsize = N * (int)sizeof(double) + MPI_BSEND_OVERHEAD;
    void *battach = malloc((size_t)bsize);
    MPI_Buffer_attach(battach, bsize);
    for (int mode = 0; mode < 4; mode++) {
        for (int i = 0; i < N; i++)
            out[i] = value(r, mode, i);
        memset(in, 0, sizeof in);
        MPI_Request req;
        MPI_Status st;
        /* Rsend needs the receive posted first: posted, then a barrier, then the send. */
        MPI_Irecv(in, 1, every_other, mode % 2 ? MPI_ANY_SOURCE : prev, 40 + mode,
                  MPI_COMM_WORLD, &req);
        MPI_Barrier(MPI_COMM_WORLD);
        switch (mode) {
        case 0: MPI_Send(out, N, MPI_DOUBLE, next, 40, MPI_COMM_WORLD); break;
        case 1: MPI_Bsend(out, N, MPI_DOUBLE, next, 41, MPI_COMM_WORLD); break;
        case 2: MPI_Ssend(out, N, MPI_DOUBLE, next, 42, MPI_COMM_WORLD); break;
        case 3: MPI_Rsend(out, N, MPI_DOUBLE, next, 43, MPI_COMM_WORLD); break;
        }
        MPI_Wait(&req, &st);
        int count = -1;
        MPI_Get_count(&st, MPI_DOUBLE, &count);
        HC_T_CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == 40 + mode && count == N,
                   "mode %d: source %d tag %d count %d", mode, st.MPI_SOURCE, st.MPI_TAG, count);
        long bad = -1;
        for (int i = 0; i < N && bad < 0; i++)
            if (in[2 * i] != value(prev, mode, i) || in[2 * i + 1] != 0)
                bad = i;
        HC_T_CHECK(bad < 0, "mode %d: element %ld", mode, bad);
    }
    MPI_Buffer_detach(&battach, &bsize);
    free(battach);
    MPI_Type_free(&every_other);
}

/* MPI_Sendrecv around the ring and its status; with MPI_PROC_NULL at both ends. */
static void sendrecv(void)
{
    int n = hc_t_size, r = hc_t_rank, next = (r + 1) % n, prev = (r + n - 1) % n;
    int out[7], in[9] = {0};
    for (int i = 0; i < 7; i++)
        out[i] = r * 100 + i;
    MPI_Status st;
    MPI_Sendrecv(out, 7 - (r % 2), MPI_INT, next, 60 + r, in, 9, MPI_INT, MPI_ANY_SOURCE,
                 MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    int count = -1;
    MPI_Get_count(&st, MPI_INT, &count);
    HC_T_CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == 60 + prev && count == 7 - (prev % 2),
               "sendrecv: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, count);
    HC_T_CHECK(count > 0 && count <= 9 && in[0] == prev * 100 &&
                   in[count - 1] == prev * 100 + count - 1 && in[8] == 0,
               "sendrecv data %d", in[0]);

    in[0] = -5;
    MPI_Sendrecv(out, 7, MPI_INT, MPI_PROC_NULL, 1, in, 9, MPI_INT, MPI_PROC_NULL, 2,
                 MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    HC_T_CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0 &&
                   in[0] == -5,
               "sendrecv with MPI_PROC_NULL: source %d tag %d count %d", st.MPI_SOURCE,
               st.MPI_TAG, count);
    MPI_Sendrecv(out, 7, MPI_INT, next, 3, in, 9, MPI_INT, prev, 3, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    HC_T_CHECK(in[6] == prev * 100 + 6, "sendrecv, status ignored: %d", in[6]);

    MPI_Recv(in, 9, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    HC_T_CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0,
               "recv from MPI_PROC_NULL: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG,
               count);
}

/* Waitall, Waitany and Waitsome over a mix of real, null, persistent and inactive requests. */
static void waits(void)
{
    int n = hc_t_size, r = hc_t_rank, next = (r + 1) % n, prev = (r + n - 1) % n;
    enum { K = 6 };
    int out[K], in[K];
    MPI_Request req[2 * K + 2];
    MPI_Status st[2 * K + 2];
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < K; i++) {
            out[i] = r * 10 + i + round * 1000;
            in[i] = -1;
            MPI_Irecv(&in[i], 1, MPI_INT, prev, i, MPI_COMM_WORLD, &req[2 * i]);
            MPI_Isend(&out[i], 1, MPI_INT, next, i, MPI_COMM_WORLD, &req[2 * i + 1]);
        }
        req[2 * K] = MPI_REQUEST_NULL;
        MPI_Send_init(out, 1, MPI_INT, next, 99, MPI_COMM_WORLD, &req[2 * K + 1]); /* inactive */
        if (round == 0) {
            MPI_Waitall(2 * K + 2, req, st);
            for (int i = 0; i < K; i++)
                HC_T_CHECK(st[2 * i].MPI_SOURCE == prev && st[2 * i].MPI_TAG == i,
                           "waitall status %d: source %d tag %d", i, st[2 * i].MPI_SOURCE,
                           st[2 * i].MPI_TAG);
        } else if (round == 1) {
            int done = 0, idx;
            MPI_Status one;
            for (;;) {
                MPI_Waitany(2 * K + 2, req, &idx, &one);
                if (idx == MPI_UNDEFINED)
                    break;
                HC_T_CHECK(idx < 2 * K, "waitany returned request %d", idx);
                if (idx % 2 == 0)
                    HC_T_CHECK(one.MPI_TAG == idx / 2, "waitany: tag %d for %d", one.MPI_TAG, idx);
                done++;
            }
            HC_T_CHECK(done == 2 * K, "waitany completed %d of %d", done, 2 * K);
        } else {
            int done = 0, outcount, idx[2 * K + 2];
            for (;;) {
                MPI_Waitsome(2 * K + 2, req, &outcount, idx, st);
                if (outcount == MPI_UNDEFINED)
                    break;
                HC_T_CHECK(outcount > 0, "waitsome returned %d", outcount);
                done += outcount;
            }
            HC_T_CHECK(done == 2 * K, "waitsome completed %d of %d", done, 2 * K);
        }
        MPI_Request_free(&req[2 * K + 1]);
        for (int i = 0; i < K; i++)
            HC_T_CHECK(in[i] == prev * 10 + i + round * 1000, "round %d: in[%d] = %d", round, i,
                       in[i]);
    }
    /* A persistent receive started twice, each waited for. */
    MPI_Request pr, ps;
    int v = -1, w;
    MPI_Recv_init(&v, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, &pr);
    MPI_Send_init(&w, 1, MPI_INT, next, 7, MPI_COMM_WORLD, &ps);
    for (int k = 0; k < 2; k++) {
        w = r + 100 * k;
        MPI_Start(&pr);
        MPI_Start(&ps);
        MPI_Wait(&ps, MPI_STATUS_IGNORE);
        MPI_Wait(&pr, MPI_STATUS_IGNORE);
        HC_T_CHECK(v == prev + 100 * k, "persistent round %d: %d", k, v);
    }
    MPI_Request_free(&pr);
    MPI_Request_free(&ps);
    /* A null request completes at once with the empty status. */
    MPI_Request null = MPI_REQUEST_NULL;
    MPI_Status st0;
    st0.MPI_SOURCE = st0.MPI_TAG = 12345;
    MPI_Wait(&null, &st0);
    int count0 = -1;
    MPI_Get_count(&st0, MPI_INT, &count0);
    HC_T_CHECK(st0.MPI_SOURCE == MPI_ANY_SOURCE && st0.MPI_TAG == MPI_ANY_TAG && count0 == 0,
               "wait on MPI_REQUEST_NULL: source %d tag %d count %d", st0.MPI_SOURCE,
               st0.MPI_TAG, count0);
}

/* MPI_Probe then a receive of exactly the probed size. */
static void probe(void)
{
    int n = hc_t_size, r = hc_t_rank, next = (r + 1) % n, prev = (r + n - 1) % n;
    int len = 10 + r, plen = 10 + prev;
    long *out = malloc(sizeof(long) * (size_t)len);
    for (int i = 0; i < len; i++)
        out[i] = r * 7 + i;
    MPI_Request req;
    MPI_Isend(out, len, MPI_LONG, next, 77, MPI_COMM_WORLD, &req);
    MPI_Status st;
    MPI_Probe(MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &st);
    int count = -1;
    MPI_Get_count(&st, MPI_LONG, &count);
    HC_T_CHECK(st.MPI_SOURCE == prev && count == plen, "probe: source %d count %d",
               st.MPI_SOURCE, count);
    long *in = malloc(sizeof(long) * (size_t)(count > 0 ? count : 1));
    MPI_Recv(in, count, MPI_LONG, st.MPI_SOURCE, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    HC_T_CHECK(count > 0 && in[count - 1] == prev * 7 + count - 1, "probed message");
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    free(in);
    free(out);
}

/* Large-count forms (MPI 4) or their int forms. */
static void large_count(void)
{
#if HC_T_MPI4
    int n = hc_t_size, r = hc_t_rank, next = (r + 1) % n, prev = (r + n - 1) % n;
    MPI_Count count = 3000;
    char *out = malloc((size_t)count), *in = calloc((size_t)count, 1), *ref = malloc((size_t)count);
    hc_t_fill(out, (size_t)count, (uint64_t)r);
    hc_t_fill(ref, (size_t)count, (uint64_t)prev);
    MPI_Request req;
    MPI_Irecv_c(in, count, MPI_BYTE, prev, 8, MPI_COMM_WORLD, &req);
    MPI_Send_c(out, count, MPI_BYTE, next, 8, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    HC_T_CHECK(hc_t_first_diff(in, ref, (size_t)count) < 0, "MPI_Send_c");
    memset(in, 0, (size_t)count);
    MPI_Status st;
    MPI_Sendrecv_c(out, count, MPI_BYTE, next, 9, in, count, MPI_BYTE, prev, 9, MPI_COMM_WORLD,
                   &st);
    MPI_Count got = -1;
    MPI_Get_count_c(&st, MPI_BYTE, &got);
    HC_T_CHECK(got == count && hc_t_first_diff(in, ref, (size_t)count) < 0, "MPI_Sendrecv_c");
    memset(in, 0, (size_t)count);
    MPI_Isend(out, (int)count, MPI_BYTE, next, 10, MPI_COMM_WORLD, &req);
    MPI_Recv_c(in, count, MPI_BYTE, prev, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    HC_T_CHECK(hc_t_first_diff(in, ref, (size_t)count) < 0, "MPI_Recv_c");
    free(out);
    free(in);
    free(ref);
#endif
}

/* Rank 0 arrives 0.2 s late at an MPI_Ssend's receive and at a barrier: neither may return
 * early on its partners (half the delay is margin for ranks that leave the barrier before it
 * a scheduler's slice apart). */
static void waits_for_partner(void)
{
    const double late = 0.2;
    int r = hc_t_rank, token = 5;
    if (hc_t_size == 1)
        return;
    MPI_Barrier(MPI_COMM_WORLD);
    if (r == 1) {
        double t0 = MPI_Wtime();
        MPI_Ssend(&token, 1, MPI_INT, 0, 11, MPI_COMM_WORLD);
        double took = MPI_Wtime() - t0;
        HC_T_CHECK(took > 0.5 * late, "MPI_Ssend returned after %.3f s, before its receive",
                   took);
    } else if (r == 0) {
        usleep((useconds_t)(late * 1e6));
        MPI_Recv(&token, 1, MPI_INT, 1, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (r == 0)
        usleep((useconds_t)(late * 1e6));
    double t0 = MPI_Wtime();
    MPI_Barrier(MPI_COMM_WORLD);
    double took = MPI_Wtime() - t0;
    if (r != 0)
        HC_T_CHECK(took > 0.5 * late, "MPI_Barrier returned after %.3f s, before rank 0 came",
                   took);
}

static double cpu_seconds(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

/* Whether the preload makes this run's waits yield: HIERCOLL_P2P_YIELD=on, or auto under
 * MPICH with more ranks than cores on this one node (Open MPI yields by itself there). */
static int waits_yield(void)
{
    const char *v = getenv("HIERCOLL_P2P_YIELD");
    if (!hc_t_preloaded() || (v && strcmp(v, "off") == 0))
        return 0;
    if (v && strcmp(v, "on") == 0)
        return 1;
#ifdef OPEN_MPI
    return 0;
#else
    return hc_t_size > sysconf(_SC_NPROCESSORS_ONLN);
#endif
}

/* Where the waits yield, rank 1's 0.3 s in MPI_Recv is mostly given away: the vendors' own
 * waits poll (or yield and come straight back, with nothing else to run) through it. */
static void yields_the_core(void)
{
    if (hc_t_size == 1 || !waits_yield())
        return;
    const double wait = 0.3;
    int token = 1;
    MPI_Barrier(MPI_COMM_WORLD);
    if (hc_t_rank == 0) {
        usleep((useconds_t)(wait * 1e6));
        MPI_Send(&token, 1, MPI_INT, 1, 12, MPI_COMM_WORLD);
    } else if (hc_t_rank == 1) {
        double w0 = MPI_Wtime(), c0 = cpu_seconds();
        MPI_Recv(&token, 1, MPI_INT, 0, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double wall = MPI_Wtime() - w0, cpu = cpu_seconds() - c0;
        HC_T_CHECK(cpu < 0.5 * wall, "MPI_Recv waited %.3f s and used %.3f s of CPU", wall, cpu);
        printf("rank 1 waited %.3f s in MPI_Recv, %.3f s of it on the CPU\n", wall, cpu);
    }
}

int main(int argc, char **argv)
{
    hc_t_init(&argc, &argv);
    send_modes();
    sendrecv();
    waits();
    probe();
    large_count();
    waits_for_partner();
    yields_the_core();
    return hc_t_finish();
}
