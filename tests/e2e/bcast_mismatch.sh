#!/usr/bin/env bash
# Root and readers disagreeing on a broadcast's size (erroneous under MPI) stop the job with
# one line naming both sizes, for the queue's data fragments and its inline path: no hang, no
# overrun of the smaller buffer. The time limit turns a hang into a failure.
source "$(dirname "$0")/fault_common.bash"
PROG=$PWD/$BUILD/tests/mpi/test_bcast_mismatch
[ -x "$PROG" ] || { echo "missing $PROG"; exit 1; }

check() { # name reader-bytes root-bytes
    timeout 60 "$MPIEXEC" -n 2 -genv LD_PRELOAD "$LIB" "$PROG" "$2" "$3" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -eq 124 ]; then
        echo "FAIL $1: the job hung"; fail=1
    elif [ "$rc" -eq 0 ] || grep -q "overrun\|rank 1: broadcast returned" "$tmp/out"; then
        echo "FAIL $1: exit $rc, the reader's broadcast returned"; cat "$tmp/out"; fail=1
    elif ! grep -q "MPI_Bcast: the root broadcasts $3 bytes, this rank receives $2:" "$tmp/err"; then
        echo "FAIL $1: no line naming both sizes"; head -5 "$tmp/err"; fail=1
    else
        echo "ok   $1: exit $rc, $(grep -m1 -o 'the root broadcasts.*receives [0-9]*' "$tmp/err")"
    fi
}
check "reader short, fragments" 100000 300000
check "reader long, fragments" 300000 100000
check "inline against fragments" 40 100000
check "inline sizes differ" 40 20
exit "$fail"
