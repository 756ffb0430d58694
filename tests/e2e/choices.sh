#!/usr/bin/env bash
# What runs is what was asked for: the verbose output says which algorithm and lattice each
# communicator took, and every run's results are checked by the program itself.
#  1. 8 ranks in virtual nodes of 2: the cost model's lattice is 2x2x2.
#  2. HIERCOLL_RING_DIMS=3x2 at 6 ranks is taken; 2x2 (product 4) is refused with one warning
#     and the machine's lattice runs instead.
#  3. A tuning file: `allreduce * * * ring1d` gives one point-to-point ring, `bcast * * *
#     vendor` no queue; a rule saying `auto` leaves the built-in choice.
#  4. An MPI info key beats the environment, both ways (hiercoll-bench sets hiercoll_bcast).
#  5. Learning's first round times every candidate, the vendor's broadcast too (its first
#     calls on a communicator are left untimed, and once no call of the round was timed;
#     later, from 1 MiB, where a round gives it blocks of two).
#  6. Two nodes with the single-copy node stage cross in segments under it; with
#     HIERCOLL_ALLREDUCE_PAIR_SEG=0, a tuning rule's pair_seg=0, or on four nodes, they do not.
#  7. One rank per node: the built-in choice (a node stage there is none of) is timed as
#     what it runs, the machine's ring, beside the one ring and the vendor; without learning
#     the lattice runs 1 MiB and the one ring 4 MiB.
#  8. Across nodes a broadcast's node stage below 1 MiB is the queue, with no trials; from
#     1 MiB the first round times every candidate there too, the vendor's included.
#  9. Across nodes a broadcast moves in HIERCOLL_BCAST_HIER_CHUNK segments, or in eighths of
#     a larger message (whole pages, eight covering it), up to 8 MiB.
# 10. On one node the allreduce's learner leaves single copy out where the staged engine needs
#     one synchronisation (8 bytes on 2 ranks), and times it beside the others above that.
# 11. On one node the broadcast's learner leaves the single copy out below 64 KiB unless it is
#     the starting choice (a lower HIERCOLL_BCAST_CMA_THRESHOLD), and the queue's direct reads
#     below HIERCOLL_BCAST_DIRECT_MIN (the same code as the queue there); from 64 KiB it times
#     both.
# 12. A new root starts from what the node's other roots measured at the same site and size
#     (the switch pattern: rank 0, then the last rank): its line gives the vendor's time as
#     measured by another root, which rank 0 measured itself.
# hc-test: each-family
source "$(dirname "$0")/fault_common.bash"
BENCH=$PWD/$BUILD/bin/hiercoll-bench$SUFFIX

# run NP [VAR=VALUE...]: the fault loop (checked broadcasts of 1 MiB and allreduces of 64 KiB
# vectors) under the preload at verbose level 2; stops the script if it fails.
run() {
    local np=$1
    shift
    mpi_cmd "$np" LD_PRELOAD="$LIB" HIERCOLL_VERBOSE=2 "$@" "$PROG" --iters 4 --bytes 1048576 \
        --comms 2
    "${MPI_CMD[@]}" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" -ne 0 ] || ! grep -q "checks on $np ranks, 0 failed" "$tmp/out"; then
        echo "FAIL (np $np $*): exit $rc"; cat "$tmp/out" "$tmp/err" | head -20; exit 1
    fi
}
# expect WHAT PATTERN: stderr of the last run must match.
expect() { grep -q -- "$2" "$tmp/err" || { echo "FAIL: $1: no line matching '$2'"; grep -E "lattice|queue|warning" "$tmp/err" | head; fail=1; }; }
refuse() { ! grep -q -- "$2" "$tmp/err" || { echo "FAIL: $1: unexpected '$2'"; fail=1; }; }

run 8 HIERCOLL_VIRTUAL_NODE_SIZE=2
expect "cost model on 4 nodes of 2" "allreduce on 8 ranks: lattice 2x2x2 (ranks per node x nodes, cost model)"

