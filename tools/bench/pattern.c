/* The buffers each call of a calling pattern uses (names: pattern_name.h).
 *
 * Contents are 64-bit words that depend on the word's index and a content id (contents.h),
 * so any buffer can be checked anywhere: fresh buffers get a new id every call (and the
 * root's number), warm ones a new id every block, cold ones one id per pool slot; stride and
 * block start a block like warm, then each call rewrites part of the sending side. Receiving
 * sides are "stamped" before each call, one wrong byte every 4 KiB and the last, so a call
 * that moved nothing is seen without rewriting (and so warming or cooling) the whole buffer. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "contents.h"
#include "pattern_name.h"

/* --- contents ------------------------------------------------------------------------ */

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

/* Word w of a broadcast buffer (the last may be partial): write, or count a difference. */
static void put_word(unsigned char *p, long long n, long long w, uint64_t id)
{
    uint64_t v = word_of((uint64_t)w, id);
    long long len = n - 8 * w < 8 ? n - 8 * w : 8;
    memcpy(p + 8 * w, &v, (size_t)len); /* little-endian, as byte_of */
}

static int word_differs(const unsigned char *p, long long n, long long w, uint64_t id)
{
    uint64_t v = word_of((uint64_t)w, id), got = 0;
    long long len = n - 8 * w < 8 ? n - 8 * w : 8;
    memcpy(&got, p + 8 * w, (size_t)len);
    if (len < 8)
        v &= (1ull << (8 * len)) - 1;
    return got != v;
}

/* Allreduce input: small integers in doubles, so every summation order gives the exact sum;
 * words a partial rewrite wrote lie in [1024, 2048), apart from a block's [0, 1024). */
static inline double input_of(long long i, uint64_t id, int r)
{
    double rewritten = id >> 62 ? 1024 : 0;
    return rewritten + (double)(((uint64_t)i + id * 7 + 3 * (uint64_t)r) % 1024);
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
    int mode;             /* what the buffers do in this block: a BUF_* other than WARM2STRIDE */
    uint64_t block_id;    /* warm, stride, block: the block's content */
    long long first_call; /* stride, block: the block's first call */
    rewrite rw;
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

static int partial(const bufset *b)
{
    return b->mode == BUF_STRIDE || b->mode == BUF_BLOCK;
}

/* The content id of call k where the whole buffer has one (every mode but the partial ones,
 * whose words each have their own: word_id). */
static uint64_t id_of(const bufset *b, long long k)
{
    if (b->mode == BUF_FRESH)
        return (uint64_t)k;
    if (b->mode == BUF_COLD)
        return (uint64_t)(k % b->nslots);
    return b->block_id;
}

static uint64_t word_id(const bufset *b, long long w, long long k)
{
    return partial(b) ? rewrite_content(&b->rw, w, k, b->first_call, b->block_id) : id_of(b, k);
}

static long long slot_of(const bufset *b, long long k)
{
    return b->mode == BUF_COLD ? k % b->nslots : 0;
}

/* A broadcast's content also depends on the root when it is fresh, as a new message from a
 * new root would; the others are the same whoever sends them. */
static uint64_t bcast_word_id(const bufset *b, long long w, long long k, int root)
{
    uint64_t id = word_id(b, w, k);
    return b->mode == BUF_FRESH ? id * 1024 + (uint64_t)root : id;
}

bufset *bufset_new(enum coll which, pattern p, long long bytes, int rank, int nranks)
{
    bufset *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    *b = (bufset){.which = which, .p = p, .bytes = bytes, .rank = rank, .nranks = nranks,
                  .nslots = 1, .mode = pattern_buf_in(p, 1)};
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

void bufset_block(bufset *b, long long block, long long first_call, int half)
{
    b->mode = pattern_buf_in(b->p, half);
    if (b->mode != BUF_WARM && !partial(b))
        return;
    b->block_id = (uint64_t)block;
    b->first_call = first_call;
    b->rw = rewrite_of(b->which == COLL_BCAST ? b->bytes : b->bytes / 8 * 8, b->mode == BUF_BLOCK);
    if (b->which == COLL_BCAST)
        fill_bytes(b->send, b->bytes, b->block_id, 0);
    else
        for (long long i = 0; i < b->bytes / 8; i++)
            ((double *)b->send)[i] = input_of(i, b->block_id, b->rank);
}

/* A partial rewrite before call k: the sending side's words of call k's class. */
static void rewrite_part(bufset *b, long long k)
{
    long long w, step, end;
    rewrite_words(&b->rw, k, &w, &step, &end);
    for (; w < end; w += step) {
        if (b->which == COLL_BCAST)
            put_word(b->send, b->bytes, w, rewrite_id(k));
        else
            ((double *)b->send)[w] = input_of(w, rewrite_id(k), b->rank);
    }
}

void *bufset_before(bufset *b, long long k, int root, void **out)
{
    size_t at = (size_t)slot_of(b, k) * b->stride;
    unsigned char *send = b->send + at, *recv = b->recv ? b->recv + at : NULL;
    if (b->which == COLL_BCAST) {
        if (b->mode == BUF_FRESH)
            fill_bytes(send, b->bytes, bcast_word_id(b, 0, k, root), b->rank != root);
        else if (b->rank != root)
            stamp(send, b->bytes);
        else if (partial(b))
            rewrite_part(b, k);
    } else {
        if (b->mode == BUF_FRESH) {
            for (long long i = 0; i < b->bytes / 8; i++)
                ((double *)send)[i] = input_of(i, id_of(b, k), b->rank);
            memset(recv, 0xff, (size_t)b->bytes); /* NaNs: a result never left there */
        } else {
            if (partial(b))
                rewrite_part(b, k);
            stamp(recv, b->bytes);
        }
    }
    if (out)
        *out = recv;
    return send;
}

static double sum_of(const bufset *b, long long i, uint64_t id)
{
    double want = 0;
    for (int r = 0; r < b->nranks; r++)
        want += input_of(i, id, r);
    return want;
}

long bufset_check(bufset *b, long long k, int root, int full)
{
    size_t at = (size_t)slot_of(b, k) * b->stride;
    long bad = 0;
    if (b->which == COLL_BCAST) {
        const unsigned char *x = b->send + at;
        if (full && !partial(b))
            return check_bytes(x, b->bytes, bcast_word_id(b, 0, k, root));
        if (full) {
            for (long long w = 0; w < b->rw.words; w++)
                bad += word_differs(x, b->bytes, w, bcast_word_id(b, w, k, root));
            return bad;
        }
        for (long long i = 0; i < b->bytes; i += STAMP_STRIDE)
            bad += x[i] != byte_of((uint64_t)i, bcast_word_id(b, i / 8, k, root));
        if (b->bytes)
            bad += x[b->bytes - 1] !=
                   byte_of((uint64_t)b->bytes - 1, bcast_word_id(b, (b->bytes - 1) / 8, k, root));
        return bad;
    }
    const double *y = (const double *)(b->recv + at);
    long long n = b->bytes / 8, step = full ? 1 : STAMP_STRIDE / 8;
    for (long long i = 0; i < n; i += step)
        bad += y[i] != sum_of(b, i, word_id(b, i, k));
    if (!full && n > 0) /* the stamp on the last byte */
        bad += y[n - 1] != sum_of(b, n - 1, word_id(b, n - 1, k));
    return bad;
}
