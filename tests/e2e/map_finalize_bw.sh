# Where the finalize mapping takes its bandwidths from: HIERCOLL_MACHINE_FILE (commperf's
# machine-perf file), HIERCOLL_BANDWIDTHS first when both are set, built-in defaults with a
# warning when neither is usable. Two ranks on two virtual nodes.
# hc-test: each-family
. tests/e2e/cli_common.bash
APP=$PWD/$FAMILY_DIR/examples/stencil2d
[ -x "$APP" ] || fail "$APP not built"
cd "$TMP"
printf '# hiercoll machine-perf v1\nlevel network latency_us 3 bandwidth_Bps 3e9\nlevel package latency_us 0.5 bandwidth_Bps 7e9\n' >perf.txt
run() { # run DIR VAR=VALUE...: a profiled 2-rank run with these variables
    local dir=$1; shift
    mpi_cmd 2 LD_PRELOAD="$LIB" HIERCOLL_PROFILE="$TMP/$dir" HIERCOLL_VIRTUAL_NODE_SIZE=1 "$@" \
        "$APP" --quick
    "${MPI_CMD[@]}" >"$dir.out" 2>"$dir.err" ||
        { cat "$dir.out" "$dir.err"; fail "$dir: run failed"; }
    if [ ! -f "$dir/taskgraph.graph" ]; then echo "SKIP: the profiler wrote no task graph"; exit 77; fi
    [ -f "$dir/mapping.txt" ] || { cat "$dir.err"; fail "$dir: no mapping.txt"; }
}
run a HIERCOLL_MACHINE_FILE="$TMP/perf.txt"
expect_in a/mapping.txt '^bandwidths 3e\+09,7e\+09(,7e\+09)?$'
# one bandwidth per level of the machine this host gives (node, [package], core)
levels=$(awk '/^machine / { print NF - 1 }' a/mapping.txt)
bws=$(echo "1e9 5e9 6e9" | cut -d' ' -f1-"$levels" | tr ' ' ,)
grep -q "built-in bandwidths" a.err && fail "a: warned about defaults"
run b HIERCOLL_MACHINE_FILE="$TMP/perf.txt" HIERCOLL_BANDWIDTHS="$bws"
expect_in b/mapping.txt '^bandwidths 1e\+09,5e\+09(,6e\+09)?$'
run c HIERCOLL_BANDWIDTHS=1e9,2e9,3e9,4e9
expect_in c.err "HIERCOLL_BANDWIDTHS has 4 values but the machine has $levels levels"
expect_in c.err "built-in bandwidths"
expect_in c/mapping.txt '^bandwidths 1.25e\+09,(1e\+10,)?2e\+10$'
expect_in c/mapping.txt '^machine node:2 core:'
exit 0
