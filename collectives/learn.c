/* The learner's schedule and decisions (learn.h). The numbers trade how soon a key settles
 * against what its trials cost; docs/tuning.md ("Learning") gives the measurements.
 *
 * - A key runs its starting choice for its first HC_LEARN_WARM_CALLS calls: a site called a
 *   handful of times keeps the static rule, and the first calls (which fault pages in and
 *   create shared segments) are not held against anyone. Where the caller knows its calls
 *   are long (hc_learn_long_calls), a handful is counted in rounds: the first round waits
 *   until the key has made twice the calls of a round (32 with four candidates), so a site
 *   of a few dozen calls of a megabyte and more, whose every trial of a slower path costs
 *   milliseconds, keeps the static rule, and one that goes on spends at most a third of
 *   its calls up to the round's end on it.
 * - A TRY round runs every candidate in blocks of e->block calls (HC_LEARN_TRY_BLOCK, 2
 *   where the calls are long, 8 where they settle slowly), TRY_PASSES times round, the
 *   first block of each round going to the next candidate in turn: the machine's drift (2x
 *   within minutes here) then falls on all of them. The first call of a block (the first two
 *   of a block of 8) is not timed: it pays for the switch from another algorithm (cold
 *   lines, a path's first use: MPICH's own broadcast takes its fast path only from a
 *   communicator's sixth collective, and a first single copy maps the peers), which is not
 *   what the algorithm costs in a loop.
 * - The median of a candidate's samples decides (where ranks agree, their trimmed mean:
 *   hc_learn_means); the choice changes only for a gain of more
 *   than KEEP_MARGIN, so two equal algorithms do not alternate by noise, and where one rank
 *   decides, only for a candidate whose calls were clearly the faster ones (CLEAR_WINS).
 * - A key may start with what others measured at its site and size (hc_learn_prior: the
 *   broadcast's new root, from the node's board): their hopeless ones (never its starting
 *   choice) out of its first round, their times as last measured, so that checks skip those
 *   three times in four as they skip what the key found hopeless itself.
 * - SETTLED: a CHECK (each candidate one block) after FIRST_CHECK calls, then twice as far
 *   apart while the choice holds, up to MAX_GAP (a site that changes behaviour is noticed
 *   within that many calls; a rank deciding alone also watches its choice's own time every
 *   HC_LEARN_WATCH_EVERY calls, or every HC_LEARN_WATCH_SPAN_US of calls where they are
 *   short, and starts a TRY when it moves by WATCH_FACTOR; its checks then may grow
 *   GAP_WATCHES watches apart; where ranks agree, AGREED_GAP_SPAN_US of calls apart). A
 *   CHECK that finds a better candidate opens a full TRY round before anything changes. */
#include "learn.h"

#include <stdlib.h>
#include <string.h>

#define TRY_PASSES 2
#define KEEP_MARGIN 0.03
#define CHECK_MARGIN 0.10
#define FIRST_CHECK 128
#define MAX_GAP_LOCAL 4096
/* Where a rank deciding alone watches its choice further apart than every 256th call (calls
 * shorter than 0.25 us), its checks may grow this many watches apart: sixteen watches fit
 * between two checks, and a check's round, whose every switch to another algorithm costs a
 * few microseconds, comes once a millisecond or so instead of every 4096 calls (at 8 bytes,
 * under Open MPI, whose own broadcast is a candidate there, checks every 4096 calls cost
 * about 2% of a 65 ns call: docs/tuning.md). */
#define GAP_WATCHES 16
#define MAX_GAP_AGREED 1024
/* Where ranks agree, checks may also grow this far apart in time where 1024 calls take less
 * (from the agreed time the choice settled with, the same on every rank), up to
 * MAX_GAP_AGREED_CALLS: a check runs each candidate a block and agrees once more, and every
 * 1024th call of an 8-byte allreduce that cost 5% of the call in a tight loop (a switch to
 * the vendor's and back costs microseconds; docs/tuning.md). */
#define AGREED_GAP_SPAN_US 2048.0
#define MAX_GAP_AGREED_CALLS 16384
#define WATCH_FACTOR 1.4
/* A candidate slower than this many times the best after its first block sits out the rest
 * of the round (only where one rank decides: the others cannot know to skip it), and one
 * that was this much slower when last measured takes part in one CHECK in four only. */
