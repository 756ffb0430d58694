/* Cached or streamed writes into shared slots, chosen by measurement: see hc_slot_write.h. */
#include "hc_slot_write.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "hc_copy.h"
#include "hc_util.h"

/* Cached writes this many times slower than a private copy mean each line waited for its
 * invalidation elsewhere. On the development VM they ran 1-5x slower where the cores share
 * a cache (up to 12x for the first cached write after streamed ones, which must fetch every
 * line back) and 45-56x slower where they do not, with phases between. Streaming wrongly
 * costs at most twice a call's time, cached stores wrongly ten times: so the bar is low. */
#define HC_SLOT_WRITE_SLOW_FACTOR 8.0
#define HC_SLOT_WRITE_PROBE_FIRST 16u
#define HC_SLOT_WRITE_PROBE_MAX 1024u
#define HC_SLOT_WRITE_CALIBRATE_BYTES ((size_t)256 << 10)

/* A cached copy between private buffers, in ns per byte: a property of the core, measured
 * once a process at the first timed write (measured for every communicator it cost each
 * new one 0.1-0.2 ms in page faults and copies); -1 where no buffer could be had. */
static double private_ns_per_byte;
static pthread_once_t private_once = PTHREAD_ONCE_INIT;

static void measure_private_copy(void)
{
    size_t n = HC_SLOT_WRITE_CALIBRATE_BYTES;
    char *a = malloc(2 * n);
    if (!a) {
        private_ns_per_byte = -1; /* never judged slow: always cached */
        return;
    }
    memset(a, 1, 2 * n);
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 4; i++) {
        uint64_t t0 = hc_now_ns();
        memcpy(a + n, a, n);
        atomic_signal_fence(memory_order_seq_cst);
        uint64_t t = hc_now_ns() - t0;
        best = HC_MIN(best, t);
    }
    free(a);
    /* a clock too coarse to see the copy: no reference, every write cached */
    private_ns_per_byte = best > 0 ? (double)best / (double)n : -1;
}

void hc_slot_writer_init(hc_slot_writer *w)
{
    memset(w, 0, sizeof *w);
    w->probe_every = HC_SLOT_WRITE_PROBE_FIRST;
}

void hc_slot_write(hc_slot_writer *w, void *dst, const void *src, size_t bytes)
{
    if (bytes >= HC_SLOT_WRITE_TIMED_MIN && w->private_ns_per_byte == 0) {
        pthread_once(&private_once, measure_private_copy);
        w->private_ns_per_byte = private_ns_per_byte;
    }
    if (bytes < HC_SLOT_WRITE_TIMED_MIN || w->private_ns_per_byte < 0) {
        memcpy(dst, src, bytes);
        return;
    }
    if (w->stream && ++w->streamed < w->probe_every) {
        hc_copy_nt(dst, src, bytes);
        return;
    }
    uint64_t t0 = hc_now_ns();
    memcpy(dst, src, bytes);
    atomic_signal_fence(memory_order_seq_cst);
    double ns_per_byte = (double)(hc_now_ns() - t0) / (double)bytes;
    int slow = ns_per_byte > HC_SLOT_WRITE_SLOW_FACTOR * w->private_ns_per_byte;
    /* The same answer twice: ask less often; a change: ask soon again. */
    if (slow == w->stream)
        w->probe_every = HC_MIN(2 * w->probe_every, HC_SLOT_WRITE_PROBE_MAX);
    else
        w->probe_every = HC_SLOT_WRITE_PROBE_FIRST;
    w->stream = slow;
    w->streamed = 0;
}
