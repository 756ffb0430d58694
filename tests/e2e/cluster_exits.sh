# MPI jobs across the hosts of a cluster finish: Open MPI over its own TCP transport
# (docs/cluster.md says why not MPICH 4.0.2 with UCX), on 4 hosts x 1 rank and 2 hosts x 2,
# each run's results checked and its exit awaited (a run that does not end within 60 s fails).
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
echo "ok"
