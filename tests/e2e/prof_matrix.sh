#!/usr/bin/env bash
# Profiler: each tests/mpi/test_prof_* program runs under the preload with a fresh profile
# directory and checks every matrix entry and every file against the traffic it knows
# (tests/mpi/test_prof.h); the Fortran ring's matrix is checked here.
# hc-test: each-family
. tests/e2e/prof_common.bash

# case NAME NP PROG [VAR=VALUE...]
case_() {
    local name=$1 np=$2 prog=$FAMILY_DIR/tests/mpi/$3
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
case_ p2p-np3-yield 3 test_prof_p2p HIERCOLL_P2P_YIELD=on
case_ coll-np3 3 test_prof_coll
case_ rma-np3 3 test_prof_rma
case_ rma-np4-vnode 4 test_prof_rma HIERCOLL_VIRTUAL_NODE_SIZE=2
case_ threads-np2 2 test_prof_threads
case_ coll-np4-vnode-nocoll 4 test_prof_coll HIERCOLL_VIRTUAL_NODE_SIZE=2 HIERCOLL_PROFILE_COLLECTIVES=off

# At one frame (the default) a site is the wrapper's return address, not a walk of the stack
# (preload/prof_site.c): the same frames and counts as the first frame of a two-frame walk.
# first_frames DIR: function, module, offset and calls of each first frame, summed.
first_frames() {
    tail -n +3 "$1/callsites.csv" | awk -F, '{ n[$2","$6","$7] += $3 }
        END { for (k in n) print k","n[k] }' | sort
}
same_first_frames() {
    local name=$1 np=$2 prog=$3 d1=$TMP/frames1-$1 d2=$TMP/frames2-$1
    prof_run "$np" "$d1" "$prog" HIERCOLL_CALLSITES=1 &&
        prof_run "$np" "$d2" "$prog" HIERCOLL_CALLSITES=2 ||
        { fail "$name: a run at depth 1 or 2 failed"; tail -n 20 "$TMP/log"; return; }
    local sites
    sites=$(first_frames "$d1" | wc -l)
    if [ "$sites" -gt 0 ] && diff <(first_frames "$d1") <(first_frames "$d2") >"$TMP/frames.diff"; then
        echo "ok   $name: $sites sites at depth 1 are the first frames at depth 2"
    else
        fail "$name: depth 1's sites differ from depth 2's first frames ($sites sites)"
        cat "$TMP/frames.diff"
    fi
}
same_first_frames p2p 3 "$FAMILY_DIR/tests/mpi/test_prof_p2p"
same_first_frames coll 3 "$FAMILY_DIR/tests/mpi/test_prof_coll"
same_first_frames rma 3 "$FAMILY_DIR/tests/mpi/test_prof_rma"
same_first_frames fortran 3 "$PWD/$FAMILY_DIR/tests/mpi/test_prof_fortran"

# Fortran ring (tests/mpi/test_prof_fortran.f90, `use mpi`; test_fortran_f08.f90, `use mpi_f08`,
# which also broadcasts from every root and reduces 3 times): the whole point-to-point matrix,
# recomputed here, and the collectives counted.
fortran_case() {
    local np=$1 name=${2:-test_prof_fortran}
    local dir=$TMP/$name-np$np prog=$PWD/$FAMILY_DIR/tests/mpi/$name
    prof_run "$np" "$dir" "$prog" || { fail "$name np=$np"; tail -n 20 "$TMP/log"; return; }
    local want=$TMP/want.$np got=$TMP/got.$np
    for ((s = 0; s < np; s++)); do
        local next=$(((s + 1) % np)) prev=$(((s + np - 1) % np))
        echo "$s $next $((5 * (s + 1) * 10 * 4)) 5"
        echo "$s $prev 24 1"
    done | awk '{b[$1","$2]+=$3; m[$1","$2]+=$4} END {for (k in b) print k","b[k]","m[k]}' |
        sort -t, -k1,1n -k2,2n >"$want"
    # point-to-point bytes and messages of each pair, joined from the two matrices
    join -t, -j1 <(tail -n +3 "$dir/comm_bytes.csv" | awk -F, '$3 > 0 {print $1"-"$2","$3}') \
        <(tail -n +3 "$dir/comm_msgs.csv" | awk -F, '$3 > 0 {print $1"-"$2","$3}') |
        tr '-' ',' | sort -t, -k1,1n -k2,2n >"$got"
    local rows
    # the ring program has no collectives: its rows are exactly the ring's
    rows=$(tail -n +3 "$dir/comm_bytes.csv" | awk -F, -v name="$name" \
        'name == "test_prof_fortran" || $3 > 0' | wc -l)
    [ "$rows" -eq "$(wc -l <"$want")" ] || fail "$name np=$np: $rows rows"
    diff "$want" "$got" >/dev/null || { fail "$name np=$np matrix"; diff "$want" "$got"; }
    if [ "$name" = test_fortran_f08 ]; then
        awk -F, -v np="$np" '$1 == 0 && $2 == "MPI_Bcast" { b = $3 } $1 == 0 && $2 == "MPI_Allreduce" { a = $3 }
            END { exit !(b == np && a == 3) }' "$dir/functions.csv" ||
            fail "$name np=$np: rank 0's MPI_Bcast/MPI_Allreduce calls not $np/3"
    fi
    # Call sites land in the Fortran program (the binding layer is skipped) and resolve to
    # its source with addr2line.
    local other
    other=$(tail -n +3 "$dir/callsites.csv" | awk -F, -v exe="$prog" '$6 != exe' | wc -l)
    [ "$other" -eq 0 ] || fail "$name np=$np: $other call sites outside the program"
    local off
    off=$(awk -F, '$2 == "MPI_Ssend" {print $7}' "$dir/callsites.csv")
    addr2line -e "$prog" "$off" | grep -q "$name.f90:[0-9]" ||
        fail "$name np=$np: MPI_Ssend site $off does not resolve to the source"
    echo "ok   $name-np$np: matrix exact, call sites in the program"
}
fortran_case 3
fortran_case 1
fortran_case 3 test_fortran_f08

[ "$failed" -eq 0 ] && echo "all profiler matrices exact"
exit "$failed"
