#!/usr/bin/env bash
# The preloaded library under the sanitizers, inside real MPI jobs (tests/e2e/sanitize_unit.sh
# covers the unit tests). Two builds in their own folders:
#   $HC_TEST_BUILD-asan  AddressSanitizer + UndefinedBehaviorSanitizer: a bounded subset of the
#                        MPI tests at 2 ranks (some at 4 on virtual nodes); the ASan runtime is
#                        preloaded before the library (an executable's own runtime would come
#                        after LD_PRELOAD otherwise).
#   $HC_TEST_BUILD-tsan  ThreadSanitizer: the MPI_THREAD_MULTIPLE tests at 2 ranks (and 4 on
#                        virtual nodes); MPICH is not instrumented, so its frames are suppressed
#                        (tests/e2e/tsan-mpich.supp). MPICH only: Open MPI 4.1's uninstrumented
#                        locking (its allocator's and transports' mutexes next to inline
#                        atomics) makes TSan report double locks and races inside Open MPI
#                        that no stable suppression list removes.
# Any "ERROR: AddressSanitizer", UBSan "runtime error" or "WARNING: ThreadSanitizer" in a
# job's output fails, as does a failing test. About 3.5 minutes from clean on 2 cores (MPICH),
# 1 more for Open MPI. Skipped in a plain `make test`; CI sets HC_TEST_SANITIZE=1.
# hc-test: each-family
[ "${HC_TEST_SANITIZE:-0}" = 1 ] || { echo "skip: set HC_TEST_SANITIZE=1"; exit 77; }
. "$(dirname "$0")/mpi_family.bash"
HERE=$(cd "$(dirname "$0")" && pwd)
SUB=${FAMILY_DIR#"$BUILD"} # "" or /ompi: where this family's programs are in a build folder
fail=0

# build DIR SANITIZE PROGS...: the library and the named MPI tests.
build() {
    local dir=$1 san=$2
    shift 2
    local targets="$dir/lib/libhiercoll$SUFFIX.so"
    for p in "$@"; do targets+=" $dir$SUB/tests/mpi/$p"; done
    if ! make BUILD="$dir" SANITIZE="$san" SKIP_DEPS=1 OPT="-O1 -g" -j2 $targets \
        >"$dir.build.log" 2>&1; then
        echo "FAIL $san build: $dir.build.log"
        tail -n 5 "$dir.build.log" | sed 's/^/    /'
        return 1
    fi
}

# run KIND DIR RUNTIME NAME NP PROG [ENV=VALUE...]: one job with RUNTIME then the library
# preloaded; the test's exit status and the sanitizer's reports decide.
run() {
    local kind=$1 dir=$2 runtime=$3 name=$4 np=$5 prog=$6
    shift 6
    local log="$dir/san-$HC_FAMILY-$name.log" rc t0=$SECONDS
    mpi_cmd "$np" LD_PRELOAD="$runtime:$PWD/$dir/lib/libhiercoll$SUFFIX.so" "$@" \
        "$dir$SUB/tests/mpi/$prog"
    timeout -k 5 200 "${MPI_CMD[@]}" >"$log" 2>&1 </dev/null
    rc=$?
    if [ "$rc" -ne 0 ] ||
        grep -q -E 'ERROR: AddressSanitizer|runtime error|WARNING: ThreadSanitizer' "$log"; then
        echo "FAIL $kind $name np=$np (exit $rc, $((SECONDS - t0))s, $log):"
        grep -m6 -E -A3 'ERROR: AddressSanitizer|runtime error|WARNING: ThreadSanitizer|FAIL' "$log" |
            sed 's/^/    /'
        fail=1
    else
        echo "ok   $kind $name np=$np ($((SECONDS - t0))s)"
    fi
}

# --- AddressSanitizer + UndefinedBehaviorSanitizer ----------------------------------------
ASAN=${BUILD}-asan
ASAN_RT=$(gcc -print-file-name=libasan.so)
asan_env=(ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1)
if build "$ASAN" address,undefined test_shim_basics test_bcast test_allreduce test_stress \
    test_threads; then
    run asan+ubsan "$ASAN" "$ASAN_RT" shim_basics 2 test_shim_basics "${asan_env[@]}"
    run asan+ubsan "$ASAN" "$ASAN_RT" bcast 2 test_bcast "${asan_env[@]}"
    run asan+ubsan "$ASAN" "$ASAN_RT" allreduce 2 test_allreduce "${asan_env[@]}"
    run asan+ubsan "$ASAN" "$ASAN_RT" stress 2 test_stress "${asan_env[@]}"
    run asan+ubsan "$ASAN" "$ASAN_RT" threads 2 test_threads "${asan_env[@]}"
    # Two virtual nodes of 2: the hierarchical paths and the node leaders' segments.
    run asan+ubsan "$ASAN" "$ASAN_RT" allreduce-vnodes 4 test_allreduce "${asan_env[@]}" \
        HIERCOLL_VIRTUAL_NODE_SIZE=2
    run asan+ubsan "$ASAN" "$ASAN_RT" stress-vnodes 4 test_stress "${asan_env[@]}" \
        HIERCOLL_VIRTUAL_NODE_SIZE=2
    run asan+ubsan "$ASAN" "$ASAN_RT" bcast-vnodes 4 test_bcast "${asan_env[@]}" \
        HIERCOLL_VIRTUAL_NODE_SIZE=2
else
    fail=1
fi

# --- ThreadSanitizer ------------------------------------------------------------------------
if [ "$HC_FAMILY" = ompi ]; then
    echo "(ThreadSanitizer: MPICH only, see above)"
    exit "$fail"
fi
TSAN=${BUILD}-tsan
TSAN_RT=$(gcc -print-file-name=libtsan.so)
# UCX's memory hooks patch mmap/munmap under TSan's own interceptors: every rank crashes at
# start, even without the library. libunwind's per-thread cache is freed by a TSD destructor
# that TSan no longer tracks at thread exit (a crash in __tsan::MutexPreLock), so call-site
# unwinding is off here; the rest of the profiler stays on.
tsan_env=("TSAN_OPTIONS=suppressions=$HERE/tsan-mpich.supp:halt_on_error=0:report_signal_unsafe=0"
    UCX_MEM_EVENTS=no UCX_MEM_MALLOC_HOOKS=no HIERCOLL_CALLSITES=0)
if build "$TSAN" thread test_threads test_prof_threads; then
    profdir=$(mktemp -d /tmp/hc-tsan-prof-XXXXXX)
    run tsan "$TSAN" "$TSAN_RT" threads 2 test_threads "${tsan_env[@]}" # its own profile, checked
    run tsan "$TSAN" "$TSAN_RT" threads-vnodes 4 test_threads "${tsan_env[@]}" \
        HIERCOLL_VIRTUAL_NODE_SIZE=2
    run tsan "$TSAN" "$TSAN_RT" prof_threads 2 test_prof_threads "${tsan_env[@]}" \
        "HIERCOLL_PROFILE=$profdir"
    rm -rf "$profdir"
else
    fail=1
fi
exit "$fail"
