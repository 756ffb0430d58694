/* Notification trees: every kind is built as a parent array over "virtual" ranks
 * v = (r - root) mod n, then turned into child lists. */
#include "bcast_tree.h"

#include <stdlib.h>

#include "hc_config.h"

static int knomial_parent(int v, int k)
{
    /* Zero the lowest non-zero base-k digit. */
    int mask = 1;
    while ((v / mask) % k == 0)
        mask *= k;
    return v - ((v / mask) % k) * mask;
}

/* Parent of virtual rank v (> 0) in the simple shapes. */
static int simple_parent(int kind, int k, int v)
{
    switch (kind) {
    case HC_TREE_KNOMIAL: return knomial_parent(v, k);
    case HC_TREE_KARY: return (v - 1) / k;
    case HC_TREE_CHAIN: return v - 1;
    default: return 0; /* flat */
    }
}

/* NUMA-aware tree: root -> other domains' leaders (flat, in domain order), then a k-ary tree
 * inside every domain from its leader. */
static void numa_parents(int k, int n, int root, const int *domain, int *parent)
{
    int *members = malloc(sizeof(int) * (size_t)n);
    int *done = calloc((size_t)n, sizeof(int));
    for (int r = 0; r < n; r++) {
        if (done[r])
            continue;
        /* Gather r's domain, leader first (the root if it lives here, else the lowest). */
        int m = 0;
        for (int x = r; x < n; x++)
            if (domain[x] == domain[r]) {
                members[m++] = x;
                done[x] = 1;
            }
        int lead = 0;
        for (int i = 0; i < m; i++)
            if (members[i] == root)
                lead = i;
        int t = members[0];
        members[0] = members[lead];
        members[lead] = t;
        parent[members[0]] = members[0] == root ? -1 : root;
        for (int i = 1; i < m; i++)
            parent[members[i]] = members[(i - 1) / k];
    }
    free(members);
    free(done);
}

int hc_btree_build(int kind, int k, int n, int root, const int *domain, int *parent,
                   int *child_start, int *child)
{
    if (n < 1 || root < 0 || root >= n || ((kind == HC_TREE_KNOMIAL || kind == HC_TREE_KARY ||
                                            kind == HC_TREE_NUMA) && k < 2))
        return -1;
    if (kind == HC_TREE_NUMA && domain) {
        numa_parents(k, n, root, domain, parent);
    } else {
        for (int v = 0; v < n; v++) {
            int r = (v + root) % n;
            parent[r] = v == 0 ? -1 : (simple_parent(kind, k, v) + root) % n;
        }
    }
    /* Child lists by counting. Children are taken in increasing virtual rank, except for
     * the k-nomial tree whose later children root the larger subtrees, and for the NUMA tree
     * where other domains' leaders (cross-domain, slowest) come first. */
    for (int r = 0; r <= n; r++)
        child_start[r] = 0;
    for (int r = 0; r < n; r++)
        if (parent[r] >= 0)
            child_start[parent[r] + 1]++;
    for (int r = 0; r < n; r++)
        child_start[r + 1] += child_start[r];
    int *fill = malloc(sizeof(int) * (size_t)n);
    for (int r = 0; r < n; r++)
        fill[r] = child_start[r];
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++) {
            int v = kind == HC_TREE_KNOMIAL ? n - 1 - i : i;
            int r = (v + root) % n, p = parent[r];
            if (p < 0)
                continue;
            int cross = kind == HC_TREE_NUMA && domain && domain[r] != domain[p];
            if ((kind == HC_TREE_NUMA && domain) ? (pass == 0) == cross : pass == 0)
                child[fill[p]++] = r;
        }
    free(fill);
    return 0;
}

int hc_btree_depth(int n, int root, const int *parent)
{
    int depth = 0;
    for (int r = 0; r < n; r++) {
        int d = 0;
        for (int x = r; x != root && d <= n; x = parent[x])
            d++;
        if (d > depth)
            depth = d;
    }
    return depth;
}
