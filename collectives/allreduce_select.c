/* MPI_Allreduce's selector: the one place that reads the allreduce's configuration and
 * decides, on every rank alike (ranks never exchange a word to agree on a call's plan).
 *
 * The algorithm comes, in this order, from the communicator's info key, HIERCOLL_ALLREDUCE,
 * a rule of the tuning file, what this run learned for the call's size class, and the
 * built-in rule (docs/tuning.md). What is learned is keyed by size class, not by call site:
 * every rank must take the same algorithm in the same call, and ranks may reach one
 * allreduce from different sites. Parameters come from the rule, then the algorithm's own
 * values in the registry, then HIERCOLL_RING_DIMS / HIERCOLL_RING_PACKET. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allreduce_plan.h"
#include "hc_config.h"
#include "hc_log.h"
#include "hc_mpi.h"
#include "hc_tuning.h"
#include "hc_util.h"

/* Multi-node communicators: below this the vendor's latency-tuned algorithms win. */
#define HC_AR_RING_MIN_BYTES (64 * 1024)
/* Several nodes: from this size the node dimension goes by single copy, whatever the one-node
 * threshold says. Across 2 hosts x 4 ranks at 1 Gbit/s the staged node stage took 1.13x the
 * vendor's time at 4 MiB where single copy took 0.79 (2026-11-28); back to back it took
 * 0.94-1.66x at 512 KiB where single copy took 0.48-1.00, and on 2 hosts x 2 0.95-1.05x at
 * 256 KiB against 0.66-0.68; at 128 KiB, and after a barrier, the two were within 3%
 * (2026-11-30, docs/algorithms-allreduce.md, Across hosts). */
#define HC_AR_NODES_CMA_MIN_BYTES (256 * 1024)
/* Long calls from HC_LEARN_LONG_CALLS_FROM: across 2 hosts x 4 ranks, 16 calls of 4 MiB with
 * a round of trials among them took 1.08-1.12x HAN's time where the static rule's single copy
 * took 1.01-1.02 (docs/algorithms-allreduce.md, Against every peer). */
/* One rank per node (no node stage): from this size the one ring starts, below it the
 * machine's lattice. The lattice's pairs exchange whole blocks at once, and a block's packets
 * wait on the link behind the receiver's own; the one ring forwards packet by packet. On 4
 * hosts x 1 at 100 Mbit/s the lattice (2x2) took 133 ms at 1 MiB against the one ring's
 * 160-173, they tied at 2 MiB, and from 4 MiB the one ring took 15-20% less (at 1 Gbit/s
 * 0-3% less; docs/algorithms-allreduce.md, Across hosts). */
#define HC_AR_ONE_RING_FROM (2 * 1024 * 1024)
/* The ring's pipeline packet, measured on the development machine
 * (docs/algorithms-allreduce.md). */
#define HC_RING_PACKET_DEFAULT (128 * 1024)

/* Model costs per level (seconds per message, per byte, doubled as in T_d) when no measured
 * bandwidths are given: shared memory within a node, the network across nodes. */
static const double default_alpha[2] = {1e-6, 4e-6};
static const double default_beta[2] = {0.4e-9, 1e-9};

/* Per-level model costs (node, network): the bandwidths the preload read once
 * (HIERCOLL_BANDWIDTHS or the machine file), else defaults. */
static void level_costs(const hc_comm *c, double *alpha, double *beta)
{
    for (int l = 0; l < 2; l++) {
        alpha[l] = default_alpha[l];
        beta[l] = default_beta[l];
    }
    if (c->bw_node > 0 && c->bw_network > 0) {
        beta[0] = 2 / c->bw_node;
        beta[1] = 2 / c->bw_network;
    }
}

/* The lattice for algo: one ring for ring1d (or `dims=flat`), the given dims (the rule's
 * `dims=AxB`, else HIERCOLL_RING_DIMS), else nodes x ranks per node as the cost model
 * splits it, else one ring. */
