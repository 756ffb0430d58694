#!/usr/bin/env bash
# libhiercoll.so lives inside other people's processes: it may export the MPI entry points it
# intercepts and nothing else (no hc_* helper, no libc or static-library symbol leaking out):
# MPI_* in C, and the Fortran entry points the vendor's bindings do not route through them
# (preload/fortran.c): under Open MPI mpi_* and MPI_*, under MPICH mpi_*_f08_; and the malloc
# family it interposes (preload/malloc.c), by name; under MPICH also read, __read_chk and two of
# UCX's calls (preload/mpich_exit.c), which must then be the C library's and UCX's own names.
# hc-test: each-family
. "$(dirname "$0")/mpi_family.bash"
[ -f "$LIB" ] || { echo "no $LIB"; exit 1; }
fail=0

# Defined dynamic symbols, without the version-node names the linker adds.
defined=$(nm -D --defined-only "$LIB" | awk '$2 != "A" {print $3}' | sed 's/@.*//' | sort -u)
echo "$(echo "$defined" | wc -l) exported symbols"
names='^(MPI_[A-Za-z0-9_]*|mpi_[a-z0-9_]*_f08_)$'
[ "$HC_FAMILY" = ompi ] && names='^(MPI|mpi)_[A-Za-z0-9_]*$'
malloc_family='^(malloc|free|calloc|realloc|reallocarray|posix_memalign|aligned_alloc|memalign|malloc_usable_size)$'
exit_family='^$'
[ "$HC_FAMILY" = mpich ] && exit_family='^(read|__read_chk|ucp_worker_create|ucp_worker_destroy)$'
bad=$(echo "$defined" | grep -Ev "$names" | grep -Ev "$malloc_family" | grep -Ev "$exit_family" || true)
if [ -n "$bad" ]; then
    echo "exported symbols other than the MPI entry points:"
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

# The entry points the design promises are there (the large-count ones where the vendor has
# them; Open MPI's Fortran ones under Open MPI).
MPILIB=$(ldd "$LIB" | awk '/libmpi/ {print $3; exit}')
want="MPI_Init MPI_Init_thread MPI_Finalize MPI_Bcast MPI_Allreduce MPI_Comm_set_info
      MPI_Comm_dup_with_info"
[ -n "$MPILIB" ] && nm -D --defined-only "$MPILIB" | grep -q ' MPI_Bcast_c$' &&
    want="$want MPI_Bcast_c MPI_Allreduce_c"
want="$want mpi_init_f08_ mpi_comm_set_info_f08_"
[ "$HC_FAMILY" = ompi ] && want="$want mpi_bcast_ mpi_allreduce_ mpi_send_ mpi_init_
      mpi_bcast_f08_ mpi_allreduce_f08_ MPI_BCAST"
for sym in $want; do
    if ! echo "$defined" | grep -qx "$sym"; then
        echo "missing entry point $sym"
        fail=1
    fi
done

# Every symbol we export must exist in the vendor's libraries (its C library, its Fortran ones
# beside it), or a program could bind to a name the vendor does not have (a typo in an
# interceptor is otherwise silent).
if [ -n "$MPILIB" ]; then
    libdir=$(dirname "$(realpath "$MPILIB")")
    vendor=$(for l in "$libdir"/libmpi*.so* "$libdir"/fortran/*/libmpi*.so*; do
                 [ -f "$l" ] && nm -D --defined-only "$l" 2>/dev/null
             done | awk '{print $3}' | sed 's/@.*//' | sort -u)
    missing=$(comm -23 <(echo "$defined" | grep -Ev "$malloc_family" | grep -Ev "$exit_family") \
                       <(echo "$vendor"))
    if [ -n "$missing" ]; then
        echo "exported but unknown to $MPILIB:"
        echo "$missing" | sed 's/^/  /'
        fail=1
    fi
else
    echo "libhiercoll.so does not link a libmpi"
    fail=1
fi

# The names interposed for MPICH's exit are the ones its libraries call (libc's, libucp's).
if [ "$HC_FAMILY" = mpich ] && [ -n "$MPILIB" ]; then
    below=$(for l in $(ldd "$MPILIB" | awk '/libc\.so|libucp/ {print $3}'); do
                nm -D --defined-only "$l" 2>/dev/null
            done | awk '{print $3}' | sed 's/@.*//' | sort -u)
    for sym in $(echo "$defined" | grep -E "$exit_family"); do
        echo "$below" | grep -qx "$sym" || { echo "interposed $sym is not in libc or libucp"; fail=1; }
    done
fi

# No text relocations and an explicit list of needed libraries (no surprise runtime deps).
if readelf -d "$LIB" | grep -q TEXTREL; then
    echo "library has text relocations"
    fail=1
fi
readelf -d "$LIB" | awk '/NEEDED/ {print "  needs", $5}'
[ "$fail" -eq 0 ] && echo "exports: the MPI entry points only"
exit "$fail"
