/* Learning in the run (HIERCOLL_LEARN, on by default under `auto`): every key runs long enough
 * for a full round of trials, in which every eligible algorithm (the vendor's among them) moves
 * real data, and every call is checked element by element. Covers the cases where ranks must
 * not disagree: the root calling from one line and the readers from another, rotating roots,
 * readers with another datatype than the root's, several nodes (each node's root decides for
 * its node), partial rewrites between calls, and allreduces whose types the vendor gets wrong.
 *
 * hc-test: np=2,3 preload=both timeout=180
 * hc-test: np=4 preload=yes timeout=240 env=HIERCOLL_VIRTUAL_NODE_SIZE=2
 * hc-test: np=4 preload=yes timeout=240
 * hc-test: np=2 preload=yes timeout=120 env=HIERCOLL_LEARN=off
 */
#include "hc_mpitest.h"

/* Long enough for the warm-up and a round of trials of up to five candidates. */
#define CALLS 48

static double expect(long i, int k, int version)
{
    return (double)(i * 7 + k * 1000003L + version);
}

/* The root rewrites every 64th element, at an offset that moves with the call (a few
 * entries of a parameter array), or all of it every 4th call. */
static void root_update(double *b, long n, int k)
{
    long step = k % 4 == 3 ? 1 : 64;
    for (long i = k % 64 % step; i < n; i += step)
        b[i] = expect(i, k, 0);
}

static void fill_base(double *b, long n)
{
    for (long i = 0; i < n; i++)
        b[i] = expect(i, -1, 0);
}

/* The last call j <= k that wrote element i (-1: none), for the updates above. */
static int last_write(long i, int k)
{
    int full = k >= 3 ? k - (k - 3) % 4 : -1;                /* j = 3 mod 4: all of it */
    int mod = (int)(i % 64), every = k >= mod ? k - (k - mod) % 64 : -1; /* j = i mod 64 */
    return full > every ? full : every;
}

/* What every rank holds after call k: the updates of calls 0..k on the base. */
static long check_reader(const double *b, long n, int k)
{
    long bad = 0;
    for (long i = 0; i < n; i++)
        bad += b[i] != expect(i, last_write(i, k), 0);
    return bad;
}

/* The root and the readers call from two different lines. */
__attribute__((noinline)) static void bcast_as_root(double *b, long n, int root, MPI_Comm c)
{
    hc_t_bcast_c(b, n, MPI_DOUBLE, root, c);
}
__attribute__((noinline)) static void bcast_as_reader(double *b, long n, int root, MPI_Comm c)
{
    hc_t_bcast_c(b, n, MPI_DOUBLE, root, c);
}

/* Every rank ends each call with the message; the next root (the same one, or the next one
 * round) updates part of it and sends it again. */
static void bcast_sites_apart(long n, int rotate)
{
    double *b = malloc(sizeof(double) * (size_t)(n ? n : 1));
    fill_base(b, n);
    long bad = 0;
    for (int k = 0; k < CALLS; k++) {
        int root = rotate ? k % hc_t_size : hc_t_size - 1;
        if (hc_t_rank == root) {
            root_update(b, n, k);
            bcast_as_root(b, n, root, MPI_COMM_WORLD);
        } else {
            for (long i = 0; i < n; i += 512)
                b[i] = -1; /* a reader that got nothing is seen */
            bcast_as_reader(b, n, root, MPI_COMM_WORLD);
            bad += check_reader(b, n, k);
        }
    }
    HC_T_CHECK(bad == 0, "bcast of %ld doubles, %s root: %ld wrong elements", n,
               rotate ? "rotating" : "fixed", bad);
    free(b);
}