static void lattice_for(hc_comm *c, const hc_params *v, long long bytes, hc_ar_plan *p)
{
    hc_lattice *lat = &p->lat;
    lat->d = 1;
    lat->dims[0] = c->size;
    p->lat_how = "one ring";
    long long dims = v->set >> HC_ALLREDUCE_P_DIMS & 1 ? v->v[HC_ALLREDUCE_P_DIMS] : 0;
    if (dims == HC_DIMS_FLAT)
        return;
    hc_lattice forced = {0};
    if (dims > 0) {
        forced.d = (int)dims;
        memcpy(forced.dims, v->dims, sizeof(int) * (size_t)dims);
    } else if (dims == 0 && strcmp(hc_cfg.ring_dims.s, "auto") != 0) {
        forced.d = hc_parse_dims(hc_cfg.ring_dims.s, forced.dims, HC_RING_MAXD);
    }
    if (forced.d > 0) {
        if (hc_lattice_normalize(&forced) == c->size) {
            *lat = forced;
            p->lat_how = dims > 0 ? "tuning file" : "HIERCOLL_RING_DIMS";
            return;
        }
        if (c->rank == 0 && dims > 0) /* one line per communicator's first rank */
            hc_warn_once("the tuning file's dims do not multiply to the communicator size %d; "
                         "using the machine's lattice", c->size);
        else if (c->rank == 0)
            hc_warn_once("HIERCOLL_RING_DIMS=%s does not multiply to the communicator size %d; "
                         "using the machine's lattice", hc_cfg.ring_dims.s, c->size);
    }
    if (c->num_nodes > 1 && c->nodes_regular) {
        int fanout[2] = {c->local_size, c->num_nodes};
        double alpha[2], beta[2];
        level_costs(c, alpha, beta);
        hc_ring_choose(2, fanout, alpha, beta, (double)bytes, 1, lat, NULL);
        hc_lattice_normalize(lat);
        p->lat_how = "ranks per node x nodes, cost model";
    }
}

/* The plan's lattice and packet for algo; 1 when its engine can run the call here. */
static int plan_for(hc_comm *c, hc_ar_state *st, const hc_red *r, int64_t n, int algo,
                    const hc_params *rule, hc_ar_plan *p)
{
    hc_params v = rule ? *rule : (hc_params){0};
    hc_params_own(HC_COLL_ALLREDUCE, algo, &v);
    p->algo = algo;
    lattice_for(c, &v, (long long)n * r->extent, p);
    hc_lattice_coords(&p->lat, c->rank, p->coords);
    if (algo == HC_ALLREDUCE_LEADERS)
        p->lat_how = "small vectors: node, leaders, node";
    long long packet = v.set >> HC_ALLREDUCE_P_PACKET & 1 ? v.v[HC_ALLREDUCE_P_PACKET]
                                                          : hc_cfg.ring_packet.i;
    p->packet = packet > 0 ? (size_t)packet : HC_RING_PACKET_DEFAULT;
    p->pair_seg = (size_t)(v.set >> HC_ALLREDUCE_P_PAIR_SEG & 1 ? v.v[HC_ALLREDUCE_P_PAIR_SEG]
                                                               : hc_cfg.allreduce_pair_seg.i);
    return hc_allreduce_engines[hc_allreduce_engine_of[algo]].can(c, st, p, r, n);
}

/* An algorithm that cannot run a call gives way to the next one that moves the same data
 * with less: single copy, the leaders and the vendor (where its answer would be wrong) to
 * staged, staged to point to point on the same lattice, that to one ring. */
static int fallback_of(int algo)
{
    switch (algo) {
    case HC_ALLREDUCE_SHM_CMA:
    case HC_ALLREDUCE_LEADERS:
    case HC_ALLREDUCE_VENDOR: return HC_ALLREDUCE_SHM;
    case HC_ALLREDUCE_SHM: return HC_ALLREDUCE_RING;
    default: return HC_ALLREDUCE_RING1D;
    }
}

