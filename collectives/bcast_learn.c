/* What a broadcast's node-local root learns, and how it times its calls.
 *
 * A call costs the program the time from the end of its previous call at the same key (when
 * its slowest reader was done) to the end of this one: what runs between them (the program's
 * own work, the root's rewriting of its buffer) pays for side effects an algorithm leaves in
 * the caches, and a single copy out of a buffer the root then rewrites costs it dearly there
 * (docs/tuning.md, Learning). The time between the calls counts up to HC_LEARN_GAP_CAP times
 * the call's own (entry to the slowest reader's end): in the bench's latency patterns, 800 us
 * of checking around a 25-50 us call made the learner pick either of two algorithms 2x apart
 * when all of it counted. Samples are taken in blocks of consecutive calls of one
 * algorithm, so the previous call is the key's own. Where it is not (the key's first call of a
 * block follows another key's), the call counts from the root's entry, or from when the
 * readers left the call before if they were later. Readers of a timed call (its cells carry
 * HC_BCELL_MEASURE) stamp their end in their stamp ring (hc_bshm_finish); the root reads the
 * stamps back at its next call, so timing adds no wait and no message. Only timed calls cost
 * a clock read on each rank. */
#include <stdatomic.h>
#include <stdlib.h>

#include "bcast_plan.h"
#include "hc_util.h"

/* Timed calls whose stamps are not all back yet: a root may run as many calls ahead of its
 * slowest reader as it has cells (64), and with more ranks than cores readers do lag that far. */
#define PENDING_MAX 64

typedef struct pending {
    hc_learn_entry *e;
    int cand, follows; /* follows: the call before was the key's own */
    uint64_t t0, g_first, g_last;
} pending;

struct hc_blearn {
    hc_learn_table table;
    pending pend[PENDING_MAX];
    int npend;
};

static struct hc_blearn *learn_of(hc_bstate *st)
{
    if (!st->learn)
        st->learn = calloc(1, sizeof *st->learn);
    return st->learn;
}

hc_learn_table *hc_blearn_table(hc_bstate *st)
{
    struct hc_blearn *l = learn_of(st);
    return l ? &l->table : NULL;
}

void hc_blearn_free(hc_bstate *st)
{
    if (!st->learn)
        return;
    hc_learn_table_free(&st->learn->table);
    free(st->learn);
    st->learn = NULL;
}

/* The latest stamp of fragment g among my readers: 1 with *ns when all have stamped it, 0 when
 * some have not yet, -1 when a later timed call has overwritten some stamp (too late). */
static int readers_done(hc_bstate *st, uint64_t g, uint64_t *ns)
{
    *ns = 0;
    for (int r = 0; r < st->n; r++) {
        if (r == st->me)
            continue;
        hc_bstamp *s = hc_bstamp_of(st, r, g);
        uint64_t g1 = atomic_load_explicit(&s->g1, memory_order_acquire);
        if (g1 < g + 1)
            return 0;
        if (g1 > g + 1)
            return -1;
        *ns = s->ns > *ns ? s->ns : *ns;
    }
    return 1;
}

int hc_blearn_pending(const hc_bstate *st) { return st->learn->npend; }

void hc_blearn_collect_pending(hc_bstate *st)
{
    struct hc_blearn *l = st->learn;
    int kept = 0;
    for (int i = 0; i < l->npend; i++) {
        pending *p = &l->pend[i];
        uint64_t end, before;
        int done = readers_done(st, p->g_last, &end);
        if (done == 0) {
            l->pend[kept++] = *p;
            continue;
        }
        if (done < 0)
            continue;
        if (end <= p->t0)
            continue;
        uint64_t start = p->t0, own = end - p->t0;
        if (p->g_first > 0 && readers_done(st, p->g_first - 1, &before) == 1) {
            if (p->follows && before < start)
                start = p->t0 - HC_MIN(p->t0 - before, HC_LEARN_GAP_CAP * own);
            else if (before > start && before < end)
                start = before;
        }
        hc_learn_sample(p->e, p->cand, (double)(end - start) / 1e3);
    }
    l->npend = kept;
}

void hc_blearn_after(hc_bstate *st, hc_learn_entry *e, int cand, uint64_t t0_ns,
                     uint64_t g_first, uint64_t g_last)
{
    struct hc_blearn *l = st->learn;
    if (!l || st->n < 2)
        return;
    if (l->npend == PENDING_MAX) { /* the oldest is given up: its readers are far behind */
        for (int i = 1; i < PENDING_MAX; i++)
            l->pend[i - 1] = l->pend[i];
        l->npend--;
    }
    l->pend[l->npend++] = (pending){e, cand, e->last_end == g_first, t0_ns, g_first, g_last};
}
