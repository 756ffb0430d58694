/* The learner's schedule and decisions (collectives/learn.c), driven by synthetic times: it
 * settles on the fastest candidate, keeps a key that is called a handful of times on its
 * starting choice, holds between equal candidates, follows a change of behaviour, and its
 * trials cost what the docs say. */
#include <math.h>
#include <stdlib.h>

#include "hc_test.h"
#include "learn.h"

/* Deterministic noise of +-frac around 1. */
static double noise(unsigned *seed, double frac)
{
    *seed = *seed * 1103515245u + 12345u;
    return 1 + frac * (((*seed >> 8) & 0xffff) / 32768.0 - 1);
}

typedef struct sim {
    hc_learn_entry e;
    unsigned seed;
    double spent, best_possible; /* time the calls took, and with the best each time */
    long trials;                 /* calls that ran something else than the best */
    long ran[HC_LEARN_MAXCAND];  /* calls of each candidate */
} sim;

static void sim_init(sim *s, int n, int origin, int local)
{
    int cand[HC_LEARN_MAXCAND] = {10, 11, 12, 13, 14, 15};
    memset(s, 0, sizeof *s);
    hc_learn_key k = {0x1234, 0, 10};
    hc_learn_init(&s->e, k, cand, n, 0, origin, local);
    s->seed = 7;
}

/* A round's times as the library takes them: a rank deciding alone (the broadcast's root)
 * its medians, ranks that agree (the allreduce) their trimmed means. */
static void round_times(const hc_learn_entry *e, double *t)
{
    if (e->local)
        hc_learn_medians(e, t);
    else
        hc_learn_means(e, t);
}

/* `calls` calls where candidate i costs cost_of(e, i) (+-noise_frac; the best one costs `best`);
 * samples come back at once (an agreed key would agree on them first: a single rank's times
 * are the agreed ones here). */
static void run_costs(sim *s, double (*cost_of)(const hc_learn_entry *e, int i, const double *c),
                      const double *c, double best, double noise_frac, long calls)
{
    for (long k = 0; k < calls; k++) {
        if (hc_learn_round_over(&s->e)) {
            double t[HC_LEARN_MAXCAND];
            round_times(&s->e, t);
            hc_learn_decide(&s->e, t);
        }
        int measure, i = hc_learn_pick(&s->e, &measure);
        double cost = cost_of(&s->e, i, c), us = cost * noise(&s->seed, noise_frac);
        if (measure == HC_LEARN_SAMPLE)
            hc_learn_sample(&s->e, i, us);
        s->spent += us;
        s->best_possible += best;
        s->trials += cost > best * 1.05;
        s->ran[i]++;
    }
}

static double fixed_cost(const hc_learn_entry *e, int i, const double *c)
{
    (void)e;
    return c[i];
}

/* `calls` calls where candidate i costs cost[i] (+-2%). */
static void run(sim *s, const double *cost, long calls)
{
    double best = cost[0];
    for (int i = 0; i < s->e.ncand; i++)
        best = cost[i] < best ? cost[i] : best;
    run_costs(s, fixed_cost, cost, best, 0.02, calls);
}

HC_TEST(settles_on_the_fastest)
{
    sim s;
    sim_init(&s, 4, HC_ORIGIN_RULE, 1);
    double cost[] = {10, 5, 20, 7};
    run(&s, cost, 200);
    HC_CHECK_EQ_INT(s.e.current, 1);
    HC_CHECK_EQ_INT(s.e.phase, HC_LEARN_SETTLED);
    HC_CHECK_EQ_INT(s.e.origin, HC_ORIGIN_LEARNED);
    HC_CHECK_NEAR(s.e.time[1], 5, 0.2);
    HC_CHECK_NEAR(s.e.time[0], 10, 0.4);
    /* over 10 000 calls the trials cost a few per cent of the best's time */
    run(&s, cost, 9800);
    double overhead = s.spent / s.best_possible - 1;
    HC_CHECK_MSG(overhead < 0.03, "learning cost %.1f%%", 100 * overhead);
    HC_CHECK_EQ_INT(s.e.current, 1);
}

