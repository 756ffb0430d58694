# Profile-then-remap on 4 virtual nodes of 2 ranks: the bad-order stencil is profiled, the
# mapping files are checked (costs recomputed here from the task graph), the second run goes
# through next-run.sh (MPICH: `hiercoll bind` in front of each rank; Open MPI: mpirun.openmpi with the
# rankfile); each rank must run on its assigned core and the second run's placement must cost
# less than the first's. Skips (77) only when the profiler writes no task graph.
# hc-test: each-family
. tests/e2e/cli_common.bash
APP=$PWD/$FAMILY_DIR/examples/stencil2d
[ -x "$APP" ] || fail "$APP not built"
BW="1e9,2e10"   # node:4 core:2 -> between virtual nodes, between cores

cd "$TMP"
mpi_cmd 8 LD_PRELOAD="$LIB" HIERCOLL_PROFILE="$TMP/p1" HIERCOLL_VIRTUAL_NODE_SIZE=2 \
    HIERCOLL_BANDWIDTHS="$BW" "$APP" --quick
"${MPI_CMD[@]}" >run1.out 2>run1.err || { cat run1.out run1.err; fail "run 1 failed"; }
if [ ! -f p1/taskgraph.graph ]; then
    echo "SKIP: the profiler wrote no task graph"; exit 77
fi
for f in mapping.txt machinefile rankfile slurm.hostfile next-run.sh; do
    [ -s "p1/$f" ] || { cat run1.err; fail "p1/$f missing"; }
done
expect_in p1/mapping.txt '^# hiercoll mapping v1$'
expect_in p1/mapping.txt '^machine node:4 core:2$'
expect_in p1/mapping.txt '^bandwidths 1e\+09,2e\+10$'
[ "$(grep -c '^rank ' p1/mapping.txt)" = 8 ] || fail "mapping.txt: not 8 rank lines"
[ "$(grep -c '^rank [0-7]=' p1/rankfile)" = 8 ] || fail "rankfile: not 8 ranks"
[ "$(wc -l <p1/slurm.hostfile)" = 8 ] || fail "slurm.hostfile: not 8 lines"
awk -F'[: ]' '!/^#/ {n += $2} END {exit n != 8}' p1/machinefile || fail "machinefile: not 8 ranks"
expect_in p1/machinefile 'binding=user:[0-9]'
if [ "$HC_FAMILY" = ompi ]; then
    expect_in p1/next-run.sh '--rankfile "\$map/rankfile"'
    expect_in p1/next-run.sh " -x \"HIERCOLL_MAPPING=\\\$map/mapping.txt\" '$APP' '--quick'\$"
else
    expect_in p1/next-run.sh "bind --mapping \"\\\$map/mapping.txt\" -- '$APP' '--quick'"
fi
expect_in p1/next-run.sh "^prof='$TMP/p1'\$"

# cost PLACEMENT: model cost max over ranks from the task graph; PLACEMENT lines "rank host core"
cost() {
    awk -v bn=1e9 -v bc=2e10 '
        FNR == NR { host[$1] = $2; core[$1] = $3; next }
        /^%/ { next }
        !hdr { hdr = 1; v = 0; next }
        { t = 0
          for (k = 1; k < NF; k += 2) { j = $k - 1; t += $(k + 1) / (host[v] == host[j] ? bc : bn) }
          if (t > T) T = t; S += t; v++ }
        END { printf "%.9g %.9g\n", T, S / 2 }' "$1" p1/taskgraph.graph
}
close_to() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-6 * b) }'; }

awk -F, 'NR > 2 { print $1, $2, $3 }' p1/ranks.csv >launched.txt
awk '/^rank / { print $2, $4, $6 }' p1/mapping.txt >mapped.txt
read -r L_MAX L_SUM < <(cost launched.txt)
read -r M_MAX M_SUM < <(cost mapped.txt)
read -r _ _ _ F_LMAX _ F_LSUM < <(grep '^cost launched ' p1/mapping.txt)
read -r _ _ _ F_MMAX _ F_MSUM < <(grep '^cost mapped ' p1/mapping.txt)
close_to "$L_MAX" "$F_LMAX" && close_to "$L_SUM" "$F_LSUM" || fail "launched cost $L_MAX/$L_SUM, mapping.txt says $F_LMAX/$F_LSUM"
close_to "$M_MAX" "$F_MMAX" && close_to "$M_SUM" "$F_MSUM" || fail "mapped cost $M_MAX/$M_SUM, mapping.txt says $F_MMAX/$F_MSUM"
awk -v a="$M_MAX" -v b="$L_MAX" 'BEGIN { exit !(a < b) }' || fail "mapping does not lower the cost ($M_MAX >= $L_MAX)"

