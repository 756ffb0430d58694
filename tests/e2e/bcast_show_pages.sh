#!/usr/bin/env bash
# HIERCOLL_BCAST_SHOW_PAGES=on: every rank reports, for each broadcast segment it creates,
# where the pages of its queue region landed (collectives/bcast_numa.c):
#   hiercoll[R]: bcast queue: N pages, M on NUMA node X, K elsewhere
# At 2 ranks, with the default queue and a small one: one line per rank and communicator, N
# covers a ring of s fragments of f bytes, the cells and the head (the region's layout,
# bcast_shm.c) plus less than two pages of rounding, M + K = N, K = 0, node X exists. Off,
# nothing is printed.
# hc-test: each-family
source "$(dirname "$0")/fault_common.bash"
[ -d /sys/devices/system/node/node0 ] || { echo "skip: no NUMA nodes in /sys"; exit 77; }
page=$(getconf PAGESIZE)

# run NAME ENV...: 2 ranks, 2 communicators (world and a dup), output in $tmp/out, $tmp/err.
run() {
    local name=$1; shift
    mpi_cmd 2 LD_PRELOAD="$LIB" "$@" "$PROG" --iters 4 --comms 2
    timeout 60 "${MPI_CMD[@]}" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" -ne 0 ] || ! grep -q "checks on 2 ranks, 0 failed" "$tmp/out"; then
        echo "FAIL $name: exit $rc"; cat "$tmp/out" "$tmp/err" | head -20; fail=1; return 1
    fi
}

# check NAME S F [C]: the report lines of a ring of S fragments of F bytes and C cells (64) of
# 128 bytes each (hc_bcell).
check() {
    local name=$1 s=$2 f=$3 c=${4:-64} bad=0 r lines line n m x k
    local lo=$(( (s * f + c * 128 + 128 + page - 1) / page )) hi
    hi=$(( lo + 1 ))
    for r in 0 1; do
        lines=$(grep -c "^hiercoll\[$r\]: bcast queue: " "$tmp/err")
        if [ "$lines" -ne 2 ]; then
            echo "FAIL $name: rank $r printed $lines report line(s), expected 2"; bad=1
        fi
    done
    while IFS= read -r line; do
        if ! [[ $line =~ ^hiercoll\[[01]\]:\ bcast\ queue:\ ([0-9]+)\ pages,\ ([0-9]+)\ on\ NUMA\ node\ ([0-9]+),\ ([0-9]+)\ elsewhere$ ]]; then
            echo "FAIL $name: unexpected line: $line"; bad=1; continue
        fi
        n=${BASH_REMATCH[1]} m=${BASH_REMATCH[2]} x=${BASH_REMATCH[3]} k=${BASH_REMATCH[4]}
        if [ "$n" -lt "$lo" ] || [ "$n" -gt "$hi" ]; then
            echo "FAIL $name: $n pages, expected $lo..$hi: $line"; bad=1
        fi
        if [ $((m + k)) -ne "$n" ] || [ "$k" -ne 0 ]; then
            echo "FAIL $name: pages do not add up or some are elsewhere: $line"; bad=1
        fi
        if [ ! -d "/sys/devices/system/node/node$x" ]; then
            echo "FAIL $name: NUMA node $x does not exist: $line"; bad=1
        fi
    done < <(grep "bcast queue: .* pages" "$tmp/err")
    if grep -v "bcast queue: .* pages" "$tmp/err" | grep -q .; then
        echo "FAIL $name: unexpected output on stderr:"; cat "$tmp/err"; bad=1
    fi
    if [ "$bad" -eq 0 ]; then
        echo "ok   $name: $(grep -m1 -o '[0-9]* pages.*' "$tmp/err")"
    else
        fail=1
    fi
}

# Defaults of collectives/bcast_shm.c: s = 8 buffers of f = 32 KiB.
run "default queue" HIERCOLL_BCAST_SHOW_PAGES=on && check "default queue" 8 32768
run "small queue" HIERCOLL_BCAST_SHOW_PAGES=on HIERCOLL_BCAST_FRAG=4K HIERCOLL_BCAST_QUEUE=8 \
    HIERCOLL_BCAST_CELLS=300 && check "small queue" 8 4096 300
# A fragment size alone keeps the 256 KiB queue: s = 256 KiB / f.
run "fragment alone" HIERCOLL_BCAST_SHOW_PAGES=on HIERCOLL_BCAST_FRAG=16K &&
    check "fragment alone" 16 16384
if run "off"; then
    if grep -q "bcast queue: .* pages" "$tmp/err"; then
        echo "FAIL off: pages reported without HIERCOLL_BCAST_SHOW_PAGES"; fail=1
    else
        echo "ok   off: no report"
    fi
fi
exit "$fail"
