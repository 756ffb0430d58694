/* The baselines of seed 000: TML (first M free cores) and TMRR (round robin over nodes). */
#include <stdlib.h>

#include "hc_map.h"

int hc_map_tml(const hc_graph *g, const hc_machine *m, int *map)
{
    int c = 0;
    for (int i = 0; i < g->n; i++) {
        while (c < m->ncores && !m->avail[c])
            c++;
        if (c == m->ncores)
            return -1;
        map[i] = c++;
    }
    return 0;
}

/* Node of every core: the tree's node level, or on a matrix machine the groups of cores
 * joined by more than the slowest bandwidth (the network). */
static int node_ids(const hc_machine *m, int *node)
{
    int n = m->ncores, count = 0;
    if (!m->matrix) {
        for (int p = 0; p < n; p++)
            node[p] = hc_machine_node_of(m, p);
        return node[n - 1] + 1;
    }
    double lo = 0;
    for (size_t i = 0; i < (size_t)n * n; i++)
        if (m->matrix[i] > 0 && (lo == 0 || m->matrix[i] < lo))
            lo = m->matrix[i];
    for (int p = 0; p < n; p++)
        node[p] = -1;
    for (int p = 0; p < n; p++) {
        if (node[p] >= 0)
            continue;
        node[p] = count;
        for (int q = p + 1; q < n; q++) /* one pass: cores of a node share their fast links */
            if (node[q] < 0 && m->matrix[(size_t)p * n + q] > lo)
                node[q] = count;
        count++;
    }
    return count;
}

int hc_map_tmrr(const hc_graph *g, const hc_machine *m, int *map)
{
    int n = m->ncores, rc = -1;
    int *node = malloc(sizeof(int) * (size_t)n), *next = NULL;
    if (!node)
        return -1;
    int nodes = node_ids(m, node);
    next = calloc((size_t)nodes, sizeof(int)); /* per node: first core not yet looked at */
    if (!next)
        goto out;
    /* cursor per node over the core list; cores of a node are scanned in index order */
    int *first = malloc(sizeof(int) * (size_t)n); /* core order grouped by node */
    int *start = calloc((size_t)nodes + 1, sizeof(int));
    if (!first || !start) {
        free(first);
        free(start);
        goto out;
    }
    for (int p = 0; p < n; p++)
        start[node[p] + 1]++;
    for (int k = 0; k < nodes; k++)
        start[k + 1] += start[k];
    for (int p = 0; p < n; p++)
        first[start[node[p]] + next[node[p]]++] = p;
    for (int k = 0; k < nodes; k++)
        next[k] = start[k];
    int k = 0;
    rc = 0;
    for (int i = 0; i < g->n && rc == 0; i++) {
        int tried = 0, placed = 0;
        while (!placed && tried < nodes) {
            while (next[k] < start[k + 1] && !m->avail[first[next[k]]])
                next[k]++;
            if (next[k] < start[k + 1]) {
                map[i] = first[next[k]++];
                placed = 1;
            }
            k = (k + 1) % nodes;
            tried++;
        }
        if (!placed)
            rc = -1;
    }
    free(first);
    free(start);
out:
    free(node);
    free(next);
    return rc;
}

int hc_map_make_injective(const hc_machine *m, int *map, int M)
{
    int N = m->ncores, moved = 0;
    int *owner = malloc(sizeof(int) * (size_t)(N ? N : 1));
    if (!owner)
        return -1;
    for (int c = 0; c < N; c++)
        owner[c] = -1;
    for (int i = 0; i < M; i++)
        if (owner[map[i]] < 0)
            owner[map[i]] = i;
    for (int i = 0; i < M && moved >= 0; i++) {
        if (owner[map[i]] == i)
            continue;
        int best = -1;
        for (int c = 0; c < N; c++)
            if (m->avail[c] && owner[c] < 0 &&
                (best < 0 || hc_machine_bw(m, map[i], c) > hc_machine_bw(m, map[i], best)))
                best = c;
        if (best < 0)
            moved = -1;
        else {
            map[i] = best;
            owner[best] = i;
            moved++;
        }
    }
    free(owner);
    return moved;
}