HC_TEST(a_handful_of_calls_keeps_the_start)
{
    sim s;
    sim_init(&s, 3, HC_ORIGIN_RULE, 1);
    double cost[] = {10, 1, 1};
    run(&s, cost, HC_LEARN_WARM_CALLS);
    HC_CHECK_EQ_INT(s.e.current, 0);
    HC_CHECK_EQ_INT(s.trials, HC_LEARN_WARM_CALLS); /* all of them the (slow) start */
    HC_CHECK_EQ_INT(s.e.runs[0] + s.e.runs[1] + s.e.runs[2], 0); /* the callers count runs */
    HC_CHECK_EQ_INT(s.e.phase, HC_LEARN_WARM);
}

/* Equal candidates (within the noise): the starting choice stays, the checks grow apart. */
HC_TEST(equal_candidates_do_not_alternate)
{
    sim s;
    sim_init(&s, 3, HC_ORIGIN_RULE, 1);
    double cost[] = {10, 10, 10.1};
    run(&s, cost, 20000);
    HC_CHECK_EQ_INT(s.e.changes, 0);
    HC_CHECK_EQ_INT(s.e.current, 0);
    HC_CHECK_MSG(s.e.check_gap >= 2048, "checks %u calls apart", s.e.check_gap);
    HC_CHECK_MSG(s.spent / s.best_possible - 1 < 0.01, "cost %.2f%%",
                 100 * (s.spent / s.best_possible - 1));
}

/* A rank deciding alone watches its choice: a site whose behaviour changes is followed
 * within a few hundred calls (four watched calls, HC_LEARN_WATCH_EVERY apart, then a round),
 * and each half runs within 5% of its best. */
HC_TEST(a_change_of_behaviour_is_followed)
{
    sim s;
    sim_init(&s, 3, HC_ORIGIN_RULE, 1);
    double before[] = {10, 5, 20}, after[] = {4, 12, 20};
    run(&s, before, 5000);
    HC_CHECK_EQ_INT(s.e.current, 1);
    double spent = s.spent, best = s.best_possible;
    HC_CHECK_MSG(spent / best < 1.05, "first half %.3f of the best", spent / best);
    HC_CHECK_EQ_INT((int)s.e.watch_every, HC_LEARN_WATCH_EVERY); /* 64 calls: 320 us */
    long follow = 5 * HC_LEARN_WATCH_EVERY;
    run(&s, after, follow);
    HC_CHECK_EQ_INT(s.e.current, 0);
    run(&s, after, 5000 - follow);
    double second = (s.spent - spent) / (s.best_possible - best);
    HC_CHECK_MSG(second < 1.05, "second half %.3f of the best", second);
}

/* Calls of 0.1 us (a tight loop of 8-byte broadcasts) are watched every 64 us of them, not
 * every 64th call, and a change is still followed within five watches; shorter calls no
 * further apart than HC_LEARN_WATCH_EVERY_MAX. Their checks grow further apart than 4096
 * calls, with many watches between two of them; calls of 5 us keep checks 4096 apart. */
HC_TEST(short_calls_are_watched_by_time)
{
    sim s;
    sim_init(&s, 3, HC_ORIGIN_RULE, 1);
    double before[] = {0.1, 0.2, 0.4}, after[] = {0.4, 0.1, 0.5};
    run(&s, before, 5000);
    HC_CHECK_EQ_INT(s.e.current, 0);
    long every = (long)s.e.watch_every, expect = (long)(HC_LEARN_WATCH_SPAN_US / 0.1);
    HC_CHECK_MSG(every > expect * 0.95 && every < expect * 1.05, "watched every %ld calls",
                 every);
    run(&s, after, 5 * every);
    HC_CHECK_EQ_INT(s.e.current, 1);

    double tiny[] = {0.01, 0.02, 0.04};
    sim_init(&s, 3, HC_ORIGIN_RULE, 1);
    run(&s, tiny, 5000);
    HC_CHECK_EQ_INT((int)s.e.watch_every, HC_LEARN_WATCH_EVERY_MAX);
    run(&s, tiny, 60000);
    HC_CHECK_EQ_INT(s.e.changes, 0);
    HC_CHECK_MSG(s.e.check_gap > 4096 && s.e.check_gap >= 8 * s.e.watch_every,
                 "checks %u calls apart, watches %u", s.e.check_gap, s.e.watch_every);

    double slow[] = {5, 10, 20};
    sim_init(&s, 3, HC_ORIGIN_RULE, 1);
    run(&s, slow, 60000);
    HC_CHECK_EQ_INT(s.e.check_gap, 4096);
}

