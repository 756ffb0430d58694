# hiercoll-maptables --vs-scotch, run small: every cost of the table recomputed from the files
# it keeps (graph, machine, both mappings), Scotch's best strategy found again, the ratios and
# the verdict consistent with the rows; a gmap that puts two ranks on one core is noticed.
# Skips without Scotch's gmap (Debian package scotch).
. tests/e2e/cli_common.bash
T=$PWD/$BUILD/bin/hiercoll-maptables
[ -x "$T" ] || fail "$T not built"
command -v gmap >/dev/null || command -v scotch_gmap >/dev/null ||
    { echo "no gmap: skip"; exit 77; }

expect_status 0 "$T" --vs-scotch --help
expect_in "$TMP/out" "stencil2d"
expect_status 2 "$T" --vs-scotch --families nosuch
expect_status 2 "$T" --vs-scotch --sizes 12
expect_status 2 "$T" --vs-scotch --gmap "$TMP/none" --families grid2d --sizes 8

"$T" --vs-scotch --families grid2d,rgg,stencil2d --sizes 64 \
    --machines "node:* core:16;node:* package:2 core:16" --keep "$TMP/k" >"$TMP/table" 2>"$TMP/err"
rc=$?
[ $rc -le 1 ] || { cat "$TMP/table" "$TMP/err"; fail "exit status $rc"; }
cat "$TMP/table"
python3 - "$TMP/table" "$TMP/k" "$rc" <<'PY' || fail "the table does not match its files"
import glob, os, re, sys
sys.path.insert(0, 'tests/e2e')
from map_cost import graph, cost, mapping
table, keep, rc = sys.argv[1], sys.argv[2], int(sys.argv[3])

def bound(adj, spec, bw):
    # no rank does better than with its heaviest partners on the cores nearest to it; and when
    # a connected set outnumbers a node, some edge (i, j) joins two nodes, each common
    # neighbour sits on i's node or not, and edges between the sides cross the network
    arity = [int(x.split(':')[1]) for x in spec.split()]
    cores = [1] * (len(arity) + 1)  # cores under one element of each level
    for l in range(len(arity) - 1, -1, -1):
        cores[l] = cores[l + 1] * arity[l]
    slots = sorted(((bw[l], cores[l] - cores[l + 1]) for l in range(len(arity))), reverse=True)
    nbrs = [dict(a) for a in adj]
    def time(v, cut):
        free = [n for _, n in slots]
        t, s = 0, 0
        for u, w in sorted(adj[v], key=lambda x: -x[1]):
            if u in cut:
                t += w / bw[0]
                continue
            while free[s] == 0:
                s += 1
            t += w / slots[s][0]
            free[s] -= 1
        return t
    per_rank = max(time(v, ()) for v in range(len(adj)))
    node = cores[1]
    comp = list(range(len(adj)))
    def find(v):
        while comp[v] != v:
            v = comp[v]
        return v
    for v in range(len(adj)):
        for u, _ in adj[v]:
            comp[find(u)] = find(v)
    size = {}
    for v in range(len(adj)):
        size[find(v)] = size.get(find(v), 0) + 1
    cut_bound = None
    for i in range(len(adj)):
        if size[find(i)] <= node or arity[0] < 2:
            continue
        for j, _ in adj[i]:
            if j < i:
                continue
            common = sorted(set(nbrs[i]) & set(nbrs[j]))[:8]
            best = None
            for side in range(1 << len(common)):
                mine = [k for b, k in enumerate(common) if side >> b & 1] + [i]
                theirs = [k for b, k in enumerate(common) if not side >> b & 1] + [j]
                if len(mine) > node:  # i's side is one node; j's may be several
                    continue
                worst = max([time(v, set(theirs)) for v in mine] +
                            [time(v, set(mine)) for v in theirs])
                best = worst if best is None else min(best, worst)
            if best is not None:
                cut_bound = best if cut_bound is None else min(cut_bound, best)
    return max(per_rank, cut_bound or 0)