/* algo, or the first of its fallbacks that can run a call of n elements here; p its plan. */
static int first_runnable(hc_comm *c, hc_ar_state *st, const hc_red *r, int64_t n, int algo,
                          const hc_params *params, hc_ar_plan *p)
{
    while (!plan_for(c, st, r, n, algo, params, p)) {
        algo = fallback_of(algo);
        params = NULL;
    }
    return algo;
}

/* The plan of a communicator's last call, for a next call of the same algorithm, parameters,
 * count and reduction: a loop repeats one call, and working its plan out again (the
 * parameters, the lattice, a string compare, the engine's test) each time cost 7-10% of an
 * 8-byte allreduce on one node. Only for a predefined op on a named type (a kernel): their
 * handles are never freed, so equal handles are the same reduction; a freed derived type's
 * handle may come back as another type. Nothing else the plan rests on changes after the
 * call that made it: the configuration, the communicator's shape, the segment's set-up. */
struct hc_ar_last_plan {
    int asked; /* the algorithm asked for, before its fallbacks */
    const hc_params *params;
    int64_t n;
    MPI_Op op;
    MPI_Datatype dt;
    hc_learn_entry *learn; /* the learner's entry that asked for it (NULL: none) */
    hc_ar_plan plan;
};

static int same_call(const struct hc_ar_last_plan *last, const hc_red *r, int64_t n)
{
    return r->fn && last && last->n == n && last->op == r->op && last->dt == r->dt;
}

static void take_plan(hc_ar_plan *p, const hc_ar_plan *made)
{
    p->algo = made->algo;
    p->lat = made->lat;
    memcpy(p->coords, made->coords, sizeof p->coords);
    p->lat_how = made->lat_how;
    p->packet = made->packet;
    p->pair_seg = made->pair_seg;
}

/* first_runnable, through the communicator's last plan. */
static int runnable_plan(hc_comm *c, hc_ar_state *st, const hc_red *r, int64_t n, int algo,
                         const hc_params *params, hc_ar_plan *p)
{
    struct hc_ar_last_plan *last = st->last_plan;
    if (same_call(last, r, n) && last->asked == algo && last->params == params) {
        take_plan(p, &last->plan);
        last->learn = p->learn;
        return p->algo;
    }
    int runs = first_runnable(c, st, r, n, algo, params, p);
    if (r->fn && (last || (last = st->last_plan = malloc(sizeof *last)) != NULL)) {
        *last = (struct hc_ar_last_plan){algo, params, n, r->op, r->dt, p->learn, {0}};
        take_plan(&last->plan, p);
    }
    return runs;
}

/* `auto` learning, a call as the last one whose key is settled between its checks: the
 * learner only counts it, and the last plan is its choice's. The key's lookup (the
 * reduction's class, the table) and the built-in rule came to 8% of an 8-byte allreduce in a
 * loop (docs/tuning.md). */
static int quiet_call(hc_ar_state *st, const hc_red *r, int64_t n, uintptr_t site,
                      hc_ar_plan *p)
{
    struct hc_ar_last_plan *last = st->last_plan;
    hc_learn_entry *e = same_call(last, r, n) ? last->learn : NULL;
    if (!e || e->cand[e->current] != last->asked || !hc_learn_quiet_calls(e))
        return 0;
    e->calls++;
    e->runs[e->current]++;
    e->seen_site = site;
    take_plan(p, &last->plan);
    p->learn = e;
    p->cand = e->current;
    p->origin = e->origin;
    return 1;
}

