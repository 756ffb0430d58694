#!/usr/bin/env bash
# The interposed malloc family (preload/malloc.c) in a plain program under LD_PRELOAD: with
# PMI_RANK set (as an MPI launcher sets it) large blocks come from the shared heap; without
# it, or with HIERCOLL_HEAP=off, from the C library. Contents, sizes, alignments, realloc
# across the 64 KiB threshold, calloc of a reused block and a fork() child's private copy are
# checked by the program in every case.
# hc-test: each-family
. "$(dirname "$0")/mpi_family.bash"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
cc -O2 -o "$tmp/interpose" tests/e2e/heap_interpose.c || { echo "cannot build heap_interpose"; exit 1; }

run() { # NAME EXPECTED_HEAP_BLOCKS ENV...
    local name=$1 want=$2 out rc
    shift 2
    out=$(env -u PMI_RANK -u OMPI_COMM_WORLD_RANK -u PMIX_RANK "$@" LD_PRELOAD="$LIB" \
        timeout 60 "$tmp/interpose" 2>&1)
    rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "FAIL $name: exit $rc"; echo "$out" | head -5; fail=1
    elif ! grep -qx "heap blocks: $want" <<<"$out"; then
        echo "FAIL $name: $(grep 'heap blocks' <<<"$out"), expected $want"; fail=1
    else
        echo "ok   $name"
    fi
}
run "an MPI rank (PMI_RANK): the shared heap" 3 PMI_RANK=0
run "an MPI rank (OMPI_COMM_WORLD_RANK): the shared heap" 3 OMPI_COMM_WORLD_RANK=0
run "HIERCOLL_HEAP=off: the C library" 0 PMI_RANK=0 HIERCOLL_HEAP=off
run "HIERCOLL_HEAP=NO (any spelling hc_config takes): the C library" 0 PMI_RANK=0 HIERCOLL_HEAP=NO
run "not an MPI rank: the C library" 0
exit $fail
