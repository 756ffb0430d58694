# hiercoll bench: usage errors exit 2 before any MPI job, --dry-run shows the launcher line
# with the preload, and short real runs' --csv is parsed back (every size of both collectives,
# every pattern asked for, each half of a pattern that changes mid-run, no wrong results,
# ratio = hiercoll / vendor); --rounds merges its runs; a broadcast that moves nothing is
# caught in every pattern; --tune writes the choice its measurements give, and MPI_Init
# accepts the file. The command follows $MPIEXEC: Hydra's options and libhiercoll.so, or Open
# MPI's and libhiercoll-ompi.so. (bench_contents.sh, bench_stale.sh, bench_peers.sh: the
# partial rewrites' checks and the peers.)
# hc-test: each-family
. tests/e2e/cli_common.bash
# env_re NAME VALUE: the launcher's option for a variable, as a regular expression
env_re() { if [ "$HC_FAMILY" = ompi ]; then echo "-x $1=$2"; else echo "-genv $1 $2"; fi; }
bind_re="-bind-to core" over_re=""
[ "$HC_FAMILY" = ompi ] && bind_re="--bind-to core" over_re="--oversubscribe "

expect_status 2 "$HC" bench --coll gather
expect_in "$TMP/err" "bad --coll 'gather'"
expect_status 2 "$HC" bench --sizes 8,12Q
expect_in "$TMP/err" "bad size '12Q'"
expect_status 2 "$HC" bench --np 0
expect_status 2 "$HC" bench --iters x
expect_status 2 "$HC" bench stray
expect_status 2 "$HC" bench --pattern fixed-hot-latency
expect_in "$TMP/err" "bad --pattern: 'fixed-hot-latency'"
expect_status 2 "$HC" bench --pattern rotate-fresh
expect_in "$TMP/err" "is not ROOT-BUFFERS-TIMING"
expect_status 2 "$HC" bench --bcast-algo shm,fast
expect_in "$TMP/err" "bad --bcast-algo 'fast'"
expect_status 2 "$HC" bench --rounds 0
expect_status 2 "$HC" bench --tune x --peers
expect_in "$TMP/err" "not with --peers or --rounds"
expect_status 0 "$HC" bench --dry-run --pattern classic,partial,midrun,all
expect_status 0 "$HC" bench --dry-run --min-calls 64 --sizes 32M
expect_in "$TMP/out" " --sizes 32M --iters 200 --min-calls 64$"
expect_status 0 "$HC" bench --help
expect_in "$TMP/out" "usage: hiercoll bench"

expect_status 0 "$HC" bench --dry-run --np 4 --vnode 2 --coll bcast --sizes 1K --iters 3
placement="($bind_re |$over_re)"
expect_in "$TMP/out" "^$MPIEXEC -n 4 $placement?$(env_re LD_PRELOAD "/[^ ]*/libhiercoll$SUFFIX\.so") $(env_re HIERCOLL_VIRTUAL_NODE_SIZE 2) /[^ ]*/hiercoll-bench$SUFFIX --coll bcast --sizes 1K --iters 3$"

# Pinned when every rank has a core.
if [ "$(nproc)" -ge 2 ]; then
    expect_status 0 "$HC" bench --dry-run --np 2 --sizes 1K
    expect_in "$TMP/out" "^$MPIEXEC -n 2 $bind_re $(env_re LD_PRELOAD "")"
fi

expect_status 0 "$HC" bench --np 2 --sizes 8,4K --iters 5 --csv
python3 - "$TMP/out" <<'PY' || fail "bench csv"
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if r and r[0] != "collective"]
header = next(csv.reader(open(sys.argv[1])))
got = {}
for r in rows:
    d = dict(zip(header, r))
    got[(d["collective"], int(d["bytes"]))] = d
