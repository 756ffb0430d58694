/* Mapping algorithms of seed 000 (TML, TMRR, TMGP/TMMGP, TMGT) and hiercoll's refinement.
 * A mapping is int map[M]: the core (depth-first index) of each rank; -1 = unmapped. */
#ifndef HC_MAP_H
#define HC_MAP_H

#include "hc_graph.h"
#include "hc_machine.h"

typedef enum hc_map_algo {
    HC_MAPALGO_AUTO, HC_MAPALGO_TMMGP, HC_MAPALGO_TMGT, HC_MAPALGO_TML, HC_MAPALGO_TMRR,
    HC_MAPALGO_TMMGP_PAPER /* single k-way pass into lowest-level groups, as in Listing 2 */
} hc_map_algo;

/* Paper objective (4): max over ranks of sum_j d_ij / b_z(f(i),f(j)); and the sum over edges. */
typedef struct hc_map_cost {
    double max, sum;
} hc_map_cost;
hc_map_cost hc_map_cost_eval(const hc_graph *g, const hc_machine *m, const int *map);
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
/* TMMGP applied recursively down every level of the tree (partly occupied machines too). */
int hc_map_tmmgp(const hc_graph *g, const hc_machine *m, unsigned seed, int *map);
/* Listing 3 (TMGT), adjacency lists ordered by edge weight as in the paper's worked example. */
int hc_map_tmgt(const hc_graph *g, const hc_machine *m, int *map);
/* Swaps and moves that lower the max objective (or the sum without raising the max); never
 * makes either worse. Deterministic for a seed. Returns the number of moves made. */
long hc_map_refine(const hc_graph *g, const hc_machine *m, unsigned seed, int *map);

/* Runs algo (auto: every applicable algorithm, each refined, the lowest max then sum wins).
 * name receives what was used, e.g. "tmmgp+refine". 0 or -1 with a reason in err. */
int hc_map_compute(const hc_graph *g, const hc_machine *m, hc_map_algo algo, unsigned seed,
                   int *map, char *name, size_t namelen, char *err, size_t errlen);
/* "auto", "tmmgp", "tmgt", "tml", "tmrr", "tmmgp-paper" -> algo; -1 if unknown. */
int hc_map_algo_parse(const char *s);
const char *hc_map_algo_name(hc_map_algo a);

#endif
