# Sourced by the end-to-end scripts that run MPI jobs: the MPI family a case runs in
# (HC_FAMILY, set by tests/run.sh for scripts that declare "hc-test: each-family"), and how to
# launch in it. (Not a *.sh file so that tests/run.sh does not run it as a test.)
#   FAMILY_DIR   the family's build folder (its tests/mpi/ and examples/)
#   LIB          its libhiercoll (HC_TEST_LIB when the runner gives one)
#   MPICC        its C compiler wrapper
#   MPIEXEC      its launcher; LAUNCH: the launcher with the options every test run needs
#   SUFFIX       of its library and MPI tools ("" or -ompi)
#   env_opts ARRAY VAR=VALUE...   appends the launcher's options that set VAR in every rank
#   mpi_cmd NP [VAR=VALUE...] PROG [ARGS...]   sets MPI_CMD to the command line of that job
set -u
BUILD=${HC_TEST_BUILD:-${BUILD:-build}}
HC_FAMILY=${HC_FAMILY:-mpich}
case $HC_FAMILY in
    mpich)
        MPIEXEC=${MPIEXEC:-mpiexec.mpich} MPICC=mpicc.mpich
        LAUNCH=("$MPIEXEC")
        FAMILY_DIR=$BUILD SUFFIX="" ;;
    ompi)
        MPIEXEC=${OMPI_MPIEXEC:-mpirun.openmpi} MPICC=mpicc.openmpi
        # More ranks than cores need --oversubscribe; as root Open MPI needs these two.
        LAUNCH=("$MPIEXEC" --oversubscribe)
        if [ "$(id -u)" = 0 ]; then
            export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
        fi
        FAMILY_DIR=$BUILD/ompi SUFFIX=-ompi ;;
    *) echo "unknown HC_FAMILY '$HC_FAMILY' (mpich or ompi)" >&2; exit 1 ;;
esac
export MPIEXEC HC_FAMILY
LIB=${HC_TEST_LIB:-$PWD/$BUILD/lib/libhiercoll$SUFFIX.so}

env_opts() {
    local -n opts_=$1
    shift
    local kv
    for kv in "$@"; do
        if [ "$HC_FAMILY" = ompi ]; then
            opts_+=(-x "$kv")
        else
            opts_+=(-genv "${kv%%=*}" "${kv#*=}")
        fi
    done
}

mpi_cmd() {
    local np=$1 env=()
    shift
    while [[ ${1:-} =~ ^[A-Za-z_][A-Za-z0-9_]*= ]]; do
        env_opts env "$1"
        shift
    done
    MPI_CMD=("${LAUNCH[@]}" -n "$np" "${env[@]}" "$@")
}
