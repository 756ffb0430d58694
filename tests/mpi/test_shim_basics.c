/* The shim under every kind of communicator: results equal the vendor's everywhere.
 * hc-test: np=1,2,3,4 preload=both timeout=120
 * hc-test: np=4 preload=yes env=HIERCOLL_VIRTUAL_NODE_SIZE=2
 * hc-test: np=8 preload=yes timeout=240 env=HIERCOLL_VIRTUAL_NODE_SIZE=3
 */
#include "hc_mpitest.h"

static void check_bcast(MPI_Comm comm, MPI_Comm ref, int count, int root, uint64_t seed,
                        const char *what)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    size_t bytes = (size_t)count * sizeof(int);
    int *got = malloc(bytes + 1), *want = malloc(bytes + 1);
    hc_t_fill(got, bytes, rank == root ? seed : seed + 1000 + (uint64_t)rank);
    hc_t_fill(want, bytes, rank == root ? seed : seed + 2000 + (uint64_t)rank);
    MPI_Bcast(got, count, MPI_INT, root, comm);
    MPI_Bcast(want, count, MPI_INT, root, ref);
    long d = hc_t_first_diff(got, want, bytes);
    HC_T_CHECK(d < 0, "%s: bcast of %d ints from root %d differs at byte %ld", what, count, root,
               d);
    free(got);
    free(want);
}

static void check_allreduce(MPI_Comm comm, MPI_Comm ref, int count, uint64_t seed,
                            const char *what)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    long *in = malloc(sizeof(long) * (size_t)(count + 1));
    long *got = malloc(sizeof(long) * (size_t)(count + 1));
    long *want = malloc(sizeof(long) * (size_t)(count + 1));
    for (int i = 0; i < count; i++)
        in[i] = (long)((seed + (uint64_t)i * 31 + (uint64_t)rank * 7) % 1000003);
    MPI_Allreduce(in, got, count, MPI_LONG, MPI_SUM, comm);
    MPI_Allreduce(in, want, count, MPI_LONG, MPI_SUM, ref);
    long d = hc_t_first_diff(got, want, sizeof(long) * (size_t)count);
    HC_T_CHECK(d < 0, "%s: allreduce of %d longs differs at byte %ld", what, count, d);
    free(in);
    free(got);
    free(want);
}

static void exercise(MPI_Comm comm, const char *what)
{
    int size;
    MPI_Comm_size(comm, &size);
    MPI_Comm ref = hc_t_vendor_dup(comm);
    static const int counts[] = {0, 1, 7, 1000, 70000};
    for (int k = 0; k < 5; k++) {
        for (int root = 0; root < size; root++)
            check_bcast(comm, ref, counts[k], root, (uint64_t)(k * 100 + root), what);
        check_allreduce(comm, ref, counts[k], (uint64_t)k, what);
    }
    MPI_Comm_free(&ref);
}

int main(int argc, char **argv)
{
    hc_t_init(&argc, &argv);
    exercise(MPI_COMM_WORLD, "world");
    exercise(MPI_COMM_SELF, "self");

    /* A sub-communicator in reversed order, and one of alternate ranks. */
    MPI_Comm rev, alt;
    MPI_Comm_split(MPI_COMM_WORLD, 0, hc_t_size - hc_t_rank, &rev);
    exercise(rev, "reversed");
    MPI_Comm_split(MPI_COMM_WORLD, hc_t_rank % 2, hc_t_rank, &alt);
    exercise(alt, "alternate");

    /* Two communicators used in interleaved calls. */
    MPI_Comm ref = hc_t_vendor_dup(MPI_COMM_WORLD);
    for (int i = 0; i < 20; i++) {
        check_bcast(MPI_COMM_WORLD, ref, 100 + i, i % hc_t_size, (uint64_t)i, "interleaved-w");
        check_bcast(rev, ref == MPI_COMM_NULL ? rev : rev, 0, 0, 0, "interleaved-r");
    }
    MPI_Comm_free(&ref);
    MPI_Comm_free(&rev);
    MPI_Comm_free(&alt);

    /* Create, use, free: contexts must be released with their communicators. */
    for (int i = 0; i < 50; i++) {
        MPI_Comm dup;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        int v = hc_t_rank == i % hc_t_size ? i : -1;
        MPI_Bcast(&v, 1, MPI_INT, i % hc_t_size, dup);
        HC_T_CHECK(v == i, "bcast on dup %d gave %d", i, v);
        MPI_Comm_free(&dup);
    }

    /* Large-count entry points. */
    {
        MPI_Count n = 5000;
        double *x = malloc(sizeof(double) * (size_t)n), *y = malloc(sizeof(double) * (size_t)n);
        for (MPI_Count i = 0; i < n; i++)
            x[i] = hc_t_rank == 0 ? (double)i : -1.0;
        hc_t_bcast_c(x, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        hc_t_allreduce_c(x, y, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        int bad = 0;
        for (MPI_Count i = 0; i < n; i++)
            bad += x[i] != (double)i || y[i] != (double)i * hc_t_size;
        HC_T_CHECK(bad == 0, "%d large-count elements wrong", bad);
        free(x);
        free(y);
    }

    /* An intercommunicator: always the vendor's path, with MPI_ROOT semantics. */
    if (hc_t_size >= 2) {
        MPI_Comm half, inter;
        int color = hc_t_rank < hc_t_size / 2;
        MPI_Comm_split(MPI_COMM_WORLD, color, hc_t_rank, &half);
        int remote_leader = color ? hc_t_size / 2 : 0;
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, remote_leader, 7, &inter);
        int hrank;
        MPI_Comm_rank(half, &hrank);
        int v = 0;
        if (color) {
            v = 4242;
            MPI_Bcast(&v, 1, MPI_INT, hrank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
        } else {
            MPI_Bcast(&v, 1, MPI_INT, 0, inter);
            HC_T_CHECK(v == 4242, "intercommunicator bcast gave %d", v);
        }
        long s = hc_t_rank, r = -1;
        MPI_Allreduce(&s, &r, 1, MPI_LONG, MPI_SUM, inter);
        long expect = 0; /* the sum of the other group's world ranks */
        for (int q = 0; q < hc_t_size; q++)
            if ((q < hc_t_size / 2) != color)
                expect += q;
        HC_T_CHECK(r == expect, "intercommunicator allreduce gave %ld, want %ld", r, expect);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }
    return hc_t_finish();
}
