# Sourced by tests/e2e/cli_*.sh, report_*.sh, demo*.sh, map_*.sh, remap_*.sh: paths, the MPI
# family (mpi_family.bash: the hiercoll command follows $MPIEXEC) and small checks.
# (Not a *.sh file so that tests/run.sh does not run it as a test.)
. "$(dirname "${BASH_SOURCE[0]}")/mpi_family.bash"
HC=$PWD/$BUILD/bin/hiercoll
TMP=$(mktemp -d /tmp/hc-e2e.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
# expect_status WANT CMD...: runs CMD (output in $TMP/out, $TMP/err), checks its exit status.
expect_status() {
    local want=$1; shift
    "$@" >"$TMP/out" 2>"$TMP/err"
    local rc=$?
    [ "$rc" -eq "$want" ] || { cat "$TMP/out" "$TMP/err" >&2; fail "'$*' exited $rc, expected $want"; }
}
# expect_in FILE REGEX: grep -E must match.
expect_in() { grep -Eq -- "$2" "$1" || { cat "$1" >&2; fail "$1 lacks /$2/"; }; }
[ -x "$HC" ] || fail "$HC not built"
