# The launcher files `hiercoll map` writes, run on a cluster whose hosts carry the mapping's
# host names: Hydra with the machinefile (through the cluster's rsh launcher) and Open MPI
# with the rankfile put every rank on the host and core the mapping gives it, as each rank
# sees from inside. (slurm.hostfile needs Slurm, which is not here.)
. tests/e2e/cluster_common.bash
# tests/e2e/pairs8.graph: 8 tasks in 4 heavy pairs joined by a light ring; the mapping keeps
# pairs on one host
expect_status 0 "$HC" map --graph tests/e2e/pairs8.graph --machine "node:4 core:2" --bandwidths 1e8,8e9 --out "$TMP/m"
hosts=$(awk '/^rank / { print $4 }' "$TMP/m/mapping.txt" | sort -u | tr '\n' ',' | sed 's/,$//')
[ "$(echo "$hosts" | tr ',' '\n' | wc -l)" = 4 ] || fail "mapping uses hosts $hosts"
cluster_up 4 --names "$hosts" --rate 1gbit
first=${hosts%%,*}
awk '/^rank / { print $2, $4, $6 }' "$TMP/m/mapping.txt" | sort -n >"$TMP/want"

# placed DIR: the probe's "rank host core" lines, each rank bound to exactly one core
placed() {
    cat "$1"/rank.* | awk '{ if (NF != 6) { print "rank " $2 " on several cpus: " $0 > "/dev/stderr"; bad = 1 }
                             print $2, $4, $6 } END { exit bad }' | sort -n
}
mpicc.mpich -o "$TMP/who" tests/e2e/cluster_who.c || fail "cannot build the probe"
mkdir "$TMP/hydra" "$TMP/ompi"
timeout -k 5 60 "$CLUSTER" exec "$first" "$MPIEXEC" -f "$TMP/m/machinefile" -n 8 "$TMP/who" "$TMP/hydra" \
    >"$TMP/hydra.log" 2>&1 || { cat "$TMP/hydra.log"; fail "Hydra did not run the machinefile"; }
placed "$TMP/hydra" >"$TMP/got" || fail "Hydra: a rank is not bound to one core"
diff "$TMP/want" "$TMP/got" || fail "Hydra: ranks not where the machinefile says"
echo "machinefile (Hydra): 8 ranks on $hosts, each on its mapped host and core"

if command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    mpicc.openmpi -o "$TMP/who-ompi" tests/e2e/cluster_who.c || fail "cannot build the Open MPI probe"
    timeout -k 5 60 "$CLUSTER" exec "$first" mpirun.openmpi --rankfile "$TMP/m/rankfile" -n 8 "$TMP/who-ompi" \
        "$TMP/ompi" >"$TMP/ompi.log" 2>&1 || { cat "$TMP/ompi.log"; fail "Open MPI did not run the rankfile"; }
    placed "$TMP/ompi" >"$TMP/got" || fail "Open MPI: a rank is not bound to one core"
    diff "$TMP/want" "$TMP/got" || { cat "$TMP/ompi.log"; fail "Open MPI: ranks not where the rankfile says"; }
    echo "rankfile (Open MPI): 8 ranks on $hosts, each on its mapped host and core"
else
    echo "(Open MPI not installed: the rankfile was not run)"
fi
echo "ok"