/* A watch that sees the choice's time move opens a round; where that round keeps the choice,
 * the checks stay as far apart as they had grown. A loop's calls time apart from a round's
 * blocks (docs/tuning.md, At 4 KiB, back to back): at 16 KiB the watch opened 45 rounds in
 * 100,000 calls, and each sent the checks back to every 128 calls, 190 checks in all, with a
 * block of the vendor's broadcast, 5x the queue's calls, in one check in four. */
HC_TEST(a_round_that_keeps_the_choice_keeps_the_checks_apart)
{
    sim s;
    sim_init(&s, 2, HC_ORIGIN_RULE, 1);
    double before[] = {5, 25}, after[] = {8, 25};
    run(&s, before, 60000);
    HC_CHECK_EQ_INT(s.e.current, 0);
    HC_CHECK_EQ_INT(s.e.check_gap, 4096);
    unsigned checks = s.e.checks;
    run(&s, after, 4 * (long)s.e.watch_every + 200); /* the watch sees 1.6x: a round */
    HC_CHECK_EQ_INT(s.e.current, 0);
    HC_CHECK_NEAR(s.e.settled_us, 8, 0.3);
    HC_CHECK_EQ_INT(s.e.check_gap, 4096);
    HC_CHECK_MSG(s.e.checks - checks <= 1, "%u checks after the round", s.e.checks - checks);
}

/* A candidate that measures faster in a round than it runs as the choice (Open MPI's own
 * broadcast at 64 bytes against the queue: 0.08 us in a block of a round after the queue's
 * calls, 0.17 in a loop of its own, the queue 0.118). Checks find it better, a round chooses
 * it, its watch finds it slower and a round takes it back; each time it joins fewer checks,
 * so the switches stay few and the calls cost little more than the queue's alone. */
static double overrated_cost(const hc_learn_entry *e, int i, const double *c)
{
    return i == 0 ? c[0] : e->current == 1 ? c[2] : c[1];
}

HC_TEST(a_candidate_slower_in_a_loop_is_checked_less)
{
    sim s;
    sim_init(&s, 2, HC_ORIGIN_RULE, 1);
    double cost[] = {0.118, 0.08, 0.17}; /* the queue; the vendor in a round, in a loop */
    run_costs(&s, overrated_cost, cost, 0.118, 0.02, 1000000);
    HC_CHECK_EQ_INT(s.e.current, 0);
    HC_CHECK_MSG(s.e.changes <= 2 * 12, "%d switches", s.e.changes);
    HC_CHECK_MSG(s.spent / s.best_possible < 1.02, "cost %.2f%% above the queue's",
                 100 * (s.spent / s.best_possible - 1));
}

/* Two candidates as fast as each other, at a tenth of a microsecond, timed with +-40% of
 * noise (the clock and the readers' stamps at that scale): their medians change places from
 * round to round, but neither's calls are clearly the faster ones, so the choice stays. */
HC_TEST(equal_short_calls_timed_coarsely_do_not_switch)
{
    sim s;
    sim_init(&s, 2, HC_ORIGIN_RULE, 1);
    double cost[] = {0.15, 0.15};
    run_costs(&s, fixed_cost, cost, 0.15, 0.4, 1000000);
    HC_CHECK_MSG(s.e.changes <= 50, "%d switches", s.e.changes);
}

/* A broadcast root's samples come back when its readers are done, a few calls later. */
#define SAMPLE_DELAY 3
typedef struct late_sample {
    int cand;
    double us;
    long due;
} late_sample;

/* One call (number k) the broadcast's way (bcast.c, bcast_select.c, bcast_plan.h): samples
 * collected first, quiet calls only counted down, the others take the step taken at the end
 * of the call before, or now. Returns what the call was asked to time. */
