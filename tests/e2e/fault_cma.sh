#!/usr/bin/env bash
# When one rank cannot use CMA (ptrace restricted there: HIERCOLL_FAULT_CMA=2 makes rank 1's
# probes fail), every rank of the communicator agrees to go without it: the broadcast runs
# the queue and the allreduce stages through the segment, with correct results, even though
# both single-copy paths are forced. A run without the fault must take them (else CMA is not
# permitted here at all, and the case is skipped). Reads the verbose output: "bcast queue:
# ... cma=yes|no" per rank, and rank 0's "allreduce node dimension ...: single copy|staged".
# hc-test: each-family
source "$(dirname "$0")/fault_common.bash"

run() {
    mpi_cmd 3 LD_PRELOAD="$LIB" HIERCOLL_VERBOSE=2 HIERCOLL_BCAST=shm-cma \
        HIERCOLL_ALLREDUCE_CMA_THRESHOLD=0 "$@" "$PROG" --iters 6 --bytes 4194304 --comms 3
    "${MPI_CMD[@]}" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" -ne 0 ] || ! grep -q "checks on 3 ranks, 0 failed" "$tmp/out"; then
        echo "FAIL ($*): exit $rc"; cat "$tmp/out" "$tmp/err" | head -20; exit 1
    fi
}
queues() { grep -c "bcast queue: .* cma=$1" "$tmp/err"; }

run
if [ "$(queues no)" -gt 0 ] || [ "$(queues yes)" -eq 0 ]; then
    echo "skip: CMA is not permitted between these processes"; exit 77
fi
grep -q "allreduce node dimension.*single copy" "$tmp/err" ||
    { echo "FAIL: without the fault the allreduce did not go single-copy"; fail=1; }

run HIERCOLL_FAULT_CMA=2
[ "$(queues yes)" -eq 0 ] && [ "$(queues no)" -ge 3 ] ||
    { echo "FAIL: with rank 1's probes failing, queues with cma=yes: $(queues yes), cma=no: $(queues no)"; fail=1; }
grep -q "allreduce node dimension.*single copy" "$tmp/err" &&
    { echo "FAIL: the allreduce went single-copy although rank 1 cannot"; fail=1; }
grep -q "allreduce node dimension.*staged" "$tmp/err" ||
    { echo "FAIL: the allreduce's staged engine never ran"; fail=1; }
[ "$fail" -eq 0 ] || grep -E "bcast queue|allreduce node" "$tmp/err"
exit "$fail"