#define HOPELESS 2.0
#define HOPELESS_CHECK_EVERY 4
/* A choice that runs slower in a loop than its round measured it may look better in a round
 * than it is: Open MPI's own broadcast at 64 bytes looks as fast as the queue in a block of
 * four calls and is 1.44x slower in a loop, and the learner switched 682 times in a million
 * calls, each check choosing it again (docs/tuning.md). Each time a full round (opened by a
 * watch or a check that saw the choice's time move) finds the choice 40% slower than it
 * settled with, it takes part in half as many checks once it is out of use, down to one in
 * 2^OVERRATED_MAX; a full round still tries every candidate, and a round or four watches
 * that find the choice as measured forget its past. The price: a candidate at the bottom
 * that later becomes the fastest is seen by one check in 64 (up to a million calls of a
 * broadcast), unless the choice's own time moves meanwhile. */
#define OVERRATED_MAX 6
/* The share of pairs of samples a candidate must win to replace the choice where one rank
 * decides and the choice's calls are shorter than CLEAR_WINS_BELOW_US (clearly_faster): two
 * equal candidates win half, give or take an eighth with the six samples each of a round.
 * Longer calls are timed well and their samples may fall in two groups (in a stream, a call
 * that waits for the one before): at 64 KiB under Open MPI the single copy's were, 1.75x
 * faster than the queue's by their medians, and the test kept the queue (docs/tuning.md). */
#define CLEAR_WINS 0.75
#define CLEAR_WINS_BELOW_US 1.0
/* Calls a rank deciding alone waits for the round's last samples before it decides with what
 * it has: they come back when its readers are done, and a root may run up to its 64 cells
 * ahead of them (with more ranks than cores they do fall that far behind). */
#define WAIT_CALLS 64
/* Where ranks agree, a candidate's time is the mean of its samples (hc_learn_means): without
 * those above OUTLIER_FACTOR times their median (a rank descheduled for a slice: 100x and
 * more, where a loop's waits alternate within about 10x), and without the lowest and the
 * highest where MEAN_TRIM_FROM remain. */
#define OUTLIER_FACTOR 16.0
#define MEAN_TRIM_FROM 5

const char *const hc_origin_names[] = {"info key", "variable", "tuning file",
                                       "learned in an earlier run", "learned", "built-in rule"};

int hc_size_class(uint64_t bytes)
{
    return bytes > 1 ? 63 - __builtin_clzll(bytes) : 0;
}

void hc_learn_init(hc_learn_entry *e, hc_learn_key key, const int *cand, int ncand, int start,
                   int origin, int local)
{
    hc_learn_entry *next = e->next;
    memset(e, 0, sizeof *e);
    e->next = next;
    e->key = key;
    e->ncand = ncand < HC_LEARN_MAXCAND ? ncand : HC_LEARN_MAXCAND;
    memcpy(e->cand, cand, sizeof(int) * (size_t)e->ncand);
    e->current = start >= 0 && start < e->ncand ? start : 0;
    e->origin = origin;
    e->local = local;
    e->block = HC_LEARN_TRY_BLOCK;
    e->untimed = 1;
    e->warm = HC_LEARN_WARM_CALLS;
    e->check_gap = FIRST_CHECK;
    e->watch_every = HC_LEARN_WATCH_EVERY;
    e->phase = HC_LEARN_WARM;
    e->ahead = -1;
    if (origin == HC_ORIGIN_SAVED) { /* an earlier run settled it: check it, do not redo it */
        e->phase = HC_LEARN_SETTLED;
        e->next_check = FIRST_CHECK;
    }
}

static int passes_of(int phase) { return phase == HC_LEARN_TRY ? TRY_PASSES : 1; }

int hc_learn_long_calls(hc_learn_entry *e)
{
    if (((uint64_t)1 << e->key.sclass) < HC_LEARN_LONG_CALLS_FROM)
        return 0;
    e->block = 2;
    int round = e->ncand * e->block * TRY_PASSES;
    e->warm = 2 * round > HC_LEARN_WARM_CALLS ? 2 * round : HC_LEARN_WARM_CALLS;
    return 1;
}

