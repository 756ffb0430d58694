/* Helpers for MPI test programs: checks counted per rank, agreed at the end, and a
 * reference communicator that always takes the vendor's path.
 *
 *   hc_t_init(&argc, &argv);
 *   HC_T_CHECK(x == y, "x=%d y=%d", x, y);
 *   return hc_t_finish();      // 0 if no rank failed a check, else 1
 */
#ifndef HC_MPITEST_H
#define HC_MPITEST_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hc_t_rank, hc_t_size;

/* MPI 4's large-count calls where the library has them; with MPI 3.1 (Open MPI 4.1) the int
 * forms, for counts that fit, so a test sends the same traffic in both families. */
#if MPI_VERSION >= 4
#define HC_T_MPI4 1
#define hc_t_bcast_c MPI_Bcast_c
#define hc_t_allreduce_c MPI_Allreduce_c
#define hc_t_reduce_c MPI_Reduce_c
#define hc_t_send_c MPI_Send_c
#define hc_t_irecv_c MPI_Irecv_c
#define hc_t_put_c MPI_Put_c
#else
#define HC_T_MPI4 0
#define hc_t_bcast_c(buf, n, dt, root, comm) MPI_Bcast(buf, (int)(n), dt, root, comm)
#define hc_t_allreduce_c(sb, rb, n, dt, op, comm) MPI_Allreduce(sb, rb, (int)(n), dt, op, comm)
#define hc_t_reduce_c(sb, rb, n, dt, op, root, comm)                              \
    MPI_Reduce(sb, rb, (int)(n), dt, op, root, comm)
#define hc_t_send_c(buf, n, dt, dst, tag, comm) MPI_Send(buf, (int)(n), dt, dst, tag, comm)
#define hc_t_irecv_c(buf, n, dt, src, tag, comm, req)                             \
    MPI_Irecv(buf, (int)(n), dt, src, tag, comm, req)
#define hc_t_put_c(ob, on, ot, rank, disp, tn, tt, win)                           \
    MPI_Put(ob, (int)(on), ot, rank, disp, (int)(tn), tt, win)
#endif
static long hc_t_checks, hc_t_failures;

#define HC_T_CHECK(cond, ...)                                                    \
    do {                                                                         \
        hc_t_checks++;                                                           \
        if (!(cond)) {                                                           \
            if (hc_t_failures++ < 10) {                                          \
                fprintf(stderr, "[rank %d] %s:%d: check failed: %s: ", hc_t_rank, \
                        __FILE__, __LINE__, #cond);                              \
                fprintf(stderr, __VA_ARGS__);                                    \
                fputc('\n', stderr);                                             \
            }                                                                    \
        }                                                                        \
    } while (0)

static inline void hc_t_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &hc_t_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &hc_t_size);
}

static inline int hc_t_init_thread(int *argc, char ***argv, int required)
{
    int provided;
    MPI_Init_thread(argc, argv, required, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &hc_t_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &hc_t_size);
    return provided;
}

/* 1 when running under libhiercoll.so. */
static inline int hc_t_preloaded(void)
{
    const char *p = getenv("LD_PRELOAD");
    return p && strstr(p, "libhiercoll") != NULL;
}

/* A duplicate of comm whose collectives always take the vendor's path: the reference. */
static inline MPI_Comm hc_t_vendor_dup(MPI_Comm comm)
{
    MPI_Info info;
    MPI_Comm out;
    MPI_Info_create(&info);
    MPI_Info_set(info, "hiercoll_bcast", "vendor");
    MPI_Info_set(info, "hiercoll_allreduce", "vendor");
    MPI_Comm_dup_with_info(comm, info, &out);
    MPI_Info_free(&info);
    return out;
}

/* A duplicate of comm with the given algorithm choices ("" leaves one unset). */
static inline MPI_Comm hc_t_algo_dup(MPI_Comm comm, const char *bcast, const char *allreduce)
{
    MPI_Info info;
    MPI_Comm out;
    MPI_Comm_dup(comm, &out);
    MPI_Info_create(&info);
    if (bcast && *bcast)
        MPI_Info_set(info, "hiercoll_bcast", bcast);
    if (allreduce && *allreduce)
        MPI_Info_set(info, "hiercoll_allreduce", allreduce);
    MPI_Comm_set_info(out, info);
    MPI_Info_free(&info);
    return out;
}

/* Deterministic bytes that differ with seed and position. */
static inline void hc_t_fill(void *buf, size_t bytes, uint64_t seed)
{
    unsigned char *p = buf;
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < bytes; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        p[i] = (unsigned char)x;
    }
}

/* Index of the first differing byte, or -1. */
static inline long hc_t_first_diff(const void *a, const void *b, size_t bytes)
{
    const unsigned char *x = a, *y = b;
    for (size_t i = 0; i < bytes; i++)
        if (x[i] != y[i])
            return (long)i;
    return -1;
}

static inline int hc_t_finish(void)
{
    long failures = 0, checks = 0;
    MPI_Allreduce(&hc_t_failures, &failures, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&hc_t_checks, &checks, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (hc_t_rank == 0)
        printf("%ld checks on %d ranks, %ld failed\n", checks, hc_t_size, failures);
    MPI_Finalize();
    return failures ? 1 : 0;
}

#endif
