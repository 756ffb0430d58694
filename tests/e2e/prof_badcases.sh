#!/usr/bin/env bash
# Profiler bad cases: an unwritable directory, an existing directory (never touched: the
# profile goes to DIR.1, DIR.2; an empty one is taken), HIERCOLL_PROFILE empty, a trailing
# slash, a relative path, and a program that never calls MPI_Finalize. The program's exit
# status never changes, a failure is one warning, and nothing half-written is left.
# hc-test: each-family
. tests/e2e/prof_common.bash
PROG=$PWD/$FAMILY_DIR/tests/mpi/test_prof_nofinal
FILES="taskgraph.graph comm_bytes.csv comm_msgs.csv taskgraph.dot machine.txt ranks.csv
       callsites.csv callsites.txt functions.csv summary.txt"

complete() { # DIR: every profile file is there with its versioned first line
    for f in $FILES; do
        head -n 1 "$1/$f" 2>/dev/null | grep -q 'hiercoll .* v1' || { fail "$1/$f missing"; return 1; }
    done
}
no_tmp() { # PARENT: no temporary directory left
    ! ls -d "$1"/*.tmp-* >/dev/null 2>&1 || fail "temporary directory left in $1"
}
warnings() { grep -c 'warning: profile' "$TMP/log"; }

# Unwritable places: one warning naming the directory, exit status 0.
for bad in /proc/hiercoll-no/p "$TMP/afile/p"; do
    touch "$TMP/afile"
    prof_run 2 "$bad" "$PROG" || fail "unwritable $bad: exit status changed"
    grep -q "warning: profile not written: cannot create $bad.tmp-" "$TMP/log" ||
        { fail "unwritable $bad: no warning"; cat "$TMP/log"; }
    [ "$(warnings)" -eq 1 ] || fail "unwritable $bad: $(warnings) warnings"
done
echo "ok   unwritable directory: one warning, exit status 0"

# An existing directory with content is never touched: DIR.1, then DIR.2.
mkdir "$TMP/ex" && echo keep >"$TMP/ex/mine.txt"
prof_run 2 "$TMP/ex" "$PROG" || fail "existing: exit status"
grep -q "profile directory $TMP/ex exists: profile written to $TMP/ex.1 instead" "$TMP/log" ||
    { fail "existing: no warning"; cat "$TMP/log"; }
[ "$(ls "$TMP/ex")" = mine.txt ] || fail "existing directory was modified: $(ls "$TMP/ex")"
complete "$TMP/ex.1"
prof_run 2 "$TMP/ex" "$PROG" || fail "existing: exit status"
complete "$TMP/ex.2"
no_tmp "$TMP"
echo "ok   existing directory left alone, profile in DIR.1 then DIR.2"

# An existing empty directory (a launcher made it ready) is taken, without a warning.
mkdir "$TMP/empty"
prof_run 2 "$TMP/empty" "$PROG" || fail "empty: exit status"
complete "$TMP/empty"
[ "$(warnings)" -eq 0 ] || { fail "empty: warnings"; cat "$TMP/log"; }
[ ! -e "$TMP/empty.1" ] || fail "empty: wrote empty.1"
grep -q "profile written to $TMP/empty$" "$TMP/log" || fail "empty: no 'written to' line"
echo "ok   existing empty directory used"

# Trailing slash and a relative path.
prof_run 2 "$TMP/slash/" "$PROG" || fail "slash: exit status"
complete "$TMP/slash"
mkdir "$TMP/cwd"
(cd "$TMP/cwd" && prof_run 2 rel "$PROG") || fail "relative: exit status"
complete "$TMP/cwd/rel"
echo "ok   trailing slash and relative path"

# HIERCOLL_PROFILE set to an empty string: like every variable set but empty, the run stops
# at MPI_Init with one line naming it (common/hc_config.c), and nothing is written.
mkdir "$TMP/off"
(cd "$TMP/off" && prof_run 2 "" "$PROG") && fail "empty value: the run went on"
[ -z "$(ls -A "$TMP/off")" ] || fail "empty value: wrote $(ls -A "$TMP/off")"
[ "$(grep -c 'error: HIERCOLL_PROFILE' "$TMP/log")" -eq 1 ] || { fail "empty value: message"; cat "$TMP/log"; }
echo "ok   HIERCOLL_PROFILE empty: one line at init, nothing written"

# No MPI_Finalize: nothing written, the same exit status as without the library.
# The launcher's status for a rank that returns without MPI_Finalize depends on timing (0 or 1
# from Hydra alone, either one three times in a row on a loaded machine), so the runs with
# and without the library alternate, up to 4 of each, until every status the library's runs
# gave is one the vendor's runs gave: a status the vendor never gives (a crash, an error)
# fails, whatever the other runs gave.
pre_rcs="" vendor_rcs="" all_seen=0
for try in 1 2 3 4; do
    rm -rf "$TMP/nofin"
    mpi_cmd 2 LD_PRELOAD="$LIB" HIERCOLL_PROFILE="$TMP/nofin" "$PROG" nofinalize
    timeout -k 5 60 "${MPI_CMD[@]}" >"$TMP/log" 2>&1 </dev/null
    rc_pre=$?
    pre_rcs="$pre_rcs $rc_pre"
    [ ! -e "$TMP/nofin" ] || fail "no finalize: $TMP/nofin written"
    grep -q hiercoll "$TMP/log" && fail "no finalize: a hiercoll message"
    mpi_cmd 2 "$PROG" nofinalize
    timeout -k 5 60 "${MPI_CMD[@]}" >/dev/null 2>&1 </dev/null
    vendor_rcs="$vendor_rcs $?"
    all_seen=1
    for rc in $pre_rcs; do
        case " $vendor_rcs " in *" $rc "*) ;; *) all_seen=0 ;; esac
    done
    [ "$all_seen" = 1 ] && break
done
[ "$all_seen" = 1 ] || fail "no finalize: exit statuses$pre_rcs, vendor gave$vendor_rcs"
no_tmp "$TMP"
echo "ok   no MPI_Finalize: nothing written, exit statuses$pre_rcs as without the library ($vendor_rcs)"

[ "$failed" -eq 0 ] && echo "all bad cases handled"
exit "$failed"
