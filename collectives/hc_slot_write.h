/* Writing shared-memory lines that other cores have read, as a collective's slots are
 * rewritten on every call. Such a store must first take the other cores' copies of each line
 * away. Between cores that share a cache that costs next to nothing; between cores in
 * different parts of the chip (AMD's core complexes, two sockets, a VM's virtual cores that
 * the host has placed apart) each line waits for its invalidation: on the development VM
 * such a copy ran 10-18x slower than a private one, in phases that come and go while a job
 * runs, while non-temporal stores, which do not wait line by line, stayed near a private
 * copy's speed in both (docs/algorithms-allreduce.md). Streaming has a price where the
 * cores share a cache: the readers then fetch the data from memory, and the allreduce took
 * about twice as long. So the writer measures: it copies with cached stores, compares their
 * speed with a private copy's, streams while they are slow, and tries cached stores again
 * after a number of streamed writes that doubles while the answer stays the same. */
#ifndef HC_SLOT_WRITE_H
#define HC_SLOT_WRITE_H

#include <stddef.h>
#include <stdint.h>

/* Writes below this many bytes are cached copies, not timed: too short to time reliably. */
#define HC_SLOT_WRITE_TIMED_MIN ((size_t)16 << 10)

typedef struct hc_slot_writer {
    double private_ns_per_byte; /* a private cached copy's; 0 until the first timed write,
                                   -1: not measured, every write cached */
    int stream;                 /* 1 while cached writes into shared lines are slow */
    unsigned streamed;          /* streamed writes since the last cached one */
    unsigned probe_every;       /* streamed writes between two cached ones */
} hc_slot_writer;

void hc_slot_writer_init(hc_slot_writer *w);

/* memcpy(dst, src, bytes) into lines other cores read; the stores are complete (fenced)
 * on return, so a release store after it publishes them. */
void hc_slot_write(hc_slot_writer *w, void *dst, const void *src, size_t bytes);

#endif