run 6 HIERCOLL_RING_DIMS=3x2 HIERCOLL_ALLREDUCE=ring
expect "forced lattice" "allreduce on 6 ranks: lattice 3x2 (HIERCOLL_RING_DIMS)"
run 6 HIERCOLL_RING_DIMS=2x2 HIERCOLL_ALLREDUCE=ring
expect "lattice that does not fit" "warning: HIERCOLL_RING_DIMS=2x2 does not multiply to the communicator size 6"
[ "$(grep -c "warning: HIERCOLL_RING_DIMS" "$tmp/err")" -eq 1 ] || { echo "FAIL: the RING_DIMS warning is not said once"; fail=1; }
refuse "lattice that does not fit" "lattice 2x2 "

printf 'hiercoll-tuning 1\nallreduce * * * ring1d\nbcast * * * vendor\n' >"$tmp/tune"
run 4 HIERCOLL_VIRTUAL_NODE_SIZE=2 HIERCOLL_TUNING="$tmp/tune"
expect "tuning file: ring1d" "allreduce on 4 ranks: lattice 4 (one ring), first dimension through point to point"
refuse "tuning file: bcast vendor" "bcast queue:"
printf 'hiercoll-tuning 1\nallreduce * * * auto\nbcast * * * auto\nallreduce * * * vendor\n' >"$tmp/tune"
run 4 HIERCOLL_VIRTUAL_NODE_SIZE=2 HIERCOLL_TUNING="$tmp/tune"
expect "tuning file: auto" "allreduce on 4 ranks: lattice 2x2 (ranks per node x nodes, cost model)"
expect "tuning file: auto bcast" "bcast queue:"

# bench ENV_ALGO INFO_ALGO: the environment says one thing, the info key on the bench's
# "hiercoll" communicator another; results are verified (last CSV field: errors).
bench() {
    mpi_cmd 2 LD_PRELOAD="$LIB" HIERCOLL_VERBOSE=2 HIERCOLL_BCAST="$1" \
        "$BENCH" --coll bcast --bcast-algo "$2" --sizes 64K --iters 2 --csv
    "${MPI_CMD[@]}" >"$tmp/out" 2>"$tmp/err"
    if [ $? -ne 0 ] || ! grep -q "^MPI_Bcast,[^,]*,[^,]*,2,65536,.*,0$" "$tmp/out"; then
        echo "FAIL: bench, HIERCOLL_BCAST=$1, info $2"; cat "$tmp/out" "$tmp/err" | head; exit 1
    fi
}
bench vendor shm
expect "info key shm over HIERCOLL_BCAST=vendor" "bcast queue:"
bench shm vendor
refuse "info key vendor over HIERCOLL_BCAST=shm" "bcast queue:"

pairs="single copy (process_vm_readv/writev), crossing to the other node in segments"
run 4 HIERCOLL_VIRTUAL_NODE_SIZE=2 HIERCOLL_ALLREDUCE=shm-cma
expect "two nodes, single copy" "$pairs"
run 4 HIERCOLL_VIRTUAL_NODE_SIZE=2 HIERCOLL_ALLREDUCE=shm-cma HIERCOLL_ALLREDUCE_PAIR_SEG=0
expect "two nodes, segments off" "node dimension.*single copy"
refuse "two nodes, segments off" "$pairs"
printf 'hiercoll-tuning 2\nallreduce * * * shm-cma:pair_seg=0\n' >"$tmp/tune"
run 4 HIERCOLL_VIRTUAL_NODE_SIZE=2 HIERCOLL_TUNING="$tmp/tune"
expect "two nodes, tuning rule pair_seg=0" "node dimension.*single copy"
refuse "two nodes, tuning rule pair_seg=0" "$pairs"
run 8 HIERCOLL_VIRTUAL_NODE_SIZE=2 HIERCOLL_ALLREDUCE=shm-cma
refuse "four nodes" "$pairs"

mpi_cmd 2 LD_PRELOAD="$LIB" HIERCOLL_VERBOSE=1 "$BENCH" --coll bcast --bcast-algo auto \
    --sizes 8 --iters 100 --pattern fixed-fresh-stream --csv
