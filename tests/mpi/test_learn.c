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

/* `calls` allreduces (SUM) of n doubles or int8s on comm in a row, in place or not, each
 * checked element by element; returns the wrong elements. */
static long sum_run(MPI_Comm comm, MPI_Datatype dt, long n, int calls, int in_place)
{
    int wide = dt == MPI_DOUBLE;
    size_t esz = wide ? sizeof(double) : 1;
    char *in = malloc(esz * (size_t)n), *out = malloc(esz * (size_t)n);
    double tri = (double)hc_t_size * (hc_t_size + 1) / 2;
    long bad = 0;
    for (int k = 0; k < calls; k++) {
        char *res = in_place ? in : out;
        for (long i = 0; i < n; i++) {
            if (wide)
                ((double *)in)[i] = (double)(hc_t_rank + 1) * (double)(i % 97 + k);
            else
                ((int8_t *)in)[i] = (int8_t)((hc_t_rank + 1) * ((i + k) % 3));
        }
        hc_t_allreduce_c(in_place ? MPI_IN_PLACE : in, res, n, dt, MPI_SUM, comm);
        for (long i = 0; i < n; i++)
            bad += wide ? ((double *)res)[i] != tri * (double)(i % 97 + k)
                        : ((int8_t *)res)[i] != (int8_t)((long)tri * ((i + k) % 3));
    }
    free(in), free(out);
    return bad;
}

/* The registry's name of the algorithm comm's last allreduce ran ("" without the library). */
static void last_allreduce(MPI_Comm comm, char *v, int len)
{
    MPI_Info info;
    int flag = 0;
    v[0] = 0;
    MPI_Comm_get_info(comm, &info);
    MPI_Info_get(info, "hiercoll_allreduce_last", len - 1, v, &flag);
    MPI_Info_free(&info);
}

/* More than one node: real hosts, or virtual nodes smaller than the job. */
static int several_nodes(void)
{
    MPI_Comm node;
    int node_size;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &node_size);
    MPI_Comm_free(&node);
    const char *v = getenv("HIERCOLL_VIRTUAL_NODE_SIZE");
    int virtual_size = v ? atoi(v) : 0;
    return node_size < hc_t_size || (virtual_size > 0 && virtual_size < hc_t_size);
}

/* A loop's calls repeat one signature long enough for its key to settle and go quiet, where
 * the selector reuses the last call's plan (allreduce_select.c). A call that differs in its
 * count, op or type must get its own plan, and the loop's next call the loop's again: on a
 * communicator asking for the leaders' exchange (on several nodes, up to 16 KiB a vector),
 * 13 doubles and 3000 int8s run it, 9000 or 3000 doubles cannot, and the one before them
 * must not lend them its plan. */
static void allreduce_repeats(void)
{
    long bad = 0;
    for (int round = 0; round < 2; round++) {
        bad += sum_run(MPI_COMM_WORLD, MPI_DOUBLE, 13, 400, round);
        bad += sum_run(MPI_COMM_WORLD, MPI_DOUBLE, 9000, 40, round);
        bad += sum_run(MPI_COMM_WORLD, MPI_DOUBLE, 13, 200, !round);
    }
    HC_T_CHECK(bad == 0, "runs of one signature, then another: %ld wrong", bad);
    MPI_Comm leaders = hc_t_algo_dup(MPI_COMM_WORLD, "", "leaders");
    int leaders_can_run = hc_t_preloaded() && several_nodes();
    char ran[64];
    struct {
        MPI_Datatype dt;
        long n;
        int fits; /* the leaders' exchange can take it */
    } runs[] = {{MPI_DOUBLE, 13, 1}, {MPI_DOUBLE, 9000, 0}, {MPI_DOUBLE, 13, 1},
                {MPI_INT8_T, 3000, 1}, {MPI_DOUBLE, 3000, 0}, {MPI_INT8_T, 3000, 1}};
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        long wrong = sum_run(leaders, runs[r].dt, runs[r].n, 30, (int)r % 2);
        last_allreduce(leaders, ran, sizeof ran);
        HC_T_CHECK(wrong == 0, "asking for the leaders, %ld %s: %ld wrong", runs[r].n,
                   runs[r].dt == MPI_DOUBLE ? "doubles" : "int8s", wrong);
        HC_T_CHECK(runs[r].fits || strcmp(ran, "leaders") != 0,
                   "%ld %s ran the leaders' exchange, which cannot take them", runs[r].n,
                   runs[r].dt == MPI_DOUBLE ? "doubles" : "int8s");
        HC_T_CHECK(!runs[r].fits || !leaders_can_run || strcmp(ran, "leaders") == 0,
                   "%ld %s ran '%s', not the leaders' exchange asked for", runs[r].n,
                   runs[r].dt == MPI_DOUBLE ? "doubles" : "int8s", ran);
    }
    MPI_Comm_free(&leaders);
    int a[13], m[13];
    unsigned char ua[13], um[13];
    long wrong = 0, wrong_uchar = 0;
    for (int k = 0; k < 300; k++) {
        for (int i = 0; i < 13; i++) {
            a[i] = (hc_t_rank * 31 + i + k) % 50 - 25;
            ua[i] = (unsigned char)(100 + (hc_t_rank * 50 + i + k) % 150);
        }
        hc_t_allreduce_c(a, m, 13, MPI_INT, k < 150 ? MPI_MAX : MPI_MIN, MPI_COMM_WORLD);
        if (k >= 150)
            hc_t_allreduce_c(ua, um, 13, MPI_UNSIGNED_CHAR, MPI_MIN, MPI_COMM_WORLD);
        for (int i = 0; i < 13; i++) {
            int want = k < 150 ? -26 : 26;
            unsigned char uwant = 255;
            for (int r = 0; r < hc_t_size; r++) {
                int v = (r * 31 + i + k) % 50 - 25;
                want = k < 150 ? (v > want ? v : want) : (v < want ? v : want);
                unsigned char u = (unsigned char)(100 + (r * 50 + i + k) % 150);
                uwant = u < uwant ? u : uwant;
            }
            wrong += m[i] != want;
            wrong_uchar += k >= 150 && um[i] != uwant;
        }
    }
#ifndef OPEN_MPI
    if (!hc_t_preloaded()) /* MPICH 4.0.2's own MIN of unsigned char is wrong */
        wrong_uchar = 0;
#endif
    HC_T_CHECK(wrong == 0, "MAX, then MIN of ints: %ld wrong", wrong);
    HC_T_CHECK(wrong_uchar == 0, "MIN of unsigned chars beside the ints': %ld wrong", wrong_uchar);
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
    allreduce_repeats();
    check_last_named();
    return hc_t_finish();
}
