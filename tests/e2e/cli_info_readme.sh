# README.md's configuration table is exactly `hiercoll info --markdown`, so the docs cannot
# drift from the variable table. README.md embeds it between these two lines:
#   <!-- BEGIN hiercoll info --markdown -->
#   <!-- END hiercoll info --markdown -->
. tests/e2e/cli_common.bash

begin='<!-- BEGIN hiercoll info --markdown -->'
end='<!-- END hiercoll info --markdown -->'
if ! [ -f README.md ] || ! grep -qF -- "$begin" README.md; then
    echo "SKIP: README.md has no '$begin' block yet"
    exit 77
fi
awk -v b="$begin" -v e="$end" '$0 == e {on = 0} on {print} $0 == b {on = 1}' README.md |
    sed '/^$/d' >"$TMP/readme.md"
"$HC" info --markdown >"$TMP/info.md" || fail "info --markdown"
diff -u "$TMP/readme.md" "$TMP/info.md" ||
    fail "README.md's table differs from 'hiercoll info --markdown' (regenerate it)"
echo "ok"
