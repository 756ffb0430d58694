/* Learning in the run (docs/tuning.md, "Learning"): at a key that repeats the same call
 * (call site, root, size class), try each eligible algorithm on the program's own calls, settle
 * on the fastest, and keep checking. No MPI here: the collectives say which algorithms are
 * eligible, time the calls and, where several ranks must take the same decision, agree on the
 * times before hc_learn_decide (allreduce_learn.c); the broadcast's node-local root decides
 * alone (bcast_learn.c).
 *
 * A key's life: WARM (its first calls run the starting choice: a key called a handful of times
 * never pays for trials), TRY (every candidate in turn, in blocks of a few calls, several
 * rounds, so drift of the machine falls on all of them), SETTLED (the fastest; every few
 * hundred calls a short CHECK of the others, further apart while the choice holds, and a
 * watch on the choice's own time that starts a new TRY when it moves). */
#ifndef HC_LEARN_H
#define HC_LEARN_H

#include <stddef.h>
#include <stdint.h>

#define HC_LEARN_MAXCAND 6
/* Samples kept per candidate in a round (their median or trimmed mean decides): two passes of blocks of 8
 * with 2 untimed give 12. */
#define HC_LEARN_SAMPLES 12

/* Where a plan came from, in the order the selector asks (docs/tuning.md). */
enum hc_origin {
    HC_ORIGIN_INFO,    /* the communicator's info key */
    HC_ORIGIN_VAR,     /* HIERCOLL_BCAST / HIERCOLL_ALLREDUCE */
    HC_ORIGIN_FILE,    /* a rule of the tuning file */
    HC_ORIGIN_SAVED,   /* learned by an earlier run, still checked */
    HC_ORIGIN_LEARNED, /* measured in this run */
    HC_ORIGIN_RULE,    /* the built-in rule */
};
extern const char *const hc_origin_names[];

enum hc_learn_phase { HC_LEARN_WARM, HC_LEARN_TRY, HC_LEARN_WAIT, HC_LEARN_SETTLED,
                      HC_LEARN_CHECK };

typedef struct hc_learn_key {
    uintptr_t site; /* the deciding rank's call site (0: none) */
    int root;       /* the root; for a collective without one, the kind of its call (the
                       allreduce: op and element size) */
    int sclass;     /* size class: floor(log2(bytes)) */
} hc_learn_key;

typedef struct hc_learn_entry {
    hc_learn_key key;
    struct hc_learn_entry *next; /* hash chain */
    int ncand;
    int cand[HC_LEARN_MAXCAND]; /* algorithms (HC_BCAST_* / HC_ALLREDUCE_*) */
    int current;                /* index in cand of the choice in use */
    int origin;                 /* where current came from */
    int phase;
    int local;                  /* decided by this rank alone: may drop a hopeless candidate
                                   in the middle of a round */
    int block;                  /* calls per candidate's block in a round: HC_LEARN_TRY_BLOCK,
                                   2 where calls are long, 8 where they settle slowly */
    int untimed;                /* of which the first ones are not timed: 1, or 2 */
    int warm;                   /* calls of the starting choice before the first round:
                                   HC_LEARN_WARM_CALLS, or more where calls are long */
    uint64_t calls;             /* calls at this key */
    uint64_t round_start;       /* calls when the current round began */
    int round_kind;             /* HC_LEARN_TRY or HC_LEARN_CHECK: the round under way */
    int round_len, round_first; /* calls in the round; candidate that opened it */
    unsigned char dropped[HC_LEARN_MAXCAND];
    float sample[HC_LEARN_MAXCAND][HC_LEARN_SAMPLES];
    unsigned char nsample[HC_LEARN_MAXCAND];
    /* What was measured last for each candidate (µs, its round's median or agreed mean) and
     * how many calls ran it: the report and the saved tuning file show them. */
    double time[HC_LEARN_MAXCAND];
    uint64_t runs[HC_LEARN_MAXCAND];
    uint64_t next_check;        /* calls at which the next CHECK begins */
    uint32_t check_gap;
    double settled_us;          /* the choice's time when it was settled */
    float watch[4];             /* the choice's latest times in SETTLED */
    int nwatch;
    uint64_t watch_calls;       /* calls since the last watched one */
    uint32_t watch_every;       /* calls from one watched call to the next */
    int retry;                  /* the watch saw the choice's time move: TRY again */
    unsigned checks;            /* CHECK rounds so far */
    int ahead, ahead_measure;   /* the next call's candidate, taken ahead (-1: not yet) */
    uint64_t quiet;             /* settled calls left that need nothing of the learner,
                                   already counted (hc_learn_quiet_begin) */
    uint64_t last_end;          /* the caller's mark of where the key's last call ended */
    int changes;                /* times the choice changed */
    unsigned char overrated[HC_LEARN_MAXCAND]; /* times a full round found the candidate, as
                                   the choice, slower than it settled with, since it last held
                                   (learn.c, OVERRATED_MAX) */
    uintptr_t seen_site;        /* where this rank called it from last (keys without a site) */
    uint64_t shared_site;       /* the caller's name of the site that other processes share
                                   (the broadcast's node board), 0: none */
    unsigned prior_out;         /* candidates (bits) that sit out the key's first round: others
                                   measured them hopeless at this site and size (hc_learn_prior) */
    unsigned borrowed;          /* candidates (bits) whose time[] others measured, not this key */
    int announced;              /* the verbose line for the current choice was printed */
} hc_learn_entry;