/* The built-in rule. One node: shared memory (single copy from the CMA threshold on).
 * Several: small vectors through the leaders' recursive doubling, which among more than two
 * leaders moves log2(L) whole vectors per leader where a ring moves 2(L-1)/L of one: fewer
 * rounds, more bytes; which wins depends on the link, unknown at call time, so it hands over
 * where the vendor does (HC_VENDOR_AR_DOUBLING_BELOW): on 4 hosts x 1 rank a switch 4 KiB away
 * from the vendor's lost 1.3-1.45x (docs/algorithms-allreduce.md, Across hosts). Larger
 * vectors: the ring on the machine's lattice, one ring when nodes are uneven or hold one
 * rank each from HC_AR_ONE_RING_FROM; from HC_AR_NODES_CMA_MIN_BYTES the node dimension by
 * single copy where the ranks may. */
static int builtin_choice(const hc_comm *c, long long bytes)
{
    int algo;
    if (c->num_nodes == 1)
        algo = HC_ALLREDUCE_SHM;
    else if (bytes < HC_AR_RING_MIN_BYTES)
        algo = c->num_nodes == 2 || bytes < HC_VENDOR_AR_DOUBLING_BELOW ? HC_ALLREDUCE_LEADERS
                                                                       : HC_ALLREDUCE_SHM;
    else if (!c->nodes_regular || (c->local_size == 1 && bytes >= HC_AR_ONE_RING_FROM))
        algo = HC_ALLREDUCE_RING1D;
    else
        algo = HC_ALLREDUCE_SHM;
    long long cma_from = c->num_nodes == 1 ? hc_cfg.allreduce_cma_threshold.i
                                           : HC_MIN(hc_cfg.allreduce_cma_threshold.i,
                                                    (long long)HC_AR_NODES_CMA_MIN_BYTES);
    if (algo == HC_ALLREDUCE_SHM && bytes >= cma_from)
        algo = HC_ALLREDUCE_SHM_CMA;
    return algo;
}

/* The algorithms worth timing for a size class: each one, or the first of its fallbacks,
 * that can run the class's largest call here (so the built-in choice is timed as what it
 * would run: on one rank per host, single copy is the machine's ring, not left out). The
 * first is the starting choice. Across nodes below the rings' size only the leaders' exchange,
 * the staged node stage and the vendor, and no ring (the staged stage gives way to the
 * machine's ring where nodes hold one rank): there the rings' latencies lost to all of them,
 * and single copy took what the staged stage takes (within 3%, HC_AR_NODES_CMA_MIN_BYTES)
 * while each candidate timed costs every round a block of calls. */
static int candidates(hc_comm *c, hc_ar_state *st, const hc_red *r, int sclass, int first,
                      int *cand)
{
    int64_t nmax = (int64_t)((((uint64_t)2 << sclass) - 1) / (uint64_t)r->extent);
    long long bytes = nmax * r->extent;
    int multi = c->num_nodes > 1, small_across = multi && bytes < HC_AR_RING_MIN_BYTES;
    int all[] = {first,
                 small_across ? HC_ALLREDUCE_LEADERS : HC_ALLREDUCE_SHM,
                 HC_ALLREDUCE_SHM,
                 small_across ? HC_ALLREDUCE_SHM : HC_ALLREDUCE_SHM_CMA,
                 multi && !small_across ? HC_ALLREDUCE_RING1D : HC_ALLREDUCE_VENDOR,
                 HC_ALLREDUCE_VENDOR};
    /* One node, vectors the staged engine reduces after one synchronisation (its small
     * path): single copy's system calls cost more than all the copies they save, 4-15x the
     * staged engine's time from 8 B to 4 KiB in every calling pattern (2 ranks, both
     * families), and its block in every round and check cost 5% of an 8-byte allreduce in a
     * loop (docs/tuning.md). */
    hc_ar_plan staged;
    int one_sync = !multi &&
                   first_runnable(c, st, r, nmax > 0 ? nmax : 1, HC_ALLREDUCE_SHM, NULL,
                                  &staged) == HC_ALLREDUCE_SHM &&
                   staged.lat.d == 1 && nmax <= hc_ar_shm_small_max(c, st, r);
    int n = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0] && n < HC_LEARN_MAXCAND; i++) {
        hc_ar_plan trial;
        int algo = first_runnable(c, st, r, nmax > 0 ? nmax : 1, all[i], NULL, &trial), dup = 0;
        for (int k = 0; k < n; k++)
            dup |= cand[k] == algo;
        int ring = algo == HC_ALLREDUCE_RING || algo == HC_ALLREDUCE_RING1D;
        int pointless = i > 0 && ((small_across && ring) ||
                                  (one_sync && algo == HC_ALLREDUCE_SHM_CMA));
        if (!dup && !pointless)
            cand[n++] = algo;
    }
    return n;
}

