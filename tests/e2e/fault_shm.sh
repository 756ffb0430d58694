#!/usr/bin/env bash
# Shared segments that cannot be created: the communicators concerned go without shared memory
# (broadcast: the vendor path; allreduce: the point-to-point ring), results stay correct, each
# process warns at most once, nothing is left in /dev/shm.
#  1. HIERCOLL_FAULT_SHM=1 (every creation fails) and =3 (the first two succeed).
#  2. A real full /dev/shm: a 2 MiB tmpfs mounted over it in a private mount namespace
#     (unshare -m; skipped where that is not permitted). UCX is kept off shared memory there
#     (UCX_TLS=tcp,self). Segments are memfds first, named /dev/shm ones only when the peers
#     cannot open a memfd: either way no SIGBUS and correct results.
# hc-test: each-family
source "$(dirname "$0")/fault_common.bash"

# check NAME NP: the run in $tmp/out, $tmp/err passed, warned, once per rank at most.
check() {
    local name=$1 rc=$2 np=$3 min_warned=${4:-1}
    local warned before=$fail
    warned=$(grep -c 'warning: cannot create .*shared segment' "$tmp/err")
    if [ "$rc" -ne 0 ] || ! grep -q "checks on $np ranks, 0 failed" "$tmp/out"; then
        echo "FAIL $name: exit $rc"; cat "$tmp/out" "$tmp/err" | head -20; fail=1; return
    fi
    if [ "$warned" -lt "$min_warned" ]; then
        echo "FAIL $name: no warning (was a segment ever needed?)"; cat "$tmp/err"; fail=1
    fi
    for r in $(seq 0 $((np - 1))); do
        if [ "$(grep -c "^hiercoll\[$r\]: warning: cannot create .*shared segment" "$tmp/err")" -gt 1 ]; then
            echo "FAIL $name: rank $r warned more than once"; cat "$tmp/err"; fail=1
        fi
    done
    if grep -v 'warning: cannot create .*shared segment' "$tmp/err" | grep -q .; then
        echo "FAIL $name: unexpected output on stderr:"; cat "$tmp/err"; fail=1
    fi
    [ "$fail" = "$before" ] && echo "ok   $name: $(grep -o '[0-9]* checks.*' "$tmp/out"), $warned warning line(s)"
}

for nth in 1 3; do
    mpi_cmd 4 LD_PRELOAD="$LIB" HIERCOLL_FAULT_SHM=$nth "$PROG" --iters 16 --comms 4
    timeout 120 "${MPI_CMD[@]}" >"$tmp/out" 2>"$tmp/err"
    check "HIERCOLL_FAULT_SHM=$nth np=4" $? 4
done
mpi_cmd 4 LD_PRELOAD="$LIB" HIERCOLL_FAULT_SHM=1 HIERCOLL_VIRTUAL_NODE_SIZE=2 "$PROG" \
    --iters 16 --comms 4
timeout 120 "${MPI_CMD[@]}" >"$tmp/out" 2>"$tmp/err"
check "HIERCOLL_FAULT_SHM=1 np=4 virtual nodes of 2" $? 4

if unshare -m true 2>/dev/null; then
    # The vendor kept off shared memory too: UCX (MPICH), the TCP transport (Open MPI).
    mpi_cmd 4 UCX_TLS=tcp,self OMPI_MCA_btl=tcp,self OMPI_MCA_pml=ob1 LD_PRELOAD="$LIB" "$PROG" \
        --iters 16 --comms 4
    timeout 180 unshare -m sh -c '
        mount -t tmpfs -o size=2m tmpfs /dev/shm || exit 77
        "$@"
        rc=$?
        left=$(ls /dev/shm | grep -c "^hiercoll-")
        [ "$left" -eq 0 ] || { echo "$left segment(s) left in the full /dev/shm" >&2; exit 98; }
        exit $rc' sh "${MPI_CMD[@]}" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -eq 77 ]; then
        echo "skip full /dev/shm: cannot mount a tmpfs here"
    else
        # segments are anonymous (memfd) first: a full /dev/shm may not concern them at all
        check "2 MiB /dev/shm np=4" $rc 4 0
    fi
else
    echo "skip full /dev/shm: unshare -m not permitted"
fi
exit "$fail"