static int broadcast_call(sim *s, late_sample *late, int *nlate, long k, const double *cost,
                          int lanes)
{
    hc_learn_entry *e = &s->e;
    int kept = 0;
    for (int j = 0; j < *nlate; j++)
        if (late[j].due <= k)
            hc_learn_sample(e, late[j].cand, late[j].us);
        else
            late[kept++] = late[j];
    *nlate = kept;
    int i, measure = HC_LEARN_NONE, quiet = lanes && hc_learn_quiet_take(e);
    if (quiet) {
        i = e->current;
    } else {
        if (e->ahead < 0)
            e->ahead = hc_learn_next(e, &e->ahead_measure);
        i = e->ahead;
        measure = e->ahead_measure;
        e->ahead = -1;
        e->runs[i]++;
    }
    double us = cost[i] * noise(&s->seed, 0.02);
    if (measure == HC_LEARN_SAMPLE)
        late[(*nlate)++] = (late_sample){i, us, k + SAMPLE_DELAY};
    s->spent += us;
    s->ran[i]++;
    if (quiet) /* no step at its end either */
        return measure;
    if (e->phase == HC_LEARN_SETTLED) {
        hc_learn_settled_step(e, lanes);
        return measure;
    }
    if (hc_learn_round_over(e)) {
        double t[HC_LEARN_MAXCAND];
        round_times(e, t);
        hc_learn_decide(e, t);
    }
    e->ahead = hc_learn_next(e, &e->ahead_measure);
    return measure;
}

/* Quiet calls counted at once, with samples coming back late: the learner settles and follows
 * a change of behaviour as with a step every call, no later, with nearly the same calls timed,
 * and the counts agree. */
HC_TEST(quiet_calls_counted_at_once_follow_as_before)
{
    sim a, b;
    sim_init(&a, 3, HC_ORIGIN_RULE, 1);
    sim_init(&b, 3, HC_ORIGIN_RULE, 1);
    late_sample la[64], lb[64];
    int na = 0, nb = 0;
    double before[] = {0.05, 0.1, 0.2}, after[] = {0.2, 0.05, 0.3};
    long timed_a = 0, timed_b = 0, quiet_seen = 0, followed_a = -1, followed_b = -1;
    for (long k = 0; k < 12000; k++) {
        const double *cost = k < 6000 ? before : after;
        timed_a += broadcast_call(&a, la, &na, k, cost, 0) == HC_LEARN_SAMPLE;
        timed_b += broadcast_call(&b, lb, &nb, k, cost, 1) == HC_LEARN_SAMPLE;
        quiet_seen += b.e.quiet > 0;
        if (k >= 6000 && followed_a < 0 && a.e.current == 1)
            followed_a = k - 6000;
        if (k >= 6000 && followed_b < 0 && b.e.current == 1)
            followed_b = k - 6000;
    }
    HC_CHECK_MSG(quiet_seen > 9000, "only %ld calls in a quiet stretch", quiet_seen);
    HC_CHECK_EQ_INT(a.e.current, 1);
    HC_CHECK_EQ_INT(b.e.current, 1);
    HC_CHECK_MSG(followed_b >= 0 && followed_b <= followed_a,
                 "the change followed after %ld calls, %ld with a step a call", followed_b,
                 followed_a);
    HC_CHECK_MSG(labs(timed_a - timed_b) * 50 <= timed_a, "%ld calls timed, %ld with a step a call",
                 timed_b, timed_a);
    HC_CHECK_EQ_INT((int)(b.e.calls - b.e.quiet), 12000);
    HC_CHECK_EQ_INT((int)(a.e.calls - (a.e.ahead >= 0)), 12000);
    uint64_t runs = 0;
    for (int i = 0; i < 3; i++)
        runs += b.e.runs[i];
    HC_CHECK_EQ_INT((int)(runs - b.e.quiet), 12000);
}

/* Where every rank must agree (no watch, no early drop), a CHECK finds the change, at most
 * the longest gap later. */
HC_TEST(agreed_keys_find_a_change_at_the_next_check)
{
    sim s;
    sim_init(&s, 3, HC_ORIGIN_RULE, 0);
    double before[] = {10, 5, 20}, after[] = {4, 12, 20};
    run(&s, before, 5000);
    HC_CHECK_EQ_INT(s.e.current, 1);
    run(&s, after, 1100);
    HC_CHECK_EQ_INT(s.e.current, 0);
}

/* Where ranks agree, checks of short calls grow as far apart as 2048 us of calls (from the
 * agreed time the choice settled with, alike on every rank): 0.2 us calls about 10240 apart,
 * 0.01 us no further than 16384, calls of 5 us no further than 1024 as before; a change is
 * still found at the next check. */
