/* Reduction kernels, one small loop per (op, type), written so the compiler vectorises
 * them. Integer SUM/PROD go through the unsigned type so overflow wraps instead of being
 * undefined; MIN/MAX/logical forms follow MPICH's macros so results match the vendor's. */
#pragma GCC optimize("O3")
#include "reduce_kernels.h"

#include <stdbool.h>
#include <stdint.h>

#define K_ARITH(name, T, U, EXPR)                                                   \
    static void name(void *out, const void *a_, const void *b_, size_t n)           \
    {                                                                               \
        T *o = out;                                                                 \
        const T *a = a_, *b = b_;                                                   \
        for (size_t i = 0; i < n; i++) {                                            \
            T x = a[i], y = b[i];                                                   \
            (void)sizeof(U);                                                        \
            o[i] = (EXPR);                                                          \
        }                                                                           \
    }

/* Every op for an integer type T with unsigned twin U. */
#define K_INT(tag, T, U)                                                            \
    K_ARITH(k_sum_##tag, T, U, (T)((U)x + (U)y))                                    \
    K_ARITH(k_prod_##tag, T, U, (T)((U)x * (U)y))                                   \
    K_ARITH(k_min_##tag, T, U, x < y ? x : y)                                       \
    K_ARITH(k_max_##tag, T, U, x > y ? x : y)                                       \
    K_ARITH(k_land_##tag, T, U, (T)(x && y))                                        \
    K_ARITH(k_lor_##tag, T, U, (T)(x || y))                                         \
    K_ARITH(k_lxor_##tag, T, U, (T)(!x != !y))                                      \
    K_ARITH(k_band_##tag, T, U, (T)(x & y))                                         \
    K_ARITH(k_bor_##tag, T, U, (T)(x | y))                                          \
    K_ARITH(k_bxor_##tag, T, U, (T)(x ^ y))                                         \
    static const hc_reduce_fn tab_##tag[] = {k_sum_##tag,  k_prod_##tag, k_min_##tag, \
                                             k_max_##tag,  k_land_##tag, k_lor_##tag, \
                                             k_lxor_##tag, k_band_##tag, k_bor_##tag, \
                                             k_bxor_##tag};

#define K_FLT(tag, T)                                                               \
    K_ARITH(k_sum_##tag, T, T, x + y)                                               \
    K_ARITH(k_prod_##tag, T, T, x * y)                                              \
    K_ARITH(k_min_##tag, T, T, x < y ? x : y)                                       \
    K_ARITH(k_max_##tag, T, T, x > y ? x : y)                                       \
    static const hc_reduce_fn tab_##tag[] = {k_sum_##tag, k_prod_##tag, k_min_##tag, \
                                             k_max_##tag, 0, 0, 0, 0, 0, 0};

K_INT(i8, int8_t, uint8_t)
K_INT(u8, uint8_t, uint8_t)
K_INT(i16, int16_t, uint16_t)
K_INT(u16, uint16_t, uint16_t)
K_INT(i32, int32_t, uint32_t)
K_INT(u32, uint32_t, uint32_t)
K_INT(i64, int64_t, uint64_t)
K_INT(u64, uint64_t, uint64_t)
K_FLT(f32, float)
K_FLT(f64, double)
K_FLT(f80, long double)

/* C bool: logical ops only (MPICH computes them on the bool values). */
K_ARITH(k_land_b, bool, bool, x && y)
K_ARITH(k_lor_b, bool, bool, x || y)
K_ARITH(k_lxor_b, bool, bool, x != y)
static const hc_reduce_fn tab_bool[] = {0, 0, 0, 0, k_land_b, k_lor_b, k_lxor_b, 0, 0, 0};
/* MPI_BYTE: bitwise ops only. */
static const hc_reduce_fn tab_byte[] = {0, 0, 0, 0, 0, 0, 0, k_band_u8, k_bor_u8, k_bxor_u8};

static int op_index(MPI_Op op)
{
    static const MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MIN,  MPI_MAX, MPI_LAND,
                                 MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};
    for (int i = 0; i < (int)(sizeof ops / sizeof ops[0]); i++)
        if (op == ops[i])
            return i;
    return -1;
}

/* Integer types by signedness and size, so that synonyms (MPI_LONG, MPI_INT64_T, MPI_AINT,
 * MPI_COUNT ...) share the loops of their width. */
static const hc_reduce_fn *int_table(int is_signed, size_t size)
{
    switch (size) {
    case 1: return is_signed ? tab_i8 : tab_u8;
    case 2: return is_signed ? tab_i16 : tab_u16;
    case 4: return is_signed ? tab_i32 : tab_u32;
    case 8: return is_signed ? tab_i64 : tab_u64;
    default: return 0;
    }
}

/* Fortran's named types, whose sizes follow the Fortran compiler's settings (an MPI_INTEGER
 * of 8 bytes under -fdefault-integer-8): integers by size, reals by size, logicals by size
 * with the logical operations only. A Fortran .TRUE. is 1 and .FALSE. 0 in gfortran's and
 * the MPI libraries' convention, which the C kernels' 1/0 results keep. */
static const hc_reduce_fn *fortran_table(MPI_Op op, MPI_Datatype dt, size_t size)
{
    static const MPI_Datatype ints[] = {MPI_INTEGER, MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4,
                                        MPI_INTEGER8};
    static const MPI_Datatype reals[] = {MPI_REAL, MPI_REAL4, MPI_DOUBLE_PRECISION, MPI_REAL8};
    if (dt == MPI_DATATYPE_NULL) /* a Fortran type this MPI was built without */
        return 0;
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (dt == ints[i])
            return int_table(1, size);
    for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++)
        if (dt == reals[i])
            return size == 4 ? tab_f32 : size == 8 ? tab_f64 : 0;
    if (dt == MPI_LOGICAL && (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR))
        return int_table(1, size);
    return 0;
}

static const hc_reduce_fn *type_table(MPI_Datatype dt)
{
    static const struct { MPI_Datatype dt; int is_signed; size_t size; } ints[] = {
        {MPI_SIGNED_CHAR, 1, sizeof(signed char)},
        {MPI_UNSIGNED_CHAR, 0, sizeof(unsigned char)},
        {MPI_SHORT, 1, sizeof(short)},
        {MPI_UNSIGNED_SHORT, 0, sizeof(unsigned short)},
        {MPI_INT, 1, sizeof(int)},
        {MPI_UNSIGNED, 0, sizeof(unsigned)},
        {MPI_LONG, 1, sizeof(long)},
        {MPI_UNSIGNED_LONG, 0, sizeof(unsigned long)},
        {MPI_LONG_LONG, 1, sizeof(long long)},
        {MPI_LONG_LONG_INT, 1, sizeof(long long)},
        {MPI_UNSIGNED_LONG_LONG, 0, sizeof(unsigned long long)},
        {MPI_INT8_T, 1, 1}, {MPI_INT16_T, 1, 2}, {MPI_INT32_T, 1, 4}, {MPI_INT64_T, 1, 8},
        {MPI_UINT8_T, 0, 1}, {MPI_UINT16_T, 0, 2}, {MPI_UINT32_T, 0, 4}, {MPI_UINT64_T, 0, 8},
        {MPI_AINT, 1, sizeof(MPI_Aint)},
        {MPI_OFFSET, 1, sizeof(MPI_Offset)},
        {MPI_COUNT, 1, sizeof(MPI_Count)},
    };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (dt == ints[i].dt)
            return int_table(ints[i].is_signed, ints[i].size);
    if (dt == MPI_FLOAT)
        return tab_f32;
    if (dt == MPI_DOUBLE)
        return tab_f64;
    if (dt == MPI_LONG_DOUBLE)
        return tab_f80;
    if (dt == MPI_C_BOOL)
        return tab_bool;
    if (dt == MPI_BYTE)
        return tab_byte;
    return 0;
}

hc_reduce_fn hc_reduce_kernel(MPI_Op op, MPI_Datatype dt, size_t size)
{
    int k = op_index(op);
    const hc_reduce_fn *t = k < 0 ? 0 : type_table(dt);
    if (k >= 0 && !t)
        t = fortran_table(op, dt, size);
    return t ? t[k] : 0;
}
