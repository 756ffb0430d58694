/* The MPI 3.1 side of collectives/mpi_compat.c (what Open MPI 4.1 runs), with the largest
 * count one call is given lowered from INT_MAX to 1000, so that small counts are cut into
 * pieces or wrapped in a datatype as counts beyond INT_MAX are: pack and unpack (a strided
 * type, at a non-zero starting position), pack size, reduce_local, the leaders' bcast,
 * allreduce (in place too) and allgather. Every result is compared with the vendor's call on
 * the whole buffer (byte for byte) or with the values it must hold. Runs with any MPI library.
 * hc-test: np=1,2,3 preload=no timeout=60
 */
#define HC_MPI4 0
#define HC_MPI_PIECE 1000
#include "../../collectives/mpi_compat.c"

#include "hc_mpitest.h"

enum { N = 2500 }; /* elements: two whole pieces of 1000 and a rest */

static void pack_round_trip(void)
{
    MPI_Datatype three, strided; /* 3 ints of every 5: packs to 12 of 20 bytes */
    MPI_Type_contiguous(3, MPI_INT, &three);
    MPI_Type_create_resized(three, 0, 5 * sizeof(int), &strided);
    MPI_Type_commit(&strided);
    MPI_Type_free(&three);
    int *src = malloc(sizeof(int) * 5 * N), *back = calloc(5 * N, sizeof(int));
    for (int i = 0; i < 5 * N; i++)
        src[i] = i * 7 + 1;
    int want_size = 0;
    MPI_Count size = 0;
    MPI_Pack_size(N, strided, MPI_COMM_WORLD, &want_size);
    hc_pack_size(N, strided, MPI_COMM_WORLD, &size);
    HC_T_CHECK(size == want_size, "pack size %lld, the vendor says %d", (long long)size, want_size);
    char *want = malloc((size_t)want_size + 16), *got = malloc((size_t)want_size + 16);
    int wpos = 16;
    MPI_Count pos = 16;
    MPI_Pack(src, N, strided, want, want_size + 16, &wpos, MPI_COMM_WORLD);
    int rc = hc_pack(src, N, strided, got, want_size + 16, &pos, MPI_COMM_WORLD);
    HC_T_CHECK(rc == MPI_SUCCESS && pos == wpos, "pack: rc %d, position %lld, vendor's %d", rc,
               (long long)pos, wpos);
    HC_T_CHECK(hc_t_first_diff(got + 16, want + 16, (size_t)wpos - 16) < 0,
               "packed bytes differ from the vendor's");
    pos = 16;
    rc = hc_unpack(got, wpos, &pos, back, N, strided, MPI_COMM_WORLD);
    long bad = 0;
    for (int i = 0; i < 5 * N; i++)
        bad += back[i] != (i % 5 < 3 ? src[i] : 0);
    HC_T_CHECK(rc == MPI_SUCCESS && pos == wpos && bad == 0,
               "unpack: rc %d, position %lld of %d, %ld ints wrong", rc, (long long)pos, wpos, bad);
    free(src), free(back), free(want), free(got);
    MPI_Type_free(&strided);
}

static void reduce_local(void)
{
    long long in[N], inout[N], want[N];
    for (int i = 0; i < N; i++) {
        in[i] = i;
        inout[i] = want[i] = 3 * i + 1;
    }
    MPI_Reduce_local(in, want, N, MPI_LONG_LONG, MPI_SUM);
    int rc = hc_reduce_local(in, inout, N, MPI_LONG_LONG, MPI_SUM);
    HC_T_CHECK(rc == MPI_SUCCESS && memcmp(inout, want, sizeof want) == 0, "reduce_local");
}

static void collectives(void)
{
    int *a = malloc(sizeof(int) * N), *b = malloc(sizeof(int) * N);
    int *all = malloc(sizeof(int) * N * (size_t)hc_t_size);
    for (int root = 0; root < hc_t_size; root++) {
        for (int i = 0; i < N; i++)
            a[i] = hc_t_rank == root ? i * 11 + root : -1;
        int rc = hc_pmpi_bcast(a, N, MPI_INT, root, MPI_COMM_WORLD);
        long bad = 0;
        for (int i = 0; i < N; i++)
            bad += a[i] != i * 11 + root;
        HC_T_CHECK(rc == MPI_SUCCESS && bad == 0, "bcast from %d: rc %d, %ld wrong", root, rc, bad);
    }
    for (int i = 0; i < N; i++)
        a[i] = i + hc_t_rank;
    int rc = hc_pmpi_allreduce(a, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int rc2 = hc_pmpi_allreduce(MPI_IN_PLACE, a, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    long bad = 0;
    for (int i = 0; i < N; i++)
        bad += b[i] != hc_t_size * i + hc_t_size * (hc_t_size - 1) / 2 || a[i] != i + hc_t_size - 1;
    HC_T_CHECK(rc == MPI_SUCCESS && rc2 == MPI_SUCCESS && bad == 0, "allreduce: %ld wrong", bad);
    for (int i = 0; i < N; i++)
        a[i] = i * 5 + hc_t_rank;
    rc = hc_pmpi_allgather(a, N, MPI_INT, all, MPI_COMM_WORLD);
    bad = 0;
    for (int r = 0; r < hc_t_size; r++)
        for (int i = 0; i < N; i++)
            bad += all[(size_t)r * N + i] != i * 5 + r;
    HC_T_CHECK(rc == MPI_SUCCESS && bad == 0, "allgather: %ld wrong", bad);
    free(a), free(b), free(all);
}

static void envelope(void)
{
    MPI_Datatype v;
    MPI_Type_vector(4, 2, 3, MPI_DOUBLE, &v);
    MPI_Count ni, na, nc, nd;
    int combiner, ints[3] = {0};
    MPI_Datatype inner;
    hc_type_envelope(v, &ni, &na, &nc, &nd, &combiner);
    HC_T_CHECK(combiner == MPI_COMBINER_VECTOR && ni == 3 && na == 0 && nc == 0 && nd == 1,
               "envelope of a vector: combiner %d, %lld %lld %lld %lld", combiner, (long long)ni,
               (long long)na, (long long)nc, (long long)nd);
    hc_type_contents(v, ni, na, nc, nd, ints, NULL, NULL, &inner);
    HC_T_CHECK(ints[0] == 4 && ints[1] == 2 && ints[2] == 3 && inner == MPI_DOUBLE,
               "contents of a vector: %d %d %d", ints[0], ints[1], ints[2]);
    MPI_Type_free(&v);
}

int main(int argc, char **argv)
{
    hc_t_init(&argc, &argv);
    pack_round_trip();
    reduce_local();
    collectives();
    envelope();
    return hc_t_finish();
}
