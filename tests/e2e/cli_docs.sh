# The examples of docs/usage.md stay true: every ```sh block right after a
# "<!-- tested" comment runs, as written, from a scratch directory where build/ is this
# build and build/bin is on PATH; then the files it promises are checked. The examples show
# both MPI families: without Open MPI's build this skips.
. tests/e2e/cli_common.bash
[ -x "$BUILD/ompi/examples/cg_solver" ] || { echo "skip: Open MPI's build is missing"; exit 77; }

awk '/^<!-- tested/ {want = 1; next} want && /^```sh/ {on = 1; want = 0; next}
     on && /^```/ {on = 0; next} on {print} {want = want && /^$/ ? want : (want && !/^```/ ? 0 : want)}' \
    docs/usage.md >"$TMP/examples.sh"
[ "$(grep -c . "$TMP/examples.sh")" -ge 3 ] || { cat "$TMP/examples.sh"; fail "no tested block found"; }
ln -s "$PWD/$BUILD" "$TMP/build"
(cd "$TMP" && PATH=$TMP/build/bin:$PATH bash -e -x examples.sh) >"$TMP/run.log" 2>&1 ||
    { tail -n 30 "$TMP/run.log"; fail "docs/usage.md examples failed"; }
for f in prof/summary.txt prof/report.html prof/matrix.svg prof/mapping.txt prof/next-run.sh \
    prof2/summary.txt oprof/summary.txt oprof/report.html oprof/next-run.sh oprof2/summary.txt; do
    [ -s "$TMP/$f" ] || fail "the examples did not produce $f"
done
for p in prof prof2 oprof oprof2; do
    expect_in "$TMP/run.log" "^Profile $p: 4 ranks on 2 hosts"
done
expect_in "$TMP/oprof/next-run.sh" "--rankfile"
echo "ok"
