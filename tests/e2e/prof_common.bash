# Sourced by tests/e2e/prof_*.sh: paths and a runner for the profiler's test programs.
# (Not a *.sh file so that tests/run.sh does not run it as a test.)
set -u
BUILD=${HC_TEST_BUILD:-${BUILD:-build}}
LIB=${HC_TEST_LIB:-$PWD/$BUILD/lib/libhiercoll.so}
MPIEXEC=${MPIEXEC:-mpiexec.mpich}
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
    local genv=()
    for kv in "$@"; do genv+=(-genv "${kv%%=*}" "${kv#*=}"); done
    timeout -k 5 180 "$MPIEXEC" -n "$np" -genv LD_PRELOAD "$LIB" -genv HIERCOLL_PROFILE "$dir" \
        "${genv[@]}" "$prog" >"$TMP/log" 2>&1 </dev/null
}