void hc_learn_settling_calls(hc_learn_entry *e)
{
    e->block = 8;
    e->untimed = 2;
}

/* A round whose first call is call number `first` (0-based) at this key. */
static void start_round(hc_learn_entry *e, int phase, uint64_t first)
{
    e->phase = e->round_kind = phase;
    e->round_start = first;
    e->round_len = e->ncand * e->block * passes_of(phase);
    e->round_first = (e->round_first + 1) % e->ncand;
    memset(e->dropped, 0, sizeof e->dropped);
    memset(e->nsample, 0, sizeof e->nsample);
    if (phase == HC_LEARN_TRY && e->prior_out) { /* the key's first round, with others' times */
        for (int i = 0; i < e->ncand; i++)
            e->dropped[i] = (e->prior_out >> i) & 1u;
        e->prior_out = 0;
        return;
    }
    /* A check need not time again, every time, what was far slower when last measured.
     * Where ranks agree, the times compared are the agreed ones and every rank counts the
     * same checks: all skip alike. */
    if (phase != HC_LEARN_CHECK)
        return;
    ++e->checks;
    for (int i = 0; i < e->ncand; i++) {
        if (i == e->current)
            continue;
        if (e->checks % HOPELESS_CHECK_EVERY != 0)
            e->dropped[i] = e->time[i] > HOPELESS * e->time[e->current] &&
                            e->time[e->current] > 0;
        if (e->checks % (1u << e->overrated[i]) != 0)
            e->dropped[i] = 1;
    }
}

/* The starting choice stays, and is timed in the first round whatever the others measured:
 * on a fresh communicator a root's first round timed the queue at 59 us (its first calls fault
 * its pages in) against the vendor's 7, and a new root that took that as its own started on
 * the vendor and left the queue out, 2.6x the queue's time for its 200 calls. */
int hc_learn_prior(hc_learn_entry *e, const double *t)
{
    int best = -1;
    for (int i = 0; i < e->ncand; i++)
        if (t[i] > 0) {
            e->time[i] = t[i];
            e->borrowed |= 1u << i;
            if (best < 0 || t[i] < t[best])
                best = i;
        }
    if (best < 0)
        return 0;
    for (int i = 0; i < e->ncand; i++)
        if (i != e->current && t[i] > HOPELESS * t[best])
            e->prior_out |= 1u << i;
    return 1;
}

int hc_learn_pick(hc_learn_entry *e, int *measure)
{
    *measure = 0;
    e->calls++;
    if (e->ncand < 2)
        return e->current;
    switch (e->phase) {
    case HC_LEARN_WARM:
        if (e->calls <= (uint64_t)e->warm)
            return e->current;
        start_round(e, HC_LEARN_TRY, e->calls - 1);
        break;
    case HC_LEARN_SETTLED:
        if (e->retry || e->calls >= e->next_check) {
            start_round(e, e->retry ? HC_LEARN_TRY : HC_LEARN_CHECK, e->calls - 1);
            e->retry = 0;
            break;
        }
        /* the watched call and the one before it, whose end it counts from */
        if (e->local && ++e->watch_calls >= e->watch_every - 1) {
            *measure = e->watch_calls >= e->watch_every ? HC_LEARN_SAMPLE : HC_LEARN_STAMP;
            if (*measure == HC_LEARN_SAMPLE)
                e->watch_calls = 0;
        }
        return e->current;
    case HC_LEARN_WAIT:
        return e->current;
    default:
        break;
    }
    uint64_t p = e->calls - 1 - e->round_start;
    if (p >= (uint64_t)e->round_len) {
        e->phase = HC_LEARN_WAIT;
        return e->current;
    }
    uint64_t block = (uint64_t)e->block;
    int i = (int)((p / block + (uint64_t)e->round_first) % (uint64_t)e->ncand);
    if (e->dropped[i])
        return e->current;
    /* The block's first calls warm the path: only their ends are stamped. */
    *measure = p % block >= (uint64_t)e->untimed ? HC_LEARN_SAMPLE : HC_LEARN_STAMP;
    return i;
}