want = {(c, b) for c in ("MPI_Bcast", "MPI_Allreduce") for b in (8, 4096)}
assert set(got) == want, sorted(got)
for k, d in got.items():
    assert int(d["errors"]) == 0, k
    assert int(d["ranks"]) == 2, k
    v, h, ratio = float(d["vendor_median_us"]), float(d["hiercoll_median_us"]), float(d["ratio"])
    assert v > 0 and h > 0, k
    assert abs(ratio - h / v) <= 0.01 * ratio + 0.002, (k, ratio, h / v)
PY
# Patterns: a '*' expands, allreduce has no root (fixed and switching patterns are skipped for
# it), several algorithms each get their row, and a pattern that changes mid-run (warm2stride,
# a switching root) one row per half, each with the calls asked for.
expect_status 0 "$HC" bench --np 2 --sizes 64,8K --iters 16 --csv \
    --pattern 'fixed-*-stream,rotate-cold-latency,switch-fresh-latency,rotate-warm2stride-latency' \
    --bcast-algo shm,shm-cma --allreduce-algo shm
python3 - "$TMP/out" <<'PY' || fail "bench patterns csv"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
got = {(r["collective"], r["pattern"], r["algorithm"], int(r["bytes"]), int(r["half"])) for r in rows}
def halves(p):
    return (1, 2) if "switch" in p or "warm2stride" in p else (0,)
bpat = ["fixed-%s-stream" % b for b in ("fresh", "warm", "cold", "stride", "block", "warm2stride")]
bpat += ["rotate-cold-latency", "switch-fresh-latency", "rotate-warm2stride-latency"]
bcast = {("MPI_Bcast", p, a, b, h) for p in bpat for a in ("shm", "shm-cma") for b in (64, 8192)
         for h in halves(p)}
allred = {("MPI_Allreduce", p, "shm", b, h) for p in ("rotate-cold-latency", "rotate-warm2stride-latency")
          for b in (64, 8192) for h in halves(p)}
assert got == bcast | allred, sorted(got ^ (bcast | allred))
for r in rows:
    assert int(r["errors"]) == 0, r
    assert float(r["vendor_median_us"]) > 0 and float(r["hiercoll_median_us"]) > 0, r
    assert int(r["iterations"]) == 16, r
    assert r["peer"] == "vendor" and r["run"] == "0", r
PY

# The plan each path's last call ran is what MPI_Comm_get_info says (hiercoll_*_last): a shim
# that reports one shows it in auto's `auto ran` column and in the CSV's `ran`.
"$MPICC" -shared -fPIC -o "$TMP/last.so" -x c - <<'C' || fail "build the plan-reporting shim"
#include <mpi.h>
int MPI_Comm_get_info(MPI_Comm c, MPI_Info *info)
{
    int rc = PMPI_Comm_get_info(c, info);
    if (rc == MPI_SUCCESS) {
        MPI_Info_set(*info, "hiercoll_bcast_last", "planB");
        MPI_Info_set(*info, "hiercoll_allreduce_last", "planA");
    }
    return rc;
}
C
mpi_cmd 2 LD_PRELOAD="$TMP/last.so:$LIB" "$PWD/$BUILD/bin/hiercoll-bench$SUFFIX" --sizes 64 \
    --iters 16 --bcast-algo shm,auto --allreduce-algo auto
"${MPI_CMD[@]}" >"$TMP/out" 2>"$TMP/err" || { cat "$TMP/err"; fail "bench with a plan-reporting shim"; }
expect_in "$TMP/out" "^ +64 B +16 +[0-9.]+ +[0-9.]+ +[0-9.]+ +planB +(vendor|shm) +[0-9.]+ "
expect_in "$TMP/out" "^ +64 B +16 +[0-9.]+ +[0-9.]+ +planA +vendor +[0-9.]+ "

# --rounds 2: two runs, merged by hiercoll-bench --merge: each run's lines, numbered.
expect_status 0 "$HC" bench --np 2 --coll bcast --sizes 64 --iters 16 --rounds 2 --csv \
    --bcast-algo shm
python3 - "$TMP/out" <<'PY' || fail "bench --rounds csv"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert sorted(r["run"] for r in rows) == ["0", "1"], rows
PY
expect_status 0 "$HC" bench --np 2 --coll bcast --sizes 64 --iters 16 --rounds 2 --bcast-algo shm
expect_in "$TMP/out" "2 runs merged"
expect_in "$TMP/out" "^ +64 B +16 +[0-9.]+ +[0-9.]+ .* yes$"

