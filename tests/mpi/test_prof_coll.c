/* Profiler, collectives: every collective of the logical model on MPI_COMM_WORLD, on a
 * reversed communicator and on the even/odd halves, plus neighbourhood collectives on a
 * periodic Cartesian ring and a distributed graph; an intercommunicator bcast counts nothing.
 * Every entry of the collective matrix is checked against the model (docs/formats-profile.md).
 * Run by tests/e2e/prof_matrix.sh with a fresh HIERCOLL_PROFILE directory.
 */
#include "test_prof.h"

/* Sizes, in elements, as functions of the communicator rank k and size p. */
#define BCAST_N(p) (10 + (p))
#define GATHERV_N(k) ((k) + 1)
#define SCATTERV_N(j) ((j) + 2)
#define A2AV_N(k, j) (((k) + (j)) % 3)
#define RS_N(j) ((j) + 1)

/* Rank 0 writes down what one communicator (world ranks w[0..p-1]) sends under the model. */
static void expect_comm(const int *w, int p)
{
    tp_model_bcast(w, p, p - 1, BCAST_N(p) * 4);
    tp_model_reduce(w, p, 0, 7 * 8);
    tp_model_reduce(w, p, 0, 3 * 4); /* MPI_Reduce_c */
    tp_model_allreduce(w, p, 13, 4);
    tp_model_reduce(w, p, 1 % p, 2 * 4); /* gather: the same shape as reduce */
    for (int k = 0; k < p; k++)
        tp_coll(w, k, 0, GATHERV_N(k) * 4); /* gatherv to root 0 */
    tp_model_bcast(w, p, 0, 5);              /* scatter of 5 bytes from root 0 */
    for (int j = 0; j < p; j++)
        tp_coll(w, 0, j, SCATTERV_N(j) * 2); /* scatterv of shorts */
    tp_model_alltoall(w, p, 3 * 4);          /* allgather */
    tp_model_alltoall(w, p, 2 * 4);          /* allgather in place */
    for (int i = 0; i < p; i++)
        for (int j = 0; j < p; j++) {
            tp_coll(w, i, j, GATHERV_N(i) * 8);        /* allgatherv */
            tp_coll(w, i, j, A2AV_N(i, j) * 4);        /* alltoallv */
            tp_coll(w, i, j, j % 2 ? 8 : 4);           /* alltoallw */
            tp_coll(w, i, j, RS_N(j) * 4);             /* reduce_scatter */
        }
    tp_model_alltoall(w, p, 2 * 4); /* alltoall */
    tp_model_alltoall(w, p, 2 * 4); /* reduce_scatter_block */
    for (int k = 0; k + 1 < p; k++) {
        tp_coll(w, k, k + 1, 4 * 4); /* scan */
        tp_coll(w, k, k + 1, 4 * 4); /* exscan */
    }
    /* nonblocking forms */
    tp_model_bcast(w, p, 0, 6 * 8);
    tp_model_allreduce(w, p, 9, 8);
    tp_model_reduce(w, p, p - 1, 5 * 4);
    tp_model_reduce(w, p, 0, 3);     /* igather of 3 bytes */
    tp_model_bcast(w, p, p - 1, 2 * 4); /* iscatter */
    tp_model_alltoall(w, p, 1 * 8);  /* iallgather */
    tp_model_alltoall(w, p, 3 * 4);  /* ialltoall */
}

