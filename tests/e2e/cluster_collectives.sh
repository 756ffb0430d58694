# The library's broadcast and allreduce across the hosts of a cluster (links at 1 Gbit/s),
# under Open MPI and MPICH with libhiercoll preloaded: tests/e2e/cluster_colls.c checks every result
# element by element against the exact value and the vendor's, on the world, a
# sub-communicator of 3 ranks on one host and 1 on another, and one whose nodes are not
# consecutive ranks. Shapes and the paths they must take (hiercoll's verbose lines say which
# ran, and that it found the hosts as its nodes, not one node):
#   2 hosts x 4  leaders' step; lattice 4x2 (node dimension in shared memory, staged below
#                256 KiB and single copy from it, the slices crossing to the other host in
#                segments under it); point-to-point ring; small vectors
#   4 hosts x 1  lattice 2x2, every dimension point to point (the broadcast: the vendor's,
#                since no two ranks share a node)
#   4 hosts x 2  leaders' step among 4; lattice 2x2x2 (two network dimensions)
#   3 hosts x 2  leaders' step among 3; small vectors: recursive doubling among 3 leaders
#                (two fold into one first), on the world and the interleaved communicator
# Every shape's small vectors end in the leaders' recursive doubling (4 x 1: that alone).
# Each run must exit cleanly within 120 s. HC_CLUSTER_REPS=20 repeats every shape 20 times
# (default 1). Under MPICH 4.0.2 with UCX, whose exit across hosts the library keeps from
# hanging (docs/cluster.md, Exits), every shape runs too; its sanitizer builds leave that fix
# out, so there it skips.
# hc-test: each-family
. tests/e2e/cluster_common.bash
command -v "$MPICC" >/dev/null && command -v "$MPIEXEC" >/dev/null ||
    { echo "SKIP: $MPIEXEC or $MPICC is not installed"; exit 77; }
[ "$HC_FAMILY" = ompi ] || has_exit_fix "$LIB" ||
    { echo "SKIP: this MPICH build of the library has no exit fix (a sanitizer build): MPICH would hang at exit"; exit 77; }
[ -f "$LIB" ] || fail "$LIB not built"
"$MPICC" -O2 -I tests/mpi -o "$TMP/colls" tests/e2e/cluster_colls.c || fail "cannot build cluster_colls"
cluster_up 4 --rate 1gbit
reps=${HC_CLUSTER_REPS:-1}

# expect_line WHAT REGEX: hiercoll's stderr of the last run has a matching line.
expect_line() {
    grep -Eq -- "$2" "$TMP/err" || { grep -E "^hiercoll\[0\]" "$TMP/err" | sort -u | head -30; fail "$shape: $1: no line /$2/"; }
}

# run SHAPE HOSTS HOSTNAMES [VAR=VALUE...]: HOSTS as mpirun's --host takes it; HOSTNAMES,
# the host of each world rank in order. Every rank yields when idle: all hosts share this
# machine's 2 cores, and Open MPI yields by itself only when a host has more ranks than slots.
run() {
    shape=$1
    local hosts=$2 names=$3 np
    shift 3
    np=$(wc -w <<<"$names")
    local env=()
    env_opts env LD_PRELOAD="$LIB" HIERCOLL_VERBOSE=2 "$@"
    local t0 r rc
    t0=$(date +%s.%N)
    for r in $(seq "$reps"); do
        if [ "$HC_FAMILY" = ompi ]; then
            timeout -k 5 120 "$CLUSTER" exec h1 "$MPIEXEC" --host "$hosts" -n "$np" \
                --mca mpi_yield_when_idle 1 "${env[@]}" "$TMP/colls" >"$TMP/out" 2>"$TMP/err"
        else
            timeout -k 5 120 "$CLUSTER" exec h1 "$MPIEXEC" -hosts "$hosts" -n "$np" \
                "${env[@]}" "$TMP/colls" >"$TMP/out" 2>"$TMP/err"
        fi
        rc=$?
        [ "$rc" = 0 ] || { grep -m 10 "check failed" "$TMP/err" || tail -n 20 "$TMP/err"; tail -n 3 "$TMP/out"; fail "$shape: run $r exited $rc (124: did not finish in 120 s)"; }
        grep -q "checks on $np ranks, 0 failed" "$TMP/out" || { cat "$TMP/out" "$TMP/err" | head -40; fail "$shape: run $r results"; }
    done
    # the ranks ran on the hosts asked for, and hiercoll took these hosts for its nodes
    grep -qx "world: $np ranks on $(tr ' ' '\n' <<<"$names" | sort -u | wc -l) hosts: $names" "$TMP/out" ||
        { cat "$TMP/out"; fail "$shape: ranks not on $names"; }
    echo "$shape: $reps run(s) passed, $(awk -v a="$t0" -v b="$(date +%s.%N)" -v n="$reps" 'BEGIN { printf "%.1f", (b - a) / n }') s each"
}
# nodes_seen N NODES PER: every world rank reports the world as NODES nodes of PER ranks.
nodes_seen() {
    local n
    n=$(grep -E "^hiercoll\[[0-9]+\]: communicator of $1 ranks: $2 node\(s\), $3 rank\(s\) on mine, regular" "$TMP/err" |
        cut -d: -f1 | sort -u | wc -l)
    [ "$n" = "$1" ] || { grep "communicator of" "$TMP/err" | sort | uniq -c | head; fail "$shape: $n of $1 ranks saw $2 nodes of $3"; }
}

