# hiercoll bench --peers across the hosts of a cluster (2 hosts x 2 ranks, links at 1 Gbit/s),
# under Open MPI: tuned and HAN each get their launch and their column, sm is left out
# (it serves a communicator within one host) and says why, every result is verified, and
# --net-bytes puts under each line the bytes per call over the busiest link, which a 64 KiB
# broadcast must fill with at least part of its message. MPICH 4.0.2 with UCX hangs in
# MPI_Finalize across hosts (docs/cluster.md): Open MPI only.
# hc-test: each-family
. tests/e2e/cluster_common.bash
[ "$HC_FAMILY" = ompi ] ||
    { echo "SKIP: MPICH 4.0.2 with UCX hangs in MPI_Finalize across hosts (docs/cluster.md); Open MPI runs this"; exit 77; }
command -v "$MPIEXEC" >/dev/null || { echo "SKIP: Open MPI is not installed"; exit 77; }
cluster_up 2 --rate 1gbit
timeout -k 5 300 "$CLUSTER" exec h1 env MPIEXEC="$MPIEXEC" OMPI_MCA_mpi_yield_when_idle=1 \
    "$HC" bench --np 4 --peers --net-bytes --coll bcast --sizes 8,64K --iters 16 \
    --pattern rotate-stride-latency >"$TMP/out" 2>"$TMP/err" ||
    { cat "$TMP/out" "$TMP/err"; fail "bench --peers across hosts"; }
expect_in "$TMP/err" "peer sm cannot run on 2 host"
expect_in "$TMP/out" "^ +size +iters +tuned us +han us +best "
python3 - "$TMP/out" <<'PY' || { cat "$TMP/out"; fail "peers table across hosts"; }
import sys
lines = open(sys.argv[1]).read().splitlines()
rows = [i for i, l in enumerate(lines) if l.split()[1:2] in (["B"], ["KiB"]) and "yes" in l.split()]
assert len(rows) == 2, lines
for i in rows:
    w = lines[i].split()
    assert w[5] in ("tuned", "han"), w
    link = lines[i + 1].split()
    assert link[:2] == ["link", "bytes/call"], link
    if w[1] == "KiB":  # every path and peer sent part of each 64 KiB message across
        assert all(float(b) > 16384 for b in link[2:]), link
PY
echo ok