static void exercise(MPI_Comm comm)
{
    int k, p;
    MPI_Comm_rank(comm, &k);
    MPI_Comm_size(comm, &p);
    int *ib = calloc(4096, sizeof(int)), *ob = calloc(4096, sizeof(int));
    double *db = calloc(4096, sizeof(double)), *eb = calloc(4096, sizeof(double));
    int *sc = malloc(sizeof(int) * (size_t)p), *rc = malloc(sizeof(int) * (size_t)p);
    int *sd = malloc(sizeof(int) * (size_t)p), *rd = malloc(sizeof(int) * (size_t)p);
    MPI_Datatype *st = malloc(sizeof(MPI_Datatype) * (size_t)p);
    MPI_Datatype *rt = malloc(sizeof(MPI_Datatype) * (size_t)p);

    for (int i = 0; i < BCAST_N(p); i++)
        ib[i] = k == p - 1 ? i * 3 : -1;
    MPI_Bcast(ib, BCAST_N(p), MPI_INT, p - 1, comm);
    HC_T_CHECK(ib[BCAST_N(p) - 1] == (BCAST_N(p) - 1) * 3, "bcast");
    MPI_Reduce(db, eb, 7, MPI_DOUBLE, MPI_SUM, 0, comm);
    hc_t_reduce_c(ib, ob, 3, MPI_INT, MPI_SUM, 0, comm);
    MPI_Allreduce(ib, ob, 13, MPI_INT, MPI_MAX, comm);
    MPI_Gather(ib, 2, MPI_INT, ob, 2, MPI_INT, 1 % p, comm);
    for (int j = 0; j < p; j++) {
        rc[j] = GATHERV_N(j);
        rd[j] = j * 64;
    }
    MPI_Gatherv(ib, GATHERV_N(k), MPI_INT, ob, rc, rd, MPI_INT, 0, comm);
    MPI_Scatter(ib, 5, MPI_BYTE, ob, 5, MPI_BYTE, 0, comm);
    for (int j = 0; j < p; j++) {
        sc[j] = SCATTERV_N(j);
        sd[j] = j * 64;
    }
    MPI_Scatterv(ib, sc, sd, MPI_SHORT, ob, SCATTERV_N(k), MPI_SHORT, 0, comm);
    MPI_Allgather(ib, 3, MPI_INT, ob, 3, MPI_INT, comm);
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ob, 2, MPI_INT, comm);
    for (int j = 0; j < p; j++) {
        rc[j] = GATHERV_N(j);
        rd[j] = j * 64;
    }
    MPI_Allgatherv(db, GATHERV_N(k), MPI_DOUBLE, eb, rc, rd, MPI_DOUBLE, comm);
    for (int j = 0; j < p; j++) {
        sc[j] = A2AV_N(k, j);
        rc[j] = A2AV_N(j, k);
        sd[j] = rd[j] = j * 8;
    }
    MPI_Alltoallv(ib, sc, sd, MPI_INT, ob, rc, rd, MPI_INT, comm);
    for (int j = 0; j < p; j++) {
        sc[j] = rc[j] = 1;
        st[j] = j % 2 ? MPI_DOUBLE : MPI_INT; /* what j receives, from everyone */
        rt[j] = k % 2 ? MPI_DOUBLE : MPI_INT;
        sd[j] = rd[j] = j * 16;
    }
    MPI_Alltoallw(db, sc, sd, st, eb, rc, rd, rt, comm);
    for (int j = 0; j < p; j++)
        rc[j] = RS_N(j);
    MPI_Reduce_scatter(ib, ob, rc, MPI_INT, MPI_SUM, comm);
    MPI_Alltoall(ib, 2, MPI_INT, ob, 2, MPI_INT, comm);
    MPI_Reduce_scatter_block(ib, ob, 2, MPI_INT, MPI_SUM, comm);
    for (int i = 0; i < 4; i++)
        ib[i] = k + i;
    MPI_Scan(ib, ob, 4, MPI_INT, MPI_SUM, comm);
    HC_T_CHECK(ob[0] == k * (k + 1) / 2, "scan gave %d", ob[0]);
    MPI_Exscan(ib, ob, 4, MPI_INT, MPI_SUM, comm);
    MPI_Barrier(comm);

    MPI_Request rq[8];
    MPI_Status rs[8];
    MPI_Ibcast(db, 6, MPI_DOUBLE, 0, comm, &rq[0]);
    MPI_Iallreduce(db + 100, eb + 100, 9, MPI_DOUBLE, MPI_SUM, comm, &rq[1]);
    MPI_Ireduce(ib + 100, ob + 100, 5, MPI_INT, MPI_SUM, p - 1, comm, &rq[2]);
    MPI_Igather(ib + 200, 3, MPI_BYTE, ob + 200, 3, MPI_BYTE, 0, comm, &rq[3]);
    MPI_Iscatter(ib + 300, 2, MPI_INT, ob + 300, 2, MPI_INT, p - 1, comm, &rq[4]);
    MPI_Iallgather(db + 200, 1, MPI_DOUBLE, eb + 200, 1, MPI_DOUBLE, comm, &rq[5]);
    MPI_Ialltoall(ib + 400, 3, MPI_INT, ob + 400, 3, MPI_INT, comm, &rq[6]);
    MPI_Ibarrier(comm, &rq[7]);
    MPI_Waitall(8, rq, rs);
    free(ib), free(ob), free(db), free(eb), free(sc), free(rc), free(sd), free(rd), free(st),
        free(rt);
}

