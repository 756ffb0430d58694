# Peers in the bench: the other collectives a user could pick on this machine. MPICH's are
# set through MPI_T within one run (--peers): every peer of tools/bench/peers.h this MPICH
# has gets its lines, each hiercoll path's ratio is to that peer in the same run. Open MPI's
# take a launch each (--peer-label): han exits 77 on one host, saying why; the runs of tuned
# and sm merge (--merge) into a table whose best peer and ratios are recomputed here from the
# runs' CSV: hiercoll's paths count only from the runs of the default (tuned: in sm's run they
# ran on top of sm), a time relative to another is the median of their ratios in the runs
# that timed both, else the ratio of their medians across runs; best = the peer with the
# lowest time relative to auto, a path's ratio = path / best peer, auto/best against the
# fastest plan of the default's runs. `hiercoll bench --peers` shows the same columns.
# hc-test: each-family
. tests/e2e/cli_common.bash
bench=$PWD/$BUILD/bin/hiercoll-bench$SUFFIX
args=(--sizes 8,4K --iters 16 --pattern rotate-fresh-latency,switch-warm-latency)
if [ "$HC_FAMILY" = mpich ]; then
    mpi_cmd 2 LD_PRELOAD="$LIB" "$bench" "${args[@]}" --peers --csv
    "${MPI_CMD[@]}" >"$TMP/all.csv" 2>"$TMP/err" || { cat "$TMP/err"; fail "bench --peers"; }
    files=("$TMP/all.csv")
    want_bcast="default release_gather binomial smp scatter_doubling scatter_ring"
    want_allreduce="default release_gather smp recursive_doubling reduce_scatter"
else
    files=()
    for peer in tuned han sm; do
        opts=()
        [ "$peer" = han ] && opts=(--mca coll_han_priority 100)
        [ "$peer" = sm ] && opts=(--mca coll_sm_priority 100)
        mpi_cmd 2 LD_PRELOAD="$LIB" "$bench" "${args[@]}" --peer-label "$peer" --csv
        "${MPI_CMD[@]:0:1}" "${opts[@]}" "${MPI_CMD[@]:1}" >"$TMP/$peer.csv" 2>"$TMP/err"
        rc=$?
        if [ "$peer" = han ]; then
            [ "$rc" = 77 ] || fail "han on one host exited $rc, not 77"
            expect_in "$TMP/err" "peer han cannot run on 1 host"
            continue
        fi
        [ "$rc" = 0 ] || { cat "$TMP/err"; fail "bench --peer-label $peer"; }
        files+=("$TMP/$peer.csv")
    done
    want_bcast="tuned sm" want_allreduce="tuned sm"
fi
"$bench" --merge "${files[@]}" >"$TMP/table" || fail "--merge"
python3 - "$TMP/table" "$want_bcast" "$want_allreduce" "${files[@]}" <<'PY' || fail "peers table"
import csv, statistics, sys
table, want = sys.argv[1], {"MPI_Bcast": sys.argv[2].split(), "MPI_Allreduce": sys.argv[3].split()}
rows = [r for f in sys.argv[4:] for r in [dict(d, file=f) for d in csv.DictReader(open(f))]]
for r in rows:
    assert int(r["errors"]) == 0, r
    assert abs(float(r["ratio"]) - float(r["hiercoll_median_us"]) / float(r["vendor_median_us"])) < 0.01, r
for coll, peers in want.items():
    got = list(dict.fromkeys(r["peer"] for r in rows if r["collective"] == coll))
    assert got == peers, (coll, got, peers)
# time[(coll, pattern, bytes, half, file)][name]: every path's and peer's median in that run
time = {}
for r in rows:
    t = time.setdefault((r["collective"], r["pattern"], int(r["bytes"]), int(r["half"]), r["file"]), {})
    t[r["peer"]] = float(r["vendor_median_us"])
    t[r["algorithm"]] = float(r["hiercoll_median_us"])
