/* What a broadcast's node-local root learns, and how it times its calls.
 *
 * A call costs what its slowest reader waits: from the moment the root entered (or, when the
 * readers were still busy with the call before, the moment the last of them finished it) to
 * the moment the last reader is done. Readers of a timed call (its cells carry
 * HC_BCELL_MEASURE) stamp that moment in their stamp ring (hc_bshm_finish); the root reads the
 * stamps back at its next call, so timing adds no wait and no message. Only timed calls cost
 * a clock read on each rank. */
#include <stdatomic.h>
#include <stdlib.h>

#include "bcast_plan.h"

/* Timed calls whose stamps are not all back yet: a root may run as many calls ahead of its
 * slowest reader as it has cells (64), and with more ranks than cores readers do lag that far. */
#define PENDING_MAX 64

typedef struct pending {
    hc_learn_entry *e;
    int cand;
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
        /* Readers still busy with the call before (timed too): count from when they left it. */
        uint64_t start = p->t0;
        if (p->g_first > 0 && readers_done(st, p->g_first - 1, &before) == 1 && before > start)
            start = before;
        if (end > start)
            hc_learn_sample(p->e, p->cand, (double)(end - start) / 1e3);
    }
    l->npend = kept;
}

void hc_blearn_after(hc_bstate *st, const hc_bcast_plan *p, uint64_t t0_ns, uint64_t g_first,
                     uint64_t g_last)
{
    struct hc_blearn *l = st->learn;
    if (!l || !p->measure || !p->learn || st->n < 2)
        return;
    if (l->npend == PENDING_MAX) { /* the oldest is given up: its readers are far behind */
        for (int i = 1; i < PENDING_MAX; i++)
            l->pend[i - 1] = l->pend[i];
        l->npend--;
    }
    l->pend[l->npend++] = (pending){p->learn, p->cand, t0_ns, g_first, g_last};
}
