#!/usr/bin/env bash
# Small vectors across nodes: with more than two node leaders, recursive doubling among them
# runs below the size at which the vendor's allreduce leaves it (HC_VENDOR_AR_DOUBLING_BELOW,
# collectives/hc_mpi.h: 8 KiB for Open MPI, 2 KiB + 1 for MPICH), the ring from that size on;
# with two leaders recursive doubling moves no more than a ring and runs at both sizes. Virtual
# nodes of one rank (4 or 2 leaders); which path ran is read from HIERCOLL_VERBOSE=2 lines,
# one communicator per size; every element is checked against the exact sum. This is the
# built-in rule: learning (which tries every path) is off.
# hc-test: each-family
. "$(dirname "$0")/mpi_family.bash"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
"$MPICC" -O2 -o "$tmp/switch" tests/e2e/leaders_switch.c || { echo "cannot build leaders_switch"; exit 1; }
# The last double below the vendor's bound, and the first at or above it.
if [ "$HC_FAMILY" = ompi ]; then below=8184 at=8192; else below=2048 at=2056; fi

# segment SIZE: the verbose lines rank 0 wrote for SIZE's communicator.
segment() { awk -v s="size $1 done" '$0 == s {exit} {print}' "$tmp/err" | awk '/^size [0-9]+ done$/ {buf=""; next} {buf = buf $0 "\n"} END {printf "%s", buf}'; }

run() { # NP: runs both sizes on NP virtual nodes of one rank
    mpi_cmd "$1" LD_PRELOAD="$LIB" HIERCOLL_VIRTUAL_NODE_SIZE=1 HIERCOLL_VERBOSE=2 HIERCOLL_LEARN=off \
        OMPI_MCA_mpi_yield_when_idle=1 "$tmp/switch" "$below" "$at"
    timeout 120 "${MPI_CMD[@]}" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    [ "$rc" -eq 0 ] || { echo "FAIL $1 leaders: exit $rc"; head -20 "$tmp/err"; fail=1; return 1; }
}

expect() { # NAME SIZE yes|no: whether SIZE's communicator ran the leaders' recursive doubling
    local seg
    seg=$(segment "$2")
    if grep -q "allreduce small vectors among [0-9]* node leaders: recursive doubling" <<<"$seg"; then
        [ "$3" = yes ] && echo "ok   $1" || { echo "FAIL $1: recursive doubling ran"; fail=1; }
    else
        [ "$3" = no ] && grep "allreduce on [0-9]* ranks: lattice" <<<"$seg" | grep -qv "small vectors" &&
            echo "ok   $1" || { echo "FAIL $1: expected recursive doubling=$3"; echo "$seg"; fail=1; }
    fi
}

if run 4; then
    expect "4 leaders, $below bytes: recursive doubling" "$below" yes
    expect "4 leaders, $at bytes: the ring" "$at" no
fi
if run 2; then
    expect "2 leaders, $below bytes: recursive doubling" "$below" yes
    expect "2 leaders, $at bytes: recursive doubling" "$at" yes
fi
exit $fail
