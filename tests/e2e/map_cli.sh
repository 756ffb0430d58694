# hiercoll map: usage errors exit 2, bad files exit 1 with FILE:LINE, --json fields, --out
# files, the paper's TMGT example through a matrix file, costs recomputed from the JSON.
. tests/e2e/cli_common.bash

expect_status 0 "$HC" map --help
expect_in "$TMP/out" "usage: hiercoll map"
expect_status 2 "$HC" map
expect_status 2 "$HC" map --graph x --machine "node:2 core:2"
expect_status 2 "$HC" map --graph x --bogus
# the paper's Fig. 11 grid and matrix (14)
cat >"$TMP/grid.graph" <<'G'
% hiercoll taskgraph v1
6 7 001
2 10 4 4
1 10 3 10 5 4
2 10 6 4
1 4 5 10
2 4 4 10 6 10
3 4 5 10
G
cat >"$TMP/m14.txt" <<'M'
# hiercoll bandwidth-matrix v1
7
0 6 2 2 2 2 2
6 0 2 2 2 2 2
2 2 0 8 2 2 2
2 2 8 0 2 2 2
2 2 2 2 0 8 6
2 2 2 2 8 0 6
2 2 2 2 6 6 0
M
expect_status 2 "$HC" map --graph "$TMP/grid.graph" --machine-matrix "$TMP/m14.txt" --algo magic
expect_status 0 "$HC" map --graph "$TMP/grid.graph" --machine-matrix "$TMP/m14.txt" --algo tmgt --json
expect_in "$TMP/out" '"algorithm": "tmgt"'
expect_in "$TMP/out" '"cost_max": 8.25,'
expect_in "$TMP/out" '"mapping": \[5, 4, 6, 3, 2, 0\]'
expect_status 0 "$HC" map --graph "$TMP/grid.graph" --machine-matrix "$TMP/m14.txt" --json
python3 - "$TMP/out" "$TMP/m14.txt" <<'PY' || fail "auto: JSON cost does not match the mapping"
import json, sys
r = json.load(open(sys.argv[1]))
rows = [l.split() for l in open(sys.argv[2]) if l.strip() and not l.startswith('#')][1:]
b = [[float(x) for x in row] for row in rows]
edges = {(0,1):10,(1,2):10,(3,4):10,(4,5):10,(0,3):4,(1,4):4,(2,5):4}
m = r["mapping"]
assert len(set(m)) == 6
t = [0.0] * 6
for (i, j), w in edges.items():
    c = w / b[m[i]][m[j]]
    t[i] += c; t[j] += c
assert abs(max(t) - r["cost_max"]) < 1e-6 * max(t), (t, r)
assert abs(sum(t) / 2 - r["cost_sum"]) < 1e-6 * sum(t), (t, r)
assert r["cost_max"] <= 8.25 + 1e-9
for k in ("tml", "tmrr"):
    assert r["baselines"][k]["cost_max"] >= r["cost_max"]
PY
# a tree machine with unavailable cores, files written
expect_status 0 "$HC" map --graph "$TMP/grid.graph" --machine "node:3 package:2 core:2" \
    --bandwidths 2,6,8 --unavailable 1,3,6-7,11 --algo tmgt --out "$TMP/o" --json
expect_in "$TMP/out" '"mapping": \[9, 8, 10, 5, 4, 0\]'
expect_in "$TMP/o/mapping.txt" '^# hiercoll mapping v1$'
expect_in "$TMP/o/mapping.txt" '^rank 0 host node2 core 1$'
expect_in "$TMP/o/mapping.txt" '^cost mapped max 8.25 sum '
expect_in "$TMP/o/machinefile" '^node2:3 binding=user:1,0,2$'
expect_in "$TMP/o/rankfile" '^rank 5=node0 slot=0$'
[ "$(wc -l <"$TMP/o/slurm.hostfile")" = 6 ] || fail "slurm.hostfile: not 6 lines"
# not enough cores; malformed inputs name file and line
expect_status 1 "$HC" map --graph "$TMP/grid.graph" --machine "node:1 core:4" --bandwidths 1,2
expect_in "$TMP/err" "6 ranks but only 4 available cores"
expect_status 2 "$HC" map --graph "$TMP/grid.graph" --machine "node:2 core:4" --bandwidths 1
expect_in "$TMP/err" "2 levels but 1 bandwidths"
printf '%% hiercoll taskgraph v1\n2 1 001\n2 5\n1 7\n' >"$TMP/asym.graph"
expect_status 1 "$HC" map --graph "$TMP/asym.graph" --machine "node:2 core:1" --bandwidths 1,2
expect_in "$TMP/err" "asym.graph:3: edge 1-2 weight differs from its reverse"
printf '2\n0 1\n' >"$TMP/short.txt"
expect_status 1 "$HC" map --graph "$TMP/grid.graph" --machine-matrix "$TMP/short.txt"
expect_in "$TMP/err" "short.txt:2: 1 rows, expected 2"
expect_status 1 "$HC" map --graph "$TMP/grid.graph" --machine-matrix "$TMP/m14.txt" --algo tmmgp
expect_in "$TMP/err" "not applicable"
exit 0
