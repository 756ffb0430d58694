#!/usr/bin/env bash
# libhiercoll.so lives inside other people's processes: it may export the MPI entry points it
# intercepts and nothing else (no hc_* helper, no libc or static-library symbol leaking out).
set -u
LIB=${HC_TEST_LIB:-$PWD/build/lib/libhiercoll.so}
[ -f "$LIB" ] || { echo "no $LIB"; exit 1; }
fail=0

# Defined dynamic symbols, without the version-node names the linker adds.
defined=$(nm -D --defined-only "$LIB" | awk '$2 != "A" {print $3}' | sed 's/@.*//' | sort -u)
echo "$(echo "$defined" | wc -l) exported symbols"
bad=$(echo "$defined" | grep -v '^MPI_[A-Za-z0-9_]*$' || true)
if [ -n "$bad" ]; then
    echo "exported symbols other than MPI_*:"
    echo "$bad" | sed 's/^/  /'
    fail=1
fi

# Each exported MPI_ symbol must be a function (never data a program could clobber).
data=$(nm -D --defined-only "$LIB" | awk '$2 != "T" && $2 != "W" && $2 != "A" {print}')
if [ -n "$data" ]; then
    echo "exported non-function symbols:"
    echo "$data" | sed 's/^/  /'
    fail=1
fi

# The entry points the design promises are there.
for sym in MPI_Init MPI_Init_thread MPI_Finalize MPI_Bcast MPI_Bcast_c MPI_Allreduce \
           MPI_Allreduce_c MPI_Comm_set_info MPI_Comm_dup_with_info; do
    if ! echo "$defined" | grep -qx "$sym"; then
        echo "missing entry point $sym"
        fail=1
    fi
done

# Every MPI_ symbol we export must exist in the vendor library, or a program could bind to
# a name MPICH does not have (a typo in an interceptor is otherwise silent).
MPILIB=$(ldd "$LIB" | awk '/libmpi/ {print $3; exit}')
if [ -n "$MPILIB" ]; then
    vendor=$(nm -D --defined-only "$MPILIB" | awk '{print $3}' | sed 's/@.*//' | sort -u)
    missing=$(comm -23 <(echo "$defined") <(echo "$vendor"))
    if [ -n "$missing" ]; then
        echo "exported but unknown to $MPILIB:"
        echo "$missing" | sed 's/^/  /'
        fail=1
    fi
else
    echo "libhiercoll.so does not link a libmpi"
    fail=1
fi

# No text relocations and an explicit list of needed libraries (no surprise runtime deps).
if readelf -d "$LIB" | grep -q TEXTREL; then
    echo "library has text relocations"
    fail=1
fi
readelf -d "$LIB" | awk '/NEEDED/ {print "  needs", $5}'
[ "$fail" -eq 0 ] && echo "exports: MPI_* only"
exit "$fail"