/* Says which lattice runs, once for each one: the lattice depends on the message size. */
static void announce_lattice(hc_comm *c, hc_ar_state *st, const hc_ar_plan *p)
{
    if (c->rank != 0 || hc_log_verbosity < 1)
        return;
    int shm = p->algo == HC_ALLREDUCE_SHM || p->algo == HC_ALLREDUCE_SHM_CMA ||
              p->algo == HC_ALLREDUCE_LEADERS;
    const hc_lattice *lat = &p->lat;
    int n = st->nannounced;
    for (int i = 0; i < n && i < HC_AR_ANNOUNCE_MAX; i++) {
        const hc_ar_announced *a = &st->announced_lattice[i];
        if (a->how == p->lat_how && a->shm == shm && a->lat.d == lat->d &&
            memcmp(a->lat.dims, lat->dims, sizeof(int) * (size_t)lat->d) == 0)
            return;
    }
    if (n >= HC_AR_ANNOUNCE_MAX) { /* a size sweep over many shapes: say so once, then stop */
        if (n == HC_AR_ANNOUNCE_MAX)
            hc_info(1, "allreduce on %d ranks: further lattices not shown", c->size);
        st->nannounced = HC_AR_ANNOUNCE_MAX + 1;
        return;
    }
    st->announced_lattice[st->nannounced++] = (hc_ar_announced){*lat, p->lat_how, shm};
    char text[64];
    hc_lattice_format(lat, text, sizeof text);
    hc_info(1, "allreduce on %d ranks: lattice %s (%s), first dimension through %s", c->size,
            text, p->lat_how, shm ? "shared memory" : "point to point");
}

static void announce_choice(const hc_comm *c, const hc_learn_entry *e, const char *why)
{
    if (c->rank != 0 || hc_log_verbosity < 1)
        return;
    char times[256] = "";
    for (int i = 0, at = 0; i < e->ncand && at < (int)sizeof times; i++)
        if (e->time[i] > 0)
            at += snprintf(times + at, sizeof times - (size_t)at, "%s %s %.1f us",
                           at ? "," : " (", hc_algo(HC_COLL_ALLREDUCE, e->cand[i])->name,
                           e->time[i]);
    hc_info(1, "allreduce on %d ranks, %zu-%zu bytes: %s, %s%s%s", c->size,
            (size_t)1 << e->key.sclass, ((size_t)2 << e->key.sclass) - 1,
            hc_algo(HC_COLL_ALLREDUCE, e->cand[e->current])->name, why, times,
            times[0] ? ")" : "");
}

/* Calls of one size class with other ops or element types cost differently: they learn
 * apart. The class uses what every rank agrees on (a predefined op's place in the list, the
 * element's extent), never a handle's address (a user op's differs between processes). */
static int reduction_class(const hc_red *r)
{
    static const MPI_Op ops[] = {MPI_MAX, MPI_MIN,  MPI_SUM,  MPI_PROD,   MPI_LAND,
                                 MPI_BAND, MPI_LOR, MPI_BOR,  MPI_LXOR,   MPI_BXOR,
                                 MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP};
    int k = (int)(sizeof ops / sizeof ops[0]);
    for (int i = 0; i < k; i++)
        if (r->op == ops[i])
            k = i;
    return k << 16 | (int)HC_MIN(r->extent, (MPI_Aint)0xffff);
}

