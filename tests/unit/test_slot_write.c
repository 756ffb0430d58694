/* hc_slot_write (collectives/slot_write.c): every copy exact, whichever stores it uses, at
 * any size and alignment; and the choice between cached and streamed stores follows the
 * measured speed, with the probes spaced as documented. The measured speed is steered by
 * the writer's reference (a private copy's ns per byte): 0-ish makes every cached write
 * look slow, a huge one makes it look fast. */
#include <stdint.h>
#include <string.h>

#include "hc_slot_write.h"
#include "hc_test.h"

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(seed * 131u + i * 7u + (i >> 9));
}

static int copies_exactly(hc_slot_writer *w, size_t bytes, size_t dst_off, size_t src_off,
                          unsigned seed)
{
    size_t span = bytes + 128;
    unsigned char *src = malloc(span), *dst = malloc(span), *want = malloc(span);
    fill(src, span, seed);
    memset(dst, 0xA5, span);
    memcpy(want, dst, span);
    memcpy(want + dst_off, src + src_off, bytes);
    hc_slot_write(w, dst + dst_off, src + src_off, bytes);
    int ok = memcmp(dst, want, span) == 0; /* nothing before or after the copy touched */
    free(src);
    free(dst);
    free(want);
    return ok;
}

HC_TEST(copies_are_exact_in_both_modes)
{
    static const size_t sizes[] = {0, 1, 63, 64, 4095, HC_SLOT_WRITE_TIMED_MIN - 1,
                                   HC_SLOT_WRITE_TIMED_MIN, HC_SLOT_WRITE_TIMED_MIN + 17,
                                   (size_t)1 << 20, ((size_t)1 << 20) + 5};
    hc_slot_writer slow_looking, fast_looking;
    hc_slot_writer_init(&slow_looking);
    hc_slot_writer_init(&fast_looking);
    slow_looking.private_ns_per_byte = 1e-9;
    fast_looking.private_ns_per_byte = 1e9;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (size_t off = 0; off < 40; off += 13)
            for (int rep = 0; rep < 40; rep++) { /* crosses probes and mode changes */
                HC_CHECK_MSG(copies_exactly(&slow_looking, sizes[i], off, 39 - off, rep),
                             "streaming writer, %zu bytes, offset %zu\n", sizes[i], off);
                HC_CHECK_MSG(copies_exactly(&fast_looking, sizes[i], off, off, rep),
                             "cached writer, %zu bytes, offset %zu\n", sizes[i], off);
            }
    HC_CHECK(slow_looking.stream == 1);
    HC_CHECK(fast_looking.stream == 0);
}

HC_TEST(streams_while_cached_writes_are_slow_and_probes_less_often)
{
    size_t n = HC_SLOT_WRITE_TIMED_MIN;
    char *a = calloc(2, n);
    hc_slot_writer w;
    hc_slot_writer fresh, second;
    hc_slot_writer_init(&fresh);
    HC_CHECK(fresh.private_ns_per_byte == 0); /* measured at the first timed write */
    hc_slot_write(&fresh, a, a + n, n - 1);
    HC_CHECK(fresh.private_ns_per_byte == 0);
    hc_slot_write(&fresh, a, a + n, n);
    HC_CHECK(fresh.private_ns_per_byte > 0);
    hc_slot_writer_init(&second); /* once a process: a second writer takes the same */
    hc_slot_write(&second, a, a + n, n);
    HC_CHECK(second.private_ns_per_byte == fresh.private_ns_per_byte);
    hc_slot_writer_init(&w);
    HC_CHECK(w.stream == 0);
    w.private_ns_per_byte = 1e-9; /* every cached write now looks slow */
    hc_slot_write(&w, a, a + n, n);
    HC_CHECK(w.stream == 1);
    unsigned first = w.probe_every;
    /* The next cached write comes after probe_every - 1 streamed ones; it confirms, so the
     * distance doubles. */
    for (unsigned i = 0; i < first; i++)
        hc_slot_write(&w, a, a + n, n);
    HC_CHECK(w.stream == 1);
    HC_CHECK_MSG(w.probe_every == 2 * first, "probe_every %u after a confirming probe\n",
                 w.probe_every);
    HC_CHECK(w.streamed == 0);
    /* Cached writes fast again: the next probe switches back. */
    w.private_ns_per_byte = 1e9;
    for (unsigned i = 0; i < 2 * first; i++)
        hc_slot_write(&w, a, a + n, n);
    HC_CHECK(w.stream == 0);
    HC_CHECK(w.probe_every == first);
    /* Short writes are never timed, so they never change the mode. */
    w.private_ns_per_byte = 1e-9;
    hc_slot_write(&w, a, a + n, HC_SLOT_WRITE_TIMED_MIN - 1);
    HC_CHECK(w.stream == 0);
    free(a);
}

int main(void) { return hc_test_main(); }
