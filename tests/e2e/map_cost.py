"""hiercoll's cost model recomputed from the files `hiercoll-maptables --vs-scotch --keep`
writes, independently of the C code and of the tools: the mapping tests check against it."""


def graph(path):
    lines = [l for l in open(path) if not l.startswith('%')]
    n = int(lines[0].split()[0])
    adj = []
    for i in range(n):
        t = lines[1 + i].split()
        adj.append([(int(t[k]) - 1, float(t[k + 1])) for k in range(0, len(t), 2)])
    return adj


def cost(adj, spec, bw, mapping):
    arity = [int(x.split(':')[1]) for x in spec.split()]
    stride = [1] * len(arity)
    for l in range(len(arity) - 2, -1, -1):
        stride[l] = stride[l + 1] * arity[l + 1]
    def level(p, q):
        return next((l for l in range(len(arity)) if p // stride[l] != q // stride[l]),
                    len(arity) - 1)
    t = [sum(w / bw[level(mapping[i], mapping[j])] for j, w in adj[i]) for i in range(len(adj))]
    return max(t), sum(t) / 2


def mapping(path, n):
    rows = open(path).read().split()
    assert int(rows[0]) == n
    m = [None] * n
    for k in range(n):
        m[int(rows[1 + 2 * k])] = int(rows[2 + 2 * k])
    return m
