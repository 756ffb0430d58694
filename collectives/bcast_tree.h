/* Notification trees of the shared-memory broadcast: pure functions over local ranks. */
#ifndef HC_BCAST_TREE_H
#define HC_BCAST_TREE_H

/* Tree kinds, as HIERCOLL_BCAST_TREE lists them (HC_TREE_* in hc_config.h). */

/* Fills parent[n] (-1 at the root) and children of every rank for a broadcast among n
 * ranks from `root`. kind: HC_TREE_KNOMIAL/KARY (radix k >= 2), CHAIN, FLAT, or NUMA, which
 * uses domain[n] (any ints; equal values = same domain): the root notifies one leader per
 * other domain first (its lowest rank), then each domain runs a k-ary tree from its leader,
 * so only one reader per domain waits on a cross-domain notification.
 * child_start[n+1], child[n-1]: the children of r are child[child_start[r] .. child_start[r+1])
 * in the order they should be notified (largest subtree first where it matters).
 * Returns 0, or -1 on a bad argument. */
int hc_btree_build(int kind, int k, int n, int root, const int *domain, int *parent,
                   int *child_start, int *child);

/* Depth of the tree (edges on the longest root-to-leaf path), for tests and the model. */
int hc_btree_depth(int n, int root, const int *parent);

#endif