"${MPI_CMD[@]}" >"$tmp/out" 2>"$tmp/err" || { echo "FAIL: bench, learning"; head "$tmp/err"; exit 1; }
expect "the first round times the vendor" "root 0, 8-15 bytes: .*measured (.*vendor [0-9.]* us"
# 1 MiB: long calls, blocks of two; the vendor's last call of the round is timed all the same,
# on a communicator whose only broadcasts are these from one root (the bench's priming, or
# other roots, would have run the vendor before): 100 calls, the round done by the 48th.
"$MPICC" -O2 -o "$tmp/fixed_root" tests/e2e/bcast_fixed_root.c || { echo "cannot build"; exit 1; }
mpi_cmd 2 LD_PRELOAD="$LIB" HIERCOLL_VERBOSE=1 "$tmp/fixed_root" 1048576 100
"${MPI_CMD[@]}" >"$tmp/out" 2>"$tmp/err" && grep -q "^0 bytes differ" "$tmp/out" ||
    { echo "FAIL: fixed root, learning"; head "$tmp/out" "$tmp/err"; exit 1; }
expect "long calls: the first round times the vendor" \
    "root 0, 1048576-2097151 bytes: .*measured (.*vendor [0-9.]* us"

mpi_cmd 4 LD_PRELOAD="$LIB" HIERCOLL_VERBOSE=1 HIERCOLL_VIRTUAL_NODE_SIZE=2 "$BENCH" \
    --coll bcast --bcast-algo auto --sizes 8K,512K,1M --iters 100 --min-calls 100 \
    --pattern fixed-fresh-stream --csv
"${MPI_CMD[@]}" >"$tmp/out" 2>"$tmp/err" || { echo "FAIL: bench, bcast across nodes"; head "$tmp/err"; exit 1; }
refuse "two nodes, 8 KiB: the queue, untried" "8192-16383 bytes: .*measured"
refuse "two nodes, 512 KiB: the queue, untried" "524288-1048575 bytes: .*measured"
expect "two nodes, 1 MiB: every candidate timed" "root 0, 1048576-2097151 bytes: .*measured (.*vendor [0-9.]* us"

# segments CHUNK: the segments of 1, 16, 16 MiB + 1 and 80 MiB broadcasts across two nodes
segments() {
    mpi_cmd 4 LD_PRELOAD="$LIB" HIERCOLL_VERBOSE=3 HIERCOLL_VIRTUAL_NODE_SIZE=2 \
        HIERCOLL_BCAST_HIER_CHUNK="$1" "$BENCH" --coll bcast --bcast-algo shm \
        --sizes 1M,16M,16777217,80M --iters 2 --csv
    "${MPI_CMD[@]}" >"$tmp/out" 2>"$tmp/err" && [ "$(grep -c ',0$' "$tmp/out")" -eq 4 ] ||
        { echo "FAIL: bench, segments of $1"; head "$tmp/out" "$tmp/err"; exit 1; }
}
segments 512K
expect "1 MiB: 512 KiB segments" "bcast: 1048576 bytes to 2 nodes in segments of 524288$"
expect "16 MiB: eighths" "bcast: 16777216 bytes to 2 nodes in segments of 2097152$"
expect "16 MiB + 1: eighths rounded up, no ninth" \
    "bcast: 16777217 bytes to 2 nodes in segments of 2101248$"
expect "80 MiB: 8 MiB segments" "bcast: 83886080 bytes to 2 nodes in segments of 8388608$"
segments 4M
expect "16 MiB, 4 MiB chunks: the chunk" "bcast: 16777216 bytes to 2 nodes in segments of 4194304$"

mpi_cmd 2 LD_PRELOAD="$LIB" HIERCOLL_VERBOSE=1 "$BENCH" --coll allreduce --allreduce-algo auto \
    --sizes 8,16K --iters 100 --min-calls 100 --csv
