# MPI jobs across the hosts of a cluster finish: Open MPI over its own TCP transport, and MPICH
# 4.0.2 with UCX under the library (docs/cluster.md, Exits), on 4 hosts x 1 rank and 2 hosts x 2,
# each run's results checked and its exit awaited (a run that does not end within 60 s, 30 s
# under MPICH, fails).
# HC_CLUSTER_REPS=20 repeats each shape 20 times (default 2).
. tests/e2e/cluster_common.bash
command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null ||
    { echo "SKIP: Open MPI (openmpi-bin, libopenmpi-dev) is not installed"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpicc.openmpi -O2 -o "$TMP/probe" tests/e2e/cluster_probe.c || fail "cannot build the probe"
reps=${HC_CLUSTER_REPS:-2}
for shape in "4 1" "2 2"; do
    set -- $shape
    hosts=$1 per=$2 np=$(( $1 * $2 ))
    "$CLUSTER" down --name "$HC_CLUSTER" >/dev/null
    cluster_up "$hosts" --ranks-per-host "$per" --rate 1gbit
    t0=$(date +%s.%N)
    for r in $(seq "$reps"); do
        timeout -k 5 60 "$CLUSTER" exec h1 mpirun.openmpi -n "$np" "$TMP/probe" >"$TMP/run" 2>&1 ||
            { cat "$TMP/run"; fail "$hosts hosts x $per: run $r did not finish cleanly"; }
        [ "$(grep -c ' ok$' "$TMP/run")" = "$np" ] || { cat "$TMP/run"; fail "$hosts x $per: run $r results"; }
        # Only the probe's lines: a launcher warning on stderr is not a host.
        [ "$(awk '/^rank .* ok$/ {print $4}' "$TMP/run" | sort -u | wc -l)" = "$hosts" ] ||
            { cat "$TMP/run"; fail "$hosts x $per: run $r: ranks not on $hosts hosts"; }
    done
    echo "$hosts hosts x $per ranks: $reps runs finished, $(awk -v a="$t0" -v b="$(date +%s.%N)" -v n="$reps" 'BEGIN { printf "%.2f", (b - a) / n }') s each"
done
# MPICH 4.0.2 with UCX hangs in MPI_Finalize across hosts in about half the runs of ranks that
# talked over TCP (docs/cluster.md, Exits); under the library (preload/mpich_exit.c) every run
# finishes, its collectives checked as above. 6 runs a shape: without the fix, which 1 run in
# 3 hung when measured, all 12 finish about once in 130 tries. Sanitizer builds leave the fix
# out (the sanitizers own read), so their MPICH part is skipped.
LIB_MPICH=$PWD/$BUILD/lib/libhiercoll.so
if command -v mpicc.mpich >/dev/null && [ -x "$LIB_MPICH" ] && has_exit_fix "$LIB_MPICH"; then
    mpicc.mpich -O2 -o "$TMP/probe-mpich" tests/e2e/cluster_probe.c || fail "cannot build the MPICH probe"
    for shape in "4 1" "2 2"; do
        set -- $shape
        hosts=$1 per=$2 np=$(( $1 * $2 ))
        "$CLUSTER" down --name "$HC_CLUSTER" >/dev/null
        cluster_up "$hosts" --ranks-per-host "$per" --rate 1gbit
        list=$(seq -s, -f 'h%g' 1 "$hosts")
        for r in $(seq $(( reps > 6 ? reps : 6 ))); do
            timeout -k 5 30 "$CLUSTER" exec h1 mpiexec.mpich -hosts "$list" -ppn "$per" -n "$np" \
                -genv LD_PRELOAD "$LIB_MPICH" "$TMP/probe-mpich" >"$TMP/run" 2>&1 ||
                { cat "$TMP/run"; fail "MPICH, $hosts hosts x $per: run $r did not finish cleanly"; }
            [ "$(grep -c ' ok$' "$TMP/run")" = "$np" ] || { cat "$TMP/run"; fail "MPICH, $hosts x $per: run $r results"; }
            [ "$(awk '/^rank .* ok$/ {print $4}' "$TMP/run" | sort -u | wc -l)" = "$hosts" ] ||
                { cat "$TMP/run"; fail "MPICH, $hosts x $per: run $r: ranks not on $hosts hosts"; }
        done
        echo "MPICH under the library, $hosts hosts x $per ranks: every run finished"
    done
else
    echo "(MPICH part skipped: no mpicc.mpich, no MPICH build of the library, or a sanitizer build)"
fi
echo "ok"
