/* Mapping algorithms of seed 000 (TML, TMRR, TMGP/TMMGP, TMGT) and hiercoll's refinement.
 * A mapping is int map[M]: the core (depth-first index) of each rank; -1 = unmapped. */
#ifndef HC_MAP_H
#define HC_MAP_H

#include "hc_graph.h"
#include "hc_machine.h"

typedef enum hc_map_algo {
    HC_MAPALGO_AUTO, HC_MAPALGO_TMMGP, HC_MAPALGO_TMGT, HC_MAPALGO_TML, HC_MAPALGO_TMRR,
    HC_MAPALGO_TMMGP_PAPER, /* single k-way pass into lowest-level groups, as in Listing 2 */
    HC_MAPALGO_TMMGP_BISECT, /* bisections choosing the lowest max among equal cuts */
    HC_MAPALGO_SCOTCH       /* libscotch's static mapping onto the tree */
} hc_map_algo;

/* Paper objective (4): max over ranks of sum_j d_ij / b_z(f(i),f(j)); and the sum over edges. */
typedef struct hc_map_cost {
    double max, sum;
} hc_map_cost;
hc_map_cost hc_map_cost_eval(const hc_graph *g, const hc_machine *m, const int *map);
/* Every comparison of costs goes through these: the same cost summed in another order differs
 * in its last bits, so values within a relative HC_MAP_COST_RTOL are equal. */
#define HC_MAP_COST_RTOL 1e-9
/* a < b, and not merely by rounding. */
int hc_map_cost_less(double a, double b);
/* a is the better mapping: a lower max, or the same max and a lower sum. */
int hc_map_cost_better(hc_map_cost a, hc_map_cost b);
/* The traffic a lower max may cost: candidates whose sum exceeds the lowest by more are out.
 * Measured (docs/algorithms-mapping.md): below 12% auto keeps blocks whose max is up to 1.56x
 * that of row strips on anisotropic grids; at 15% it takes strips on small grids for 15%
 * more traffic. */
#define HC_MAP_SUM_SLACK 0.125
/* How far above a reference's sum a choice may be (auto's reference: Scotch's best result). */
#define HC_MAP_REF_SUM_SLACK 0.05
/* Of the candidates c[i] with ok[i], the better one (hc_map_cost_better) among those whose sum
 * is within HC_MAP_SUM_SLACK of the lowest sum. Held to a reference ref (NULL: none): if that
 * choice has a higher max than ref, or a sum more than HC_MAP_REF_SUM_SLACK above ref's, the
 * better one among the candidates that have neither, if any, even beyond HC_MAP_SUM_SLACK of
 * the lowest sum (ref's own traffic may be). -1 if none is ok. */
int hc_map_cost_pick(const hc_map_cost *c, const int *ok, int n, const hc_map_cost *ref);
/* A lower bound on the max over every mapping of g onto m: the highest, over ranks, of the time
 * a rank would take with its heaviest partners on the cores nearest to it (mapping/bound.c).
 * -1 with no memory. */
double hc_map_max_lower_bound(const hc_graph *g, const hc_machine *m);
/* Per-rank times t_i into t[M]. */
void hc_map_rank_costs(const hc_graph *g, const hc_machine *m, const int *map, double *t);

/* Every algorithm: 0, or -1 if the machine has fewer available cores than ranks (or no
 * memory). */
int hc_map_tml(const hc_graph *g, const hc_machine *m, int *map);
int hc_map_tmrr(const hc_graph *g, const hc_machine *m, int *map);
/* TMGP's parameters: k = floor((M - 1) / c_L1) + 1 parts of at most s = c_L1 ranks. */
void hc_map_tmgp_params(int M, int cL1, int *k, int *s);
/* Listing 2: METIS k-way into k groups of the lowest level, part p on group p. Needs a tree
 * machine with every core available. */
int hc_map_tmmgp_paper(const hc_graph *g, const hc_machine *m, unsigned seed, int *map);
/* TMMGP applied recursively down every level of the tree (partly occupied machines too); each
 * split keeps the least cutting of `tries` METIS partitionings (METIS_OPTION_NCUTS). */
