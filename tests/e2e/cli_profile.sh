# hiercoll profile: usage errors exit 2; the command runs with the preload of the launcher's
# MPI family and HIERCOLL_PROFILE (through -genv for Hydra, -x for Open MPI, the environment
# otherwise); the summary is printed; no profile or a failing program exits 1. With the
# profiler built in, a real MPI program's profile directory is checked too.
# hc-test: each-family
. tests/e2e/cli_common.bash

expect_status 2 "$HC" profile
expect_in "$TMP/err" "no command to run"
expect_status 2 "$HC" profile --bogus -- true
expect_status 2 "$HC" profile --out "" -- true
expect_status 2 "$HC" profile --mpi lam -- true
expect_in "$TMP/err" "bad --mpi 'lam'"
expect_status 0 "$HC" profile --help

# A stand-in program (not MPI) shows what the ranks receive; its rank 0 writes a summary the
# way the profiler does (DIR, or DIR.1 when DIR exists).
mkdir "$TMP/env"
cat >"$TMP/fake.sh" <<SH
rank=\${PMI_RANK:-\${OMPI_COMM_WORLD_RANK:-}}
echo "profile=\$HIERCOLL_PROFILE preload=\$LD_PRELOAD" >"$TMP/env/\${rank:-x}"
if [ "\${rank:-0}" = 0 ]; then
    d=\$HIERCOLL_PROFILE; [ -e "\$d" ] && d=\$d.1
    mkdir "\$d" && echo "FAKE SUMMARY LINE" >"\$d/summary.txt" && echo "1 0" >"\$d/taskgraph.graph"
fi
SH
expect_status 0 "$HC" profile --out "$TMP/p1" -- "${LAUNCH[@]}" -n 2 sh "$TMP/fake.sh"
expect_in "$TMP/out" "^FAKE SUMMARY LINE$"
expect_in "$TMP/out" "^Profile: $TMP/p1$"
expect_in "$TMP/out" "files: taskgraph.graph"
expect_in "$TMP/out" "hiercoll report $TMP/p1"
for r in 0 1; do
    expect_in "$TMP/env/$r" "^profile=$TMP/p1 preload=/.*/libhiercoll$SUFFIX\.so$"
done

# DIR exists: the profile lands in DIR.1 and the command says so.
expect_status 0 "$HC" profile --out "$TMP/p1" -- "${LAUNCH[@]}" -n 1 sh "$TMP/fake.sh"
expect_in "$TMP/out" "^Profile: $TMP/p1.1$"
expect_in "$TMP/err" "$TMP/p1 existed: the profile is in $TMP/p1.1"

# Without a launcher in front (a singleton), the environment carries both; relative --out
# becomes absolute, missing parents are created.
mkdir "$TMP/p2"
(cd "$TMP/p2" && "$HC" profile --mpi "$HC_FAMILY" --out sub/rel -- sh "$TMP/fake.sh" \
    >/dev/null 2>&1) || fail "singleton"
expect_in "$TMP/env/x" "^profile=$TMP/p2/sub/rel preload=/.*/libhiercoll$SUFFIX\.so"
[ -s "$TMP/p2/sub/rel/summary.txt" ] || fail "singleton summary"

# Nothing new written: exit 1, even with old profiles around; a failing program exits 1.
expect_status 1 "$HC" profile --out "$TMP/p1" -- true
expect_in "$TMP/err" "no profile was written to $TMP/p1"
expect_status 1 "$HC" profile --out "$TMP/p3" -- sh -c "sh $TMP/fake.sh; exit 3"
expect_in "$TMP/err" "exit status 3"
expect_in "$TMP/out" "FAKE SUMMARY LINE"

# The real profiler, once it is in the library: an MPI program's profile directory.
prog=$FAMILY_DIR/examples/cg_solver
if [ -x "$prog" ] && ! grep -q placeholder preload/prof.c; then
    expect_status 0 "$HC" profile --out "$TMP/real" -- "${LAUNCH[@]}" -n 2 "$prog" --quick
    for f in summary.txt taskgraph.graph comm_bytes.csv ranks.csv machine.txt; do
        [ -s "$TMP/real/$f" ] || fail "profile lacks $f"
    done
    expect_in "$TMP/real/ranks.csv" "^# hiercoll ranks v1"
else
    echo "note: profiler not in this build yet; real-profile check not run"
fi
echo "ok"
