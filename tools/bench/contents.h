/* What every word of a bench buffer holds, computable from the word's index, the call number
 * and the first call of the block, so a result is checked element by element. No MPI:
 * tests/e2e/bench_contents.sh compiles it alone.
 *
 * A buffer is W 8-byte words (the last one may be partial); word w of content `id` is
 * word_of(w, id). Partial rewrites (buffers stride and block): a block of calls starts with
 * the whole buffer at the block's content, then call k rewrites one class of words, class
 * k mod m, with the content of that call, rewrite_id(k):
 *   stride  class of w = w mod m, m = min(64, W): one word in every 64, at an offset that
 *           moves by one word each call (every word of a buffer under 64 words is a class)
 *   block   class of w = w / L, L = ceil(W / 16), m = ceil(W / L): one contiguous 1/16 of
 *           the buffer, the next one each call
 * So after call k, word w holds the content of the last call j <= k of its class, if the
 * block has seen one (j >= first), else the block's. */
#ifndef HC_BENCH_CONTENTS_H
#define HC_BENCH_CONTENTS_H

#include <stdint.h>

static inline uint64_t word_of(uint64_t w, uint64_t id)
{
    uint64_t x = (w + 1) * 0x9e3779b97f4a7c15ull ^ (id + 1) * 0xbf58476d1ce4e5b9ull;
    return x ^ x >> 31;
}

static inline unsigned char byte_of(uint64_t i, uint64_t id)
{
    return (unsigned char)(word_of(i / 8, id) >> (i % 8 * 8));
}

/* Content ids of rewrites live apart from the small ids of blocks, calls and pool slots. */
static inline uint64_t rewrite_id(long long call)
{
    return 1ull << 62 | (uint64_t)call;
}

typedef struct rewrite {
    long long words, classes, block; /* W, m, and L (block) or 0 (stride) */
} rewrite;

enum { REWRITE_STRIDE = 64, REWRITE_BLOCKS = 16 };

/* The geometry of `bytes` bytes; block != 0 for the block pattern. */
static inline rewrite rewrite_of(long long bytes, int block)
{
    rewrite r = {(bytes + 7) / 8, 1, 0};
    if (r.words == 0)
        return r;
    if (block) {
        r.block = (r.words + REWRITE_BLOCKS - 1) / REWRITE_BLOCKS;
        r.classes = (r.words + r.block - 1) / r.block;
    } else {
        r.classes = r.words < REWRITE_STRIDE ? r.words : REWRITE_STRIDE;
    }
    return r;
}

static inline long long rewrite_class(const rewrite *r, long long w)
{
    return r->block ? w / r->block : w % r->classes;
}

/* The words call k rewrites: from *first, every *step, below *end. */
static inline void rewrite_words(const rewrite *r, long long k, long long *first, long long *step,
                                 long long *end)
{
    long long c = k % r->classes;
    if (r->block) {
        *first = c * r->block;
        *step = 1;
        *end = *first + r->block < r->words ? *first + r->block : r->words;
    } else {
        *first = c;
        *step = r->classes;
        *end = r->words;
    }
}

/* The last call in [first, k] that rewrote word w, or -1 if none has since the block began. */
static inline long long rewrite_last(const rewrite *r, long long w, long long k, long long first)
{
    long long m = r->classes, c = rewrite_class(r, w);
    long long j = k - (((k - c) % m) + m) % m;
    return j >= first ? j : -1;
}

/* The content id word w holds after call k of a block that began at call `first` with
 * content `base`. */
static inline uint64_t rewrite_content(const rewrite *r, long long w, long long k, long long first,
                                       uint64_t base)
{
    long long j = rewrite_last(r, w, k, first);
    return j < 0 ? base : rewrite_id(j);
}

#endif
