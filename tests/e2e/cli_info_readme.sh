# The configuration tables in docs/usage.md and README.md are exactly `hiercoll info
# --markdown`, so the docs cannot drift from the variable table. Each embeds it between:
#   <!-- BEGIN hiercoll info --markdown -->
#   <!-- END hiercoll info --markdown -->
# Both must have the block.
. tests/e2e/cli_common.bash

begin='<!-- BEGIN hiercoll info --markdown -->'
end='<!-- END hiercoll info --markdown -->'
"$HC" info --markdown >"$TMP/info.md" || fail "info --markdown"
for doc in docs/usage.md README.md; do
    grep -qF -- "$begin" "$doc" || fail "$doc lacks the '$begin' block"
    grep -qF -- "$end" "$doc" || fail "$doc: '$begin' without '$end'"
    awk -v b="$begin" -v e="$end" '$0 == e {on = 0} on {print} $0 == b {on = 1}' "$doc" |
        sed '/^$/d' >"$TMP/doc.md"
    diff -u "$TMP/doc.md" "$TMP/info.md" ||
        fail "$doc's table differs from 'hiercoll info --markdown' (regenerate it)"
done
echo "ok"
