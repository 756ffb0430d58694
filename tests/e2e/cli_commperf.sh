# hiercoll commperf: usage errors exit 2; a real run on 4 ranks in 2 virtual nodes writes a
# machine file with the "network" and "numa" levels (parsed back through --json and by hand);
# corrupt machine files are rejected with FILE:LINE: reason.
# hc-test: each-family
. tests/e2e/cli_common.bash
vnode2="-genv HIERCOLL_VIRTUAL_NODE_SIZE 2"
[ "$HC_FAMILY" = ompi ] && vnode2="(--oversubscribe )?-x HIERCOLL_VIRTUAL_NODE_SIZE=2"

expect_status 2 "$HC" commperf --np 1
expect_status 2 "$HC" commperf --size 0
expect_status 2 "$HC" commperf --vnode -1
expect_status 2 "$HC" commperf stray
expect_status 0 "$HC" commperf --help
expect_status 0 "$HC" commperf --dry-run --np 4 --vnode 2 --out m.txt
expect_in "$TMP/out" "^$MPIEXEC -n 4 $vnode2 /[^ ]*/hiercoll-commperf$SUFFIX --out m.txt"

expect_status 0 "$HC" commperf --np 4 --vnode 2 --iters 40 --size 256K --out "$TMP/m.txt" --json
expect_in "$TMP/err" "\[1/2\] network"
expect_in "$TMP/err" "\[2/2\] numa"
python3 - "$TMP/out" "$TMP/m.txt" <<'PY' || fail "commperf json/file"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["file"] == sys.argv[2]
names = [l["name"] for l in d["levels"]]
assert names == ["network", "numa"], names
lines = open(sys.argv[2]).read().splitlines()
assert lines[0] == "# hiercoll machine-perf v1"
rows = [l.split() for l in lines if l.startswith("level ")]
for r, l in zip(rows, d["levels"]):
    assert r[0] == "level" and r[2] == "latency_us" and r[4] == "bandwidth_Bps", r
    assert r[1] == l["name"]
    lat, bw = float(r[3]), float(r[5])
    assert 0 < lat < 1e5 and 1e6 < bw < 1e12, r
    assert abs(lat - l["latency_us"]) <= 1e-3 * lat and abs(bw - l["bandwidth_Bps"]) <= 1e-5 * bw
PY
expect_status 0 "$HC" commperf --check "$TMP/m.txt"
expect_in "$TMP/out" "^network +[0-9.]+ +[0-9.]+$"

# Corrupt files: named with the line and the reason.
bad() { printf "$2" >"$TMP/bad.txt"; expect_status 1 "$HC" commperf --check "$TMP/bad.txt";
        expect_in "$TMP/err" "^$TMP/bad.txt:$1: "; }
bad 1 "# hiercoll machine v1\nlevel numa latency_us 1 bandwidth_Bps 1e9\n"
bad 3 "# hiercoll machine-perf v1\n# c\nlevel numa latency_us x bandwidth_Bps 1e9\n"
bad 2 "# hiercoll machine-perf v1\nlevel numa latency_us 1 bandwidth_Bps -5\n"
bad 2 "# hiercoll machine-perf v1\nlevel numa latency_us 1 bandwidth_Bps 5 extra\n"
bad 1 "# hiercoll machine-perf v1\n"
bad 0 ""
expect_status 1 "$HC" commperf --check "$TMP/absent.txt"
expect_in "$TMP/err" "absent.txt:0: cannot open: No such file"
echo "ok"
