/* What the node's roots measured, for one another (docs/tuning.md, "A new root starts from
 * what the node's other roots measured"). Each node-local root learns alone, per call site,
 * root and size class; a program whose root moves (a panel broadcast whose root rotates, a
 * root that changes half way) gives the new root a key it has never seen, and its first round
 * timed every candidate again: at 16 KiB MPICH's broadcast from rank 1, 15 us a call against
 * the queue's 0.8, made the 200 calls after the root moved 1.8-2.4x the queue's, 1.1-1.6x
 * with the board (hiercoll-rootmoves, in two hours). After each round a root writes its
 * times on its board (its own region: one writer, no lock); a root meeting a key for the
 * first time reads every board of the node for the same site and size class. */
#include <pthread.h>
#include <string.h>

#include "bcast_plan.h"
#include "hc_site.h"
#include "hc_util.h"

/* Naming a site takes 3-6 us in the main program and 20 us in libc (dladdr's symbol search,
 * /proc/self/exe): each process keeps the names of its last sites, so a root meeting the same
 * site on another communicator, with another root or size, does not pay again. Named once per
 * communicator, it cost a 200-call half of 1 KiB broadcasts on a fresh communicator 10%. */
#define NAMED_SITES 32
static struct {
    uintptr_t pc;
    uint64_t name;
} named[NAMED_SITES];
static pthread_mutex_t named_lock = PTHREAD_MUTEX_INITIALIZER;

uint64_t hc_bboard_site(uintptr_t site)
{
    size_t slot = (size_t)(hc_fnv_add(HC_FNV_START, site) % NAMED_SITES);
    uint64_t h = 0;
    pthread_mutex_lock(&named_lock);
    if (site && named[slot].pc == site)
        h = named[slot].name;
    pthread_mutex_unlock(&named_lock);
    if (h)
        return h;
    char key[600];
    hc_site_key(site, key, sizeof key);
    h = HC_FNV_START;
    for (const char *p = key; *p; p++)
        h = hc_fnv_add(h, (unsigned char)*p);
    h = h ? h : 1; /* 0 means none */
    pthread_mutex_lock(&named_lock);
    named[slot].pc = site;
    named[slot].name = h;
    pthread_mutex_unlock(&named_lock);
    return h;
}

static hc_bboard_slot *slot_of(const hc_bstate *st, int r, uint64_t site, int sclass)
{
    uint64_t h = hc_fnv_add(site, (uint64_t)sclass);
    return hc_bboard_of(st, r) + (h ^ h >> 32) % HC_BBOARD_SLOTS;
}

/* Whether slot s holds the times of e's site and size class. */
static int holds(const hc_bboard_slot *s, const hc_learn_entry *e)
{
    return atomic_load_explicit(&s->site, memory_order_relaxed) == e->shared_site &&
           atomic_load_explicit(&s->sclass, memory_order_relaxed) == e->key.sclass;
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
    int same = holds(s, e);
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
        int same = holds(s, e);
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
