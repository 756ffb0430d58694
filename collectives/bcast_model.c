/* Seed 002's cost model: t(m, f) = (m/b)(t_wo + t_a + f t) + (m/f)(t_w + f t) is smallest at
 * f* = sqrt(b t_w / t); the queue then holds s* = b / f* buffers. */
#include <math.h>

#include "bcast_shm.h"

void hc_bcast_model(size_t b, double tw_over_t, size_t page, size_t *f, int *s)
{
    double fstar = sqrt((double)b * tw_over_t);
    size_t fr = (size_t)ceil(fstar / (double)page) * page; /* pages are placed whole */
    if (fr < page)
        fr = page;
    long long sq = (long long)(b / fr);
    if (sq < 2)
        sq = 2;
    if (sq > 4096)
        sq = 4096;
    *f = fr;
    *s = (int)sq;
}