/* Readers receive the root's doubles through a vector type with gaps. */
static void bcast_typed(long n)
{
    int root = 0;
    double *b = calloc((size_t)(2 * n), sizeof(double));
    MPI_Datatype every_other;
    MPI_Type_vector((int)n, 1, 2, MPI_DOUBLE, &every_other);
    MPI_Type_commit(&every_other);
    long bad = 0;
    for (int k = 0; k < CALLS; k++) {
        if (hc_t_rank == root) {
            for (long i = 0; i < n; i++)
                b[i] = expect(i, k, 1);
            hc_t_bcast_c(b, n, MPI_DOUBLE, root, MPI_COMM_WORLD);
        } else {
            hc_t_bcast_c(b, 1, every_other, root, MPI_COMM_WORLD);
            for (long i = 0; i < n; i++)
                bad += b[2 * i] != expect(i, k, 1);
        }
    }
    HC_T_CHECK(bad == 0, "typed bcast of %ld doubles: %ld wrong", n, bad);
    MPI_Type_free(&every_other);
    free(b);
}

static void allreduce_learned(long n)
{
    double *in = malloc(sizeof(double) * (size_t)n), *out = malloc(sizeof(double) * (size_t)n);
    unsigned char *uin = malloc((size_t)n), *uout = malloc((size_t)n);
    long bad = 0, ubad = 0;
    for (int k = 0; k < CALLS; k++) {
        for (long i = 0; i < n; i++) {
            in[i] = (double)(hc_t_rank + 1) * (double)(i % 97 + k);
            uin[i] = (unsigned char)(100 + (hc_t_rank * 50 + i + k) % 150);
        }
        hc_t_allreduce_c(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        /* MIN of unsigned char: the vendor's MPICH gets it wrong, the learner must not
         * hand it there */
        hc_t_allreduce_c(uin, uout, n, MPI_UNSIGNED_CHAR, MPI_MIN, MPI_COMM_WORLD);
        double tri = (double)hc_t_size * (hc_t_size + 1) / 2;
        for (long i = 0; i < n; i++) {
            bad += out[i] != tri * (double)(i % 97 + k);
            unsigned char want = 255;
            for (int r = 0; r < hc_t_size; r++) {
                unsigned char v = (unsigned char)(100 + (r * 50 + i + k) % 150);
                want = v < want ? v : want;
            }
            ubad += uout[i] != want;
        }
    }
    HC_T_CHECK(bad == 0, "allreduce of %ld doubles: %ld wrong", n, bad);
#ifndef OPEN_MPI
    if (!hc_t_preloaded()) /* MPICH 4.0.2's own answer is the wrong one here */
        ubad = 0;
#endif
    HC_T_CHECK(ubad == 0, "MIN of %ld unsigned chars: %ld wrong", n, ubad);
    free(in), free(out), free(uin), free(uout);
}

/* After the calls, the communicator tells which algorithm ran last, by a registry name. */
static void check_last_named(void)
{
    if (!hc_t_preloaded())
        return;
    MPI_Info info;
    char v[64] = "";
    int flag = 0;
    MPI_Comm_get_info(MPI_COMM_WORLD, &info);
    MPI_Info_get(info, "hiercoll_allreduce_last", 63, v, &flag);
    HC_T_CHECK(flag && (strcmp(v, "shm") == 0 || strcmp(v, "shm-cma") == 0 ||
                        strcmp(v, "vendor") == 0 || strcmp(v, "leaders") == 0 ||
                        strcmp(v, "ring") == 0 || strcmp(v, "ring1d") == 0),
               "hiercoll_allreduce_last = '%s'", v);
    MPI_Info_free(&info);
}

int main(int argc, char **argv)
{
    hc_t_init(&argc, &argv);
    long sizes[] = {1, 13, 512, 8192, 70000, 300000};
    int nsizes = hc_t_size > 3 ? 5 : 6; /* oversubscribed: the vendor's calls are slow */
    for (int s = 0; s < nsizes; s++) {
        bcast_sites_apart(sizes[s], 0);
        bcast_sites_apart(sizes[s], 1);
    }
    bcast_typed(4096);
    bcast_typed(100000);
    for (int s = 0; s < nsizes - 1; s++)
        allreduce_learned(sizes[s]);
    check_last_named();
    return hc_t_finish();
}
