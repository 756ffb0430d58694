/* MPI_Bcast's selector: the one place that reads the broadcast's configuration and decides.
 *
 * The algorithm comes, in this order, from the communicator's info key, HIERCOLL_BCAST, a
 * rule of the tuning file that every rank reads alike (no site), and otherwise from the
 * node-local root alone: a rule for its call site (learned in an earlier run), what this run
 * learned there, or the built-in rule (docs/tuning.md). Parameters come from the rule, then
 * the algorithm's own values in the registry, then the HIERCOLL_BCAST_* variables. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bcast_plan.h"
#include "hc_config.h"
#include "hc_log.h"
#include "hc_site.h"
#include "hc_tuning.h"
#include "hc_util.h"

/* From this message size the root writes the queue around its caches (HC_BSHM_ROOT_NT): in
 * the bench's twelve calling patterns that cut the worst ratio to the vendor from 0.94 to 0.61
 * at 4 KiB and from 1.3-2.2 to 0.5-0.9 at 16 KiB-4 MiB; below 4 KiB it made the rotating-root
 * patterns slower (0.45 -> 0.7 at 1 KiB), as the reader then waits for memory instead of a few
 * lines of the root's cache (docs/algorithms-bcast.md). */
#define HC_BCAST_ROOT_NT_MIN ((size_t)4 << 10)

void hc_bcast_setup(hc_bsetup *s)
{
    *s = (hc_bsetup){
        .frag = (size_t)hc_cfg.bcast_frag.i,
        .queue = (int)hc_cfg.bcast_queue.i,
        .cells = (int)hc_cfg.bcast_cells.i,
        .tree = (int)hc_cfg.bcast_tree.i,
        .radix = (int)hc_cfg.bcast_radix.i,
        .fake_numa = (int)hc_cfg.bcast_fake_numa.i,
        .show_pages = (int)hc_cfg.bcast_show_pages.i,
        .direct = (int)hc_cfg.bcast_direct.i,
    };
}

/* The built-in rule: the queue, single copy from HIERCOLL_BCAST_CMA_THRESHOLD on where the
 * node's ranks may read each other (1 MiB: there it was the fastest engine in the median
 * calling pattern at 2 and 4 ranks in both families, and at 2 ranks no slower than the vendor
 * in any of 52 patterns; docs/algorithms-bcast.md). Where they may not (Yama's ptrace_scope,
 * a container's seccomp), the queue, with its direct reads. */
static int builtin_choice(const hc_bstate *st, size_t m)
{
    return (long long)m >= hc_cfg.bcast_cma_threshold.i && st->cma_ok ? HC_BCAST_SHM_CMA
                                                                      : HC_BCAST_SHM;
}

/* The plan's parameters for algo: the rule's, then the algorithm's own, then the variables. */
static void params_of(hc_bcast_plan *p, int algo, const hc_params *rule)
{
    hc_params v = rule ? *rule : (hc_params){0};
    hc_params_own(HC_COLL_BCAST, algo, &v);
    p->algo = algo;
    p->nt_min = v.set >> HC_BCAST_P_NT_MIN & 1 ? (size_t)v.v[HC_BCAST_P_NT_MIN]
                                               : HC_BCAST_ROOT_NT_MIN;
    p->direct = v.set >> HC_BCAST_P_DIRECT & 1 ? (int)v.v[HC_BCAST_P_DIRECT] : HC_BDIRECT_NEVER;
    p->direct_min = v.set >> HC_BCAST_P_DIRECT_MIN & 1 ? (size_t)v.v[HC_BCAST_P_DIRECT_MIN]
                                                       : (size_t)hc_cfg.bcast_direct_min.i;
}

/* Without a rule's parameters every algorithm's are the same on every call: worked out once,
 * as the learner's root picks one for each of its calls. */
static hc_bcast_plan plain[HC_BCAST_COUNT];
static pthread_once_t plain_once = PTHREAD_ONCE_INIT;
static void plain_init(void)
{
    for (int a = 0; a < HC_BCAST_COUNT; a++)
        params_of(&plain[a], a, NULL);
}

static int plain_ready;

/* algo's plan without a rule's parameters. */
static const hc_bcast_plan *plain_of(int algo)
{
    if (HC_UNLIKELY(!__atomic_load_n(&plain_ready, __ATOMIC_ACQUIRE))) {
        pthread_once(&plain_once, plain_init);
        __atomic_store_n(&plain_ready, 1, __ATOMIC_RELEASE);
    }
    return &plain[algo];
}

/* The node-local root's part of a plan, from a worked-out one. */
static void take_params(hc_bcast_plan *p, const hc_bcast_plan *from)
{
    p->algo = from->algo;
    p->nt_min = from->nt_min;
    p->direct = from->direct;
    p->direct_min = from->direct_min;
}

