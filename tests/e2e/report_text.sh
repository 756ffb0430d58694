# hiercoll report on a profile written by hand in the agreed formats (8 ranks on 4 hosts):
# the text and --json summaries are recomputed from the files, the call site is resolved to
# its function and file:line by addr2line, the SVG's cells, colours and host lines are checked,
# a 1 024-rank profile is drawn aggregated; usage errors exit 2.
. tests/e2e/cli_common.bash

# A module with a known call site: the address just after "callee();" in caller_fn.
cat >"$TMP/site.c" <<'C'
__attribute__((noinline)) void callee(void) { __asm__ volatile(""); }
__attribute__((noinline)) void caller_fn(void)
{
    callee();
}
int main(void) { caller_fn(); return 0; }
C
cc -g -O0 -o "$TMP/site" "$TMP/site.c" || fail "cc"
# The return address after the call in caller_fn: the instruction following "call callee".
ret=$(objdump -d "$TMP/site" | awk '/<caller_fn>:/{on=1} on && /call.*<callee>/{getline; print $1; exit}' | tr -d ':')
[ -n "$ret" ] || fail "could not find the call in caller_fn"

mkdir "$TMP/p"
python3 tests/e2e/report_gen.py "$TMP/p" 8 2 "$TMP/site" "0x$ret" || fail "generator"

expect_status 0 "$HC" report "$TMP/p" --svg "$TMP/m.svg" --mapped-svg "$TMP/mm.svg"
expect_in "$TMP/out" "^Profile $TMP/p: 8 ranks on 4 hosts$"
expect_in "$TMP/out" "MPI_Sendrecv .* caller_fn at site\.c:4$"
expect_in "$TMP/out" "MPI_Bcast .* bcast_wrapper at lib\.so\+0x10$"
expect_in "$TMP/out" "algorithm tmmgp\+refine"
expect_in "$TMP/out" "^  mapped +0\.001 +0\.005$"
expect_in "$TMP/out" "^  bytes between nodes: .* as run \([0-9.]+%\), .* with the mapping \([0-9.]+%\)$"

expect_status 0 "$HC" report "$TMP/p" --json
python3 - "$TMP/out" "$TMP/p" <<'PY' || fail "report --json"
import csv, json, sys
d = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2] + "/comm_bytes.csv").readlines()[1:]))
ranks = list(csv.DictReader(open(sys.argv[2] + "/ranks.csv").readlines()[1:]))
host = {int(r["rank"]): r["host"] for r in ranks}
numa = {int(r["rank"]): r["numa"] for r in ranks}
assert d["ranks"] == 8 and d["hosts"] == 4 and d["pairs"] == len(rows)
assert d["bytes"]["p2p"] == sum(int(r["p2p"]) for r in rows)
assert d["bytes"]["collective"] == sum(int(r["collective"]) for r in rows)
lv = {"numa": 0, "node": 0, "network": 0}
for r in rows:
    s, q = int(r["sender"]), int(r["receiver"])
    k = "network" if host[s] != host[q] else ("node" if numa[s] != numa[q] else "numa")
    lv[k] += int(r["total"])
assert d["levels"] == lv, (d["levels"], lv)
tops = [t["total"] for t in d["top_pairs"]]
assert tops == sorted((int(r["total"]) for r in rows), reverse=True)[:len(tops)]
assert d["mpi_time_us"]["max"] == 170.0 and d["mpi_time_us"]["max_rank"] == 7
sites = d["callsites"]
assert [s["site"] for s in sites] == [2, 1], "sorted by time"
assert sites[1]["caller"] == "caller_fn" and sites[1]["where"].endswith("site.c:4"), sites[1]
assert d["mapping"]["algorithm"] == "tmmgp+refine"
mhost = {}
for line in open(sys.argv[2] + "/mapping.txt"):
    w = line.split()
    if w and w[0] == "rank":
        mhost[int(w[1])] = w[3]
