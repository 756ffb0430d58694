# Sourced by tests/e2e/cluster_*.sh: a cluster of namespaces of this test's own (unique name),
# always torn down on exit. Skips (77) where a cluster cannot be made (not root, no namespaces).
. tests/e2e/cli_common.bash
CLUSTER=$PWD/tools/cluster/hiercoll-cluster
export HC_CLUSTER=e2e-$$-$RANDOM
trap '"$CLUSTER" down --name "$HC_CLUSTER" >/dev/null 2>&1; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
"$CLUSTER" check || exit 77
# cluster_up N [OPTIONS]: the test's cluster; a failure to make it fails the test.
cluster_up() { "$CLUSTER" up "$@" >"$TMP/up.log" 2>&1 || { cat "$TMP/up.log"; fail "cluster up $*"; }; }
# has_exit_fix LIB: an MPICH build of the library that keeps MPICH's exit across hosts from
# hanging (preload/mpich_exit.c; sanitizer builds leave it out).
has_exit_fix() { nm -D --defined-only "$1" 2>/dev/null | grep -q ' T ucp_worker_create$'; }
# on HOST CMD...: runs CMD on a host of the test's cluster.
on() { "$CLUSTER" exec "$@"; }
