/* What the node's roots measured, for one another (docs/tuning.md, "A new root starts from
 * what the node's other roots measured"). Each node-local root learns alone, per call site,
 * root and size class; a program whose root moves (a panel broadcast whose root rotates, a
 * root that changes half way) gives the new root a key it has never seen, and its first round
 * timed every candidate again: at 16 KiB MPICH's broadcast from rank 1, 15 us a call against
 * the queue's 0.8, made the 200 calls after the root moved 1.76x the queue's (1.13 with the
 * board, hiercoll-rootmoves). After each round a root writes its times on its board (its own
 * region: one writer, no lock); a root meeting a key for the first time reads every board of
 * the node for the same site and size class. */
#include <string.h>

#include "bcast_plan.h"
#include "hc_site.h"
#include "hc_util.h"

/* Naming a site takes 3-6 us in the main program and 20 us in libc (dladdr's symbol search):
 * the last one is kept, so a root that meets the same site with another root or size does
 * not pay again. */
uint64_t hc_bboard_site(hc_bstate *st, uintptr_t site)
{
    if (site && site == st->board_pc)
        return st->board_site;
    char key[600];
    hc_site_key(site, key, sizeof key);
    uint64_t h = HC_FNV_START;
    for (const char *p = key; *p; p++)
        h = hc_fnv_add(h, (unsigned char)*p);
    st->board_pc = site;
    st->board_site = h ? h : 1; /* 0 means none */
    return st->board_site;
}

static hc_bboard_slot *slot_of(const hc_bstate *st, int r, uint64_t site, int sclass)
{
    uint64_t h = hc_fnv_add(site, (uint64_t)sclass);
    return hc_bboard_of(st, r) + (h ^ h >> 32) % HC_BBOARD_SLOTS;
}

void hc_bboard_publish(hc_bstate *st, const hc_learn_entry *e, const double *t)
{
    if (st->failed || st->n < 2 || !e->shared_site)
        return;
    hc_bboard_slot *s = slot_of(st, st->me, e->shared_site, e->key.sclass);
    uint32_t seq = atomic_load_explicit(&s->seq, memory_order_relaxed);
    atomic_store_explicit(&s->seq, seq + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    /* the slot held another site or size: its times are not this key's */
    int same = atomic_load_explicit(&s->site, memory_order_relaxed) == e->shared_site &&
               atomic_load_explicit(&s->sclass, memory_order_relaxed) == e->key.sclass;
    for (int a = 0; !same && a < HC_BCAST_COUNT; a++)
        atomic_store_explicit(&s->ns[a], 0, memory_order_relaxed);
    atomic_store_explicit(&s->site, e->shared_site, memory_order_relaxed);
    atomic_store_explicit(&s->sclass, e->key.sclass, memory_order_relaxed);
    for (int i = 0; i < e->ncand; i++)
        if (t[i] > 0) {
            double ns = t[i] * 1e3 < 4e9 ? t[i] * 1e3 : 4e9;
            atomic_store_explicit(&s->ns[e->cand[i]], ns >= 1 ? (uint32_t)ns : 1,
                                  memory_order_relaxed);
        }
    atomic_store_explicit(&s->seq, seq + 2, memory_order_release);
}

/* Reads of a slot its owner was writing meanwhile before it is given up: the likeliest moment
 * to meet a new key is when the root has just moved, while the old root publishes the round
 * its last calls ended; a write takes a few stores. */
#define READ_TRIES 8

/* One board's times for the key, if its slot holds them. */
static int read_slot(const hc_bboard_slot *s, const hc_learn_entry *e, uint32_t *ns)
{
    for (int tries = 0; tries < READ_TRIES; tries++) {
        uint32_t seq = atomic_load_explicit(&s->seq, memory_order_acquire);
        if (seq & 1u)
            continue;
        int same = atomic_load_explicit(&s->site, memory_order_relaxed) == e->shared_site &&
                   atomic_load_explicit(&s->sclass, memory_order_relaxed) == e->key.sclass;
        for (int a = 0; a < HC_BCAST_COUNT; a++)
            ns[a] = atomic_load_explicit(&s->ns[a], memory_order_relaxed);
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&s->seq, memory_order_relaxed) == seq)
            return same;
    }
    return 0;
}

int hc_bboard_read(const hc_bstate *st, const hc_learn_entry *e, double *t)
{
    memset(t, 0, sizeof(double) * (size_t)e->ncand);
    if (st->failed || st->n < 2 || !e->shared_site)
        return 0;
    int found = 0;
    for (int r = 0; r < st->n; r++) {
        uint32_t ns[HC_BCAST_COUNT];
        if (!read_slot(slot_of(st, r, e->shared_site, e->key.sclass), e, ns))
            continue;
        /* each candidate at its best on any board: only what is slow everywhere sits out */
        for (int i = 0; i < e->ncand; i++) {
            double us = ns[e->cand[i]] / 1e3;
            if (us > 0 && (t[i] <= 0 || us < t[i])) {
                t[i] = us;
                found = 1;
            }
        }
    }
    return found;
}