static void fill_params(hc_bcast_plan *p, int algo, const hc_params *rule)
{
    if (rule) {
        params_of(p, algo, rule);
        return;
    }
    take_params(p, plain_of(algo));
}

/* Below this size, on a communicator that spans nodes, a node's stage is the queue: what the
 * other engines save (copying the message through the ring) is worth little there, what
 * they add (the vendor's message after the cell, the single copy's system calls, a root
 * held until its readers are done while its sends to the other nodes wait) is not, and a
 * node's learner cannot tell them apart against the wait for the leaders' step that its
 * samples carry. Learning among them made 1-8 KiB broadcasts between two hosts 1.3-1.4x the
 * queue's time, and 64-256 KiB with a rotating root 1.4-1.5x; from 1 MiB every engine
 * came within 1.07 of the best peer (docs/algorithms-bcast.md, Across hosts). */
#define HC_BCAST_ACROSS_QUEUE_MAX ((size_t)1 << 20)

/* Long calls from HC_LEARN_LONG_CALLS_FROM, as the allreduce's: the starting choice there
 * (the single copy) is the fastest engine in the median calling pattern, so a site of a few
 * dozen calls keeps it rather than pay a round. Where the start is the queue (no CMA between
 * the ranks, a higher threshold) the same schedule holds: the queue is kept 24 calls longer
 * before its trials. */

/* Below this size the single copy is tried only where it is the starting choice. On one node,
 * 1-32 KiB, it was the slowest engine in every calling pattern of the bench: 2.0-12x the
 * faster of the queue and its direct reads at 2 ranks (all 52 patterns, both families), 1.3x
 * and more at 4; a call of it in a round cost as much as 4-12 calls of the queue (the median
 * pattern; 9-40 at 4 ranks). In a loop of 16 KiB broadcasts learning cost 17-21% against
 * learning off, 3-12% without it. At 64 KiB it came within 1.1x, and won 3 of 20 patterns
 * at 4 ranks (docs/tuning.md, The single copy left out below 64 KiB). */
#define HC_BCAST_CMA_TRIED_MIN ((size_t)64 << 10)

/* Whether algorithm a moves m bytes here exactly as the queue does: the queue's direct reads
 * where readers may not read the root's buffer (a cell's worth, below
 * HIERCOLL_BCAST_DIRECT_MIN, or no shared heaps), the single copy for a cell's worth (it
 * leaves those to the queue). A round timing such a twin chose between two names of one code
 * by noise: at 16 KiB in a loop 20-34 times in 100,000 calls, each change bringing the checks
 * back to every 128 calls. */
static int runs_as_queue(const hc_bstate *st, int a, size_t m)
{
    if (a == HC_BCAST_SHM_DIRECT)
        return m <= HC_BCELL_INLINE_MAX || !hc_bcast_direct_allowed(st, plain_of(a), m);
    return a == HC_BCAST_SHM_CMA && m <= HC_BCELL_INLINE_MAX;
}

/* The algorithms a node-local root may try for m bytes: every one that can move them here,
 * runs otherwise than the queue, and might be the fastest. */
static int candidates(const hc_comm *c, const hc_bstate *st, size_t m, int first, int *cand)
{
    int all[] = {first, HC_BCAST_SHM, HC_BCAST_SHM_DIRECT, HC_BCAST_SHM_CMA, HC_BCAST_VENDOR};
    int n = 0, queue_only = c->num_nodes > 1 && m < HC_BCAST_ACROSS_QUEUE_MAX;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        int a = all[i], dup = 0;
        if (runs_as_queue(st, a, m))
            continue;
        if (i > 0 && a == HC_BCAST_SHM_CMA && m < HC_BCAST_CMA_TRIED_MIN)
            continue;
        if (queue_only && i > 0 && a != HC_BCAST_SHM)
            continue;
        if (a == HC_BCAST_SHM_CMA && !st->cma_ok)
            continue;
        for (int k = 0; k < n; k++)
            dup |= cand[k] == a;
        if (!dup)
            cand[n++] = a;
    }
    return n;
}

/* The site rule of the tuning file for this call, if the file has one. */
static const hc_tuning_rule *site_rule(const hc_comm *c, size_t m, int root, uintptr_t site,
                                       char *key, size_t keylen)
{
    if (!site || !hc_cfg.tuning.s[0])
        return NULL;
    hc_site_key(site, key, keylen);
    const hc_tuning_rule *r = hc_tuning_rule_for(HC_COLL_BCAST, (long long)m, c, key, root);
    return r && r->site[0] && r->algo != HC_BCAST_AUTO ? r : NULL;
}