int hc_learn_block_left(const hc_learn_entry *e)
{
    if (e->phase != HC_LEARN_TRY && e->phase != HC_LEARN_CHECK)
        return 0;
    uint64_t p = e->calls - 1 - e->round_start;
    if (p >= (uint64_t)e->round_len)
        return 0;
    uint64_t block = (uint64_t)e->block;
    int i = (int)((p / block + (uint64_t)e->round_first) % (uint64_t)e->ncand);
    return e->dropped[i] ? 0 : (int)(block - 1 - p % block);
}

static double median_of(const float *s, int n)
{
    float v[HC_LEARN_SAMPLES];
    memcpy(v, s, sizeof(float) * (size_t)n);
    for (int a = 1; a < n; a++) /* insertion sort: at most 8 */
        for (int b = a; b > 0 && v[b] < v[b - 1]; b--) {
            float t = v[b];
            v[b] = v[b - 1];
            v[b - 1] = t;
        }
    return n ? (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2])) : 0;
}

/* After two timed calls of every candidate: those hopelessly slower than the best, on the
 * better of their two, sit out. */
static void drop_hopeless(hc_learn_entry *e)
{
    double best = 0, own[HC_LEARN_MAXCAND];
    for (int i = 0; i < e->ncand; i++) {
        if (e->dropped[i]) /* out of the round already, untimed */
            continue;
        own[i] = e->sample[i][0] < e->sample[i][1] ? e->sample[i][0] : e->sample[i][1];
        if (best == 0 || own[i] < best)
            best = own[i];
    }
    for (int i = 0; i < e->ncand; i++)
        if (i != e->current && !e->dropped[i] && own[i] > HOPELESS * best)
            e->dropped[i] = 1;
}

/* Whether candidate a's calls in this round were clearly faster than b's: a's sample is the
 * faster in at least CLEAR_WINS of all pairs (one sample of each; fewer than two samples of
 * either: the medians alone decide). Calls of a tenth of a microsecond are timed no finer
 * than their noise (the clock, the readers' stamps crossing cores): at 512 bytes the medians
 * of the queue and its direct reads changed places from round to round, and the choice with
 * them, 2261-2273 times in a million calls (docs/tuning.md). Only where one rank decides:
 * its samples are its own. */
static int clearly_faster(const hc_learn_entry *e, int a, int b)
{
    int na = e->nsample[a], nb = e->nsample[b];
    if (na < 2 || nb < 2)
        return 1;
    double wins = 0;
    for (int x = 0; x < na; x++)
        for (int y = 0; y < nb; y++)
            wins += e->sample[a][x] < e->sample[b][y]    ? 1
                    : e->sample[a][x] == e->sample[b][y] ? 0.5
                                                         : 0;
    return wins >= CLEAR_WINS * na * nb;
}

/* What the choice's time, measured again as the choice (a full round, or a watch's four
 * calls that find it as measured), says of how its round measured it (OVERRATED_MAX):
 * slower by WATCH_FACTOR, or as measured. */
static void overrated(hc_learn_entry *e, int choice, int slower)
{
    if (!slower)
        e->overrated[choice] = 0;
    else if (e->overrated[choice] < OVERRATED_MAX)
        e->overrated[choice]++;
}

/* Calls between watched ones for a choice that takes `us` a call (0: not measured). */
static uint32_t watch_interval(double us)
{
    double span = us > 0 ? HC_LEARN_WATCH_SPAN_US / us : 0;
    if (span <= HC_LEARN_WATCH_EVERY)
        return HC_LEARN_WATCH_EVERY;
    return span >= HC_LEARN_WATCH_EVERY_MAX ? HC_LEARN_WATCH_EVERY_MAX : (uint32_t)span;
}

/* The longest gap between checks. It follows the choice's time one round late: from
 * watch_every and settled_us as the last settle left them. */
static uint64_t check_gap_cap(const hc_learn_entry *e)
{
    if (e->local)
        return e->watch_every * GAP_WATCHES > MAX_GAP_LOCAL
                   ? (uint64_t)e->watch_every * GAP_WATCHES
                   : MAX_GAP_LOCAL;
    double span = e->settled_us > 0 ? AGREED_GAP_SPAN_US / e->settled_us : 0;
    if (span <= MAX_GAP_AGREED)
        return MAX_GAP_AGREED;
    return span >= MAX_GAP_AGREED_CALLS ? MAX_GAP_AGREED_CALLS : (uint64_t)span;
}

