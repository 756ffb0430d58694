# Sourced by tests/e2e/fault_*.sh, badenv_*.sh, bcast_*.sh, choices.sh and shm_limit.sh:
# where the library and the loop program are, and a scratch folder removed on exit.
set -u
BUILD=${HC_TEST_BUILD:-build}
LIB=${HC_TEST_LIB:-$PWD/$BUILD/lib/libhiercoll.so}
MPIEXEC=${MPIEXEC:-mpiexec.mpich}
PROG=$PWD/$BUILD/tests/mpi/test_fault_loop
[ -x "$PROG" ] || { echo "missing $PROG"; exit 1; }
tmp=$(mktemp -d)
trap 'umount "$tmp/mnt" 2>/dev/null; rm -rf "$tmp"' EXIT
fail=0