run "2 hosts x 4" h1:4,h2:4 "h1 h1 h1 h1 h2 h2 h2 h2" HIERCOLL_ALLREDUCE_CMA_THRESHOLD=256K
nodes_seen 8 2 4
expect_line "uneven sub-communicator, 3 ranks" "communicator of 4 ranks: 2 node\(s\), 3 rank\(s\) on mine, irregular"
expect_line "uneven sub-communicator, 1 rank" "communicator of 4 ranks: 2 node\(s\), 1 rank\(s\) on mine, irregular"
expect_line "interleaved sub-communicator" "communicator of 8 ranks: 2 node\(s\), 4 rank\(s\) on mine, irregular"
expect_line "leaders' step" "bcast on 8 ranks, 2 node\(s\): shared memory in each node, leaders' step between nodes"
expect_line "leaders' step, uneven" "bcast on 4 ranks, 2 node\(s\): shared memory in each node, leaders' step between nodes"
expect_line "lattice with a network dimension" "allreduce on 8 ranks: lattice 4x2 \(ranks per node x nodes, cost model\), first dimension through shared memory"
expect_line "staged node dimension" "allreduce node dimension, first at [0-9]+ bytes: staged through the segment"
expect_line "single-copy node dimension, segments across" "allreduce node dimension, first at [0-9]+ bytes: single copy \(process_vm_readv/writev\), crossing to the other node in segments"
expect_line "point-to-point ring" "allreduce on 8 ranks: lattice 8 \(one ring\), first dimension through point to point"
expect_line "point-to-point ring, uneven" "allreduce on 4 ranks: lattice 4 \(one ring\), first dimension through point to point"
expect_line "small vectors" "allreduce on 8 ranks: lattice 4x2 \(small vectors: node, leaders, node\)"
expect_line "leaders' recursive doubling" "allreduce small vectors among 2 node leaders: recursive doubling"

run "4 hosts x 1" h1,h2,h3,h4 "h1 h2 h3 h4"
nodes_seen 4 4 1
expect_line "lattice of network dimensions" "allreduce on 4 ranks: lattice 2x2 \(ranks per node x nodes, cost model\), first dimension through point to point"
expect_line "point-to-point ring" "allreduce on 4 ranks: lattice 4 \(one ring\), first dimension through point to point"
expect_line "small vectors" "allreduce on 4 ranks: lattice 2x2 \(small vectors: node, leaders, node\)"
expect_line "leaders' recursive doubling" "allreduce small vectors among 4 node leaders: recursive doubling"
grep -q "bcast on 4 ranks" "$TMP/err" && fail "$shape: the broadcast ran the queue with one rank per node"

run "4 hosts x 2" h1:2,h2:2,h3:2,h4:2 "h1 h1 h2 h2 h3 h3 h4 h4"
nodes_seen 8 4 2
expect_line "leaders' step among 4" "bcast on 8 ranks, 4 node\(s\): shared memory in each node, leaders' step between nodes"
expect_line "two network dimensions" "allreduce on 8 ranks: lattice 2x2x2 \(ranks per node x nodes, cost model\), first dimension through shared memory"
expect_line "point-to-point ring" "allreduce on 8 ranks: lattice 8 \(one ring\), first dimension through point to point"
expect_line "leaders' recursive doubling among 4" "allreduce small vectors among 4 node leaders: recursive doubling"

run "3 hosts x 2" h1:2,h2:2,h3:2 "h1 h1 h2 h2 h3 h3"
nodes_seen 6 3 2
expect_line "leaders' step among 3" "bcast on 6 ranks, 3 node\(s\): shared memory in each node, leaders' step between nodes"
expect_line "small vectors" "allreduce on 6 ranks: lattice [0-9x]+ \(small vectors: node, leaders, node\)"
expect_line "leaders' recursive doubling, 3 leaders" "allreduce small vectors among 3 node leaders: recursive doubling"
expect_line "point-to-point ring" "allreduce on 6 ranks: lattice 6 \(one ring\), first dimension through point to point"
echo "ok"