"${MPI_CMD[@]}" >"$tmp/out" 2>"$tmp/err" || { echo "FAIL: bench, allreduce on one node"; head "$tmp/err"; exit 1; }
expect "one node, 8 B: staged and vendor timed" "8-15 bytes: .*measured ( shm [0-9.]* us, vendor [0-9.]* us)"
refuse "one node, 8 B: single copy untried" "8-15 bytes: .*shm-cma"
expect "one node, 16 KiB: single copy timed" "16384-32767 bytes: .*measured (.*shm-cma [0-9.]* us"

# bcast_learn THRESHOLD: one node, a fixed root's 16 and 64 KiB broadcasts under `auto`
bcast_learn() {
    mpi_cmd 2 LD_PRELOAD="$LIB" HIERCOLL_VERBOSE=1 HIERCOLL_BCAST_CMA_THRESHOLD="$1" "$BENCH" \
        --coll bcast --bcast-algo auto --sizes 16K,64K --iters 100 --min-calls 100 \
        --pattern fixed-fresh-stream --csv
    "${MPI_CMD[@]}" >"$tmp/out" 2>"$tmp/err" || { echo "FAIL: bench, bcast learning ($1)"; head "$tmp/err"; exit 1; }
}
bcast_learn 1M
expect "one node, 16 KiB bcast: the queue timed" "root 0, 16384-32767 bytes: .*measured ( shm [0-9.]* us"
refuse "one node, 16 KiB bcast: single copy untried" "root 0, 16384-32767 bytes: .*shm-cma"
refuse "one node, 16 KiB bcast: direct reads untried" "root 0, 16384-32767 bytes: .*shm-direct"
expect "one node, 64 KiB bcast: single copy timed" "root 0, 65536-131071 bytes: .*measured (.*shm-cma [0-9.]* us"
expect "one node, 64 KiB bcast: direct reads timed" "root 0, 65536-131071 bytes: .*measured (.*shm-direct [0-9.]* us"
bcast_learn 16K
expect "one node, 16 KiB bcast starting on the single copy: timed" \
    "root 0, 16384-32767 bytes: .*measured ( shm-cma [0-9.]* us"

mpi_cmd 2 LD_PRELOAD="$LIB" HIERCOLL_VERBOSE=1 "$BENCH" --coll bcast --bcast-algo auto \
    --sizes 16K --iters 200 --min-calls 200 --pattern switch-warm-stream --csv
"${MPI_CMD[@]}" >"$tmp/out" 2>"$tmp/err" || { echo "FAIL: bench, a root that moves"; head "$tmp/err"; exit 1; }
expect "the first root times the vendor" "root 0, 16384-32767 bytes: .*measured (.*vendor [0-9.]* us)"
expect "a new root takes the vendor's time from the first" \
    "root 1, 16384-32767 bytes: .*vendor [0-9.]* us by another root"

mpi_cmd 4 LD_PRELOAD="$LIB" HIERCOLL_VERBOSE=1 HIERCOLL_VIRTUAL_NODE_SIZE=1 "$BENCH" \
    --coll allreduce --allreduce-algo auto --sizes 64K --iters 80 --csv
"${MPI_CMD[@]}" >"$tmp/out" 2>"$tmp/err" || { echo "FAIL: bench, one rank a node"; head "$tmp/err"; exit 1; }
expect "one rank a node: the machine's ring is a candidate" \
    "65536-131071 bytes: .*measured ( ring [0-9.]* us, ring1d [0-9.]* us"
mpi_cmd 4 LD_PRELOAD="$LIB" HIERCOLL_VERBOSE=1 HIERCOLL_VIRTUAL_NODE_SIZE=1 HIERCOLL_LEARN=off \
    "$BENCH" --coll allreduce --allreduce-algo auto --sizes 1M,4M --iters 2 --csv
"${MPI_CMD[@]}" >"$tmp/out" 2>"$tmp/err" || { echo "FAIL: bench, one rank a node, large"; head "$tmp/err"; exit 1; }
expect "one rank a node, 1 MiB: the lattice" "allreduce on 4 ranks: lattice 2x2 (ranks per node x nodes, cost model)"
expect "one rank a node, 4 MiB: one ring" "allreduce on 4 ranks: lattice 4 (one ring)"
exit "$fail"
