#!/usr/bin/env bash
# Root and readers disagreeing on a broadcast's size (erroneous under MPI) stop the job with
# one line naming both sizes, for the queue's data fragments and its inline path, messages of
# several segments (512 KiB each) and the single-copy path: no hang, no overrun of the smaller
# buffer (the segments' cases force the queue: from 1 MiB `auto` starts on the single copy,
# whose case of that size runs as it is). The time limit turns a hang into a failure.
# hc-test: each-family
source "$(dirname "$0")/fault_common.bash"
PROG=$PWD/$FAMILY_DIR/tests/mpi/test_bcast_mismatch
[ -x "$PROG" ] || { echo "missing $PROG"; exit 1; }

check() { # name reader-bytes root-bytes [VAR=VALUE...]
    local name=$1 want=$2 sent=$3
    shift 3
    mpi_cmd 2 LD_PRELOAD="$LIB" "$@" "$PROG" "$want" "$sent"
    timeout 60 "${MPI_CMD[@]}" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -eq 124 ]; then
        echo "FAIL $name: the job hung"; fail=1
    elif [ "$rc" -eq 0 ] || grep -q "overrun\|rank 1: broadcast returned" "$tmp/out"; then
        echo "FAIL $name: exit $rc, the reader's broadcast returned"; cat "$tmp/out"; fail=1
    elif ! grep -q "MPI_Bcast: the root \(broadcasts $sent bytes, this rank receives $want\|sends $sent bytes, local rank 1 receives $want\):" "$tmp/err"; then
        echo "FAIL $name: no line naming both sizes"; head -5 "$tmp/err"; fail=1
    else
        echo "ok   $name: exit $rc, $(grep -m1 -o 'the root [a-z]* [0-9]* bytes.*receives [0-9]*' "$tmp/err")"
    fi
}
check "reader short, fragments" 100000 300000
check "reader long, fragments" 300000 100000
check "inline against fragments" 40 100000
check "inline sizes differ" 40 20
check "inline sizes differ, second line of the cell" 100 60
check "reader short, second line of the cell" 60 100
check "reader longer by a segment" 1572864 1048576 HIERCOLL_BCAST=shm
check "reader shorter by a segment" 1048576 1572864 HIERCOLL_BCAST=shm
check "single copy, reader shorter by a segment" 1048576 1572864
check "one byte apart, two segments" 600001 600000
check "single copy, reader short" 100000 300000 HIERCOLL_BCAST=shm-cma
check "single copy, reader long" 300000 100000 HIERCOLL_BCAST=shm-cma
exit "$fail"
