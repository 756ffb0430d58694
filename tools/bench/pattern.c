/* The buffers each call of a calling pattern uses (names: pattern_name.h).
 *
 * Contents are 64-bit words that depend on the word's index and a content id, so any buffer can
 * be checked anywhere: fresh buffers get a new id every call (and the root's number), warm ones
 * a new id every block, cold ones one id per pool slot. Receiving sides are "stamped" before
 * each call, one wrong byte every 4 KiB and the last, so a call that moved nothing is seen
 * without rewriting (and so warming or cooling) the whole buffer. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "pattern_name.h"

/* --- contents ------------------------------------------------------------------------ */

static inline uint64_t word_of(uint64_t w, uint64_t id)
{
    uint64_t x = (w + 1) * 0x9e3779b97f4a7c15ull ^ (id + 1) * 0xbf58476d1ce4e5b9ull;
    return x ^ x >> 31;
}
static inline unsigned char byte_of(uint64_t i, uint64_t id)
{
    return (unsigned char)(word_of(i / 8, id) >> (i % 8 * 8));
}

void fill_bytes(unsigned char *p, long long n, unsigned long long id, int invert)
{
    uint64_t flip = invert ? ~0ull : 0;
    long long w = 0;
    for (; 8 * w + 8 <= n; w++) {
        uint64_t v = word_of((uint64_t)w, id) ^ flip;
        memcpy(p + 8 * w, &v, 8);
    }
    for (long long i = 8 * w; i < n; i++)
        p[i] = (unsigned char)(byte_of((uint64_t)i, id) ^ flip);
}

long check_bytes(const unsigned char *p, long long n, unsigned long long id)
{
    long bad = 0;
    long long w = 0;
    for (; 8 * w + 8 <= n; w++) {
        uint64_t v;
        memcpy(&v, p + 8 * w, 8);
        bad += v != word_of((uint64_t)w, id);
    }
    for (long long i = 8 * w; i < n; i++)
        bad += p[i] != byte_of((uint64_t)i, id);
    return bad;
}

/* Allreduce input: small integers in doubles, so every summation order gives the exact sum. */
static inline double input_of(long long i, uint64_t id, int r)
{
    return (double)(((uint64_t)i + id * 7 + 3 * (uint64_t)r) % 1024);
}

#define STAMP_STRIDE 4096

/* --- buffer sets --------------------------------------------------------------------- */

struct bufset {
    enum coll which;
    pattern p;
    long long bytes;
    int rank, nranks;
    unsigned char *send, *recv; /* pools of nslots slots of stride bytes */
    size_t stride;
    long long nslots;
    uint64_t block_id;
};

/* The cold pool spans twice the last-level cache (as the OS reports it), so a slot is evicted
 * before its turn comes again, and at least two slots. */
static size_t llc_bytes(void)
{
    long v = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (v <= 0)
        v = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return v > 0 ? (size_t)v : (size_t)32 << 20;
}

static unsigned char *pool(size_t n)
{
    void *p = NULL;
    if (posix_memalign(&p, 4096, n ? n : 1))
        return NULL;
    memset(p, 0, n); /* fault the pages in now, not inside a timed call */
    return p;
}

static uint64_t id_of(const bufset *b, long long k)
{
    if (b->p.buf == BUF_FRESH)
        return (uint64_t)k;
    if (b->p.buf == BUF_WARM)
        return b->block_id;
    return (uint64_t)(k % b->nslots);
}

static long long slot_of(const bufset *b, long long k)
{
    return b->p.buf == BUF_COLD ? k % b->nslots : 0;
}

/* A broadcast's content also depends on the root when it is fresh, as a new message from a
 * new root would; warm and cold data are the same whoever sends it. */
static uint64_t bcast_id(const bufset *b, long long k, int root)
{
    uint64_t id = id_of(b, k);
    return b->p.buf == BUF_FRESH ? id * 1024 + (uint64_t)root : id;
}

