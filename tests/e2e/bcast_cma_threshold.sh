#!/usr/bin/env bash
# HIERCOLL_BCAST_CMA_THRESHOLD switches the auto broadcast to single copy by size
# (collectives/bcast_select.c): with 64K, a broadcast of 65536 bytes must move every reader's
# bytes with process_vm_readv/writev, each byte once (readers pull, the root pushes, never
# both), and one of 65535 bytes none; unset (1M), the same at 1 MiB and one byte less. Nothing
# hiercoll prints tells the paths apart, so strace counts the bytes those calls move; the CMA
# probes at setup (hiercoll's and MPICH's) move 8 bytes a call and are left out. The loop
# program's allreduce (bytes/16: 4 KiB, and 64 KiB at 1 MiB) runs in the vendor, whose own
# CMA is turned off: UCX's cma transport under MPICH, Open MPI's shared-memory single copy.
# These cases run without the shared heap (HIERCOLL_HEAP=off); with it, root and readers copy
# through their mappings of each other's heap instead, and the last case checks that the
# 64 KiB broadcasts then move no byte through the syscalls.
# hc-test: each-family
source "$(dirname "$0")/fault_common.bash"
vendor_env=(UCX_TLS=^cma)
[ "$HC_FAMILY" = ompi ] && vendor_env=(OMPI_MCA_btl_vader_single_copy_mechanism=none)
command -v strace >/dev/null || { echo "skip: strace not installed"; exit 77; }
strace -qq -o /dev/null true 2>/dev/null || { echo "skip: strace cannot trace here"; exit 77; }
np=3 iters=6

# run NAME BYTES WANT ENV...: WANT bytes moved by CMA in total over the run.
run() {
    local name=$1 bytes=$2 want=$3; shift 3
    local got
    rm -rf "$tmp/trace"; mkdir "$tmp/trace"
    mpi_cmd "$np" LD_PRELOAD="$LIB" HIERCOLL_ALLREDUCE=vendor HIERCOLL_VERBOSE=2 \
        "${vendor_env[@]}" "$@" strace -qq -f -ff -o "$tmp/trace/st" \
        -e trace=process_vm_readv,process_vm_writev "$PROG" --bytes "$bytes" --iters "$iters" \
        --comms 1
    timeout 120 "${MPI_CMD[@]}" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" -ne 0 ] || ! grep -q "checks on $np ranks, 0 failed" "$tmp/out"; then
        echo "FAIL $name: exit $rc"; cat "$tmp/out" "$tmp/err" | head -20; fail=1; return
    fi
    if grep -q 'bcast queue: .* cma=no' "$tmp/err"; then
        echo "skip: process_vm_readv/writev not permitted between the ranks"; exit 77
    fi
    got=$(cat "$tmp/trace"/st.* | awk '/^process_vm_(readv|writev)\(.* = [0-9]+$/ && $NF > 8 {
        s += $NF } END { print s + 0 }')
    if [ "$got" -ne "$want" ]; then
        echo "FAIL $name: $got bytes moved by CMA, expected $want"
        grep -h '^process_vm' "$tmp/trace"/st.* | grep -v '= 8$' | head -5 |
            sed -E 's/^(process_vm_[a-z]+)\(([0-9]+),.* = (.*)$/  \1 with pid \2: \3/'
        fail=1
    else
        echo "ok   $name: $got bytes moved by CMA"
    fi
}

all=$((iters * (np - 1)))
run "65536 bytes, threshold 64K" 65536 $((all * 65536)) HIERCOLL_BCAST_CMA_THRESHOLD=64K HIERCOLL_HEAP=off
run "65535 bytes, threshold 64K" 65535 0 HIERCOLL_BCAST_CMA_THRESHOLD=64K HIERCOLL_HEAP=off
run "1048575 bytes, default threshold (1M)" 1048575 0 HIERCOLL_HEAP=off
run "1048576 bytes, default threshold (1M)" 1048576 $((all * 1048576)) HIERCOLL_HEAP=off
run "65536 bytes, threshold 64K, shared heap" 65536 0 HIERCOLL_BCAST_CMA_THRESHOLD=64K
exit "$fail"
