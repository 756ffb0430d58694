# Sourced by tests/e2e/prof_*.sh: paths and a runner for the profiler's test programs.
# (Not a *.sh file so that tests/run.sh does not run it as a test.)
. "$(dirname "${BASH_SOURCE[0]}")/mpi_family.bash"
TMP=$(mktemp -d /tmp/hc-prof.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
[ -f "$LIB" ] || { echo "no $LIB"; exit 1; }
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# prof_run NP DIR PROG [VAR=VALUE...]: runs PROG under the preload with HIERCOLL_PROFILE=DIR
# (and the given variables); output in $TMP/log; returns the launcher's exit status.
prof_run() {
    local np=$1 dir=$2 prog=$3
    shift 3
    mpi_cmd "$np" LD_PRELOAD="$LIB" HIERCOLL_PROFILE="$dir" "$@" "$prog"
    timeout -k 5 180 "${MPI_CMD[@]}" >"$TMP/log" 2>&1 </dev/null
}
