#!/usr/bin/env bash
# The test runner behind `make test`. Runs, in order:
#   unit tests   $BUILD/tests/unit/test_*           (no MPI)
#   MPI tests    $BUILD/tests/mpi/<prog>            one case per line "hc-test: ..." in the source
#   end-to-end   tests/e2e/*.sh                     exit 0 pass, 77 skip, anything else fails
# MPI tests run once per MPI family in $FAMILIES (mpich, ompi), and so do the end-to-end
# scripts that declare "hc-test: each-family"; Open MPI's cases are named ompi/... .
# Usage: tests/run.sh [REGEX]   only cases whose name matches REGEX (grep -E).
#
# An MPI test source declares its cases in comment lines (several lines allowed):
#   hc-test: np=1,2,4,8 preload=both timeout=60 env=HIERCOLL_VIRTUAL_NODE_SIZE=2,HIERCOLL_BCAST=shm
# preload=yes|no|both (default both): run under libhiercoll.so, plain, or each way.
# After every MPI case, a segment left in /dev/shm is a failure.
set -u
BUILD=${BUILD:-build}
MPIEXEC=${MPIEXEC:-mpiexec.mpich}
OMPI_MPIEXEC=${OMPI_MPIEXEC:-mpirun.openmpi}
FAMILIES=${FAMILIES:-mpich}
FILTER=${1:-.}
# Open MPI refuses to run as root without these (the machines tests run on are often
# containers where everything is root).
if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
# A sanitizer build (make test SANITIZE=...) needs the sanitizer runtime first in the preload,
# or the library never runs; the MPI library's own leaks at exit are not ours. The e2e scripts
# preload $HC_TEST_LIB alone into instrumented programs (whose own ASan runtime then comes right
# after it, which works): verify_asan_link_order=0 lets them run.
SAN_RT=""
case ${SANITIZE:-} in
    *address*) SAN_RT="$(gcc -print-file-name=libasan.so):"
               export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:verify_asan_link_order=0} ;;
    *thread*)  SAN_RT="$(gcc -print-file-name=libtsan.so):" ;;
esac
# UBSan only prints by default; stopping makes a report fail the case.
case ${SANITIZE:-} in
    *undefined*) export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1} ;;
esac
LOGDIR=$BUILD/test-logs
mkdir -p "$LOGDIR"
export HC_TEST_BUILD=$BUILD MPIEXEC OMPI_MPIEXEC

# use_family FAMILY: the launcher (LAUNCH), the library (LIB), where its MPI programs are
# (MPI_DIR) and the prefix of its case names (CASE_PREFIX); env_opt NAME VALUE appends the
# launcher's option for one environment variable of the ranks to the array ENV_OPTS.
use_family() {
    FAMILY=$1
    case $FAMILY in
        mpich) LAUNCH=("$MPIEXEC") LIB=$PWD/$BUILD/lib/libhiercoll.so MPI_DIR=$BUILD
               CASE_PREFIX="" ;;
        ompi)  LAUNCH=("$OMPI_MPIEXEC" --oversubscribe) LIB=$PWD/$BUILD/lib/libhiercoll-ompi.so
               MPI_DIR=$BUILD/ompi CASE_PREFIX="ompi/" ;;
    esac
    export HC_FAMILY=$FAMILY HC_TEST_LIB=$LIB
}
env_opt() {
    if [ "$FAMILY" = ompi ]; then ENV_OPTS+=(-x "$1=$2"); else ENV_OPTS+=(-genv "$1" "$2"); fi
}

passed=0 failed=0 skipped=0
failures=()
t_start=$(date +%s)

shm_segments() { ls /dev/shm 2>/dev/null | grep "^hiercoll-$(id -u)-" | sort ; }
# Segments that appeared during a case and are still there a moment later. Segments of other
# jobs on the machine come and go within milliseconds; a leaked one stays.
shm_leaked() {
    local new
    new=$(comm -13 <(echo "$1") <(shm_segments))
    [ -n "$new" ] || return 1
    sleep 1
    comm -12 <(echo "$new") <(shm_segments) | grep .
}

