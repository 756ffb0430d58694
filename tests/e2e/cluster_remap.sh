# The two-pass workflow across hosts, under Open MPI on a cluster of 3 hosts whose third has
# another topology (HWLOC_XMLFILE: this machine restricted to one core): hiercoll commperf
# measures the shaped link; a profiled stencil launched round robin, with 6 of its 10 ranks on
# the one-core host, names the real hosts and their own topologies in machine.txt; the mapping
# takes the measured bandwidth and gives no host more ranks than its share of cores; next-run.sh
# relaunches through the cluster's launcher with every rank on its mapped host and cores (all of
# a host's mapped cores where its ranks share them, as here), as
# each rank sees from inside (its profile's machine.txt, the library's own check at init);
# the mapping's machinefile puts every rank in place through Hydra too.
. tests/e2e/cluster_common.bash
command -v mpirun.openmpi >/dev/null && [ -x "$BUILD/lib/libhiercoll-ompi.so" ] ||
    { echo "SKIP: no Open MPI build of the library (openmpi-bin, libopenmpi-dev)"; exit 77; }
command -v lstopo-no-graphics >/dev/null || fail "lstopo-no-graphics (hwloc) is not installed"
APP=$PWD/$BUILD/ompi/examples/stencil2d
[ -x "$APP" ] || fail "$APP not built"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# ranks that wait must yield: 10 ranks share this machine's 2 cores
export OMPI_MCA_mpi_yield_when_idle=1
lstopo-no-graphics --no-io --restrict 0x1 -f "$TMP/one-core.xml" || fail "cannot write a one-core topology"
cluster_up 3 --rate 100mbit --host-env "h3:HWLOC_XMLFILE=$TMP/one-core.xml" --host-env h3:HWLOC_THISSYSTEM=1

# commperf: 4 ranks round robin, so two share h1 and two talk across the link
timeout -k 5 120 "$CLUSTER" exec h1 env MPIEXEC=mpirun.openmpi OMPI_MCA_rmaps_base_mapping_policy=node \
    "$HC" commperf --np 4 --iters 20 --size 1M --out "$TMP/perf.txt" >"$TMP/commperf.log" 2>&1 ||
    { cat "$TMP/commperf.log"; fail "commperf across hosts"; }
net=$(awk '$1 == "level" && $2 == "network" { print $6 }' "$TMP/perf.txt")
[ -n "$net" ] || { cat "$TMP/perf.txt"; fail "commperf measured no network level"; }
# 100 Mbit/s is 12.5 MB/s: what crossed the link was shaped
awk -v b="$net" 'BEGIN { exit !(b > 2e6 && b < 1.3e7) }' || fail "network bandwidth $net B/s for a 100 Mbit/s link"
echo "commperf: network $net B/s on a 100 Mbit/s link"

# pass 1: round robin over h1, h2, h3 with h3 (one core) given 6 slots
timeout -k 5 120 "$CLUSTER" exec h1 env HIERCOLL_MACHINE_FILE="$TMP/perf.txt" "$HC" profile --out "$TMP/p" -- \
    mpirun.openmpi --host h1:2,h2:2,h3:6 --map-by node -n 10 "$APP" --quick >"$TMP/pass1.log" 2>&1 ||
    { cat "$TMP/pass1.log"; fail "pass 1"; }
m=$TMP/p/machine.txt
[ "$(awk '$1 == "rank" { print $4 }' "$m" | sort | uniq -c | awk '{ printf "%s:%s ", $2, $1 }')" = "h1:2 h2:2 h3:6 " ] ||
    { cat "$m"; fail "machine.txt does not place ranks on h1, h2, h3 as launched"; }
topo_of() { awk -v h="$1" '$1 == "host" && $2 == h && $3 == "topology" { sub(/^host [^ ]+ topology /, ""); print }' "$m"; }
[ -n "$(topo_of h1)" ] && [ "$(topo_of h1)" = "$(topo_of h2)" ] || { cat "$m"; fail "h1, h2 topologies"; }
[ "$(topo_of h3)" != "$(topo_of h1)" ] || { cat "$m"; fail "h3 does not show its own topology"; }