HC_TEST(agreed_short_calls_are_checked_by_time)
{
    sim s;
    sim_init(&s, 3, HC_ORIGIN_RULE, 0);
    double before[] = {0.2, 0.4, 1.0}, after[] = {0.6, 0.2, 1.0};
    run(&s, before, 100000);
    HC_CHECK_EQ_INT(s.e.current, 0);
    double expect = 2048 / 0.2;
    HC_CHECK_MSG(s.e.check_gap > expect * 0.95 && s.e.check_gap < expect * 1.05,
                 "checks %u calls apart", s.e.check_gap);
    run(&s, after, (long)s.e.check_gap + 100);
    HC_CHECK_EQ_INT(s.e.current, 1);

    double tiny[] = {0.01, 0.02, 0.04}, slow[] = {5, 10, 20};
    sim_init(&s, 3, HC_ORIGIN_RULE, 0);
    run(&s, tiny, 200000);
    HC_CHECK_EQ_INT(s.e.check_gap, 16384);
    sim_init(&s, 3, HC_ORIGIN_RULE, 0);
    run(&s, slow, 60000);
    HC_CHECK_EQ_INT(s.e.check_gap, 1024);
}

/* Agreed times are the samples' means: where ranks take turns to wait, a rank's samples
 * alternate between short and long calls (within about 10x) and the mean is what the loop
 * pays, whatever the order; a sample above 16x the median (the rank descheduled: a check
 * has three samples, and one such call must not open a round) is left out, and from five
 * samples on the lowest and highest (a block's first timed call) too. */
HC_TEST(agreed_times_are_trimmed_means)
{
    sim s;
    sim_init(&s, 4, HC_ORIGIN_RULE, 0);
    const float alternating[] = {160, 1070, 160, 1070, 160, 1070};
    const float first_timed[] = {2000, 300, 310, 290, 305};
    const float few[] = {160, 1070, 160};
    const float descheduled[] = {100, 120, 12000};
    memcpy(s.e.sample[0], alternating, sizeof alternating);
    s.e.nsample[0] = 6;
    memcpy(s.e.sample[1], first_timed, sizeof first_timed);
    s.e.nsample[1] = 5;
    memcpy(s.e.sample[2], few, sizeof few);
    s.e.nsample[2] = 3;
    memcpy(s.e.sample[3], descheduled, sizeof descheduled);
    s.e.nsample[3] = 3;
    double t[HC_LEARN_MAXCAND];
    hc_learn_means(&s.e, t);
    HC_CHECK_MSG(fabs(t[0] - 615) < 1e-9, "alternating: %g", t[0]);
    HC_CHECK_MSG(fabs(t[1] - 305) < 1e-9, "outlier: %g", t[1]);
    HC_CHECK_MSG(fabs(t[2] - 1390.0 / 3) < 1e-9, "three samples: %g", t[2]);
    HC_CHECK_MSG(fabs(t[3] - 110) < 1e-9, "descheduled: %g", t[3]);
    s.e.ncand = 5;
    hc_learn_means(&s.e, t);
    HC_CHECK_MSG(t[4] == 0, "no sample: %g", t[4]);
}

/* Where ranks agree too, a candidate far slower when last measured (here 8x) takes part in
 * one check in four only (every rank skips alike: the times are the agreed ones), and one
 * merely slower (1.5x) in every check. */
HC_TEST(agreed_keys_check_a_hopeless_candidate_less_often)
{
    sim s;
    sim_init(&s, 3, HC_ORIGIN_RULE, 0);
    double cost[] = {7.5, 5, 40};
    run(&s, cost, 100);
    HC_CHECK_EQ_INT(s.e.current, 1);
    long slower = s.ran[0], hopeless = s.ran[2];
    run(&s, cost, 20000);
    slower = s.ran[0] - slower;
    hopeless = s.ran[2] - hopeless;
    HC_CHECK_MSG(slower > 0 && 3 * hopeless <= slower,
                 "in checks: the 1.5x candidate %ld calls, the 8x one %ld", slower, hopeless);
    HC_CHECK_EQ_INT(s.e.current, 1);
}

/* Long calls (an agreed key, hc_learn_long_calls): the key keeps its start for twice the
 * calls of a round, so a site of a few dozen such calls never pays for trials; then the first
 * round, in two passes of one block of two per candidate, settles on the fastest, having run
 * the slower ones half as many calls as blocks of HC_LEARN_TRY_BLOCK do. */
