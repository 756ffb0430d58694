# hiercoll info: every variable of common/hc_config_vars.def listed with its default,
# --json parsed back and compared with the table, usage errors exit 2.
. tests/e2e/cli_common.bash

vars=$(grep -o '^HC_VAR([a-z_0-9]*, *"HIERCOLL_[A-Z_0-9]*"' common/hc_config_vars.def | grep -o 'HIERCOLL_[A-Z_0-9]*')
[ "$(echo "$vars" | wc -l)" -ge 10 ] || fail "could not read the variable table"

expect_status 0 "$HC" info
for v in $vars; do expect_in "$TMP/out" "^  $v "; done
expect_in "$TMP/out" "NUMA domains +[0-9]+"
expect_in "$TMP/out" "cores +$(nproc --all)"

# --json: names, defaults and the current value of a variable set in the environment.
HIERCOLL_BCAST=shm HIERCOLL_ALLREDUCE=nonsense "$HC" info --json >"$TMP/info.json" || fail "info --json"
python3 - "$TMP/info.json" common/hc_config_vars.def <<'PY' || fail "--json content"
import json, re, sys
d = json.load(open(sys.argv[1]))
table = re.findall(r'^HC_VAR\(\w+,\s*"(\w+)",\s*\w+,\s*"([^"]*)"', open(sys.argv[2]).read(), re.M)
names = [v["name"] for v in d["variables"]]
assert names == [t[0] for t in table], (names, table)
for v, (n, default) in zip(d["variables"], table):
    assert v["default"] == default, (n, v["default"], default)
    assert v["meaning"], n
by = {v["name"]: v for v in d["variables"]}
assert by["HIERCOLL_BCAST"]["value"] == "shm" and by["HIERCOLL_BCAST"]["set"] is True
assert by["HIERCOLL_BCAST"]["valid"] is True
assert by["HIERCOLL_ALLREDUCE"]["valid"] is False
assert by["HIERCOLL_VERBOSE"]["set"] is False
t = d["topology"]
assert t["cores"] >= 1 and t["pus"] >= t["cores"] and t["numa_domains"] >= 1, t
PY

# An unknown variable gets the closest known name.
HIERCOLL_BCASTT=shm "$HC" info >/dev/null 2>"$TMP/err"
expect_in "$TMP/err" "HIERCOLL_BCASTT.*HIERCOLL_BCAST"

# --markdown: one row per variable, in table order.
expect_status 0 "$HC" info --markdown
[ "$(grep -c '^| `HIERCOLL_' "$TMP/out")" -eq "$(echo "$vars" | wc -l)" ] || fail "markdown row count"
diff <(grep -o '^| `HIERCOLL_[A-Z_0-9]*' "$TMP/out" | cut -c4-) <(echo "$vars") || fail "markdown order"

expect_status 2 "$HC" info --bogus
expect_status 2 "$HC" info --markdown --json
expect_status 2 "$HC" info extra
expect_status 0 "$HC" info --help
expect_in "$TMP/out" "usage: hiercoll info"
echo "ok"
