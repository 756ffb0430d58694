#!/usr/bin/env bash
# make bench: hiercoll's collectives against the vendor's, at 2 ranks, in one run.
set -e
BUILD=${BUILD:-build}
MPIEXEC=${MPIEXEC:-mpiexec.mpich}
NP=${NP:-2}
exec "$MPIEXEC" -n "$NP" -genv LD_PRELOAD "$PWD/$BUILD/lib/libhiercoll.so" \
    "$BUILD/bin/hiercoll-bench" "$@"