HC_TEST(long_calls_wait_then_settle_in_half_the_trials)
{
    double cost[] = {10, 5, 20, 7};
    long trials[2];
    for (int long_calls = 0; long_calls < 2; long_calls++) {
        sim s;
        sim_init(&s, 4, HC_ORIGIN_RULE, 0);
        if (long_calls) {
            s.e.key.sclass = 20; /* 1 MiB: HC_LEARN_LONG_CALLS_FROM */
            hc_learn_long_calls(&s.e);
        }
        long round = 4L * s.e.block * 2;
        HC_CHECK_EQ_INT(s.e.warm, long_calls ? 2 * round : HC_LEARN_WARM_CALLS);
        run(&s, cost, s.e.warm);
        HC_CHECK_EQ_INT(s.e.phase, HC_LEARN_WARM);
        HC_CHECK_EQ_INT(s.trials, s.e.warm); /* the (slow) start only */
        run(&s, cost, round + 1);
        HC_CHECK_EQ_INT(s.e.phase, HC_LEARN_SETTLED);
        HC_CHECK_EQ_INT(s.e.current, 1);
        trials[long_calls] = s.trials - s.e.warm;
    }
    HC_CHECK_EQ_INT(2 * trials[1], trials[0]);
}

/* Settling calls (hc_learn_settling_calls: blocks of 8, the first 2 untimed): a candidate that
 * is the fastest once the ranks have fallen into step, but costs 2.5x for its first three
 * calls after a switch (as the vendor's 8-byte allreduce across hosts did), loses in blocks of
 * 4 (two of its three samples are the slow ones) and wins in blocks of 8; every block's first
 * two calls are stamped only. */
HC_TEST(settling_calls_time_a_candidate_once_in_step)
{
    for (int settling = 0; settling < 2; settling++) {
        sim s;
        sim_init(&s, 2, HC_ORIGIN_RULE, 0);
        if (settling)
            hc_learn_settling_calls(&s.e);
        int last = -1, in_row = 0, stamps = 0, samples = 0;
        for (long k = 0; k < 300; k++) {
            if (hc_learn_round_over(&s.e)) {
                double t[HC_LEARN_MAXCAND];
                round_times(&s.e, t);
                hc_learn_decide(&s.e, t);
            }
            int measure, i = hc_learn_pick(&s.e, &measure);
            in_row = i == last ? in_row + 1 : 1;
            last = i;
            int in_round = s.e.phase == HC_LEARN_TRY || s.e.phase == HC_LEARN_CHECK;
            if (settling && in_round) {
                int at = (int)((s.e.calls - 1 - s.e.round_start) % 8);
                HC_CHECK_EQ_INT(measure, at < 2 ? HC_LEARN_STAMP : HC_LEARN_SAMPLE);
                stamps += measure == HC_LEARN_STAMP;
                samples += measure == HC_LEARN_SAMPLE;
            }
            double us = i == 1 ? (in_row <= 3 ? 20 : 8) : 10;
            if (measure == HC_LEARN_SAMPLE)
                hc_learn_sample(&s.e, i, us * noise(&s.seed, 0.02));
        }
        HC_CHECK_EQ_INT(s.e.phase, HC_LEARN_SETTLED);
        HC_CHECK_EQ_INT(s.e.current, settling ? 1 : 0);
        if (settling)
            HC_CHECK_EQ_INT(samples, 3 * stamps);
    }
}

/* A choice saved by an earlier run starts settled: no trials until its first check. */
HC_TEST(a_saved_choice_starts_settled)
{
    sim s;
    sim_init(&s, 3, HC_ORIGIN_SAVED, 1);
    double cost[] = {5, 10, 20};
    run(&s, cost, 100);
    HC_CHECK_EQ_INT(s.trials, 0);
    HC_CHECK_EQ_INT(s.e.origin, HC_ORIGIN_SAVED);
    run(&s, cost, 1000);
    HC_CHECK_EQ_INT(s.e.current, 0);
}

