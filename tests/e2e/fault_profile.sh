#!/usr/bin/env bash
# A profile directory that cannot be written (read-only file system, full file system, a path
# through a regular file): one warning, the program's own output and exit status unchanged,
# no half-written file left.
# The two file-system cases mount a tmpfs in a private mount namespace (unshare -m).
# hc-test: each-family
source "$(dirname "$0")/fault_common.bash"

# The reference: the same run without the profiler.
mpi_cmd 2 LD_PRELOAD="$LIB" "$PROG" --iters 4
"${MPI_CMD[@]}" >"$tmp/ref" 2>&1 || {
    echo "reference run failed"; cat "$tmp/ref"; exit 1; }

# check NAME: compares $tmp/out/$tmp/err/$tmp/rc with the reference.
check() {
    local name=$1 rc
    rc=$(cat "$tmp/rc")
    if [ "$rc" = 77 ]; then echo "skip $name: cannot mount here"; return; fi
    if [ "$rc" -ne 0 ] || ! cmp -s "$tmp/out" "$tmp/ref"; then
        echo "FAIL $name: exit $rc, output differs from the run without profiling:"
        diff "$tmp/ref" "$tmp/out" | head; fail=1
    fi
    local w
    w=$(grep -c 'hiercoll.*warning' "$tmp/err")
    if [ "$w" -ne 1 ]; then
        echo "FAIL $name: $w warning lines, want 1:"; cat "$tmp/err"; fail=1
    else
        echo "ok   $name: $(grep warning "$tmp/err" | cut -c1-150)"
    fi
}

mkdir -p "$tmp/mnt"
# run NAME MOUNT-OPTIONS PROFILE-PATH (MOUNT-OPTIONS empty: no mount)
run() {
    local name=$1 opts=$2 dir=$3
    mpi_cmd 2 LD_PRELOAD="$LIB" HIERCOLL_PROFILE="$dir" "$PROG" --iters 4
    # sh -c 'SCRIPT' TMP OPTS FILL RO JOB...
    timeout 120 unshare -m sh -c '
        if [ -n "$1" ]; then mount -t tmpfs -o "$1" tmpfs "$0/mnt" 2>/dev/null || { echo 77 >"$0/rc"; exit; }; fi
        [ -n "$2" ] && dd if=/dev/zero of="$0/mnt/fill" bs=4k count=1000 2>/dev/null
        [ -n "$3" ] && mount -o remount,ro "$0/mnt"
        shift 3
        "$@" >"$0/out" 2>"$0/err"
        echo $? >"$0/rc"
        ls -A "$0/mnt" | grep -v "^fill$" >"$0/left"' \
        "$tmp" "$opts" "${FILL:-}" "${RO:-}" "${MPI_CMD[@]}"
    check "$name"
    if [ -s "$tmp/left" ]; then
        echo "FAIL $name: half-written files left: $(cat "$tmp/left")"; fail=1
    fi
}
if unshare -m true 2>/dev/null; then
    RO=1 run "read-only file system" size=1m "$tmp/mnt/prof"
    FILL=1 run "full file system" size=64k "$tmp/mnt/prof"
else
    echo "skip read-only and full file systems: unshare -m not permitted"
fi
touch "$tmp/file"
mpi_cmd 2 LD_PRELOAD="$LIB" HIERCOLL_PROFILE="$tmp/file/prof" "$PROG" --iters 4
"${MPI_CMD[@]}" >"$tmp/out" 2>"$tmp/err"
echo $? >"$tmp/rc"
check "path through a regular file"
exit "$fail"
