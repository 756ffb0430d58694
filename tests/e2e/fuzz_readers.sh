#!/usr/bin/env bash
# Every reader of user-supplied text under libFuzzer (ASan + UBSan) for a fixed number of inputs
# each, in its own build folder: the bounded form of `make fuzz` that runs with the tests. Skips
# where clang's fuzzer runtime is absent. A fixed seed, a fresh corpus and a count of inputs
# rather than a time keep the run close to the same on every machine (not identical: coverage
# that depends on heap addresses steers some mutations); `make fuzz` explores with random seeds
# for a time. A finding here is a real bug: its reproducer belongs in tests/fuzz/seeds/.
set -u
BUILD=${HC_TEST_BUILD:-build}
command -v clang >/dev/null || { echo "skip: clang not installed"; exit 77; }
rm -rf "$BUILD-fuzz/fuzz/corpus_"*
BUILD=$BUILD-fuzz FUZZ_RUNS=repeatable FUZZ_SEED=${FUZZ_SEED:-1} bash tests/fuzz/run.sh
