#!/usr/bin/env bash
# Which MPI_Allreduce calls on the Fortran named datatypes (MPI_INTEGER, MPI_REAL,
# MPI_DOUBLE_PRECISION, MPI_INTEGER4/8, MPI_REAL4/8, MPI_LOGICAL: what a Fortran program's
# MPI_ALLREDUCE passes) reach the vendor's PMPI_Allreduce under the preload. A counting shim
# preloaded after the library (tests/e2e/vendor_count.c) sees every call the library passes
# on. Found with ScaLAPACK's test drivers (make apps): their MPI_INTEGER sums went to the
# vendor, because the reduction kernels knew the C types only (collectives/reduce_kernels.c).
# Expected: none of them reaches the vendor (they are the same bits as MPI_INT, MPI_FLOAT,
# MPI_DOUBLE, int64_t and a C int with MPI_LAND); MPI_INT and MPI_DOUBLE do not either, and
# the complex control does (no kernel: vendor by design), which proves the shim counts.
# Learning is off: it would try the vendor's allreduce among the candidates on purpose.
# hc-test: each-family
. "$(dirname "$0")/mpi_family.bash"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$MPICC" -O2 -o "$tmp/prog" tests/e2e/allreduce_fortran_types.c || { echo "FAIL: cannot build"; exit 1; }
"$MPICC" -O2 -shared -fPIC -o "$tmp/vendor_count.so" tests/e2e/vendor_count.c -ldl ||
    { echo "FAIL: cannot build the shim"; exit 1; }
[ "$HC_FAMILY" = ompi ] && export OMPI_MCA_mpi_yield_when_idle=1
mpi_cmd 4 "LD_PRELOAD=$LIB:$tmp/vendor_count.so" HIERCOLL_LEARN=off "$tmp/prog"
timeout 120 "${MPI_CMD[@]}" >"$tmp/out" 2>&1 || { cat "$tmp/out"; echo "FAIL: the program failed"; exit 1; }
grep -q '^results right' "$tmp/out" || { cat "$tmp/out"; echo "FAIL: wrong results"; exit 1; }
grep -q '^vendor-call 0 allreduce MPI_C_DOUBLE_COMPLEX' "$tmp/out" ||
    { cat "$tmp/out"; echo "FAIL: the shim saw no vendor call (the complex control)"; exit 1; }
fail=0
for t in MPI_INTEGER MPI_REAL MPI_DOUBLE_PRECISION MPI_INTEGER4 MPI_INTEGER8 MPI_REAL4 MPI_REAL8 \
    MPI_LOGICAL MPI_INT MPI_DOUBLE; do
    n=$(awk -v t="$t" '$1 == "vendor-call" && $3 == "allreduce" && $4 == t { s += $5 } END { print s + 0 }' "$tmp/out")
    # MPI_INT: the library's own set-up agrees with MPI_LAND on a few ints
    if [ "$t" = MPI_INT ] && [ "$n" -le 64 ]; then n=0; fi
    if [ "$n" -gt 0 ]; then
        echo "FAIL $t: $n calls (of 400, 4 ranks x 100) went to the vendor"; fail=1
    else
        echo "ok   $t: hiercoll's path"
    fi
done
exit "$fail"
