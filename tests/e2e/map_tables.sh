# hiercoll-maptables regenerates seed 000's Tables 1, 2 and 4; it exits 1 if hiercoll's best is
# worse than the paper's algorithm on a row or not below TML and TMRR on a 2-D grid row.
. tests/e2e/cli_common.bash
T=$PWD/$BUILD/bin/hiercoll-maptables
[ -x "$T" ] || fail "$T not built"
expect_status 0 "$T"
for t in 1 2 4; do expect_in "$TMP/out" "^Table $t: "; done
[ "$(grep -cE '^(2D-grid|star|ring|line) ' "$TMP/out")" = 24 ] || fail "not 24 rows"
# ratio columns agree with the values they are computed from
awk '/^(2D-grid|star|ring|line) / { if (($2 / $5 - $6) ^ 2 > 0.0001 || $7 < 1 || $8 < 1) bad = 1 }
     END { exit bad }' "$TMP/out" || fail "ratios inconsistent"
expect_status 2 "$T" --bogus
exit 0
