# make demo's script in quick mode: both bundled programs run (pass 1 always, pass 2 when the
# mapping wrote next-run.sh), the timing table and the bench comparison are printed, and once
# the profiler is in, each profile directory holds a task graph whose vertex count is 8 and a
# report page.
. tests/e2e/cli_common.bash
[ -x "$BUILD/examples/stencil2d" ] || fail "examples not built"
DEMO_QUICK=1 DEMO_OUT="$TMP/demo" BUILD=$BUILD bash tools/demo.sh >"$TMP/demo.log" 2>&1 ||
    { tail -n 40 "$TMP/demo.log"; fail "demo exited non-zero"; }
log=$TMP/demo.log
expect_in "$log" "^stencil2d: 8 ranks, grid 4x2 .* [0-9.]+ s "
expect_in "$log" "^cg_solver: 8 ranks, .* [0-9.]+ s "
expect_in "$log" "^== Timings"
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
            expect_in "$log" "^$prog +[0-9.]+ +[0-9.]+ +[0-9.]+$"
        fi
    else
        expect_in "$log" "profiler is not in this build yet"
    fi
done
echo "ok"