/* Neighbourhood collectives: a periodic ring (Cartesian) and r -> r+2 (distributed graph). */
static void neighbours(void)
{
    int n = hc_t_size, r = hc_t_rank, dims[1] = {n}, periods[1] = {1};
    int sbuf[64] = {0}, rbuf[64], sc[2] = {1, 2}, sd[2] = {0, 8}, rc[2] = {2, 1}, rd[2] = {0, 8};
    MPI_Comm ring, dg;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    MPI_Neighbor_alltoall(sbuf, 3, MPI_INT, rbuf, 3, MPI_INT, ring);
    MPI_Neighbor_alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, ring);
    int src = (r + n - 2) % n, dst = (r + 2) % n;
    /* Open MPI's MPI_UNWEIGHTED is a sentinel address that GCC's access checks take for an
     * empty array. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overread"
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &src, MPI_UNWEIGHTED, 1, &dst,
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg);
#pragma GCC diagnostic pop
    MPI_Neighbor_allgather(sbuf, 5, MPI_BYTE, rbuf, 5, MPI_BYTE, dg);
    MPI_Comm_free(&ring);
    MPI_Comm_free(&dg);
    for (int s = 0; s < n; s++) {
        int left = (s + n - 1) % n, right = (s + 1) % n;
        if (left != s)
            tp_expect(s, left, TP_COLL, 12 + 4, 2);   /* alltoall 3 ints, alltoallv 1 int */
        if (right != s)
            tp_expect(s, right, TP_COLL, 12 + 8, 2);  /* alltoall 3 ints, alltoallv 2 ints */
        if ((s + 2) % n != s)
            tp_expect(s, (s + 2) % n, TP_COLL, 5, 1);
    }
}

int main(int argc, char **argv)
{
    tp_init(&argc, &argv, -1);
    int n = hc_t_size;
    int *w = calloc((size_t)n + 1, sizeof(int));

    for (int i = 0; i < n; i++)
        w[i] = i;
    expect_comm(w, n);
    exercise(MPI_COMM_WORLD);

    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, n - hc_t_rank, &rev);
    for (int i = 0; i < n; i++)
        w[i] = n - 1 - i;
    expect_comm(w, n);
    exercise(rev);
    MPI_Comm_free(&rev);

    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, hc_t_rank % 2, hc_t_rank, &half);
    for (int c = 0; c < 2 && c < n; c++) {
        int p = 0;
        for (int i = c; i < n; i += 2)
            w[p++] = i;
        expect_comm(w, p);
    }
    exercise(half);
    MPI_Comm_free(&half);

    neighbours();

    /* An intercommunicator between the halves: timed, no matrix entries. */
    if (n >= 2) {
        MPI_Comm part, inter;
        int color = hc_t_rank < n / 2;
        MPI_Comm_split(MPI_COMM_WORLD, color, hc_t_rank, &part);
        MPI_Intercomm_create(part, 0, MPI_COMM_WORLD, color ? n / 2 : 0, 9, &inter);
        int prank, v = 0;
        MPI_Comm_rank(part, &prank);
        if (color)
            v = 77, MPI_Bcast(&v, 1, MPI_INT, prank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
        else
            MPI_Bcast(&v, 1, MPI_INT, 0, inter);
        HC_T_CHECK(color || v == 77, "intercommunicator bcast gave %d", v);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&part);
    }
    free(w);
    return tp_finish();
}
