# hiercoll bench: usage errors exit 2 before any MPI job, --dry-run shows the launcher line
# with the preload, and a short real run's --csv is parsed back (every size of both
# collectives, no wrong results, ratio = hiercoll / vendor). The command follows $MPIEXEC:
# Hydra's options and libhiercoll.so, or Open MPI's and libhiercoll-ompi.so.
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
echo "ok"
