#!/usr/bin/env bash
# Every reader of user-supplied text under libFuzzer (ASan + UBSan) for a few seconds each, in
# its own build folder: the bounded form of `make fuzz` that runs with the tests. Skips where
# clang's fuzzer runtime is absent. A fixed seed and a fresh corpus keep the run repeatable;
# `make fuzz` explores with random seeds.
set -u
BUILD=${HC_TEST_BUILD:-build}
command -v clang >/dev/null || { echo "skip: clang not installed"; exit 77; }
rm -rf "$BUILD-fuzz/fuzz/corpus_"*
BUILD=$BUILD-fuzz FUZZ_SECONDS=${FUZZ_SECONDS:-4} FUZZ_SEED=${FUZZ_SEED:-1} bash tests/fuzz/run.sh
