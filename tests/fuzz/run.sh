#!/usr/bin/env bash
# make fuzz: every reader of user-supplied text under libFuzzer with AddressSanitizer and
# UndefinedBehaviorSanitizer, for a bounded time each (FUZZ_SECONDS, default 20), starting from
# tests/fuzz/seeds/<target>/ and the malformed corpus tests/bad-input/<target>/. FUZZ_RUNS=N
# bounds each target by N inputs instead, FUZZ_RUNS=repeatable by the counts below (a few
# seconds each here), so a slow or busy machine fuzzes as much as a fast one. Any crash,
# sanitizer report, leak, oversized allocation (> 2 GiB) or reader contract violation (see
# fuzz_readers.c) fails; the reproducer is kept in $BUILD/fuzz/findings/.
# Reproduce one: $BUILD/fuzz/fuzz_<target> FILE
set -u
BUILD=${BUILD:-build}
SECONDS_EACH=${FUZZ_SECONDS:-20}
CLANG=${CLANG:-clang}
out=$BUILD/fuzz
mkdir -p "$out/findings"
command -v "$CLANG" >/dev/null || { echo "fuzz: $CLANG not found (apt-get install clang)"; exit 77; }
# The library's own include folders and system libraries (Scotch's header lives in a subfolder).
includes=$(make -s --no-print-directory SKIP_DEPS=1 print-INCLUDES) || exit 2
libs=$(make -s --no-print-directory SKIP_DEPS=1 print-LIBS_SYS) || exit 2
targets=(graph matrix mapfile perf machine config tuning)
repeatable_runs=(150000 150000 8000 200000 600000 200000 150000)
fail=0
for i in "${!targets[@]}"; do
    t=${targets[$i]}
    bin=$out/fuzz_$t
    if ! "$CLANG" -g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
        -fno-sanitize-recover=undefined -DHC_FUZZ_TARGET=$((i + 1)) $includes \
        tests/fuzz/fuzz_readers.c common/*.c mapping/*.c -o "$bin" $libs; then
        echo "FAIL $t: does not build"; fail=1; continue
    fi
    corpus=$out/corpus_$t
    mkdir -p "$corpus"
    seeds=()
    for d in tests/fuzz/seeds/$t tests/bad-input/$t; do [ -d "$d" ] && seeds+=("$d"); done
    case ${FUZZ_RUNS:-} in
    '') bound=(-max_total_time="$SECONDS_EACH") ;;
    repeatable) bound=(-runs="${repeatable_runs[$i]}") ;;
    *[!0-9]*) echo "fuzz: FUZZ_RUNS='$FUZZ_RUNS': use a number of inputs or 'repeatable'"; exit 2 ;;
    *) bound=(-runs="$FUZZ_RUNS") ;;
    esac
    ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1 \
        "$bin" "${bound[@]}" -seed="${FUZZ_SEED:-0}" -rss_limit_mb=2048 -malloc_limit_mb=2048 \
        -timeout=10 -artifact_prefix="$out/findings/$t-" "$corpus" "${seeds[@]}" \
        >"$out/$t.log" 2>&1
    rc=$?
    runs=$(grep -o 'Done [0-9]* runs' "$out/$t.log" | awk '{print $2}')
    if [ "$rc" -ne 0 ]; then
        echo "FAIL $t: $(grep -m1 -E 'ERROR|SUMMARY|reader returned|rejection' "$out/$t.log")"
        echo "     reproducer: $(ls -t "$out/findings/$t-"* 2>/dev/null | head -1), log $out/$t.log"
        fail=1
    else
        echo "ok   $t: ${runs:-?} inputs, corpus $(ls "$corpus" | wc -l) files"
    fi
done
exit "$fail"
