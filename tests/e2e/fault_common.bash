# Sourced by tests/e2e/fault_*.sh, bcast_*.sh, choices.sh and shm_limit.sh: the MPI family
# (mpi_family.bash), where the loop program is, and a scratch folder removed on exit.
. "$(dirname "${BASH_SOURCE[0]}")/mpi_family.bash"
PROG=$PWD/$FAMILY_DIR/tests/mpi/test_fault_loop
[ -x "$PROG" ] || { echo "missing $PROG"; exit 1; }
tmp=$(mktemp -d)
trap 'umount "$tmp/mnt" 2>/dev/null; rm -rf "$tmp"' EXIT
fail=0
