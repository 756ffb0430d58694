# Scale: `auto` maps 16 384 ranks with about a million edges in under 10 s of CPU (measured
# as CPU time: wall time on this shared machine depends on the other jobs), never worse than
# TML.
. tests/e2e/cli_common.bash
T=$PWD/$BUILD/bin/hiercoll-maptables
[ -x "$T" ] || fail "$T not built"
expect_status 0 "$T" --scale
cat "$TMP/out"
expect_in "$TMP/out" "^scale: 16384 ranks, 9[0-9]{5} edges"
exit 0
