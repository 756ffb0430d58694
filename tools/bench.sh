#!/usr/bin/env bash
# make bench: hiercoll's collectives against the vendor's, at 2 ranks, in one run, in every
# calling pattern (36 for the broadcast: docs/usage.md; `--pattern classic` the twelve of
# before) unless BENCH_ARGS says otherwise.
# Ranks are pinned to cores when there are enough: unpinned, the scheduler sometimes stacks
# both on one core for a while and a run's medians drift by 2x.
set -e
BUILD=${BUILD:-build}
MPIEXEC=${MPIEXEC:-mpiexec.mpich}
NP=${NP:-2}
[ $# -eq 0 ] && set -- --pattern all
bind=()
[ "$NP" -le "$(nproc)" ] && bind=(-bind-to core)
exec "$MPIEXEC" -n "$NP" "${bind[@]}" -genv LD_PRELOAD "$PWD/$BUILD/lib/libhiercoll.so" \
    "$BUILD/bin/hiercoll-bench" "$@"