static void announce(const hc_learn_entry *e, const char *why)
{
    if (hc_log_verbosity < 1)
        return;
    char key[160] = "?", times[384] = "";
    hc_site_key(e->key.site, key, sizeof key);
    for (int i = 0, at = 0; i < e->ncand && at < (int)sizeof times; i++)
        if (e->time[i] > 0)
            at += snprintf(times + at, sizeof times - (size_t)at, "%s %s %.1f us%s",
                           at ? "," : " (", hc_algo(HC_COLL_BCAST, e->cand[i])->name, e->time[i],
                           (e->borrowed >> i) & 1u ? " by another root" : "");
    hc_info(1, "bcast at %s, root %d, %zu-%zu bytes: %s, %s%s%s", key, e->key.root,
            (size_t)1 << e->key.sclass, ((size_t)2 << e->key.sclass) - 1,
            hc_algo(HC_COLL_BCAST, e->cand[e->current])->name, why, times, times[0] ? ")" : "");
}

/* The entry of a key seen for the first time: its candidates, started from the site's rule
 * of an earlier run when the tuning file has one. Rare: once per key. */
static hc_learn_entry *new_entry(hc_comm *c, hc_bstate *st, hc_learn_table *t, hc_learn_key k,
                                 size_t m)
{
    hc_learn_entry *e = hc_learn_add(t, k);
    if (!e)
        return NULL;
    char key[160];
    const hc_tuning_rule *r = site_rule(c, m, k.root, k.site, key, sizeof key);
    int cand[HC_LEARN_MAXCAND];
    int n = candidates(c, st, m, r ? r->algo : builtin_choice(st, m), cand);
    hc_learn_init(e, k, cand, n, 0, r ? HC_ORIGIN_SAVED : HC_ORIGIN_RULE, 1);
    hc_learn_long_calls(e);
    e->shared_site = hc_bboard_site(k.site);
    double others[HC_LEARN_MAXCAND];
    if (!r && hc_bboard_read(st, e, others))
        hc_learn_prior(e, others);
    if (r) {
        for (int i = 0; i < r->ntimes; i++) /* what the earlier run measured */
            for (int j = 0; j < n; j++)
                if (cand[j] == r->time_algo[i])
                    e->time[j] = r->time_us[i];
        announce(e, "learned in an earlier run (tuning file)");
        e->announced = 1;
    }
    return e;
}

/* A node-local root under `auto`: the site's saved rule or the built-in rule, refined by
 * learning when it is on. The learner's step for this call was taken at the end of the
 * key's previous call (hc_bcast_learn_next): nothing but a lookup stands between the root's
 * entry and its first cell. A quiet call of the key that ended last reads its plan off the
 * state: in a tight loop of 8-byte broadcasts the lookup's chain of loads (the learner's
 * table, its entry, the choice, its parameters) was most of the learner's cost. */
static void choose_auto(hc_comm *c, hc_bstate *st, size_t m, int root, uintptr_t site,
                        hc_bcast_plan *p)
{
    hc_learn_entry *q = st->quiet_e;
    if (q && q->key.site == site && q->key.root == root && q->key.sclass == hc_size_class(m) &&
        hc_learn_quiet_take(q)) {
        take_params(p, st->quiet_plan);
        p->origin = q->origin;
        return;
    }
    if (!hc_cfg.learn.i || st->n < 2 || !site) {
        char key[160];
        const hc_tuning_rule *r = site_rule(c, m, root, site, key, sizeof key);
        fill_params(p, r ? r->algo : builtin_choice(st, m), r ? &r->params : NULL);
        p->origin = r ? HC_ORIGIN_SAVED : HC_ORIGIN_RULE;
        return;
    }
    hc_learn_table *t = hc_blearn_table(st);
    hc_learn_key k = {site, root, hc_size_class(m)};
    hc_learn_entry *e = t ? hc_learn_find_last(t, k) : NULL;
    if (!e && t)
        e = new_entry(c, st, t, k, m);
    if (!e) { /* out of memory, or the table is full */
        fill_params(p, builtin_choice(st, m), NULL);
        p->origin = HC_ORIGIN_RULE;
        return;
    }
    if (hc_learn_quiet_take(e)) { /* settled, between its checks and watches */
        fill_params(p, e->cand[e->current], NULL);
        p->origin = e->origin;
        return;
    }
    int i = hc_bcast_learn_take(e, &p->measure);
    /* The vendor's first broadcasts on a communicator are not what it costs in a loop
     * (MPICH takes its shared-memory path only from a node's sixth collective): untimed. */
    if (e->cand[i] == HC_BCAST_VENDOR && !hc_bcast_vendor_timed(st, e))
        p->measure = 0;
    e->runs[i]++;
    fill_params(p, e->cand[i], NULL);
    p->origin = i == e->current ? e->origin : HC_ORIGIN_LEARNED;
    p->learn = e;
    p->cand = i;
}

