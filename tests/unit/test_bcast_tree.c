/* Notification trees and the queue model: every tree spans all ranks exactly once from any
 * root, shapes have their defining depths, the NUMA tree crosses domains once per domain. */
#include <math.h>

#include "bcast_shm.h"
#include "bcast_tree.h"
#include "hc_config.h"
#include "hc_test.h"

/* Every rank but the root has a parent, child lists agree with parents, no cycles. */
static void check_spanning(int kind, int k, int n, int root, const int *dom)
{
    int parent[64], cs[65], ch[64];
    HC_CHECK_EQ_INT(hc_btree_build(kind, k, n, root, dom, parent, cs, ch), 0);
    HC_CHECK_EQ_INT(parent[root], -1);
    HC_CHECK_EQ_INT(cs[n], n - 1);
    int seen[64] = {0};
    for (int p = 0; p < n; p++)
        for (int i = cs[p]; i < cs[p + 1]; i++) {
            HC_CHECK_EQ_INT(parent[ch[i]], p);
            seen[ch[i]]++;
        }
    for (int r = 0; r < n; r++)
        HC_CHECK_MSG(seen[r] == (r != root), "kind %d n %d root %d: rank %d listed %d times",
                     kind, n, root, r, seen[r]);
    HC_CHECK(hc_btree_depth(n, root, parent) < n);
}

HC_TEST(all_kinds_span_from_every_root)
{
    int dom[64];
    for (int r = 0; r < 64; r++)
        dom[r] = r / 3;
    int kinds[] = {HC_TREE_KNOMIAL, HC_TREE_KARY, HC_TREE_CHAIN, HC_TREE_FLAT, HC_TREE_NUMA};
    for (int kk = 0; kk < 5; kk++)
        for (int k = 2; k <= 4; k++)
            for (int n = 1; n <= 17; n += 2)
                for (int root = 0; root < n; root++)
                    check_spanning(kinds[kk], k, n, root, dom);
}

HC_TEST(depths)
{
    int parent[64], cs[65], ch[64];
    hc_btree_build(HC_TREE_CHAIN, 2, 8, 3, NULL, parent, cs, ch);
    HC_CHECK_EQ_INT(hc_btree_depth(8, 3, parent), 7);
    HC_CHECK_EQ_INT(parent[4], 3);
    HC_CHECK_EQ_INT(parent[2], 1);
    hc_btree_build(HC_TREE_FLAT, 2, 8, 5, NULL, parent, cs, ch);
    HC_CHECK_EQ_INT(hc_btree_depth(8, 5, parent), 1);
    hc_btree_build(HC_TREE_KARY, 2, 15, 0, NULL, parent, cs, ch);
    HC_CHECK_EQ_INT(hc_btree_depth(15, 0, parent), 3);
    hc_btree_build(HC_TREE_KNOMIAL, 2, 16, 0, NULL, parent, cs, ch);
    HC_CHECK_EQ_INT(hc_btree_depth(16, 0, parent), 4);
    HC_CHECK_EQ_INT(parent[6], 4);
    HC_CHECK_EQ_INT(parent[12], 8);
    /* the binomial root notifies the largest subtree (8) first */
    HC_CHECK_EQ_INT(ch[cs[0]], 8);
    hc_btree_build(HC_TREE_KNOMIAL, 3, 9, 0, NULL, parent, cs, ch);
    HC_CHECK_EQ_INT(parent[5], 3);
    HC_CHECK_EQ_INT(parent[8], 6);
}

HC_TEST(numa_tree_crosses_once_per_domain)
{
    int dom[12] = {0, 1, 0, 1, 0, 1, 2, 2, 2, 2, 0, 1};
    int parent[12], cs[13], ch[12];
    for (int root = 0; root < 12; root++) {
        hc_btree_build(HC_TREE_NUMA, 2, 12, root, dom, parent, cs, ch);
        int cross = 0;
        for (int r = 0; r < 12; r++)
            if (parent[r] >= 0 && dom[parent[r]] != dom[r]) {
                cross++;
                HC_CHECK_EQ_INT(parent[r], root); /* only the root reaches other domains */
            }
        HC_CHECK_EQ_INT(cross, 2);
        /* the root notifies the other domains' leaders before its own domain */
        HC_CHECK(dom[ch[cs[root]]] != dom[root]);
        HC_CHECK(dom[ch[cs[root] + 1]] != dom[root]);
    }
}

HC_TEST(bad_arguments)
{
    int parent[4], cs[5], ch[4];
    HC_CHECK_EQ_INT(hc_btree_build(HC_TREE_KARY, 1, 4, 0, NULL, parent, cs, ch), -1);
    HC_CHECK_EQ_INT(hc_btree_build(HC_TREE_FLAT, 2, 4, 4, NULL, parent, cs, ch), -1);
    HC_CHECK_EQ_INT(hc_btree_build(HC_TREE_FLAT, 2, 0, 0, NULL, parent, cs, ch), -1);
}

HC_TEST(model_defaults)
{
    size_t f;
    int s;
    /* seed 002's Fig. 4 numbers: b = 4 MiB, t_w/t = 50 -> f* = 14483 -> 16 KiB pages */
    hc_bcast_model(4u << 20, 50.0, 4096, &f, &s);
    HC_CHECK_EQ_INT(f, 16384);
    HC_CHECK_EQ_INT(s, 256);
    /* the defaults in force (collectives/bcast_shm.c): b = 256 KiB, t_w/t = 4096 -> 32 KiB x 8 */
    hc_bcast_model(256u << 10, 4096.0, 4096, &f, &s);
    HC_CHECK_EQ_INT(f, 32768);
    HC_CHECK_EQ_INT(s, 8);
    /* rounding up to a page, and the queue never below two buffers */
    hc_bcast_model(8192, 1e6, 4096, &f, &s);
    HC_CHECK_EQ_INT(f % 4096, 0);
    HC_CHECK_EQ_INT(s, 2);
    HC_CHECK(fabs((double)f - sqrt(8192.0 * 1e6)) < 4096);
}

int main(void) { return hc_test_main(); }
