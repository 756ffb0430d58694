#!/usr/bin/env bash
# The two-pass demo behind `make demo`: measure the machine's levels (hiercoll commperf),
# profile two bundled programs launched in a rank order that is bad for the nodes, print the
# recommended mapping with its model costs, time pass 1 (as launched) against pass 2 (with the
# mapping) in alternating runs, then compare hiercoll's collectives with the vendor's.
#
# Where a cluster of namespaces can be made (root, tools/cluster, docs/cluster.md) and the
# library's Open MPI build is there, the two passes run on 2 hosts joined by a link shaped to
# DEMO_RATE (1gbit) under Open MPI; elsewhere on 4 virtual nodes of one machine under MPICH.
#   BUILD=build MPIEXEC=mpiexec.mpich bash tools/demo.sh
#   DEMO_QUICK=1     small problem sizes, one run per pass (the e2e test uses it)
#   DEMO_OUT=DIR     where the profiles go (default $BUILD/demo)
#   DEMO_REPS=K      alternating runs per pass (default 5)
#   DEMO_RATE=R      the cluster's link rate (default 1gbit)
#   DEMO_VIRTUAL=1   virtual nodes even where a cluster can be made
set -u
BUILD=${BUILD:-build}
MPIEXEC=${MPIEXEC:-mpiexec.mpich}
export MPIEXEC
HC=$PWD/$BUILD/bin/hiercoll
CLUSTER=$PWD/tools/cluster/hiercoll-cluster
OUT=${DEMO_OUT:-$PWD/$BUILD/demo}
RATE=${DEMO_RATE:-1gbit}
NP=8
PROGS="stencil2d cg_solver"
t_start=$(date +%s)

say() { printf '\n== %s\n' "$*"; }
# The "... N.NNN s ..." figure a bundled program prints.
seconds_of() { grep -Eo '[0-9]+\.[0-9]+ s' "$1" | head -n1 | cut -d' ' -f1; }
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

for f in "$HC" "$BUILD/lib/libhiercoll.so" "$BUILD/examples/stencil2d" "$BUILD/examples/cg_solver"; do
    [ -e "$f" ] || { echo "demo: $f is missing; run make first" >&2; exit 1; }
done
rm -rf "$OUT"
mkdir -p "$OUT"

# Where the demo runs: the cluster if it can be made, else virtual nodes, and why.
mode=virtual why=""
if [ -n "${DEMO_VIRTUAL:-}" ]; then
    why="DEMO_VIRTUAL is set"
