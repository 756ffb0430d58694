#!/usr/bin/env bash
# Every HIERCOLL_* variable (read from common/hc_config_vars.def) with malformed, out-of-range
# and empty values: the program stops at MPI_Init with exactly one line naming the variable and
# the value, a non-zero exit, and no crash. Well-formed values (the defaults) still run, and an
# unknown HIERCOLL_* name is one warning with a suggestion. Most cases run the program directly
# (a singleton: the check comes before the vendor's init); a few go through the launcher to check
# that every rank stops and only one prints.
# hc-test: each-family
. "$(dirname "$0")/mpi_family.bash"
PROG=$FAMILY_DIR/tests/mpi/test_fault_loop
DEF=common/hc_config_vars.def
[ -x "$PROG" ] || { echo "missing $PROG"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 cases=0

# Out-of-range neighbours of "lo..hi" (sizes and integers): lo-1 when lo > 0 or negative, hi+1.
range_values() {
    local acc=$1 type=$2 lo hi
    lo=${acc%%..*} hi=${acc#*..}
    if [ "$type" = HC_SIZE ]; then
        # hc_parse_size suffixes: K M G T (binary)
        hi=$(awk -v s="$hi" 'BEGIN{m=1; c=toupper(substr(s,length(s)));
             if(c=="K")m=2^10; else if(c=="M")m=2^20; else if(c=="G")m=2^30; else if(c=="T")m=2^40;
             if(m>1)s=substr(s,1,length(s)-1); printf "%.0f", s*m}')
    fi
    echo "$((hi + 1))"
    [ "$lo" -gt 0 ] 2>/dev/null && echo "$((lo - 1))"
    [ "$type" = HC_INT ] && echo "-99999999999999999999"
}

bad_values() {
    local type=$1 acc=$2
    case $type in
        HC_ENUM) printf '%s\n' bogus "${acc%%|*}x" "$(echo "${acc%%|*}" | tr a-z A-Z)" "${acc%%|*} " ;;
        HC_INT) printf '%s\n' abc 1.5 0x10 " 1" "1 "; range_values "$acc" "$type" ;;
        HC_SIZE) printf '%s\n' 12Q -1 4KK 1.3 inf " 1"; range_values "$acc" "$type" ;;
        HC_BOOL) printf '%s\n' maybe 2 onn ;;
        HC_DIMS) printf '%s\n' 2x x2 0 2x0 -4 2*2 ;;
        HC_FLOATS) printf '%s\n' "1,,2" -1 0 inf abc "1," ;;
    esac
}

# check_one VAR VALUE: the run must stop with one line naming VAR and quoting VALUE.
check_one() {
    local var=$1 val=$2 rc lines
    cases=$((cases + 1))
    env "$var=$val" LD_PRELOAD="$LIB" "$PROG" --iters 1 >"$tmp/out" 2>"$tmp/err"
    rc=$?
    lines=$(wc -l <"$tmp/err")
    if [ "$rc" -eq 0 ] || [ "$rc" -gt 128 ] || [ "$lines" -ne 1 ] ||
        ! grep -qF "hiercoll: error: $var" "$tmp/err" ||
        { [ -n "$val" ] && ! grep -qF "'$val'" "$tmp/err"; } || [ -s "$tmp/out" ]; then
        echo "FAIL $var='$val': exit $rc, $lines line(s) on stderr:"
        sed 's/^/    /' "$tmp/err" "$tmp/out" | head -5
        fail=1
    fi
}

nvars=0
while IFS='|' read -r name type def acc; do
    nvars=$((nvars + 1))
    check_one "$name" ""
    while IFS= read -r v; do
        [ -n "$v" ] && check_one "$name" "$v"
    done < <(bad_values "$type" "$acc")
    # The default given explicitly is accepted and the program runs (empty means "unset").
    if [ -n "$def" ]; then
        cases=$((cases + 1))
        if ! env "$name=$def" LD_PRELOAD="$LIB" "$PROG" --iters 2 >"$tmp/out" 2>"$tmp/err" ||
            grep -q hiercoll "$tmp/err"; then
            echo "FAIL $name='$def' (its default) was not accepted:"
            sed 's/^/    /' "$tmp/err" | head -5
            fail=1
        fi
    fi
done < <(sed -n 's/^HC_VAR([a-z_0-9]*, *"\(HIERCOLL_[A-Z0-9_]*\)", *\(HC_[A-Z]*\), *"\([^"]*\)", *"\([^"]*\)".*/\1|\2|\3|\4/p' "$DEF")
[ "$nvars" -ge 10 ] || { echo "read only $nvars variables from $DEF"; exit 1; }

# HIERCOLL_TUNING names a file: a malformed one (tests/bad-input/tuning/) or a missing one stops
# the run at init with one line "hiercoll: error: HIERCOLL_TUNING: FILE[:LINE]: reason".
for f in tests/bad-input/tuning/* /nonexistent/tuning.txt; do
    cases=$((cases + 1))
    HIERCOLL_TUNING=$f LD_PRELOAD="$LIB" "$PROG" --iters 1 >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -ne 2 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] ||
        ! grep -qE "^hiercoll: error: HIERCOLL_TUNING: $f(:[0-9]+)?: [a-zA-Z]" "$tmp/err"; then
        echo "FAIL HIERCOLL_TUNING=$f: exit $rc"; sed 's/^/    /' "$tmp/err" | head -3; fail=1
    fi
done
cases=$((cases + 1))
if ! HIERCOLL_TUNING=tests/fuzz/seeds/tuning/rules.txt LD_PRELOAD="$LIB" "$PROG" --iters 2 \
    >"$tmp/out" 2>"$tmp/err" || grep -q hiercoll "$tmp/err"; then
    echo "FAIL a well-formed tuning file was not accepted:"; sed 's/^/    /' "$tmp/err" | head -3; fail=1
fi

# Under the launcher: every rank exits non-zero, one line in all (rank 0 speaks).
cases=$((cases + 1))
mpi_cmd 3 LD_PRELOAD="$LIB" HIERCOLL_SHM_LIMIT=5Q "$PROG"
timeout 60 "${MPI_CMD[@]}" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ] || [ "$(grep -c 'hiercoll: error: HIERCOLL_SHM_LIMIT' "$tmp/err")" -ne 1 ]; then
    echo "FAIL under $MPIEXEC -n 3: exit $rc"; sed 's/^/    /' "$tmp/err" | head; fail=1
fi

# An unknown name: one warning with the nearest known name, and the run completes.
cases=$((cases + 1))
mpi_cmd 2 LD_PRELOAD="$LIB" HIERCOLL_BCST=shm "$PROG" --iters 2
timeout 60 "${MPI_CMD[@]}" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -ne 0 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] ||
    ! grep -q "unknown variable HIERCOLL_BCST.*did you mean HIERCOLL_BCAST" "$tmp/err"; then
    echo "FAIL unknown variable under $MPIEXEC -n 2: exit $rc"; sed 's/^/    /' "$tmp/err" | head; fail=1
fi

echo "$nvars variables, $cases cases"
exit "$fail"