def close(a, b):  # the table prints 4 significant digits
    return abs(a - b) <= 6e-4 * abs(b)

rows = [l.split() for l in open(table) if re.match(r'^(grid2d|rgg|stencil2d) +64 ', l)]
assert len(rows) == 6, rows
worse = 0
def edges_at(r):  # the machine's words end where the edge count starts
    return next(i for i in range(3, len(r)) if r[i].isdigit())
for r in rows:
    e = edges_at(r)
    fam, spec = r[0], ' '.join(r[2:e])
    edges, algo, hmax, hsum, by, smax, ssum, rmax, rsum = r[e:e + 9]
    sbound = float(r[e + 11])
    d = os.path.join(keep, fam + '-64-' + spec.replace(':', '').replace(' ', '_'))
    spec_f, bws = open(d + '/machine.txt').read().split('\n')[:2]
    assert spec_f == spec, (spec_f, spec)
    bw = [float(x) for x in bws.split(',')]
    adj = graph(d + '/graph.metis')
    assert sum(len(a) for a in adj) == 2 * int(edges)
    n = len(adj)
    cores = 1
    for x in spec.split():
        cores *= int(x.split(':')[1])
    h = mapping(d + '/hiercoll.map', n)
    assert len(set(h)) == n and all(0 <= c < cores for c in h), "hiercoll's mapping is invalid"
    hm, hs = cost(adj, spec, bw, h)
    assert close(hm, float(hmax)) and close(hs, float(hsum)), (d, hm, hs, hmax, hsum)
    best = None
    for f in sorted(glob.glob(d + '/scotch-*.map')):
        s = mapping(f, n)
        if len(set(s)) < n:
            continue  # a shared core: not counted
        c = cost(adj, spec, bw, s)
        if best is None or c[0] < best[0][0] * (1 - 1e-9) or \
                (c[0] <= best[0][0] * (1 + 1e-9) and c[1] < best[0][1]):
            best = (c, os.path.basename(f)[7:-4])
    assert best, d
    assert close(best[0][0], float(smax)) and close(best[0][1], float(ssum)), (d, best, smax, ssum)
    assert abs(float(rmax) - hm / best[0][0]) <= 1e-3 and abs(float(rsum) - hs / best[0][1]) <= 1e-3
    lb = bound(adj, spec, bw)
    assert hm >= lb * (1 - 1e-9) and best[0][0] >= lb * (1 - 1e-9), (d, lb, hm, best)
    assert abs(sbound - best[0][0] / lb) <= 1e-3, (d, sbound, best[0][0] / lb)
    bad = hm > best[0][0] * (1 + 1e-9) or hs > 1.05 * best[0][1]
    assert bad == ('WORSE' in ' '.join(r)), r
    worse += bad
# exit status 1 exactly when a row is worse or the median max ratio is not below 1
ratios = sorted(float(r[edges_at(r) + 7]) for r in rows)
assert rc == (1 if worse or (ratios[2] + ratios[3]) / 2 >= 1 else 0), (rc, worse, ratios)
PY

# a gmap that puts ranks 0 and 1 on core 0 is noticed, and its mapping is not counted
cat >"$TMP/gmap" <<'SH'
#!/bin/sh
n=$(sed -n 2p "$1" | cut -d' ' -f1)
{
    echo "$n"; echo "0 0"
    i=1; while [ "$i" -lt "$n" ]; do echo "$i $((i - 1))"; i=$((i + 1)); done
} >"$3"
SH
chmod +x "$TMP/gmap"
expect_status 1 "$T" --vs-scotch --gmap "$TMP/gmap" --families grid2d --sizes 64 \
    --machines "node:* core:16" --strategies q,r0
expect_in "$TMP/out" \
    "^grid2d +64 node:4 core:16 +112 .*two ranks on one core.* q:1,r0:1; no valid Scotch mapping"
exit 0