mp=$TMP/p/mapping.txt
[ -s "$mp" ] || { cat "$TMP/pass1.log"; fail "no mapping.txt"; }
want_bw=$(awk -v b="$net" 'BEGIN { printf "%.6g", b }')
expect_in "$mp" "^bandwidths ${want_bw//+/\\+},"
# slots as launched (6 ranks on h3's core), 2 of them available: 10 ranks on 5 cores fill
# every core twice, so h3 (1 core) takes 2 ranks, both on its one core, h1 and h2 4 each
expect_in "$mp" "^machine node:3 core:2 slot:6$"
awk '$1 == "rank" { n[$4]++; if ($4 == "h3" && $6 != 0) bad = 1 }
     END { exit bad || n["h3"] != 2 || n["h1"] != 4 || n["h2"] != 4 }' "$mp" ||
    { cat "$mp"; fail "the mapping ignores a host's cores"; }
awk '$1 == "cost" && $2 == "launched" { l = $4 } $1 == "cost" && $2 == "mapped" { m = $4 }
     END { exit !(m < l) }' "$mp" || { cat "$mp"; fail "mapped cost not below the launched one"; }
echo "mapping: $(awk '$1 == "rank" { n[$4]++ } END { for (h in n) printf "%s:%d ", h, n[h] }' "$mp")(h3 has 1 core)"

# "rank host cpus": where the mapping binds each rank: its core, or on a host whose ranks share
# a core (more ranks than cores: all three hosts here), every core the mapping uses there
bound_as_mapped() {
    awk '$1 == "rank" { host[$2] = $4; core[$2] = $6; if (seen[$4, $6]++) shared[$4] = 1
                        n = $2 + 1 > n ? $2 + 1 : n; if ($6 > top) top = $6 }
         END { for (r = 0; r < n; r++) {
                   line = r " " host[r]
                   for (c = 0; c <= top; c++)
                       if (shared[host[r]] ? seen[host[r], c] : c == core[r]) line = line " " c
                   print line } }' "$1"
}
bound_as_mapped "$TMP/p/mapping.txt" >"$TMP/bound"
grep -q "^0 h1 0 1$" "$TMP/bound" || { cat "$TMP/bound"; fail "h1's 4 ranks on 2 cores are not bound to both"; }

# pass 2 through the cluster's launcher, profiled to see where each rank ran
timeout -k 5 120 "$CLUSTER" exec h1 env HIERCOLL_PROFILE="$TMP/p2" sh "$TMP/p/next-run.sh" >"$TMP/pass2.log" 2>&1 ||
    { cat "$TMP/pass2.log"; fail "pass 2 (next-run.sh)"; }
grep -q "assigns it" "$TMP/pass2.log" && { cat "$TMP/pass2.log"; fail "a rank is not where the mapping says"; }
# machine.txt's core is where the rank was seen: one of those it is bound to
awk 'NR == FNR { ok[$1, $2] = 1; for (i = 3; i <= NF; i++) ok[$1, $2, $i] = 1; next }
     $1 == "rank" { n++; if (!ok[$2, $4] || !ok[$2, $4, $6]) { print "rank " $2 " ran on " $4 " core " $6 > "/dev/stderr"; bad = 1 } }
     END { exit bad || n != 10 }' "$TMP/bound" "$TMP/p2/machine.txt" ||
    fail "pass 2: ranks not on their mapped host and cores"
sum1=$(grep -Eo 'checksum [^,]+' "$TMP/pass1.log") sum2=$(grep -Eo 'checksum [^,]+' "$TMP/pass2.log")
[ -n "$sum1" ] && [ "$sum1" = "$sum2" ] || fail "checksums differ: '$sum1' '$sum2'"
echo "pass 2: 10 ranks on their mapped hosts and cores, same $sum1"

# The same mapping's machinefile through MPICH's Hydra (a probe that sends no message across
# hosts, docs/cluster.md): every rank on its host and core, h3's own core too.
mpicc.mpich -o "$TMP/who" tests/e2e/cluster_who.c || fail "cannot build the probe"
mkdir "$TMP/hydra"
timeout -k 5 60 "$CLUSTER" exec h1 mpiexec.mpich -f "$TMP/p/machinefile" -n 10 "$TMP/who" "$TMP/hydra" \
    >"$TMP/hydra.log" 2>&1 || { cat "$TMP/hydra.log"; fail "Hydra did not run the machinefile"; }
# "rank R host H cpus C...": bound to exactly the mapping's cores
cat "$TMP"/hydra/rank.* | awk '{ line = $2 " " $4; for (i = 6; i <= NF; i++) line = line " " $i; print line }' | sort -n >"$TMP/hydra.placed"
diff "$TMP/bound" "$TMP/hydra.placed" || fail "machinefile (Hydra): ranks not on their mapped host and cores"
echo "machinefile (Hydra): 10 ranks on their mapped hosts and cores"
echo "ok"
