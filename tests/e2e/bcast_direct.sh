#!/usr/bin/env bash
# Direct reads (collectives/bcast_direct.c): a fixed root's buffer from malloc, sent again
# unchanged, is copied by the readers straight out of the root's shared heap; a static array,
# or any buffer with HIERCOLL_HEAP=off, HIERCOLL_BCAST_DIRECT=off or
# HIERCOLL_BCAST_DIRECT_MIN=1T, goes through the queue, and so does every buffer when the node
# has more ranks than cores unless HIERCOLL_BCAST_DIRECT=on.
# `auto` keeps the queue at every size here (HIERCOLL_BCAST_CMA_THRESHOLD=1T): by default it
# starts on the single copy from 1 MiB.
# Which path ran is read from HIERCOLL_VERBOSE=3 lines; every byte is checked every call.
# hc-test: each-family
. "$(dirname "$0")/mpi_family.bash"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
"$MPICC" -O2 -o "$tmp/direct" tests/e2e/bcast_direct.c || { echo "cannot build bcast_direct"; exit 1; }

run() { # NAME NP EXPECTED_DIRECT_CALLS EXPECTED_PROBE [VAR=VALUE...]
    local name=$1 np=$2 want=$3 probe=$4
    shift 4
    mpi_cmd "$np" LD_PRELOAD="$LIB" HIERCOLL_BCAST_CMA_THRESHOLD=1T HIERCOLL_VERBOSE=3 \
        OMPI_MCA_mpi_yield_when_idle=1 "$@" "$tmp/direct"
    timeout 120 "${MPI_CMD[@]}" >"$tmp/out" 2>"$tmp/err"
    local rc=$? got
    got=$(grep -c "readers copy them from the root's buffer" "$tmp/err")
    if [ "$rc" -ne 0 ] || ! grep -q "^0 bytes differ" "$tmp/out"; then
        echo "FAIL $name: exit $rc, $(cat "$tmp/out")"; head -5 "$tmp/err"; fail=1
    elif [ "$got" != "$want" ]; then
        echo "FAIL $name: $got direct calls, expected $want"; fail=1
    elif ! grep -q "direct=$probe" "$tmp/err"; then
        echo "FAIL $name: no 'direct=$probe' in the queue's setup line"; fail=1
    else
        echo "ok   $name ($got direct calls)"
    fi
}

# 3 heap buffers x (5 calls - the first): 12; the static array: none.
cores=$(nproc)
run "2 ranks, shared heap" 2 12 yes
if [ "$cores" -ge 3 ]; then
    run "3 ranks on $cores cores" 3 12 yes
else
    run "3 ranks on $cores cores: more ranks than cores" 3 0 no
fi
run "3 ranks, HIERCOLL_BCAST_DIRECT=on" 3 12 yes HIERCOLL_BCAST_DIRECT=on
run "2 virtual nodes of 2, HIERCOLL_BCAST_DIRECT=on" 4 12 yes HIERCOLL_BCAST_DIRECT=on \
    HIERCOLL_VIRTUAL_NODE_SIZE=2
run "HIERCOLL_BCAST_DIRECT=off" 2 0 no HIERCOLL_BCAST_DIRECT=off
run "HIERCOLL_HEAP=off" 2 0 no HIERCOLL_HEAP=off
run "HIERCOLL_BCAST_DIRECT_MIN=1T" 2 0 yes HIERCOLL_BCAST_DIRECT_MIN=1T
run "HIERCOLL_BCAST_DIRECT_MIN=1M" 2 8 yes HIERCOLL_BCAST_DIRECT_MIN=1M
exit $fail