mapped = sum(int(r["total"]) for r in rows if mhost[int(r["sender"])] != mhost[int(r["receiver"])])
assert d["mapping"]["network_bytes"] == mapped, (d["mapping"]["network_bytes"], mapped)
assert mapped < lv["network"], "the generated mapping keeps partners together"
assert [c["label"] for c in d["mapping"]["costs"]] == ["launched", "mapped"]
PY

# The SVG: one rect per non-empty cell, darkest for the largest cell, lightest for the smallest,
# 3 host boundaries drawn on each axis.
python3 - "$TMP/m.svg" "$TMP/p" <<'PY' || fail "svg"
import csv, sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
rows = list(csv.DictReader(open(sys.argv[2] + "/comm_bytes.csv").readlines()[1:]))
cells = [r for r in root.iter(ns + "rect") if r.find(ns + "title") is not None]
assert len(cells) == len(rows), (len(cells), len(rows))
tot = {(int(r["sender"]), int(r["receiver"])): int(r["total"]) for r in rows}
def val(c):
    s, q = c.find(ns + "title").text.split(":")[0].split(" -> ")
    return tot[(int(s), int(q))]
big = max(cells, key=val); small = min(cells, key=val)
assert big.get("fill") == "#5a001e", big.get("fill")
assert small.get("fill") == "#ffffb2", small.get("fill")
lines = [l for l in root.iter(ns + "line")]
assert len(lines) == 2 * 3, len(lines)
texts = [t.text for t in root.iter(ns + "text")]
for h in ("node0", "node1", "node2", "node3"):
    assert h in texts, h
PY
# With the mapping, partners share a host: the cells between nodes carry less traffic.
python3 - "$TMP/m.svg" "$TMP/mm.svg" <<'PY' || fail "mapped svg"
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
def diag_blocks(path):
    root = ET.parse(path).getroot()
    inside = 0
    for r in root.iter(ns + "rect"):
        if r.find(ns + "title") is None: continue
        x = (float(r.get("x")) - 70) // 128; y = (float(r.get("y")) - 70) // 128
        inside += x == y
    return inside
assert diag_blocks(sys.argv[2]) > diag_blocks(sys.argv[1])
# hosts in the mapped view are the mapping's: each named once, in order
labels = [t.text for t in ET.parse(sys.argv[2]).getroot().iter(ns + "text") if t.get("fill") == "#1f4e99"]
assert labels == ["node0", "node1", "node2", "node3"], labels
PY

# 1 024 ranks: aggregated to at most 256 x 256 cells of 4 x 4 ranks.
mkdir "$TMP/big"
python3 tests/e2e/report_gen.py "$TMP/big" 1024 32 || fail "generator"
expect_status 0 "$HC" report "$TMP/big" --svg "$TMP/big.svg"
expect_in "$TMP/out" "1024 ranks on 32 hosts"
expect_in "$TMP/big.svg" "each cell 4 x 4 ranks"
python3 - "$TMP/big.svg" <<'PY' || fail "aggregated svg"
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
cells = [r for r in root.iter(ns + "rect") if r.find(ns + "title") is not None]
assert 0 < len(cells) <= 256 * 256
assert all(abs(float(c.get("width")) - 2.0) < 1e-6 for c in cells)
assert len(list(root.iter(ns + "line"))) == 2 * 31
PY

expect_status 2 "$HC" report
expect_status 2 "$HC" report "$TMP/p" "$TMP/p"
expect_status 2 "$HC" report "$TMP/p" --bogus
expect_status 1 "$HC" report "$TMP/absent"
expect_in "$TMP/err" "absent: No such file"
rm "$TMP/p/mapping.txt"
expect_status 1 "$HC" report "$TMP/p" --mapped-svg "$TMP/x.svg"
expect_in "$TMP/err" "has no mapping.txt"
expect_status 0 "$HC" report "$TMP/p"
expect_in "$TMP/out" "No mapping.txt in this profile"
echo "ok"
