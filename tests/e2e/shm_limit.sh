#!/usr/bin/env bash
# HIERCOLL_SHM_LIMIT counts a node's segments once, across processes and communicators, and
# gets a freed communicator's share back (tests/mpi/test_shm_limit.c says how). A limit of
# 800K holds one 2-rank queue (2 x (256 KiB + 4 KiB)) and not two. Reads the verbose output:
# "bcast queue:" is printed by each rank whose communicator got its segment.
# hc-test: each-family
source "$(dirname "$0")/fault_common.bash"
PROG=$PWD/$FAMILY_DIR/tests/mpi/test_shm_limit
[ -x "$PROG" ] || { echo "missing $PROG"; exit 1; }

mpi_cmd 4 LD_PRELOAD="$LIB" HIERCOLL_SHM_LIMIT=800K HIERCOLL_VERBOSE=2 "$PROG"
"${MPI_CMD[@]}" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -ne 0 ] || ! grep -q "checks on 4 ranks, 0 failed" "$tmp/out"; then
    echo "FAIL: exit $rc"; cat "$tmp/out" "$tmp/err"; exit 1
fi
# Each rank's queue was admitted exactly once: ranks 0-1 at once, ranks 2-3 after the free.
for r in 0 1 2 3; do
    n=$(grep -c "^hiercoll\[$r\]: bcast queue:" "$tmp/err")
    [ "$n" -eq 1 ] || { echo "FAIL: rank $r got a queue $n times (want 1)"; fail=1; }
done
# The refusal is said once, by the creator of the refused segment (rank 2).
warned=$(grep -c "warning: HIERCOLL_SHM_LIMIT=800K reached" "$tmp/err")
[ "$warned" -eq 1 ] && grep -q "^hiercoll\[2\]: warning: HIERCOLL_SHM_LIMIT=800K reached" "$tmp/err" ||
    { echo "FAIL: want one limit warning, from rank 2; got $warned"; fail=1; }
# Rank 2's own lines keep their order: refused first (step 2), admitted after the free (3).
order=$(grep "^hiercoll\[2\]: \(bcast queue\|warning: HIERCOLL_SHM_LIMIT\)" "$tmp/err" | cut -d' ' -f2 | paste -sd' ')
[ "$order" = "warning: bcast" ] || { echo "FAIL: rank 2 said '$order', want the refusal, then the queue"; fail=1; }
[ "$fail" -eq 0 ] || { echo "--- stderr:"; grep -v "^hiercoll\[[0-9]\]: \(allreduce\|waits\)" "$tmp/err" | head -30; }
exit "$fail"
