#!/usr/bin/env bash
# Learning in the run, saved and reused (docs/tuning.md, "Learning"): pass 1 profiles a
# program whose call sites repeat the same calls; its profile directory must hold tuning.txt
# with a learned rule for each site (read back by the library's own reader through `hiercoll
# report`, which also resolves the sites to file:line); pass 2, started from that file, must
# run the saved choice from its very first call and say so (HIERCOLL_VERBOSE). Every result
# is checked by the program.
# hc-test: each-family
. "$(dirname "$0")/mpi_family.bash"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
HC=$PWD/$HC_TEST_BUILD/bin/hiercoll
"$MPICC" -O2 -g -o "$tmp/sites" tests/e2e/learn_sites.c || { echo "cannot build learn_sites"; exit 1; }
fail() { echo "FAIL: $*"; exit 1; }

mpi_cmd 2 LD_PRELOAD="$LIB" HIERCOLL_PROFILE="$tmp/prof" "$tmp/sites"
timeout 300 "${MPI_CMD[@]}" >"$tmp/out1" 2>"$tmp/err1" || fail "pass 1: $(tail -3 "$tmp/err1")"
grep -q "^0 wrong" "$tmp/out1" || fail "pass 1: $(cat "$tmp/out1")"
t=$tmp/prof/tuning.txt
[ -s "$t" ] || fail "no tuning.txt in the profile"
head -1 "$t" | grep -qx "hiercoll-tuning 2" || fail "tuning.txt: $(head -1 "$t")"
# the fixed root's site (256 KiB), the rotating root's (4 KiB) from every root, the allreduce
fixed=$(grep -E "^bcast 256K-512K 2 1 [a-z-]+ site=[^ ]*learn_two_pass|^bcast 256K-512K 2 1 [a-z-]+ site=[^ ]*sites\+0x[0-9a-f]+ root=0 from=learned" "$t")
[ -n "$fixed" ] || { cat "$t"; fail "no learned rule for the fixed root's site"; }
[ "$(grep -cE "^bcast 4K-8K 2 1 [a-z-]+ site=[^ ]*sites\+0x[0-9a-f]+ root=[01] from=learned" "$t")" = 2 ] ||
    { cat "$t"; fail "not one learned rule per root of the rotating site"; }
grep -qE "^allreduce 1K-2K 2 1 [a-z0-9-]+ from=learned calls=400 seen=[^ ]*sites\+0x" "$t" ||
    { cat "$t"; fail "no learned allreduce rule"; }
# each learned rule measured at least two algorithms
echo "$fixed" | grep -qE "times=[a-z-]+:[0-9.]+,[a-z-]+:[0-9.]+" || fail "too few times: $fixed"
saved=$(echo "$fixed" | awk '{print $5}')

# the report reads the file with the library's reader and resolves the sites
"$HC" report "$tmp/prof" >"$tmp/report" || fail "hiercoll report: $(cat "$tmp/report")"
grep -qE "^  bcast +256K-512K +2 +0 +400  $saved .* at learn_sites.c:[0-9]+" "$tmp/report" ||
    { grep -A12 Learned "$tmp/report"; fail "report: no learned line for the fixed root"; }

# pass 2: the saved choice from the first call on
mpi_cmd 2 LD_PRELOAD="$LIB" HIERCOLL_TUNING="$t" HIERCOLL_VERBOSE=1 "$tmp/sites" --first
timeout 120 "${MPI_CMD[@]}" >"$tmp/out2" 2>"$tmp/err2" || fail "pass 2: $(tail -3 "$tmp/err2")"
grep -q "^0 wrong" "$tmp/out2" || fail "pass 2: $(cat "$tmp/out2")"
grep -qx "first call ran $saved" "$tmp/out2" || fail "pass 2 ran $(cat "$tmp/out2"), saved $saved"
grep -qE "bcast at [^ ]*sites\+0x[0-9a-f]+, root 0, 262144-524287 bytes: $saved, learned in an earlier run" "$tmp/err2" ||
    { cat "$tmp/err2"; fail "pass 2 did not say it started from the saved choice"; }
# the vendor's broadcast saved for the fixed root: a settled root runs most of its calls in
# windows without a cell, which its readers must count alike (every result is checked)
sed -E 's/^(bcast 256K-512K 2 1) [a-z-]+ /\1 vendor /' "$t" >"$tmp/vendor.txt"
mpi_cmd 2 LD_PRELOAD="$LIB" HIERCOLL_TUNING="$tmp/vendor.txt" HIERCOLL_VERBOSE=1 "$tmp/sites"
timeout 120 "${MPI_CMD[@]}" >"$tmp/out3" 2>"$tmp/err3" || fail "vendor windows: $(tail -3 "$tmp/err3")"
grep -q "^0 wrong" "$tmp/out3" || fail "vendor windows: $(cat "$tmp/out3")"
grep -qE "root 0, 262144-524287 bytes: vendor, learned in an earlier run" "$tmp/err3" ||
    { cat "$tmp/err3"; fail "the saved vendor choice was not taken"; }
echo "ok: learned $saved for the fixed root, reused from the first call; a saved vendor choice runs right"
