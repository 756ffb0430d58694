# make demo's script in quick mode: on a cluster of 2 hosts where one can be made (else on
# virtual nodes, saying why), the levels are measured, both bundled programs run (pass 1
# always, pass 2 when the mapping wrote next-run.sh, each rank where the mapping puts it),
# the timing table and the bench comparison are printed, and each profile directory holds a
# task graph whose vertex count is 8 and a report page.
. tests/e2e/cli_common.bash
[ -x "$BUILD/examples/stencil2d" ] || fail "examples not built"
DEMO_QUICK=1 DEMO_OUT="$TMP/demo" BUILD=$BUILD bash tools/demo.sh >"$TMP/demo.log" 2>&1 ||
    { tail -n 40 "$TMP/demo.log"; fail "demo exited non-zero"; }
log=$TMP/demo.log
expect_in "$log" "^stencil2d: 8 ranks, grid 4x2 .* [0-9.]+ s "
expect_in "$log" "^cg_solver: 8 ranks, .* [0-9.]+ s "
expect_in "$log" "^== Timings on (2 hosts, link [0-9]+[kmg]?bit|4 virtual nodes)"
if grep -q "^== Timings on 2 hosts" "$log"; then
    expect_in "$log" "^network [0-9.]+ MB/s, shared memory [0-9]+ MB/s: the network is [0-9]+x slower"
    [ "$(grep -c '^pass 2: every rank ran on its mapped host and core' "$log")" = 2 ] ||
        { cat "$log"; fail "pass 2 did not run every rank on its mapped host and core"; }
else
    expect_in "$log" "^Not on a cluster of namespaces with shaped links: .+"
fi
expect_in "$log" "^stencil2d +[0-9.]+ "
expect_in "$log" "^cg_solver +[0-9.]+ "
expect_in "$log" "^MPI_Bcast, 4 ranks"
expect_in "$log" "^MPI_Allreduce, 4 ranks"
expect_in "$log" "^== Done in [0-9]+ s"
for prog in stencil2d cg_solver; do
    d=$TMP/demo/$prog
    if [ -s "$d/summary.txt" ]; then
        [ "$(grep -v '^%' "$d/taskgraph.graph" | head -n1 | awk '{print $1}')" = 8 ] ||
            fail "$prog: task graph is not of 8 ranks"
        [ -s "$d/report.html" ] || fail "$prog: no report.html"
        if [ -s "$d/next-run.sh" ]; then
            expect_in "$log" "^$prog +[0-9.]+ +[0-9.]+ +[0-9.]+ +1/1$"
        fi
    else
        expect_in "$log" "profiler is not in this build yet"
    fi
done
echo "ok"