int hc_map_tmmgp(const hc_graph *g, const hc_machine *m, unsigned seed, int tries, int *map);
/* TMMGP whose every level is split by recursive bisection, each the least cutting of
 * `bisections` METIS bisections (8 if <= 0) from different seeds and, among equal cuts, the
 * one whose ranks' cut edges so far have the lowest maximum. */
int hc_map_tmmgp_bisect(const hc_graph *g, const hc_machine *m, unsigned seed, int bisections,
                        int *map);
/* Listing 3 (TMGT), adjacency lists ordered by edge weight as in the paper's worked example. */
int hc_map_tmgt(const hc_graph *g, const hc_machine *m, int *map);
/* Scotch (libscotch) onto a tree machine as a tleaf target, unavailable cores left out, with
 * strategy hc_scotch_strategies[strategy]; ranks that Scotch's balance tolerance puts on a
 * shared core are moved (hc_map_make_injective). Needs a tree machine. Returns how many ranks
 * were moved (0: the mapping is Scotch's own), or -1 as the other algorithms. */
typedef struct hc_scotch_strategy {
    const char *label; /* short name, as in the comparison's tables */
    int flags;         /* SCOTCH_STRAT* */
    double balance;    /* load imbalance tolerated */
    int cumulative;    /* tleaf costs of hc_map_tleaf */
} hc_scotch_strategy;
extern const hc_scotch_strategy hc_scotch_strategies[];
extern const int hc_nscotch_strategies;
int hc_map_scotch(const hc_graph *g, const hc_machine *m, unsigned seed, int strategy,
                  int *map);
/* Scotch's tleaf view of a tree machine: the levels of arity > 1 from the top, each with an
 * integer cost proportional to 1 / bandwidth (10 for the fastest). Scotch adds the costs of
 * the levels a route climbs through, so with cumulative != 0 level k gets c_k - c_(k+1).
 * dist is the largest distance. 0, or -1 on a matrix machine. */
typedef struct hc_tleaf {
    int n, size[HC_MACHINE_MAX_LEVELS], link[HC_MACHINE_MAX_LEVELS], dist;
} hc_tleaf;
int hc_map_tleaf(const hc_machine *m, int cumulative, hc_tleaf *t);
/* Scotch's integer edge weights: w -> hc_map_scotch_weight(w, scale), scale chosen so the
 * heaviest edge gets 10 000 and no sum of weight x distance overflows 32 bits. One scale for
 * both tleaf encodings of m (the larger distance), so every strategy, and gmap, maps the
 * same integer graph. */
double hc_map_scotch_scale(const hc_graph *g, const hc_machine *m);
long long hc_map_scotch_weight(double w, double scale);
/* Ranks sharing a core move, each to the free available core with the highest bandwidth to
 * the one it left. Returns how many moved, or -1 (no free core, no memory). */
int hc_map_make_injective(const hc_machine *m, int *map, int M);
/* Swaps and moves that lower the max objective (or the sum without raising the max); never
 * makes either worse. Deterministic for a seed. Returns the number of moves made. */
long hc_map_refine(const hc_graph *g, const hc_machine *m, unsigned seed, int *map);
/* The same, except that a move taking ranks off the maximum may raise the sum, up to sum_cap
 * (the max traded for traffic; sum_cap <= 0: as hc_map_refine). */
long hc_map_refine_capped(const hc_graph *g, const hc_machine *m, unsigned seed, double sum_cap,
                          int *map);

/* Runs algo (auto: every applicable algorithm, the most promising refined, hc_map_cost_pick
 * held to Scotch's best unrepaired mapping as the reference).
 * name receives what was used, e.g. "tmmgp+refine". 0 or -1 with a reason in err. */
int hc_map_compute(const hc_graph *g, const hc_machine *m, hc_map_algo algo, unsigned seed,
                   int *map, char *name, size_t namelen, char *err, size_t errlen);
/* "auto", "tmmgp", "tmgt", "tml", "tmrr", "tmmgp-paper", "tmmgp-bisect", "scotch" -> algo; -1 if
 * unknown. */
int hc_map_algo_parse(const char *s);
const char *hc_map_algo_name(hc_map_algo a);

#endif