/* Every end of a root's call that may set quiet calls aside comes here, so a quiet call's
 * plan on the state is always its entry's current choice. */
void hc_bcast_learn_end(hc_bstate *st, hc_learn_entry *e)
{
    hc_bcast_learn_step(st, e);
    if (!e->quiet)
        return;
    st->quiet_e = e;
    st->quiet_plan = &plain[e->cand[e->current]]; /* as fill_params without a rule */
}

void hc_bcast_learn_next(hc_bstate *st, hc_learn_entry *e)
{
    if (e->phase != HC_LEARN_SETTLED && hc_learn_round_over(e)) {
        double tm[HC_LEARN_MAXCAND];
        hc_learn_medians(e, tm);
        hc_learn_decide(e, tm);
        hc_bboard_publish(st, e, tm);
        /* once the choice has a time of this key's own (not only others') */
        if (!e->announced && e->origin == HC_ORIGIN_LEARNED &&
            !((e->borrowed >> e->current) & 1u)) {
            announce(e, "measured");
            e->announced = 1;
        }
    }
    e->ahead = hc_learn_next(e, &e->ahead_measure);
}

void hc_bcast_fixed(const hc_comm *c, size_t m, hc_bcast_fixed_choice *fx)
{
    fx->rule = NULL;
    if (c->bcast_choice >= 0) {
        fx->origin = HC_ORIGIN_INFO;
        fx->algo = c->bcast_choice;
    } else if (hc_cfg.bcast.i != HC_BCAST_AUTO) {
        fx->origin = HC_ORIGIN_VAR;
        fx->algo = (int)hc_cfg.bcast.i;
    } else {
        fx->origin = HC_ORIGIN_FILE;
        fx->rule = hc_cfg.tuning.s[0]
                       ? hc_tuning_rule_for(HC_COLL_BCAST, (long long)m, c, NULL, -1)
                       : NULL;
        fx->algo = fx->rule ? fx->rule->algo : HC_BCAST_AUTO;
    }
}

/* Across nodes a message moves in HIERCOLL_BCAST_HIER_CHUNK segments, or in eighths of it
 * where those are larger (up to HIER_MAX_SEGMENT): every segment hands off between the
 * leaders and each node's ranks once more, which costs most where ranks share cores (2 hosts
 * x 4 ranks on 2 cores, 1 Gbit/s: 16-32 MiB in 512 KiB segments took 1.03-1.10x HAN's time,
 * in eighths 0.97-1.04), while the last segment's node stage, which follows the link alone,
 * stays an eighth of the message. The cap bounds the stage that packs a derived datatype
 * (docs/algorithms-bcast.md, Segments across nodes). An eighth is rounded up to whole pages
 * (so eight of them cover the message); it rests on m alone, alike on every rank. */
#define HIER_SEGMENTS 8
#define HIER_MAX_SEGMENT ((size_t)8 << 20)
static size_t hier_segment(size_t m)
{
    size_t chunk = (size_t)hc_cfg.bcast_hier_chunk.i;
    size_t eighth = HC_ALIGN_UP((m + HIER_SEGMENTS - 1) / HIER_SEGMENTS, 4096);
    eighth = HC_MIN(eighth, HIER_MAX_SEGMENT);
    return eighth > chunk ? eighth : chunk;
}

void hc_bcast_select(hc_comm *c, hc_bstate *st, size_t m, int root, uintptr_t site,
                     int decider, const hc_bcast_fixed_choice *fx, hc_bcast_plan *p)
{
    p->learn = NULL;
    p->measure = 0;
    p->algo = HC_BCAST_AUTO;
    int algo = fx->algo, origin = fx->origin;
    const hc_tuning_rule *rule = fx->rule;
    /* Segments pipeline the leaders' step with the nodes' stages; on one node there is none
     * to overlap, and one segment lets readers follow any engine the root picks. */
    const hc_params *rp = rule ? &rule->params : NULL;
    p->seg = c->num_nodes == 1 ? m
             : rp && rp->set >> HC_BCAST_P_SEG & 1 ? (size_t)rp->v[HC_BCAST_P_SEG]
                                                    : hier_segment(m);
    if (!decider)
        return;
    if (algo != HC_BCAST_AUTO) {
        fill_params(p, algo, rule && rule->algo == algo ? &rule->params : NULL);
        p->origin = origin;
        return;
    }
    choose_auto(c, st, m, root, site, p);
}
