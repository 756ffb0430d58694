#!/usr/bin/env bash
# The two-pass demo behind `make demo`: profile two bundled programs on 4 virtual nodes of 2
# ranks, print the recommended mapping with its model costs, rerun them with the mapping, compare
# the times, then compare hiercoll's collectives with the vendor's.
#   BUILD=build MPIEXEC=mpiexec.mpich bash tools/demo.sh
#   DEMO_QUICK=1   small problem sizes (the e2e test uses it)
#   DEMO_OUT=DIR   where the profiles go (default $BUILD/demo)
set -u
BUILD=${BUILD:-build}
MPIEXEC=${MPIEXEC:-mpiexec.mpich}
export MPIEXEC
HC=$PWD/$BUILD/bin/hiercoll
OUT=${DEMO_OUT:-$PWD/$BUILD/demo}
NP=8 VNODE=2
if [ -n "${DEMO_QUICK:-}" ]; then
    ARGS_stencil2d="--quick" ARGS_cg_solver="--quick" BENCH_SIZES=8,64K BENCH_ITERS=5
else
    ARGS_stencil2d="--n 128 --iters 100" ARGS_cg_solver="--n 128 --iters 40"
    BENCH_SIZES=8,4K,64K,1M BENCH_ITERS=20
fi
t_start=$(date +%s)

say() { printf '\n== %s\n' "$*"; }
# The "... N.NNN s ..." figure a bundled program prints.
seconds_of() { grep -Eo '[0-9]+\.[0-9]+ s' "$1" | head -n1 | cut -d' ' -f1; }

for f in "$HC" "$BUILD/lib/libhiercoll.so" "$BUILD/examples/stencil2d" "$BUILD/examples/cg_solver"; do
    [ -e "$f" ] || { echo "demo: $f is missing; run make first" >&2; exit 1; }
done
rm -rf "$OUT"
mkdir -p "$OUT"

say "The machine"
"$HC" info | sed -n '/^This machine/,$p'
echo "The demo runs $NP ranks as 4 virtual nodes of $VNODE (HIERCOLL_VIRTUAL_NODE_SIZE=$VNODE),"
echo "so the multi-node paths and the mapping matter on this one machine."
# Why not on hosts joined by a shaped network (tools/cluster, docs/cluster.md).
if why=$(bash tools/cluster/hiercoll-cluster check 2>&1); then
    echo "Not on a cluster of namespaces with shaped links, though one can be made here: MPICH"
    echo "4.0.2 with UCX hangs in MPI_Finalize across such hosts (docs/cluster.md)."
else
    echo "Not on a cluster of namespaces: ${why#hiercoll-cluster: }"
fi

declare -A pass1 pass2 reports
for prog in stencil2d cg_solver; do
    args_var=ARGS_$prog
    dir=$OUT/$prog
    say "$prog, pass 1: profiled ($NP ranks, ${!args_var})"
    # shellcheck disable=SC2086
    "$HC" profile --out "$dir" -- "$MPIEXEC" -n $NP -genv HIERCOLL_VIRTUAL_NODE_SIZE $VNODE \
        "$PWD/$BUILD/examples/$prog" ${!args_var} 2>&1 | tee "$OUT/$prog.pass1.log"
    if ! [ -s "$dir/summary.txt" ]; then
        echo "(the profiler is not in this build yet: pass 1 ran, no profile was written)"
        [ -n "$(seconds_of "$OUT/$prog.pass1.log")" ] ||
            { echo "demo: $prog failed" >&2; exit 1; }
    fi
    pass1[$prog]=$(seconds_of "$OUT/$prog.pass1.log")

    say "$prog: the recommended mapping"
    if [ -s "$dir/mapping.txt" ]; then
        grep -v '^rank ' "$dir/mapping.txt"
        echo "(rank lines: $dir/mapping.txt)"
        "$HC" report "$dir" 2>/dev/null | grep 'bytes between nodes:' || true
    else
        echo "(not available yet: the mapping engine did not write $dir/mapping.txt)"
    fi

    say "$prog, pass 2: with the mapping"
    if [ -s "$dir/next-run.sh" ]; then
        # Profiled too (into DIR/pass2), so both passes carry the same overhead.
        echo "\$ HIERCOLL_PROFILE=$dir/pass2 sh $dir/next-run.sh"
        HIERCOLL_PROFILE=$dir/pass2 sh "$dir/next-run.sh" 2>&1 | tee "$OUT/$prog.pass2.log"
        pass2[$prog]=$(seconds_of "$OUT/$prog.pass2.log")
        [ -n "${pass2[$prog]}" ] || echo "(pass 2 FAILED: see $OUT/$prog.pass2.log)"
        if [ -s "$dir/pass2/summary.txt" ]; then
            echo "bytes between nodes, pass 1 then pass 2 (p2p, collective, share):"
            grep -h "between nodes" "$dir/summary.txt" "$dir/pass2/summary.txt"
        fi
    else
        echo "(not available yet: no $dir/next-run.sh; pass 2 skipped)"
        pass2[$prog]=""
    fi

    if [ -s "$dir/summary.txt" ]; then
        if "$HC" report "$dir" --html "$dir/report.html" --svg "$dir/matrix.svg" >"$dir/report.txt" 2>&1; then
            reports[$prog]="$dir/report.html"
        else
            reports[$prog]="(report failed: see $dir/report.txt)"
        fi
    else
        reports[$prog]="(no profile, no report)"
    fi
done

say "Timings (slowest rank, seconds; one run each on a shared machine, so noisy)"
printf '%-12s %10s %10s %8s\n' program pass1 pass2 ratio
for prog in stencil2d cg_solver; do
    p1=${pass1[$prog]:-} p2=${pass2[$prog]:-}
    ratio=-
    [ -n "$p1" ] && [ -n "$p2" ] && ratio=$(awk -v a="$p1" -v b="$p2" 'BEGIN{printf "%.2f", b/a}')
    printf '%-12s %10s %10s %8s\n' "$prog" "${p1:-n/a}" "${p2:-n/a}" "$ratio"
done

say "Collectives: hiercoll against the vendor (4 ranks in 2 virtual nodes)"
"$HC" bench --np 4 --vnode 2 --sizes "$BENCH_SIZES" --iters "$BENCH_ITERS" ||
    echo "(hiercoll bench failed)"

say "Done in $(( $(date +%s) - t_start )) s. Reports:"
for prog in stencil2d cg_solver; do
    echo "  $prog: ${reports[$prog]}"
done
echo "  profiles: $OUT/<program>/ (hiercoll report DIR for the text summary)"