void hc_learn_sample(hc_learn_entry *e, int i, double us)
{
    if (i < 0 || i >= e->ncand || us <= 0)
        return;
    if (e->phase == HC_LEARN_SETTLED) {
        if (i != e->current)
            return;
        e->watch[e->nwatch++ % 4] = (float)us;
        if (e->nwatch >= 4 && e->settled_us > 0) {
            double m = median_of(e->watch, 4);
            if (m > WATCH_FACTOR * e->settled_us || m * WATCH_FACTOR < e->settled_us) {
                e->nwatch = 0;
                /* The choice's time moved: the next call opens a TRY. The checks stay as
                 * far apart as they were unless that round changes the choice (decide): a
                 * loop's calls time apart from a round's blocks, and at 16 KiB rounds that
                 * kept the choice sent checks back to every 128 calls 45 times in 100,000. */
                e->retry = 1;
            } else if (e->nwatch % 4 == 0) {
                overrated(e, i, 0);
            }
        }
        return;
    }
    if (e->nsample[i] < HC_LEARN_SAMPLES)
        e->sample[i][e->nsample[i]++] = (float)us;
    if (e->local && e->phase == HC_LEARN_TRY) {
        int twice = 0;
        for (int k = 0; k < e->ncand; k++)
            twice += e->nsample[k] >= 2 || e->dropped[k];
        if (twice == e->ncand && e->nsample[i] == 2)
            drop_hopeless(e);
    }
}

int hc_learn_round_over(const hc_learn_entry *e)
{
    if (e->phase != HC_LEARN_TRY && e->phase != HC_LEARN_CHECK && e->phase != HC_LEARN_WAIT)
        return 0;
    if (e->calls - e->round_start < (uint64_t)e->round_len)
        return 0;
    if (!e->local)
        return 1;
    /* Deciding alone, samples come back late: wait for them, a few calls at most. */
    int expect = (e->block - e->untimed) * passes_of(e->round_kind);
    int complete = 1;
    for (int i = 0; i < e->ncand; i++)
        complete &= e->dropped[i] || e->nsample[i] >= (expect > 1 ? expect - 1 : expect);
    return complete || e->calls - e->round_start >= (uint64_t)e->round_len + WAIT_CALLS;
}

void hc_learn_medians(const hc_learn_entry *e, double *t)
{
    for (int i = 0; i < e->ncand; i++)
        t[i] = median_of(e->sample[i], e->nsample[i]);
}

void hc_learn_means(const hc_learn_entry *e, double *t)
{
    for (int i = 0; i < e->ncand; i++) {
        double limit = OUTLIER_FACTOR * median_of(e->sample[i], e->nsample[i]);
        int n = 0;
        double sum = 0, lo = 0, hi = 0;
        for (int k = 0; k < e->nsample[i]; k++) {
            double s = e->sample[i][k];
            if (s > limit)
                continue;
            sum += s;
            lo = n == 0 || s < lo ? s : lo;
            hi = n == 0 || s > hi ? s : hi;
            n++;
        }
        if (n >= MEAN_TRIM_FROM) {
            sum -= lo + hi;
            n -= 2;
        }
        t[i] = n ? sum / n : 0;
    }
}