# run_case NAME TIMEOUT CMD...: runs one case, logs it, prints one line.
run_case() {
    local name=$1 timeout=$2
    shift 2
    [[ $name =~ $FILTER ]] || return 0
    local log="$LOGDIR/$(echo "$name" | tr -c 'A-Za-z0-9_.=-' '_').log"
    local before t0 t1 rc status leaked
    before=$(shm_segments)
    t0=$(date +%s.%N)
    timeout -k 5 "$timeout" "$@" >"$log" 2>&1 </dev/null
    rc=$?
    t1=$(date +%s.%N)
    if [ "$rc" -eq 0 ] && leaked=$(shm_leaked "$before"); then
        { echo "segments left in /dev/shm:"; echo "$leaked"; } >>"$log"
        rc=99
    fi
    if [ "$rc" -eq 0 ]; then
        status=PASS; passed=$((passed + 1))
    elif [ "$rc" -eq 77 ]; then
        status=SKIP; skipped=$((skipped + 1))
    else
        status=FAIL; failed=$((failed + 1)); failures+=("$name")
        [ "$rc" -eq 124 ] && echo "timed out after ${timeout}s" >>"$log"
    fi
    printf '%-4s %-72s %6.1fs\n' "$status" "$name" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')"
    if [ "$status" = FAIL ]; then
        tail -n 25 "$log" | sed 's/^/     | /'
    fi
}

# --- unit tests --------------------------------------------------------------------------
for bin in "$BUILD"/tests/unit/test_*; do
    [ -x "$bin" ] || continue
    run_case "unit/$(basename "$bin")" 300 "$bin"
done

# --- MPI tests ---------------------------------------------------------------------------
for family in $FAMILIES; do
    use_family "$family"
    for src in tests/mpi/*.c tests/mpi/*.f90; do
        [ -f "$src" ] || continue
        prog=$(basename "${src%.*}")
        bin=$MPI_DIR/tests/mpi/$prog
        while IFS= read -r spec; do
            np="2" preload="both" timeout=120 envs=""
            for kv in $spec; do
                case $kv in
                    np=*) np=${kv#np=} ;;
                    preload=*) preload=${kv#preload=} ;;
                    timeout=*) timeout=${kv#timeout=} ;;
                    env=*) envs=${kv#env=} ;;
                esac
            done
            ENV_OPTS=()
            if [ -n "$envs" ]; then
                IFS=',' read -ra pairs <<<"$envs"
                for p in "${pairs[@]}"; do env_opt "${p%%=*}" "${p#*=}"; done
            fi
            case_env=("${ENV_OPTS[@]}") # the line's env=, for each of its runs
            case $preload in both) modes="vendor preload" ;; yes) modes=preload ;; *) modes=vendor ;; esac
            for n in ${np//,/ }; do
                for mode in $modes; do
                    name="${CASE_PREFIX}mpi/$prog np=$n $mode${envs:+ $envs}"
                    opts=("${case_env[@]}")
                    if [ "$mode" = preload ]; then
                        ENV_OPTS=()
                        env_opt LD_PRELOAD "$SAN_RT$LIB"
                        opts=("${ENV_OPTS[@]}" "${case_env[@]}")
                    fi
                    run_case "$name" "$timeout" "${LAUNCH[@]}" -n "$n" "${opts[@]}" "$bin"
                done
            done
        done < <(grep -o 'hc-test:.*' "$src" | sed -e 's/^hc-test://' -e 's/\*\/.*$//')
    done
done

# --- end-to-end --------------------------------------------------------------------------
for script in tests/e2e/*.sh; do
    [ -f "$script" ] || continue
    families=mpich
    grep -q 'hc-test: each-family' "$script" && families=$FAMILIES
    for family in $families; do
        use_family "$family"
        run_case "${CASE_PREFIX}e2e/$(basename "$script" .sh)" 600 bash "$script"
    done
done

elapsed=$(( $(date +%s) - t_start ))
if [ "${#failures[@]}" -gt 0 ]; then
    echo
    echo "Failed (logs in $LOGDIR):"
    printf '  %s\n' "${failures[@]}"
fi
echo "(${elapsed}s)"
if [ "$skipped" -gt 0 ]; then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
