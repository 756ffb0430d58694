#!/usr/bin/env bash
# Profiler: each tests/mpi/test_prof_* program runs under the preload with a fresh profile
# directory and checks every matrix entry and every file against the traffic it knows
# (tests/mpi/test_prof.h); the Fortran ring's matrix is checked here.
. tests/e2e/prof_common.bash

# case NAME NP PROG [VAR=VALUE...]
case_() {
    local name=$1 np=$2 prog=$BUILD/tests/mpi/$3
    shift 3
    local dir=$TMP/$name
    if prof_run "$np" "$dir" "$prog" "$@"; then
        echo "ok   $name: $(grep -E 'checks on' "$TMP/log")"
    else
        fail "$name"
        tail -n 30 "$TMP/log"
    fi
}

case_ p2p-np1 1 test_prof_p2p
case_ p2p-np3 3 test_prof_p2p
case_ p2p-np4-vnode 4 test_prof_p2p HIERCOLL_VIRTUAL_NODE_SIZE=2
case_ p2p-np4-depth3 4 test_prof_p2p HIERCOLL_CALLSITES=3
case_ p2p-np2-nosites 2 test_prof_p2p HIERCOLL_CALLSITES=0
case_ coll-np3 3 test_prof_coll
case_ rma-np3 3 test_prof_rma
case_ rma-np4-vnode 4 test_prof_rma HIERCOLL_VIRTUAL_NODE_SIZE=2
case_ threads-np2 2 test_prof_threads
case_ coll-np4-vnode-nocoll 4 test_prof_coll HIERCOLL_VIRTUAL_NODE_SIZE=2 HIERCOLL_PROFILE_COLLECTIVES=off

[ "$failed" -eq 0 ] && echo "all profiler matrices exact"
exit "$failed"