/* Calls before the first trial, and a trial block's calls (learn.c says why). */
#define HC_LEARN_WARM_CALLS 8
#define HC_LEARN_TRY_BLOCK 4

/* From this size on both collectives' calls count as long (hc_learn_long_calls): such a call
 * takes 0.05-0.5 ms on one node and 8 ms or more across hosts at 1 Gbit/s, so what a round of
 * trials costs counts, and a site of a few dozen such calls seldom repays it (the reasons
 * measured: allreduce_select.c, bcast_select.c). */
#define HC_LEARN_LONG_CALLS_FROM ((uint64_t)1 << 20)

/* Where calls are long (the key's size class from HC_LEARN_LONG_CALLS_FROM), trials cost
 * real time: blocks of two calls (one to switch, one timed), and the first round only once
 * the key has made twice the calls a round takes. Called after hc_learn_init, before the
 * key's first call; returns 1 when the key's calls are long (0: nothing changed). */
int hc_learn_long_calls(hc_learn_entry *e);

/* Where what a call costs depends on how the calls before it left the ranks (across hosts the
 * ranks leave an algorithm as far apart as the call lasts, and the next few calls inherit
 * that), trials in blocks of 8 calls, the first 2 untimed. Called like hc_learn_long_calls. */
void hc_learn_settling_calls(hc_learn_entry *e);

/* A key's entry starts with the candidates (cand[start] is the starting choice, from `origin`).
 * A saved choice (HC_ORIGIN_SAVED) starts SETTLED; otherwise WARM. */
void hc_learn_init(hc_learn_entry *e, hc_learn_key key, const int *cand, int ncand, int start,
                   int origin, int local);

/* What others measured at this key's site and size (t[i] for cand[i], µs; 0: not measured),
 * before the key's first call: a key of a new root leaves out of its first round the
 * candidates they found HOPELESS (learn.c), never its starting choice; their times count as
 * last measured, so checks skip those as they skip what the key itself found hopeless.
 * Returns 1 when t held a time. Not for a key started from a saved choice. */
int hc_learn_prior(hc_learn_entry *e, const double *t);

/* What the learner asks of a call (*measure): nothing, HC_LEARN_STAMP (time its end only: a
 * broadcast's readers stamp it, so the next call can count from when they were done), or
 * HC_LEARN_SAMPLE (time it and take the time as a sample). */
enum { HC_LEARN_NONE, HC_LEARN_STAMP, HC_LEARN_SAMPLE };

/* The candidate (index in e->cand) for the next call at e, and what to time of it. */
int hc_learn_pick(hc_learn_entry *e, int *measure);

/* A rank deciding alone times every this many calls of a settled choice (learn.c): every 16th
 * cost 5-10% at 8 bytes in the bench (the stamps travel between cores); every 64th, 0-5%.
 * Where 64 calls take less than HC_LEARN_WATCH_SPAN_US (settled_us), as far apart as that
 * span, up to HC_LEARN_WATCH_EVERY_MAX calls (four watches, which a check's round restarts,
 * must fit between checks: these then grow further apart too, learn.c): in a tight loop of
 * 8-byte broadcasts, every 64th cost 11%; every 640th-1024th, with the checks further
 * apart, leaves the learner 2% or less of the call (docs/tuning.md). */
#define HC_LEARN_WATCH_EVERY 64
#define HC_LEARN_WATCH_SPAN_US 64.0
#define HC_LEARN_WATCH_EVERY_MAX 1024
/* hc_learn_pick for the common call: a settled key between checks, not timed; the rest (and
 * the watched calls of a rank deciding alone) goes to hc_learn_pick. */
static inline int hc_learn_next(hc_learn_entry *e, int *measure)
{
    if (e->phase == HC_LEARN_SETTLED && !e->retry && e->calls + 1 < e->next_check &&
        (!e->local || e->watch_calls + 2 < e->watch_every)) {
        e->calls++;
        e->watch_calls += e->local;
        *measure = 0;
        return e->current;
    }
    return hc_learn_pick(e, measure);
}

/* Of the calls after those already counted in e->calls, how many hc_learn_next will give the
 * settled choice without timing them (0 outside SETTLED): after a pick, the calls after it
 * (a vendor window's length); at a call's end, its quiet calls (hc_learn_quiet_begin). */
static inline uint64_t hc_learn_quiet_calls(const hc_learn_entry *e)
{
    if (e->phase != HC_LEARN_SETTLED || e->retry || e->calls + 1 >= e->next_check)
        return 0;
    uint64_t n = e->next_check - e->calls - 1;
    if (e->local) {
        uint64_t to_watch =
            e->watch_calls + 2 < e->watch_every ? e->watch_every - 2 - e->watch_calls : 0;
        n = n < to_watch ? n : to_watch;
    }
    return n;
}