med = lambda v: sorted(v)[len(v) // 2]
coll = pattern = None
checked = 0
for line in open(table):
    w = line.split()
    if line.startswith("MPI_") and "summary" in line:
        coll = None
    elif line.startswith("MPI_"):
        coll, pattern = w[0].rstrip(","), w[w.index("pattern") + 1].rstrip(":")
    elif w[:1] == ["size"] and coll:
        ran = w.index("ran")
        peers = [x for i, x in enumerate(w[:w.index("best")]) if i + 1 < len(w) and w[i + 1] == "us"]
        paths = w[w.index("best") + 1:ran - 1]
        assert peers == want[coll], (peers, want[coll])
    elif len(w) > 3 and w[1] in ("B", "KiB") and coll:
        size = int(w[0]) * (1024 if w[1] == "KiB" else 1)
        half = {"1st": 1, "2nd": 2}.get(w[2], 0)
        v = w[3 if half else 2:]
        best = v[1 + len(peers)]
        ratios = dict(zip(paths, map(float, v[2 + len(peers):])))
        runs = {k[4]: t for k, t in time.items() if k[:4] == (coll, pattern, size, half)}
        timed = lambda p, t: p in t and (p in peers or peers[0] in t)
        def relative(q, d):
            both = [t[q] / t[d] for t in runs.values() if timed(q, t) and timed(d, t)]
            if both:
                return med(both)
            return (med([t[q] for t in runs.values() if timed(q, t)]) /
                    med([t[d] for t in runs.values() if timed(d, t)]))
        rel = {p: relative(p, "auto") for p in peers}
        assert best == min(rel, key=rel.get), (line, rel)
        for p in paths:
            want_r = relative(p, best)
            assert abs(ratios[p] - want_r) <= 0.006 + 0.01 * want_r, (line, p, want_r)
        # the plans auto could have kept in a run of the default: it, and the fixed paths
        auto_best = med([t["auto"] / min([t[peers[0]]] + [t[p] for p in paths if p != "auto"])
                         for t in runs.values() if peers[0] in t])
        got_ab = float(v[2 + len(peers) + len(paths) + 2])
        assert abs(got_ab - auto_best) <= 0.006 + 0.01 * auto_best, (line, auto_best)
        checked += 1
assert checked == 2 * 3 + 2 * 1, checked  # 2 sizes: bcast 1 + 2 halves, allreduce 1 (no root)
PY
# The command: MPICH's peers in its one run, Open MPI's launched apart (han left out here).
expect_status 0 "$HC" bench --peers --coll bcast --sizes 8 --iters 16
for p in $want_bcast; do expect_in "$TMP/out" "^ +size .* $p us "; done
! grep -q " han us" "$TMP/out" || fail "han measured on one host"
# A peer's launch that crashes (sm's second one here, through a launcher that kills it) is
# named and dropped: sm's first round and tuned's three still print, and the exit status is 1.
if [ "$HC_FAMILY" = ompi ]; then
    mkdir -p "$TMP/wrap"
    cat >"$TMP/wrap/mpirun.openmpi" <<SH
#!/bin/sh
ulimit -c 0
case "\$*" in *coll_sm_priority*)
    echo sm >>'$TMP/sm-launches'
    [ "\$(wc -l <'$TMP/sm-launches')" -ge 2 ] && kill -SEGV \$\$ ;;
esac
exec '$(command -v "$MPIEXEC")' "\$@"
SH
    chmod +x "$TMP/wrap/mpirun.openmpi"
    MPIEXEC="$TMP/wrap/mpirun.openmpi" expect_status 1 "$HC" bench --peers --rounds 3 --coll bcast \
        --sizes 8 --iters 16
    expect_in "$TMP/err" "the launch of peer sm failed \(exit status [0-9]+\); left out of the later rounds"
    [ "$(wc -l <"$TMP/sm-launches")" = 2 ] || fail "sm launched after it crashed"
    expect_in "$TMP/err" "round 3, peer tuned done"
    expect_in "$TMP/out" "^ +size .* tuned us +sm us "
fi
echo ok
