/* The reduction kernels against scalar loops: odd lengths (vector remainders), results
 * written over an input (out == b, as the ring does), and the combinations MPI does not
 * define (or leaves to MPI_Reduce_local) have no kernel. No MPI calls: handles are compared. */
#include <stdint.h>

#include "hc_test.h"
#include "reduce_kernels.h"

HC_TEST(int_sum_wraps_and_aliases)
{
    int8_t a[37], b[37], want[37];
    for (int i = 0; i < 37; i++) {
        a[i] = (int8_t)(i * 9 - 100);
        b[i] = (int8_t)(120 - i * 5);
        want[i] = (int8_t)(uint8_t)((uint8_t)a[i] + (uint8_t)b[i]);
    }
    hc_reduce_fn f = hc_reduce_kernel(MPI_SUM, MPI_SIGNED_CHAR, 1);
    HC_CHECK(f != NULL);
    f(b, a, b, 37); /* out == b */
    HC_CHECK(memcmp(b, want, sizeof want) == 0);
}

HC_TEST(unsigned_min_max_are_unsigned)
{
    unsigned char a[5] = {100, 250, 7, 0, 255}, b[5] = {200, 5, 7, 255, 0}, o[5];
    hc_reduce_kernel(MPI_MIN, MPI_UNSIGNED_CHAR, 1)(o, a, b, 5);
    HC_CHECK(o[0] == 100 && o[1] == 5 && o[2] == 7 && o[3] == 0 && o[4] == 0);
    hc_reduce_kernel(MPI_MAX, MPI_UINT16_T, 2)((uint16_t[]){0}, (uint16_t[]){60000},
                                            (uint16_t[]){100}, 0); /* n = 0 touches nothing */
    uint16_t x[3] = {60000, 1, 9}, y[3] = {100, 2, 9}, z[3];
    hc_reduce_kernel(MPI_MAX, MPI_UINT16_T, 2)(z, x, y, 3);
    HC_CHECK(z[0] == 60000 && z[1] == 2 && z[2] == 9);
}

HC_TEST(float_ops_and_logical)
{
    double a[19], b[19], o[19];
    for (int i = 0; i < 19; i++) {
        a[i] = i * 0.5 - 3;
        b[i] = 2 - i * 0.25;
    }
    hc_reduce_kernel(MPI_PROD, MPI_DOUBLE, 8)(o, a, b, 19);
    for (int i = 0; i < 19; i++)
        HC_CHECK(o[i] == a[i] * b[i]);
    hc_reduce_kernel(MPI_MIN, MPI_DOUBLE, 8)(o, a, b, 19);
    for (int i = 0; i < 19; i++)
        HC_CHECK(o[i] == (a[i] < b[i] ? a[i] : b[i]));
    int p[6] = {0, 3, 0, -1, 5, 0}, q[6] = {0, 0, 2, 4, 1, 0}, r[6];
    hc_reduce_kernel(MPI_LXOR, MPI_INT, 4)(r, p, q, 6);
    HC_CHECK(r[0] == 0 && r[1] == 1 && r[2] == 1 && r[3] == 0 && r[4] == 0 && r[5] == 0);
    hc_reduce_kernel(MPI_LAND, MPI_INT, 4)(r, p, q, 6);
    HC_CHECK(r[0] == 0 && r[1] == 0 && r[3] == 1 && r[4] == 1);
    unsigned char m[3] = {0xf0, 0x0f, 0xff}, n[3] = {0x3c, 0x3c, 0x00}, k[3];
    hc_reduce_kernel(MPI_BXOR, MPI_BYTE, 1)(k, m, n, 3);
    HC_CHECK(k[0] == 0xcc && k[1] == 0x33 && k[2] == 0xff);
}

HC_TEST(no_kernel_where_mpi_has_none)
{
    HC_CHECK(hc_reduce_kernel(MPI_BAND, MPI_FLOAT, 4) == NULL);
    HC_CHECK(hc_reduce_kernel(MPI_SUM, MPI_C_BOOL, 1) == NULL);
    HC_CHECK(hc_reduce_kernel(MPI_SUM, MPI_BYTE, 1) == NULL);
    HC_CHECK(hc_reduce_kernel(MPI_MINLOC, MPI_DOUBLE_INT, 16) == NULL);
    HC_CHECK(hc_reduce_kernel(MPI_SUM, MPI_C_DOUBLE_COMPLEX, 16) == NULL);
    HC_CHECK(hc_reduce_kernel(MPI_SUM, MPI_CHAR, 1) == NULL);
    /* Synonyms share kernels of their width. */
    HC_CHECK(hc_reduce_kernel(MPI_SUM, MPI_INT64_T, 8) == hc_reduce_kernel(MPI_SUM, MPI_LONG, 8));
    HC_CHECK(hc_reduce_kernel(MPI_SUM, MPI_UINT32_T, 4) == hc_reduce_kernel(MPI_SUM, MPI_UNSIGNED, 4));
}

/* Fortran's named types take the C kernels of their size; logicals only the logical ops. */
HC_TEST(fortran_types_use_the_kernels_of_their_size)
{
    HC_CHECK(hc_reduce_kernel(MPI_SUM, MPI_INTEGER, 4) == hc_reduce_kernel(MPI_SUM, MPI_INT32_T, 4));
    HC_CHECK(hc_reduce_kernel(MPI_SUM, MPI_INTEGER, 8) == hc_reduce_kernel(MPI_SUM, MPI_INT64_T, 8));
    HC_CHECK(hc_reduce_kernel(MPI_MAX, MPI_INTEGER8, 8) == hc_reduce_kernel(MPI_MAX, MPI_INT64_T, 8));
    HC_CHECK(hc_reduce_kernel(MPI_SUM, MPI_REAL, 4) == hc_reduce_kernel(MPI_SUM, MPI_FLOAT, 4));
    HC_CHECK(hc_reduce_kernel(MPI_MIN, MPI_DOUBLE_PRECISION, 8) ==
             hc_reduce_kernel(MPI_MIN, MPI_DOUBLE, 8));
    HC_CHECK(hc_reduce_kernel(MPI_PROD, MPI_REAL8, 8) == hc_reduce_kernel(MPI_PROD, MPI_DOUBLE, 8));
    HC_CHECK(hc_reduce_kernel(MPI_LAND, MPI_LOGICAL, 4) == hc_reduce_kernel(MPI_LAND, MPI_INT, 4));
    HC_CHECK(hc_reduce_kernel(MPI_SUM, MPI_LOGICAL, 4) == NULL);
    HC_CHECK(hc_reduce_kernel(MPI_SUM, MPI_REAL, 16) == NULL); /* no quad kernel */
    HC_CHECK(hc_reduce_kernel(MPI_BAND, MPI_REAL, 4) == NULL);
    int32_t t[4] = {1, 1, 0, 0}, u[4] = {1, 0, 1, 0}, v[4];
    hc_reduce_kernel(MPI_LOR, MPI_LOGICAL, 4)(v, t, u, 4);
    HC_CHECK(v[0] == 1 && v[1] == 1 && v[2] == 1 && v[3] == 0);
}

int main(void) { return hc_test_main(); }
