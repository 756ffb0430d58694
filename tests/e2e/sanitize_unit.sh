#!/usr/bin/env bash
# The unit tests under AddressSanitizer + UndefinedBehaviorSanitizer (built in their own
# folder, $HC_TEST_BUILD-san), then valgrind memcheck on the regular unit binaries. Any
# sanitizer report, "runtime error", invalid access, use of uninitialised memory or definite
# leak fails (valgrind checks leaks in every binary but test_heap's, below). About 2 minutes
# to build and 3 to run on 2 loaded cores.
# Skipped in a plain `make test` (it doubles the time of this part); CI sets
# HC_TEST_SANITIZE=1.
set -u
[ "${HC_TEST_SANITIZE:-0}" = 1 ] || { echo "skip: set HC_TEST_SANITIZE=1"; exit 77; }
BUILD=${HC_TEST_BUILD:-build}
SAN=${BUILD}-san
fail=0
units=$(ls tests/unit/test_*.c | sed "s|tests/unit/\(.*\)\.c|$SAN/tests/unit/\1|")
if ! make BUILD="$SAN" SANITIZE=address,undefined SKIP_DEPS=1 OPT="-O1 -g" -j2 $units \
    >"$SAN.build.log" 2>&1; then
    echo "sanitizer build failed: $SAN.build.log"; tail "$SAN.build.log"; exit 1
fi
for b in $units; do
    log=$SAN/$(basename "$b").log
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 "$b" >"$log" 2>&1
    rc=$?
    if [ "$rc" -ne 0 ] || grep -q -E 'runtime error|ERROR: (Address|Leak)Sanitizer' "$log"; then
        echo "FAIL asan+ubsan $(basename "$b") (exit $rc):"
        grep -m3 -E 'runtime error|ERROR|FAIL' "$log" | sed 's/^/    /'
        fail=1
    else
        echo "ok   asan+ubsan $(basename "$b")"
    fi
done
if command -v valgrind >/dev/null; then
    for b in "$BUILD"/tests/unit/test_*; do
        case $b in *.d|*.log) continue ;; esac
        [ -x "$b" ] || continue
        log=$SAN/$(basename "$b").valgrind.log
        # test_heap took 211 s under valgrind, 193 of them in the leak check at its exit
        # (with it off: 18 s; 2026-12-02), which scans the heap's arena, a readable mapping
        # of up to 64 GiB; its leaks are LeakSanitizer's, in the pass above.
        leaks="--leak-check=full --errors-for-leak-kinds=definite"
        case $b in */test_heap) leaks="--leak-check=no" ;; esac
        timeout 900 valgrind -q --error-exitcode=9 $leaks "$b" >"$log" 2>&1
        rc=$?
        if [ "$rc" -ne 0 ]; then
            echo "FAIL valgrind $(basename "$b") (exit $rc):"
            grep -m3 '^==' "$log" | sed 's/^/    /'
            fail=1
        else
            echo "ok   valgrind $(basename "$b")"
        fi
    done
else
    echo "skip valgrind: not installed"
fi
exit "$fail"