bufset *bufset_new(enum coll which, pattern p, long long bytes, int rank, int nranks)
{
    bufset *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    *b = (bufset){which, p, bytes, rank, nranks, NULL, NULL, 0, 1, 0};
    b->stride = ((size_t)bytes + 4095) / 4096 * 4096 + 64; /* slots at shifting offsets */
    if (p.buf == BUF_COLD) {
        b->nslots = (long long)(2 * llc_bytes() / b->stride) + 1;
        if (b->nslots < 2)
            b->nslots = 2;
    }
    b->send = pool(b->stride * (size_t)b->nslots);
    if (which == COLL_ALLREDUCE)
        b->recv = pool(b->stride * (size_t)b->nslots);
    if (!b->send || (which == COLL_ALLREDUCE && !b->recv)) {
        bufset_free(b);
        return NULL;
    }
    if (p.buf == BUF_COLD) /* every slot's content once; then only stamps touch it */
        for (long long s = 0; s < b->nslots; s++) {
            unsigned char *x = b->send + (size_t)s * b->stride;
            if (which == COLL_BCAST)
                fill_bytes(x, bytes, (uint64_t)s, 0);
            else
                for (long long i = 0; i < bytes / 8; i++)
                    ((double *)x)[i] = input_of(i, (uint64_t)s, rank);
        }
    return b;
}

void bufset_free(bufset *b)
{
    if (!b)
        return;
    free(b->send);
    free(b->recv);
    free(b);
}

static void stamp(unsigned char *p, long long n)
{
    for (long long i = 0; i < n; i += STAMP_STRIDE)
        p[i] ^= 0x5a;
    if (n)
        p[n - 1] ^= 0xa5;
}

void bufset_block(bufset *b, long long block)
{
    if (b->p.buf != BUF_WARM)
        return;
    b->block_id = (uint64_t)block;
    if (b->which == COLL_BCAST)
        fill_bytes(b->send, b->bytes, b->block_id, 0);
    else
        for (long long i = 0; i < b->bytes / 8; i++)
            ((double *)b->send)[i] = input_of(i, b->block_id, b->rank);
}

void *bufset_before(bufset *b, long long k, int root, void **out)
{
    size_t at = (size_t)slot_of(b, k) * b->stride;
    unsigned char *send = b->send + at, *recv = b->recv ? b->recv + at : NULL;
    if (b->which == COLL_BCAST) {
        if (b->p.buf == BUF_FRESH)
            fill_bytes(send, b->bytes, bcast_id(b, k, root), b->rank != root);
        else if (b->rank != root)
            stamp(send, b->bytes);
    } else {
        if (b->p.buf == BUF_FRESH) {
            for (long long i = 0; i < b->bytes / 8; i++)
                ((double *)send)[i] = input_of(i, id_of(b, k), b->rank);
            memset(recv, 0xff, (size_t)b->bytes); /* NaNs: a result never left there */
        } else {
            stamp(recv, b->bytes);
        }
    }
    if (out)
        *out = recv;
    return send;
}

long bufset_check(bufset *b, long long k, int root, int full)
{
    size_t at = (size_t)slot_of(b, k) * b->stride;
    long bad = 0;
    if (b->which == COLL_BCAST) {
        const unsigned char *x = b->send + at;
        uint64_t id = bcast_id(b, k, root);
        if (full)
            return check_bytes(x, b->bytes, id);
        for (long long i = 0; i < b->bytes; i += STAMP_STRIDE)
            bad += x[i] != byte_of((uint64_t)i, id);
        if (b->bytes)
            bad += x[b->bytes - 1] != byte_of((uint64_t)b->bytes - 1, id);
        return bad;
    }
    const double *y = (const double *)(b->recv + at);
    uint64_t id = id_of(b, k);
    long long n = b->bytes / 8, step = full ? 1 : STAMP_STRIDE / 8;
    for (long long i = 0; i < n; i += step) {
        double want = 0;
        for (int r = 0; r < b->nranks; r++)
            want += input_of(i, id, r);
        bad += y[i] != want;
    }
    if (!full && n > 0) { /* the stamp on the last byte */
        double want = 0;
        for (int r = 0; r < b->nranks; r++)
            want += input_of(n - 1, id, r);
        bad += y[n - 1] != want;
    }
    return bad;
}