int hc_learn_decide(hc_learn_entry *e, const double *t)
{
    int was_try = e->round_kind == HC_LEARN_TRY;
    int best = e->current;
    if (t[e->current] <= 0) { /* the choice in use went unmeasured: nothing to compare with */
        e->phase = HC_LEARN_SETTLED;
        e->next_check = e->calls + e->check_gap;
        return 0;
    }
    for (int i = 0; i < e->ncand; i++) {
        if (t[i] > 0) {
            e->time[i] = t[i];
            e->borrowed &= ~(1u << i);
        }
        if (t[i] > 0 && (t[best] <= 0 || t[i] < t[best]))
            best = i;
    }
    uint64_t cap = check_gap_cap(e);
    int old = e->current, changed = 0;
    double margin = was_try ? KEEP_MARGIN : CHECK_MARGIN;
    if (best != e->current && t[e->current] > 0 && t[best] > t[e->current] * (1 - margin))
        best = e->current; /* within the noise: keep what runs */
    if (best != e->current && e->local && t[e->current] < CLEAR_WINS_BELOW_US &&
        !clearly_faster(e, best, e->current))
        best = e->current;
    /* A CHECK saw a better candidate, or the choice's own time moved as far as the watch
     * would notice (where ranks agree, nothing watches between checks, and a check may have
     * skipped what was hopeless before): a full round before anything changes. */
    int moved = e->settled_us > 0 && (t[old] > WATCH_FACTOR * e->settled_us ||
                                      t[old] * WATCH_FACTOR < e->settled_us);
    if (was_try) /* a check that saw it opens the round that counts it, once */
        overrated(e, old, moved && t[old] > e->settled_us);
    if (!was_try && (best != old || moved)) {
        start_round(e, HC_LEARN_TRY, e->calls);
        return 0;
    }
    if (best != old) {
        e->current = best;
        e->changes++;
        e->announced = 0;
        changed = 1;
        e->check_gap = FIRST_CHECK;
    } else if (!was_try) {
        e->check_gap = (uint32_t)(e->check_gap * 2 > cap ? cap : e->check_gap * 2);
    }
    if (was_try)
        e->origin = HC_ORIGIN_LEARNED;
    e->settled_us = t[e->current] > 0 ? t[e->current] : e->settled_us;
    e->phase = HC_LEARN_SETTLED;
    e->next_check = e->calls + e->check_gap;
    e->nwatch = 0;
    e->watch_calls = 0;
    e->watch_every = watch_interval(e->settled_us);
    return changed;
}

/* --- the table ------------------------------------------------------------------------ */

/* Sites, roots and size classes seen at one communicator stay few; the cap keeps a program
 * that calls from ever new sizes or sites from growing the table without end (further keys
 * keep the starting choice). */
#define MAX_ENTRIES 4096

static size_t hash_key(hc_learn_key k, int nbuckets)
{
    uint64_t h = (uint64_t)k.site * 0x9e3779b97f4a7c15ull ^ (uint64_t)(k.root + 1) * 0xc2b2ae35u ^
                 (uint64_t)k.sclass * 0x27d4eb2fu;
    return (size_t)((h ^ h >> 29) % (uint64_t)nbuckets);
}

static int same_key(hc_learn_key a, hc_learn_key b)
{
    return a.site == b.site && a.root == b.root && a.sclass == b.sclass;
}

hc_learn_entry *hc_learn_find(hc_learn_table *t, hc_learn_key key)
{
    if (!t->bucket)
        return NULL;
    for (hc_learn_entry *e = t->bucket[hash_key(key, t->nbuckets)]; e; e = e->next)
        if (same_key(e->key, key))
            return e;
    return NULL;
}

hc_learn_entry *hc_learn_add(hc_learn_table *t, hc_learn_key key)
{
    if (t->count >= MAX_ENTRIES)
        return NULL;
    if (!t->bucket) {
        t->nbuckets = 256;
        t->bucket = calloc((size_t)t->nbuckets, sizeof *t->bucket);
        if (!t->bucket)
            return NULL;
    }
    hc_learn_entry *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->key = key;
    size_t b = hash_key(key, t->nbuckets);
    e->next = t->bucket[b];
    t->bucket[b] = e;
    t->count++;
    return e;
}

void hc_learn_table_free(hc_learn_table *t)
{
    for (int b = 0; t->bucket && b < t->nbuckets; b++)
        for (hc_learn_entry *e = t->bucket[b], *n; e; e = n) {
            n = e->next;
            free(e);
        }
    free(t->bucket);
    t->bucket = NULL;
    t->count = 0;
    memset(t->recent, 0, sizeof t->recent);
}

void hc_learn_each(hc_learn_table *t, void (*fn)(hc_learn_entry *e, void *arg), void *arg)
{
    for (int b = 0; t->bucket && b < t->nbuckets; b++)
        for (hc_learn_entry *e = t->bucket[b]; e; e = e->next)
            fn(e, arg);
}