/* `auto`, learning: the entry of this size class, created alike on every rank. */
static int choose_learned(hc_comm *c, hc_ar_state *st, const hc_red *r, long long bytes,
                          int start, int origin, uintptr_t site, hc_ar_plan *p)
{
    hc_learn_key k = {0, reduction_class(r), hc_size_class((uint64_t)bytes)};
    hc_learn_entry *e = hc_learn_find_last(&st->learn, k);
    if (!e && (e = hc_learn_add(&st->learn, k)) != NULL) {
        int cand[HC_LEARN_MAXCAND];
        int n = candidates(c, st, r, k.sclass, start, cand);
        hc_learn_init(e, k, cand, n, 0, origin, 0);
        if (!hc_learn_long_calls(e) && c->num_nodes > 1)
            hc_learn_settling_calls(e);
        if (origin == HC_ORIGIN_SAVED) {
            announce_choice(c, e, "learned in an earlier run (tuning file)");
            e->announced = 1;
        }
    }
    if (!e)
        return start;
    e->seen_site = site;
    if (e->phase != HC_LEARN_SETTLED && hc_learn_round_over(e)) {
        hc_arlearn_round(c, e);
        if (!e->announced && e->origin == HC_ORIGIN_LEARNED) {
            announce_choice(c, e, "measured");
            e->announced = 1;
        }
    }
    int i = hc_learn_next(e, &p->measure);
    e->runs[i]++;
    p->learn = e;
    p->cand = i;
    p->origin = i == e->current ? e->origin : HC_ORIGIN_LEARNED;
    return e->cand[i];
}

int hc_allreduce_fixed(const hc_comm *c, long long bytes, const hc_tuning_rule **rule,
                       int *origin)
{
    *rule = NULL;
    if (c->allreduce_choice >= 0) {
        *origin = HC_ORIGIN_INFO;
        return c->allreduce_choice;
    }
    if (hc_cfg.allreduce.i != HC_ALLREDUCE_AUTO) {
        *origin = HC_ORIGIN_VAR;
        return (int)hc_cfg.allreduce.i;
    }
    *rule = hc_cfg.tuning.s[0] ? hc_tuning_rule_for(HC_COLL_ALLREDUCE, bytes, c, NULL, -1) : NULL;
    *origin = HC_ORIGIN_FILE;
    return *rule && !(*rule)->learned ? (*rule)->algo : HC_ALLREDUCE_AUTO;
}

void hc_allreduce_select(hc_comm *c, hc_ar_state *st, const hc_red *r, int64_t n,
                         uintptr_t site, hc_ar_plan *p)
{
    memset(p, 0, sizeof *p);
    long long bytes = (long long)n * r->extent;
    const hc_tuning_rule *rule;
    int algo = hc_allreduce_fixed(c, bytes, &rule, &p->origin);
    if (algo == HC_ALLREDUCE_AUTO && hc_cfg.learn.i && quiet_call(st, r, n, site, p))
        return;
    if (algo == HC_ALLREDUCE_AUTO) {
        int saved = rule && rule->learned && rule->algo != HC_ALLREDUCE_AUTO;
        int start = saved ? rule->algo : builtin_choice(c, bytes);
        p->origin = saved ? HC_ORIGIN_SAVED : HC_ORIGIN_RULE;
        algo = hc_cfg.learn.i ? choose_learned(c, st, r, bytes, start, p->origin, site, p)
                              : start;
    }
    const hc_params *params = rule && rule->algo == algo ? &rule->params : NULL;
    int asked = algo;
    algo = runnable_plan(c, st, r, n, algo, params, p);
    if (algo != asked && p->measure) {
        p->measure = 0; /* not the candidate the learner asked for */
        p->learn->last_end = 0; /* nor a mark the block's next call can count from */
    }
    if (algo != HC_ALLREDUCE_VENDOR)
        announce_lattice(c, st, p);
}
