#!/usr/bin/env bash
# ScaLAPACK's own LU test driver (xdlu, Debian's scalapack-mpi-test, built for both MPI
# families) under the vendor's MPI and under the preload, 2 ranks on a 1 x 2 grid: BLACS
# broadcasts and combines (MPI_Bcast, MPI_Allreduce on its row and column communicators)
# inside an LU factorisation and solve. The driver checks its own residuals; every test must
# pass in both runs, and as many under the preload as under the vendor; then 4 ranks under the
# preload with the program's waits yielding. Skips (77) where the package is not installed
# (.ci/run installs it).
# hc-test: each-family
. "$(dirname "$0")/mpi_family.bash"
if [ "$HC_FAMILY" = ompi ]; then dir=openmpi-tests; else dir=mpich-tests; fi
XDLU=/usr/lib/x86_64-linux-gnu/scalapack/$dir/xdlu
[ -x "$XDLU" ] || { echo "skip: $XDLU is not installed (apt-get install scalapack-mpi-test)"; exit 77; }
command -v python3 >/dev/null || { echo "skip: python3 is not installed"; exit 77; }
[ -e "$LIB" ] || { echo "FAIL: $LIB is not built"; exit 1; }
tmp=$(mktemp -d /tmp/hc-app.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export OMPI_MCA_mpi_yield_when_idle=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
sed -e 's/@P@/1/' -e 's/@Q@/2/' -e 's/@NSIZES@/1/' -e 's/@SIZES@/200/' \
    tools/apps/inputs/LU.dat.in >"$tmp/LU.dat"

for mode in vendor preload; do
    env=()
    [ $mode = preload ] && env+=("LD_PRELOAD=$LIB")
    mpi_cmd 2 "${env[@]}" "$XDLU"
    (cd "$tmp" && timeout 50 "${MPI_CMD[@]}" >"$mode.out" 2>&1) ||
        { tail -n 20 "$tmp/$mode.out"; fail "xdlu under $mode exited non-zero"; }
    verdict=$(python3 tools/apps/answer.py compare scalapack "$tmp/$mode.out" "$tmp/$mode.out")
    [ "$verdict" = same ] || { cat "$tmp/$mode.out"; fail "xdlu under $mode: $verdict"; }
    grep -E 'tests completed and passed' "$tmp/$mode.out" | tr -s ' ' >"$tmp/$mode.count"
    echo "ok   $mode: $(cat "$tmp/$mode.count")"
done
cmp -s "$tmp/vendor.count" "$tmp/preload.count" || fail "not as many tests passed under the preload as under the vendor"

# 4 ranks on a 2 x 2 grid with the program's receives and waits yielding (what
# HIERCOLL_P2P_YIELD=auto does under MPICH with more ranks than cores; forced on here, so it
# runs on any machine and in both families, and said at verbose 1). Every residual check must
# pass.
sed -e 's/@P@/2/' -e 's/@Q@/2/' -e 's/@NSIZES@/1/' -e 's/@SIZES@/200/' \
    tools/apps/inputs/LU.dat.in >"$tmp/LU.dat"
mpi_cmd 4 "LD_PRELOAD=$LIB" HIERCOLL_P2P_YIELD=on HIERCOLL_VERBOSE=1 "$XDLU"
(cd "$tmp" && timeout 60 "${MPI_CMD[@]}" >"$tmp/yield.out" 2>&1) ||
    { tail -n 20 "$tmp/yield.out"; fail "xdlu at 4 ranks, waits yielding, exited non-zero"; }
grep -q "point-to-point waits yield" "$tmp/yield.out" || fail "the preload did not say the waits yield"
grep -qE '1 tests completed and passed' "$tmp/yield.out" ||
    { cat "$tmp/yield.out"; fail "xdlu at 4 ranks, waits yielding: a residual check failed"; }
echo "ok   preload at 4 ranks, waits yielding: $(grep -E 'tests completed and passed' "$tmp/yield.out" | tr -s ' ')"
echo "ok"