# A broadcast that moves nothing (a PMPI shim whose MPI_Bcast returns at once) must be seen as
# wrong in every pattern, warm and cold included, where receiving buffers are only stamped.
"$MPICC" -shared -fPIC -o "$TMP/noop.so" -x c - <<'C' || fail "build the no-op shim"
#include <mpi.h>
int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c) { return MPI_SUCCESS; }
#if MPI_VERSION >= 4
int MPI_Bcast_c(void *b, MPI_Count n, MPI_Datatype t, int root, MPI_Comm c) { return MPI_SUCCESS; }
#endif
C
for p in rotate-fresh-latency fixed-warm-stream fixed-cold-latency rotate-warm-stream; do
    mpi_cmd 2 LD_PRELOAD="$TMP/noop.so" "$PWD/$BUILD/bin/hiercoll-bench$SUFFIX" --coll bcast \
        --sizes 8,5000 --iters 16 --pattern "$p" --csv
    "${MPI_CMD[@]}" >"$TMP/out" 2>"$TMP/err" && fail "a no-op broadcast passed the bench's checks in $p"
    grep -q "wrong results" "$TMP/err" || fail "no wrong results reported in $p"
done

# --tune: the file's rule for each size names the path (the vendor first, then the mechanisms
# in the order measured) whose worst ratio over the twelve classic patterns is lowest by 5%,
# within 5% the one with a median 5% lower; MPI_Init accepts it.
expect_status 0 "$HC" bench --np 2 --coll bcast --sizes 64,64K --iters 16 --csv --tune "$TMP/tune"
python3 - "$TMP/out" "$TMP/tune" <<'PY' || fail "bench --tune"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert {r["pattern"] for r in rows} and len({r["pattern"] for r in rows}) == 12, "not every pattern"
lines = [l.split("#")[0].split() for l in open(sys.argv[2])]
assert lines[0] == ["hiercoll-tuning", "1"], lines[0]
rules = [l for l in lines[1:] if l]
def covers(rng, b):
    lo, _, hi = rng.partition("-")
    return (rng == "*" or (int(lo or 0) <= b and (not hi or b < int(hi))))
for size in (64, 65536):
    spread = {"vendor": (1.0, 1.0)}
    for algo in {r["algorithm"] for r in rows}:
        ratios = [float(r["ratio"]) for r in rows if int(r["bytes"]) == size and r["algorithm"] == algo]
        spread[algo] = (max(ratios), statistics.median(ratios))
    # The tool compares exact ratios, the CSV has them to 3 decimals: at a boundary (a ratio
    # printed 1.050 against a limit of 1.05) either side is right, so the choice is recomputed
    # with the comparisons moved by half a printed unit each way.
    def best_with(eps):
        best = "vendor"
        for algo in dict.fromkeys(r["algorithm"] for r in rows):
            w, m = spread[algo]
            bw, bm = spread[best]
            if w < bw * 0.95 + eps or (w <= bw * 1.05 + eps and m < bm * 0.95 + eps):
                best = algo
        return best
    allowed = {best_with(eps) for eps in (-0.0015, 0.0, 0.0015)}
    rule = [r for r in rules if r[0] == "bcast" and covers(r[1], size)][0]
    assert len(rule) == 5 and rule[2:4] == ["2", "1"] and rule[4] in allowed, (size, rule, allowed, spread)
PY
mpi_cmd 2 LD_PRELOAD="$LIB" HIERCOLL_TUNING="$TMP/tune" "$PWD/$BUILD/bin/hiercoll-bench$SUFFIX" \
    --coll bcast --sizes 1K --iters 1
"${MPI_CMD[@]}" >"$TMP/out" 2>"$TMP/err" ||
    { cat "$TMP/err"; fail "MPI_Init refused the tuning file --tune wrote"; }
echo "ok"