/* A settled key's calls up to its next check or watch need nothing of the learner but their
 * count. At the end of a call they are counted at once (calls, runs, the watch's count: as if
 * each had taken its own step) and set aside in e->quiet, which the caller only counts down;
 * the step for the call after them is taken when that call comes, with the samples collected
 * meanwhile (at 8 bytes a step a call had cost 8 ns of 72). A watch that sees the time move
 * during them gives the rest back (hc_learn_quiet_drop), so the round it asks for comes at
 * the next call. */
static inline void hc_learn_quiet_begin(hc_learn_entry *e)
{
    uint64_t q = hc_learn_quiet_calls(e);
    e->quiet = q;
    e->calls += q;
    e->runs[e->current] += q;
    if (e->local)
        e->watch_calls += q;
}
static inline void hc_learn_quiet_drop(hc_learn_entry *e)
{
    e->calls -= e->quiet;
    e->runs[e->current] -= e->quiet;
    if (e->local)
        e->watch_calls -= e->quiet;
    e->quiet = 0;
}
/* At a call's entry: 1 when it is one of the quiet calls (counted down), 0 when it takes a
 * step (its own, or the one taken ahead). */
static inline int hc_learn_quiet_take(hc_learn_entry *e)
{
    if (!e->quiet)
        return 0;
    if (!e->retry) {
        e->quiet--;
        return 1;
    }
    hc_learn_quiet_drop(e); /* a watch asked for a round: it starts now */
    return 0;
}
/* At the end of a settled key's call that took a step: its quiet calls set aside (where
 * `quiet` allows), else the next call's step taken ahead. */
static inline void hc_learn_settled_step(hc_learn_entry *e, int quiet)
{
    if (quiet)
        hc_learn_quiet_begin(e);
    if (!e->quiet)
        e->ahead = hc_learn_next(e, &e->ahead_measure);
}

/* In a round of trials, how many calls after the one just picked belong to the same block
 * (the same candidate, in a row); 0 outside rounds. */
int hc_learn_block_left(const hc_learn_entry *e);

/* A call costs the program the time from the end of its previous call at the same key to the
 * end of this one; the time between them counts up to this many times the call's own, so a
 * program that works far longer than it calls does not drown the algorithms' differences in
 * the noise of its own work (bcast_learn.c, allreduce_learn.c). */
#define HC_LEARN_GAP_CAP 4

/* A timed call of candidate i took `us` microseconds. */
void hc_learn_sample(hc_learn_entry *e, int i, double us);

/* 1 when the round is over and every candidate's time should be agreed on (allreduce) or
 * taken as measured (broadcast), then passed to hc_learn_decide. */
int hc_learn_round_over(const hc_learn_entry *e);

/* This rank's median per candidate for the round (NaN-free: 0 = no sample); into t. */
void hc_learn_medians(const hc_learn_entry *e, double *t);

/* This rank's mean per candidate for the round (0 = no sample), into t: without samples
 * above 16x their median (a rank descheduled mid-call), and without the lowest and highest
 * where five or more remain. Where ranks take turns to wait in a loop of short calls, each
 * rank's samples alternate between a long and a short group, and a median of three or six
 * falls in either: Open MPI's 8-byte allreduce, 1.27x slower than the queue
 * in a loop by the samples' means, was 1.05-1.15x by their medians, and the choice changed
 * by noise (docs/tuning.md). The mean of a run of calls is what the loop pays. */
void hc_learn_means(const hc_learn_entry *e, double *t);

/* Ends the round with the times every deciding rank agrees on (0 = not measured). Returns 1
 * when the choice changed. */
int hc_learn_decide(hc_learn_entry *e, const double *t);

/* A table of entries per communicator and collective. */
#define HC_LEARN_RECENT 8
typedef struct hc_learn_table {
    hc_learn_entry **bucket;
    int nbuckets, count;
    /* The entry found last for each root (modulo 8): a loop calls from one site, and rotating
     * roots take turns. */
    hc_learn_entry *recent[HC_LEARN_RECENT];
} hc_learn_table;
hc_learn_entry *hc_learn_find(hc_learn_table *t, hc_learn_key key);
/* hc_learn_find, trying the entry found last for the key's root first. */
static inline hc_learn_entry *hc_learn_find_last(hc_learn_table *t, hc_learn_key key)
{
    hc_learn_entry **slot = &t->recent[(unsigned)key.root % HC_LEARN_RECENT], *e = *slot;
    if (e && e->key.site == key.site && e->key.root == key.root && e->key.sclass == key.sclass)
        return e;
    e = hc_learn_find(t, key);
    if (e)
        *slot = e;
    return e;
}
/* Adds a zeroed entry for key (NULL when out of memory or the table is full). */
hc_learn_entry *hc_learn_add(hc_learn_table *t, hc_learn_key key);
void hc_learn_table_free(hc_learn_table *t);
/* Calls fn on every entry of t. */
void hc_learn_each(hc_learn_table *t, void (*fn)(hc_learn_entry *e, void *arg), void *arg);

/* floor(log2(bytes)), 0 for 0 and 1. */
int hc_size_class(uint64_t bytes);

#endif
