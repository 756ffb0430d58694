#!/usr/bin/env bash
# The preload enters the global symbol scope of every program it is loaded into, and so do the
# libraries it links: their symbols would take the place of the program's own (libunwind's
# _Unwind_* replaced the C++ runtime's unwinder of programs that reach libgcc_s through
# libstdc++ only) and every symbol lookup of the program walks past them. METIS, Scotch and
# libunwind are therefore opened on first use with RTLD_LOCAL (common/hc_late_lib.h). Checked
# with tests/e2e/preload_scope.c, against the vendor alone:
#  - the preload adds no object to the program but itself and what it links (libnuma, and
#    hwloc where the vendor does not load it already);
#  - no name the program looks up resolves elsewhere than without the preload, also in a
#    profiled run whose call sites walk the stack (libunwind) and whose finalize maps (METIS,
#    Scotch): those still work, the profile holds a mapping and three-frame call sites.
# hc-test: each-family
. "$(dirname "$0")/mpi_family.bash"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$MPICC" -O2 -o "$tmp/prog" tests/e2e/preload_scope.c -ldl || { echo "FAIL: cannot build"; exit 1; }
[ "$HC_FAMILY" = ompi ] && export OMPI_MCA_mpi_yield_when_idle=1
run() { # run OUT [VAR=VALUE...]
    local out=$1
    shift
    mpi_cmd 2 "$@" "$tmp/prog"
    timeout 120 "${MPI_CMD[@]}" >"$tmp/$out" 2>"$tmp/$out.err" ||
        { cat "$tmp/$out" "$tmp/$out.err"; echo "FAIL: the program failed ($out)"; exit 1; }
}
run vendor
run preload "LD_PRELOAD=$LIB"
# a virtual node a rank: two hosts to the mapping, so its search (METIS, Scotch) runs
run profiled "LD_PRELOAD=$LIB" "HIERCOLL_PROFILE=$tmp/prof" HIERCOLL_CALLSITES=3 HIERCOLL_VIRTUAL_NODE_SIZE=1
fail=0

objects() { awk '$1 == "object" {print $2}' "$tmp/$1" | sort -u; }
added=$(comm -13 <(objects vendor) <(objects preload))
unexpected=$(echo "$added" | grep -Ev '^(libhiercoll.*|libnuma\.so.*|libhwloc\.so.*|libudev\.so.*)$' || true)
if [ -n "$unexpected" ]; then
    echo "FAIL: the preload brings more into the program:" $unexpected; fail=1
else
    echo "ok   objects the preload adds:" $added
fi

for mode in preload profiled; do
    moved=$(diff <(grep '^symbol' "$tmp/vendor") <(grep '^symbol' "$tmp/$mode") | grep '^>' || true)
    if [ -n "$moved" ]; then
        echo "FAIL: $mode: names resolve elsewhere than under the vendor alone:"
        echo "$moved" | sed 's/^> symbol/  /'
        fail=1
    else
        echo "ok   $mode: $(grep -c '^symbol' "$tmp/vendor") names resolve as under the vendor alone"
    fi
done

algo=$(awk '$1 == "algorithm" {print $2}' "$tmp/prof/mapping.txt" 2>/dev/null)
frames=$(awk -F, 'NR > 2 {print split($9, f, ";")}' "$tmp/prof/callsites.csv" 2>/dev/null | sort -n | tail -1)
if [ -z "$algo" ] || [ "$algo" = launch-order ] || [ "${frames:-0}" -lt 3 ]; then
    cat "$tmp/profiled.err"
    echo "FAIL: profiled run: mapping '${algo}', deepest call site ${frames:-0} frames"; fail=1
else
    echo "ok   profiled run: mapped by $algo, call sites of $frames frames"
fi
exit "$fail"