/* A new root's key with what another root of the node measured at the site (the vendor's
 * broadcast 15x the queue at 16 KiB): its first round and first checks leave the hopeless one
 * out, and its calls up to the 200th cost within 5% of the best's (a half of the bench's
 * switch-* patterns); without them the round's vendor blocks cost far more. A later round
 * that times it forgets where its time came from. */
HC_TEST(a_new_root_starts_from_what_others_measured)
{
    double cost[] = {0.7, 1.0, 12}; /* the queue (the rule's start), another, the vendor */
    sim cold, told;
    sim_init(&cold, 3, HC_ORIGIN_RULE, 1);
    run(&cold, cost, 200);
    sim_init(&told, 3, HC_ORIGIN_RULE, 1);
    double others[] = {0.75, 1.05, 11};
    HC_CHECK_EQ_INT(hc_learn_prior(&told.e, others), 1);
    HC_CHECK_EQ_INT(told.e.current, 0);
    HC_CHECK_EQ_INT((int)told.e.borrowed, 7);
    run(&told, cost, 200);
    HC_CHECK_EQ_INT(told.ran[2], 0);
    HC_CHECK_EQ_INT(told.e.current, 0);
    HC_CHECK_MSG(told.spent / told.best_possible < 1.05, "told: %.1f%% above the best",
                 100 * (told.spent / told.best_possible - 1));
    HC_CHECK_MSG(cold.spent / cold.best_possible > 1.2, "cold: only %.1f%% above the best",
                 100 * (cold.spent / cold.best_possible - 1));
    HC_CHECK_EQ_INT((int)told.e.borrowed, 4); /* start and the other timed here, not the vendor */
    /* the hopeless one is still timed, one check in four (HOPELESS_CHECK_EVERY) */
    run(&told, cost, 20000);
    HC_CHECK_MSG(told.ran[2] > 0, "the vendor never timed again");
    HC_CHECK_EQ_INT((int)told.e.borrowed, 0);
    HC_CHECK_EQ_INT(told.e.current, 0);

    /* nothing known: nothing changes */
    sim none;
    sim_init(&none, 3, HC_ORIGIN_RULE, 1);
    double zero[] = {0, 0, 0};
    HC_CHECK_EQ_INT(hc_learn_prior(&none.e, zero), 0);
    HC_CHECK_EQ_INT(none.e.prior_out, 0u);
}

/* Others' times that are wrong about the starting choice (a fresh communicator's first calls
 * of the queue, 59 us against the vendor's 7): the key still times its start in its first
 * round, and settles on it. */
HC_TEST(others_wrong_about_the_start_do_not_keep_it_out)
{
    double cost[] = {0.9, 1.2, 7}; /* the queue (start), another, the vendor */
    sim s;
    sim_init(&s, 3, HC_ORIGIN_RULE, 1);
    double others[] = {58.8, 0, 7.4};
    HC_CHECK_EQ_INT(hc_learn_prior(&s.e, others), 1);
    HC_CHECK_EQ_INT(s.e.current, 0);
    run(&s, cost, 200);
    HC_CHECK_EQ_INT(s.e.current, 0);
    HC_CHECK_MSG(s.ran[0] > 150, "the start ran %ld calls of 200", s.ran[0]);
}

HC_TEST(size_classes_and_the_table)
{
    HC_CHECK_EQ_INT(hc_size_class(0), 0);
    HC_CHECK_EQ_INT(hc_size_class(1), 0);
    HC_CHECK_EQ_INT(hc_size_class(8), 3);
    HC_CHECK_EQ_INT(hc_size_class(65535), 15);
    HC_CHECK_EQ_INT(hc_size_class(65536), 16);
    hc_learn_table t = {0};
    for (int k = 0; k < 1000; k++) {
        hc_learn_key key = {(uintptr_t)k * 64, k % 3, k % 20};
        hc_learn_entry *e = hc_learn_add(&t, key);
        HC_CHECK(e != NULL);
    }
    for (int k = 0; k < 1000; k++) {
        hc_learn_key key = {(uintptr_t)k * 64, k % 3, k % 20};
        hc_learn_entry *e = hc_learn_find(&t, key);
        HC_CHECK(e && e->key.site == key.site && e->key.root == key.root);
    }
    hc_learn_key absent = {1, 1, 1};
    HC_CHECK(hc_learn_find(&t, absent) == NULL);
    hc_learn_table_free(&t);
}

int main(void) { return hc_test_main(); }
