/* Profiler, point-to-point: a ring, an uneven 2-D stencil (MPI_PROC_NULL at the borders),
 * master-worker with buffered sends, persistent requests, sendrecv_replace, large-count and
 * zero-byte sends, and sends across an intercommunicator. Every matrix entry is checked against the pattern's formula.
 * Run by tests/e2e/prof_matrix.sh with a fresh HIERCOLL_PROFILE directory.
 */
#include "test_prof.h"

#define ROUNDS 3

/* Ring: r -> r+1, (100 + 3r) doubles, ROUNDS times, Isend + Recv. */
static void ring(void)
{
    int n = hc_t_size, r = hc_t_rank, next = (r + 1) % n, prev = (r + n - 1) % n;
    int count = 100 + 3 * r, pcount = 100 + 3 * prev;
    double *out = calloc((size_t)count, sizeof(double)), *in = calloc((size_t)pcount, sizeof(double));
    for (int k = 0; k < ROUNDS; k++) {
        MPI_Request req;
        for (int i = 0; i < count; i++)
            out[i] = r * 1000 + k + i;
        MPI_Isend(out, count, MPI_DOUBLE, next, 1, MPI_COMM_WORLD, &req);
        MPI_Recv(in, pcount, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        HC_T_CHECK(in[pcount - 1] == prev * 1000 + k + pcount - 1, "ring data");
    }
    for (int s = 0; s < n; s++)
        tp_expect(s, (s + 1) % n, TP_P2P, (unsigned long long)ROUNDS * (100 + 3 * s) * 8, ROUNDS);
    free(out);
    free(in);
}

/* 2-D stencil on a px x py grid, not periodic: x-neighbours get 40 + r ints (Issend),
 * y-neighbours 7 * (r + 1) bytes (Sendrecv, MPI_PROC_NULL at the border counts nothing). */
static void stencil_sizes(int r, int *xbytes, int *ybytes)
{
    *xbytes = (40 + r) * (int)sizeof(int);
    *ybytes = 7 * (r + 1);
}

static void stencil(void)
{
    int n = hc_t_size, dims[2] = {0, 0};
    MPI_Dims_create(n, 2, dims);
    int px = dims[0], py = dims[1], r = hc_t_rank, x = r % px, y = r / px;
    int xb, yb;
    stencil_sizes(r, &xb, &yb);
    char *sbuf = calloc((size_t)(xb + yb), 1), *rbuf = calloc(4096, 1);
    /* x: left and right with Issend/Irecv */
    int xn[2] = {x > 0 ? r - 1 : -1, x < px - 1 ? r + 1 : -1};
    MPI_Request reqs[4];
    int nr = 0;
    for (int k = 0; k < 2; k++)
        if (xn[k] >= 0) {
            int pxb, pyb;
            stencil_sizes(xn[k], &pxb, &pyb);
            MPI_Irecv(rbuf + 2048 * k, pxb / (int)sizeof(int), MPI_INT, xn[k], 2, MPI_COMM_WORLD,
                      &reqs[nr++]);
            MPI_Issend(sbuf, xb / (int)sizeof(int), MPI_INT, xn[k], 2, MPI_COMM_WORLD, &reqs[nr++]);
        }
    MPI_Status sts[4];
    MPI_Waitall(nr, reqs, sts);
    /* y: down then up with Sendrecv; MPI_PROC_NULL beyond the border */
    int down = y > 0 ? r - px : MPI_PROC_NULL, up = y < py - 1 ? r + px : MPI_PROC_NULL;
    int ub = 0, db = 0, dummy;
    if (up != MPI_PROC_NULL)
        stencil_sizes(up, &dummy, &ub);
    if (down != MPI_PROC_NULL)
        stencil_sizes(down, &dummy, &db);
    MPI_Sendrecv(sbuf, yb, MPI_BYTE, down, 3, rbuf, ub, MPI_BYTE, up, 3, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(sbuf, yb, MPI_BYTE, up, 4, rbuf, db, MPI_BYTE, down, 4, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    for (int s = 0; s < n; s++) {
        int sx = s % px, sy = s / px, sxb, syb;
        stencil_sizes(s, &sxb, &syb);
        if (sx > 0)
            tp_expect(s, s - 1, TP_P2P, (unsigned)sxb, 1);
        if (sx < px - 1)
            tp_expect(s, s + 1, TP_P2P, (unsigned)sxb, 1);
        if (sy > 0)
            tp_expect(s, s - px, TP_P2P, (unsigned)syb, 1);
        if (sy < py - 1)
            tp_expect(s, s + px, TP_P2P, (unsigned)syb, 1);
    }
    free(sbuf);
    free(rbuf);
}

/* Master-worker: rank 0 sends worker w a task of 16 * w bytes (MPI_Send), workers answer with
 * 8 * w + 1 bytes (MPI_Bsend). */
static void master_worker(void)
{
    int n = hc_t_size;
    char buf[4096];
    if (hc_t_rank == 0) {
        for (int w = 1; w < n; w++)
            MPI_Send(buf, 16 * w, MPI_BYTE, w, 5, MPI_COMM_WORLD);
        for (int w = 1; w < n; w++) {
            MPI_Status st;
            int got;
            MPI_Recv(buf, sizeof buf, MPI_BYTE, MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_BYTE, &got);
            HC_T_CHECK(got == 8 * st.MPI_SOURCE + 1, "answer of %d bytes", got);
        }
    } else {
        int size = 8 * hc_t_rank + 1 + MPI_BSEND_OVERHEAD;
        void *attach = malloc((size_t)size), *old;
        MPI_Buffer_attach(attach, size);
        MPI_Recv(buf, sizeof buf, MPI_BYTE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Bsend(buf, 8 * hc_t_rank + 1, MPI_BYTE, 0, 6, MPI_COMM_WORLD);
        MPI_Buffer_detach(&old, &size);
        free(attach);
    }
    for (int w = 1; w < n; w++) {
        tp_expect(0, w, TP_P2P, 16u * (unsigned)w, 1);
        tp_expect(w, 0, TP_P2P, 8u * (unsigned)w + 1, 1);
    }
}

/* Persistent: r -> r+2 of 64 + r bytes, started 4 times with MPI_Start and twice with
 * MPI_Startall; the receives are persistent too (not counted). */
static void persistent(void)
{
    int n = hc_t_size, r = hc_t_rank, to = (r + 2) % n, from = (r + n - 2) % n;
    char out[256] = {0}, in[256];
    MPI_Request reqs[2];
    MPI_Status sts[2];
    MPI_Send_init(out, 64 + r, MPI_BYTE, to, 7, MPI_COMM_WORLD, &reqs[0]);
    MPI_Recv_init(in, 64 + from, MPI_BYTE, from, 7, MPI_COMM_WORLD, &reqs[1]);
    for (int k = 0; k < 4; k++) {
        MPI_Start(&reqs[1]);
        MPI_Start(&reqs[0]);
        MPI_Waitall(2, reqs, sts);
    }
    for (int k = 0; k < 2; k++) {
        MPI_Startall(2, reqs);
        MPI_Waitall(2, reqs, sts);
    }
    MPI_Request_free(&reqs[0]);
    MPI_Request_free(&reqs[1]);
    for (int s = 0; s < n; s++)
        tp_expect(s, (s + 2) % n, TP_P2P, 6u * (64u + (unsigned)s), 6);
}

/* Sendrecv_replace r -> r-1 of 3 doubles; MPI_Send_c of 5 bytes r -> r+1; zero-byte Ssend
 * r -> r+1 (a message, no bytes). */
static void misc(void)
{
    int n = hc_t_size, r = hc_t_rank, next = (r + 1) % n, prev = (r + n - 1) % n;
    double v[3] = {r, r, r};
    MPI_Sendrecv_replace(v, 3, MPI_DOUBLE, prev, 8, next, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    HC_T_CHECK(v[2] == next, "sendrecv_replace gave %f", v[2]);
    char c5[5] = {0}, in5[5];
    MPI_Request req;
    hc_t_irecv_c(in5, 5, MPI_BYTE, prev, 9, MPI_COMM_WORLD, &req);
    hc_t_send_c(c5, 5, MPI_BYTE, next, 9, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Irecv(in5, 0, MPI_BYTE, prev, 10, MPI_COMM_WORLD, &req);
    MPI_Ssend(c5, 0, MPI_BYTE, next, 10, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Send(c5, 5, MPI_BYTE, MPI_PROC_NULL, 11, MPI_COMM_WORLD); /* counts nothing */
    for (int s = 0; s < n; s++) {
        tp_expect(s, (s + n - 1) % n, TP_P2P, 24, 1);
        tp_expect(s, (s + 1) % n, TP_P2P, 5, 2);
    }
}

/* Across an intercommunicator between the lower and upper halves: remote ranks name the other
 * group. Local rank k of each half exchanges 33 bytes with remote rank k. */
static void intercomm(void)
{
    int n = hc_t_size, half = n / 2, low = hc_t_rank < half;
    MPI_Comm part, inter;
    MPI_Comm_split(MPI_COMM_WORLD, low, hc_t_rank, &part);
    MPI_Intercomm_create(part, 0, MPI_COMM_WORLD, low ? half : 0, 12, &inter);
    int k;
    MPI_Comm_rank(part, &k);
    char out[33] = {0}, in[33];
    if (k < half)
        MPI_Sendrecv(out, 33, MPI_BYTE, k, 13, in, 33, MPI_BYTE, k, 13, inter, MPI_STATUS_IGNORE);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&part);
    for (int q = 0; q < half; q++) {
        tp_expect(q, half + q, TP_P2P, 33, 1);
        tp_expect(half + q, q, TP_P2P, 33, 1);
    }
}

int main(int argc, char **argv)
{
    tp_init(&argc, &argv, -1);
    ring();
    stencil();
    if (hc_t_size > 1) {
        master_worker();
        intercomm();
    }
    persistent();
    misc();
    return tp_finish();
}