# run 2, exactly as next-run.sh says
HIERCOLL_PROFILE=$TMP/p2 sh p1/next-run.sh >run2.out 2>run2.err || { cat run2.out run2.err; fail "run 2 failed"; }
grep -q "assigns it" run2.err && { cat run2.err; fail "run 2: a rank is not where the mapping says"; }
sum1=$(grep -o 'checksum [^,]*' run1.out) sum2=$(grep -o 'checksum [^,]*' run2.out)
[ -n "$sum1" ] && [ "$sum1" = "$sum2" ] || fail "checksums differ: '$sum1' '$sum2'"
[ -f p2/ranks.csv ] || fail "run 2 wrote no profile"
# every rank on its assigned core, in the virtual node the mapping gave it
awk -F, 'NR > 2 { print $1, $3 }' p2/ranks.csv | sort -n >cores2.txt
awk '{ print $1, $3 }' mapped.txt | sort -n | diff - cores2.txt || fail "run 2: cores differ from the mapping"
awk -F, 'NR > 2 { print $1, $2 }' p2/ranks.csv | sort -n |
    diff - <(awk '{ print $1, $2 }' mapped.txt | sort -n) || fail "run 2: virtual nodes differ from the mapping"
awk -F, 'NR > 2 { print $1, $2, $3 }' p2/ranks.csv >second.txt
read -r S_MAX S_SUM < <(cost second.txt)
awk -v a="$S_MAX" -v b="$L_MAX" 'BEGIN { exit !(a < b) }' || fail "run 2 cost $S_MAX not below run 1's $L_MAX"
echo "model cost max: run 1 $L_MAX s, run 2 $S_MAX s (ratio $(awk -v a="$L_MAX" -v b="$S_MAX" 'BEGIN { printf "%.2f", a / b }'))"

# launched otherwise, MPI_Init warns (once per rank) that ranks are not where it says
mpi_cmd 8 LD_PRELOAD="$LIB" HIERCOLL_MAPPING="$TMP/p1/mapping.txt" HIERCOLL_VIRTUAL_NODE_SIZE=2 \
    "$APP" --quick
"${MPI_CMD[@]}" >run3.out 2>run3.err || fail "run 3 failed"
n=$(grep -c "assigns it" run3.err)
[ "$n" -ge 1 ] && [ "$n" -le 8 ] || { cat run3.err; fail "run 3: $n warnings"; }

# hiercoll bind on its own
cd - >/dev/null
expect_status 2 "$HC" bind
expect_status 0 "$HC" bind --help
expect_status 2 "$HC" bind --mapping "$TMP/p1/mapping.txt"
expect_status 1 env -u PMI_RANK -u PMI_ID -u SLURM_PROCID -u OMPI_COMM_WORLD_RANK "$HC" bind --mapping "$TMP/p1/mapping.txt" -- true
expect_in "$TMP/err" "no rank"
expect_status 1 env PMI_RANK=8 "$HC" bind --mapping "$TMP/p1/mapping.txt" -- true
expect_status 0 env PMI_RANK=3 "$HC" bind --quiet --mapping "$TMP/p1/mapping.txt" -- sh -c 'grep Cpus_allowed_list /proc/self/status; echo "M=$HIERCOLL_MAPPING"'
core3=$(awk '$1 == 3 { print $3 }' "$TMP/mapped.txt")
expect_in "$TMP/out" "Cpus_allowed_list:[[:space:]]+$core3\$"
expect_in "$TMP/out" "^M=$TMP/p1/mapping.txt\$"
printf '# hiercoll mapping v1\nranks 2\nrank 0 host a core 0\nrank 0 host a core 1\n' >"$TMP/bad.txt"
expect_status 1 env PMI_RANK=0 "$HC" bind --mapping "$TMP/bad.txt" -- true
expect_in "$TMP/err" "bad.txt:4: rank 0 listed twice"
exit 0
