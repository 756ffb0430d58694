#!/usr/bin/env bash
# Every reader of user-supplied text under libFuzzer (ASan + UBSan) for a few seconds each, in
# its own build folder: the bounded form of `make fuzz` that runs with the tests. Skips where
# clang's fuzzer runtime is absent.
set -u
BUILD=${HC_TEST_BUILD:-build}
command -v clang >/dev/null || { echo "skip: clang not installed"; exit 77; }
BUILD=$BUILD-fuzz FUZZ_SECONDS=${FUZZ_SECONDS:-4} bash tests/fuzz/run.sh