elif ! why=$(bash "$CLUSTER" check 2>&1); then
    why=${why#hiercoll-cluster: }
elif ! command -v mpirun.openmpi >/dev/null || ! [ -e "$BUILD/lib/libhiercoll-ompi.so" ] ||
     ! [ -e "$BUILD/ompi/examples/stencil2d" ]; then
    why="the library's Open MPI build is missing (make with openmpi-bin and libopenmpi-dev installed), and MPICH 4.0.2 with UCX hangs in MPI_Finalize across hosts (docs/cluster.md)"
else
    # made here, so that a cluster that cannot be made after all still leaves the fallback
    export HC_CLUSTER=demo-$$
    trap '"$CLUSTER" down --name "$HC_CLUSTER" >/dev/null 2>&1' EXIT
    trap 'exit 130' INT TERM
    if up_log=$("$CLUSTER" up 2 --rate "$RATE" --ranks-per-host 4 --name "$HC_CLUSTER" 2>&1); then
        mode=cluster
    else
        why="the cluster could not be made: $(echo "$up_log" | tail -n1)"
    fi
fi

if [ -n "${DEMO_QUICK:-}" ]; then
    ARGS_stencil2d="--quick" ARGS_cg_solver="--quick" BENCH_SIZES=8,64K BENCH_ITERS=5
    REPS=${DEMO_REPS:-1}
elif [ $mode = cluster ]; then
    # Sizes at which the halos, not the arithmetic, set the pace on a 1 Gbit/s link: small
    # blocks and many iterations (compute per iteration ~ N^2 / rank, halo ~ N). The solver
    # stops at 600 iterations, before it converges (its residual is then ~1e-8).
    ARGS_stencil2d="--n 64 --iters 8000" ARGS_cg_solver="--n 256 --iters 600"
    BENCH_SIZES=8,4K,64K,1M BENCH_ITERS=20
    REPS=${DEMO_REPS:-5}
else
    ARGS_stencil2d="--n 128 --iters 100" ARGS_cg_solver="--n 128 --iters 40"
    BENCH_SIZES=8,4K,64K,1M BENCH_ITERS=20
    REPS=${DEMO_REPS:-5}
fi

if [ $mode = cluster ]; then
    ON=("$CLUSTER" exec --name "$HC_CLUSTER" h1)   # mpirun.openmpi starts on h1
    LIBF=$PWD/$BUILD/lib/libhiercoll-ompi.so EXAMPLES=$PWD/$BUILD/ompi/examples
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    # 8 ranks share 2 cores: ranks that wait in Open MPI must yield
    export OMPI_MCA_mpi_yield_when_idle=1
    # Bad orders for 2 hosts of 4: the stencil places its grid so that consecutive ranks are
    # far apart (and Open MPI fills h1 with ranks 0-3); the solver's chain 0-1-...-7 is cut
    # at every link when ranks go round robin over the hosts.
    LAUNCH_stencil2d=(mpirun.openmpi -n $NP)
    LAUNCH_cg_solver=(mpirun.openmpi --map-by node -n $NP)
    envopt() { echo "-x $1=$2"; }
else
    ON=()
    LIBF=$PWD/$BUILD/lib/libhiercoll.so EXAMPLES=$PWD/$BUILD/examples
    LAUNCH_stencil2d=("$MPIEXEC" -n $NP -genv HIERCOLL_VIRTUAL_NODE_SIZE 2)
    LAUNCH_cg_solver=("${LAUNCH_stencil2d[@]}")
    envopt() { echo "-genv $1 $2"; }
fi

say "The machine"
"$HC" info | sed -n '/^This machine/,$p'
if [ $mode = cluster ]; then
    echo "$up_log"
    cat <<EOF
The demo runs $NP ranks on 2 hosts (h1, h2) of a cluster made of Linux namespaces on this
machine, 4 ranks a host, under Open MPI over TCP; each host's link is shaped to $RATE
both ways (tc tbf; docs/cluster.md). Why $RATE: what a mapping saves is traffic moved from
the network to shared memory, so the ratio of the two speeds should be a real cluster's.
There the network is some 5 to 40 times slower than a copy through shared memory (seed
000's cluster: Gigabit Ethernet between 4-core nodes; today 10-25 Gbit/s Ethernet between
nodes that copy at 10-20 GB/s). Shared memory here copies at several GB/s (measured below),
so even $RATE, about the fastest rate TCP sustains here (unshaped, it is bound by the CPU
near 1.2 Gbit/s), makes the network slower than on a real cluster; 100 Mbit/s would make
it 10 times slower still. Both hosts share this machine's 2 cores.
EOF
else
    echo "The demo runs $NP ranks as 4 virtual nodes of 2 (HIERCOLL_VIRTUAL_NODE_SIZE=2) under"
    echo "MPICH, so the multi-node paths and the mapping matter on this one machine; \"the"
    echo "network\" is shared memory too, so pass 2 has little to save."
    echo "Not on a cluster of namespaces with shaped links: $why."
fi

say "The levels, measured (hiercoll commperf)"
perf=$OUT/machine-perf.txt
if [ $mode = cluster ]; then
    # 4 ranks round robin: two on h1 (shared memory), two across the link
    "${ON[@]}" env MPIEXEC=mpirun.openmpi OMPI_MCA_rmaps_base_mapping_policy=node \
        "$HC" commperf --np 4 --iters 50 --out "$perf" 2>&1 | sed -n '/^level/,/^machine file/p'
else
    "$HC" commperf --np 4 --vnode 2 --iters 50 --out "$perf" 2>&1 | sed -n '/^level/,/^machine file/p'
fi
bw_net=$(awk '$1 == "level" && $2 == "network" { print $6 }' "$perf" 2>/dev/null)
bw_shm=$(awk '$1 == "level" && $2 != "network" { print $6; exit }' "$perf" 2>/dev/null)
if [ -n "$bw_net" ] && [ -n "$bw_shm" ]; then
    awk -v n="$bw_net" -v s="$bw_shm" 'BEGIN { printf "network %.1f MB/s, shared memory %.0f MB/s: the network is %.0fx slower\n", n / 1e6, s / 1e6, s / n }'
    export HIERCOLL_MACHINE_FILE=$perf   # the mapping takes these bandwidths
else
    echo "(commperf measured no network level: the mapping uses its built-in bandwidths)"
fi

declare -A pass1 pass2 runs1 runs2 reports
for prog in $PROGS; do
    args_var=ARGS_$prog
    launch_var=LAUNCH_$prog[@]
    dir=$OUT/$prog
    say "$prog, pass 1: profiled ($NP ranks, ${!args_var}: ${!launch_var})"
    # shellcheck disable=SC2086
    "${ON[@]}" "$HC" profile --out "$dir" -- "${!launch_var}" "$EXAMPLES/$prog" ${!args_var} 2>&1 |
        tee "$OUT/$prog.pass1.log"
    if ! [ -s "$dir/summary.txt" ]; then
        echo "(the profiler is not in this build yet: pass 1 ran, no profile was written)"
        [ -n "$(seconds_of "$OUT/$prog.pass1.log")" ] ||
            { echo "demo: $prog failed" >&2; exit 1; }
    fi

    say "$prog: the recommended mapping"
    if [ -s "$dir/mapping.txt" ]; then
        grep -v '^rank ' "$dir/mapping.txt"
        echo "(rank lines: $dir/mapping.txt)"
        "$HC" report "$dir" 2>/dev/null | grep 'bytes between nodes:' || true
    else
        echo "(not available yet: the mapping engine did not write $dir/mapping.txt)"
    fi

    say "$prog: pass 1 (as launched) and pass 2 (sh $dir/next-run.sh), $REPS alternating runs each"
    # Every run profiled (into DIR/runs), so both passes carry the same overhead.
    mkdir -p "$dir/runs"
    t1="" t2=""
    for i in $(seq "$REPS"); do
        # shellcheck disable=SC2046,SC2086
        "${ON[@]}" "${!launch_var}" $(envopt LD_PRELOAD "$LIBF") $(envopt HIERCOLL_PROFILE "$dir/runs/pass1.$i") \
            "$EXAMPLES/$prog" ${!args_var} >"$dir/runs/pass1.$i.log" 2>&1
        a=$(seconds_of "$dir/runs/pass1.$i.log")
        b=""
        if [ -s "$dir/next-run.sh" ]; then
            HIERCOLL_PROFILE=$dir/runs/pass2.$i "${ON[@]}" sh "$dir/next-run.sh" >"$dir/runs/pass2.$i.log" 2>&1
            b=$(seconds_of "$dir/runs/pass2.$i.log")
            [ -n "$b" ] || { echo "(pass 2 FAILED: see $dir/runs/pass2.$i.log)"; tail -n 5 "$dir/runs/pass2.$i.log"; }
        fi
        [ -n "$a" ] || { echo "(pass 1 FAILED: see $dir/runs/pass1.$i.log)"; tail -n 5 "$dir/runs/pass1.$i.log"; }
        echo "run $i: pass 1 ${a:-failed} s, pass 2 ${b:-n/a} s"
        t1="$t1 $a" t2="$t2 $b"
    done
    pass1[$prog]=$(echo "$t1" | median) pass2[$prog]=$(echo "$t2" | median)
    runs1[$prog]=$(echo "$t1" | wc -w) runs2[$prog]=$(echo "$t2" | wc -w)
    if [ -s "$dir/runs/pass1.1/summary.txt" ] && [ -s "$dir/runs/pass2.1/summary.txt" ]; then
        echo "bytes between nodes, pass 1 then pass 2 (p2p, collective, share):"
        grep -h "between nodes" "$dir/runs/pass1.1/summary.txt" "$dir/runs/pass2.1/summary.txt"
    fi
    # Hosts from pass 2's own profile; cores from the library's check at MPI_Init, which warns
    # ("assigns it") where a rank is not bound as the mapping says: to its core, or to its
    # host's mapped cores where ranks share one (machine.txt has only the core it ran on).
    if [ -s "$dir/runs/pass2.1/machine.txt" ] && [ -s "$dir/mapping.txt" ]; then
        if diff <(awk '$1 == "rank" { print $2, $4 }' "$dir/mapping.txt") \
                <(awk '$1 == "rank" { print $2, $4 }' "$dir/runs/pass2.1/machine.txt") >/dev/null &&
            ! grep -q "assigns it" "$dir/runs/pass2.1.log"; then
            echo "pass 2: every rank ran on its mapped host and core (its profile's machine.txt, the library's check)"
        else
            echo "pass 2: NOT every rank ran where the mapping says (compare $dir/mapping.txt, $dir/runs/pass2.1/machine.txt)"
        fi
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

if [ $mode = cluster ]; then
    say "Timings on 2 hosts, link $RATE (slowest rank's time, seconds; medians of alternating runs)"
else
    say "Timings on 4 virtual nodes (slowest rank's time, seconds; medians of alternating runs)"
fi
[ -n "$bw_net" ] && awk -v n="$bw_net" -v s="$bw_shm" 'BEGIN { printf "measured: network %.1f MB/s, shared memory %.0f MB/s\n", n / 1e6, s / 1e6 }'
printf '%-12s %10s %10s %8s %5s\n' program pass1 pass2 speedup runs
for prog in $PROGS; do
    p1=${pass1[$prog]:-} p2=${pass2[$prog]:-}
    ratio=-
    [ -n "$p1" ] && [ -n "$p2" ] && ratio=$(awk -v a="$p1" -v b="$p2" 'BEGIN{printf "%.2f", a/b}')
    printf '%-12s %10s %10s %8s %5s\n' "$prog" "${p1:-n/a}" "${p2:-n/a}" "$ratio" "${runs1[$prog]}/${runs2[$prog]}"
done
echo "(speedup: pass 1 / pass 2; runs: how many of pass 1 / pass 2 gave a time)"
if [ $mode = cluster ]; then
    echo "Sizes: the stencil ${ARGS_stencil2d}, the solver ${ARGS_cg_solver}: chosen small enough per"
    echo "rank that communication matters on this link, as it does for a strong-scaled job;"
    echo "with large blocks the arithmetic of 8 ranks on 2 cores hides the network."
fi

say "Collectives: hiercoll against the vendor (MPICH, 4 ranks in 2 virtual nodes)"
"$HC" bench --np 4 --vnode 2 --sizes "$BENCH_SIZES" --iters "$BENCH_ITERS" ||
    echo "(hiercoll bench failed)"

say "Done in $(( $(date +%s) - t_start )) s. Reports:"
for prog in $PROGS; do
    echo "  $prog: ${reports[$prog]}"
done
echo "  profiles: $OUT/<program>/ (hiercoll report DIR for the text summary)"
