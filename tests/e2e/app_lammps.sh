#!/usr/bin/env bash
# A real application under the preload, its answer checked against the vendor's run: Debian's
# LAMMPS (built against Open MPI) runs the project's two decks (tools/apps/inputs: a
# Lennard-Jones melt, and charged particles with PPPM) at 4 ranks, 200 steps, under the
# vendor's MPI, under the preload, and under the preload with HIERCOLL_PROFILE. The thermo
# line of the last step must be the vendor's within tools/apps/answer.py's tolerance (the
# Nose-Hoover thermostat feeds the MPI_Allreduce'd temperature back into the trajectory), the
# profile must hold LAMMPS's MPI_Allreduce calls, and the checker itself must reject a
# thermo line that is off. Skips (77) where LAMMPS is not installed (package lammps, which
# .ci/run installs) or in the MPICH family (Debian's LAMMPS is Open MPI's).
# hc-test: each-family
. "$(dirname "$0")/mpi_family.bash"
[ "$HC_FAMILY" = ompi ] || { echo "skip: Debian's LAMMPS is built against Open MPI"; exit 77; }
command -v lmp >/dev/null || { echo "skip: lmp is not installed (apt-get install lammps)"; exit 77; }
command -v python3 >/dev/null || { echo "skip: python3 is not installed"; exit 77; }
[ -e "$LIB" ] || { echo "FAIL: $LIB is not built"; exit 1; }
tmp=$(mktemp -d /tmp/hc-app.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
ANSWER=tools/apps/answer.py
fail() { echo "FAIL: $*"; exit 1; }
export OMPI_MCA_mpi_yield_when_idle=1 OMP_NUM_THREADS=1

for deck in lj pppm; do
    for mode in vendor preload profiled; do
        env=()
        [ $mode = vendor ] || env+=("LD_PRELOAD=$LIB")
        [ $mode = profiled ] && env+=("HIERCOLL_PROFILE=$tmp/prof-$deck")
        mpi_cmd 4 "${env[@]}" lmp -in tools/apps/inputs/$deck.in -var steps 200 -log none \
            -echo none -screen "$tmp/$deck.$mode.out"
        timeout 60 "${MPI_CMD[@]}" >"$tmp/$deck.$mode.log" 2>&1 ||
            { tail -n 20 "$tmp/$deck.$mode.log" "$tmp/$deck.$mode.out"; fail "$deck: lmp under $mode exited non-zero"; }
        python3 $ANSWER extract lammps-$deck "$tmp/$deck.$mode.out" >"$tmp/$deck.$mode.answer" ||
            fail "$deck: no thermo line in the $mode run"
        grep -q '^Step 200' "$tmp/$deck.$mode.answer" || fail "$deck: the $mode run did not reach step 200"
    done
    for mode in preload profiled; do
        verdict=$(python3 $ANSWER compare lammps-$deck "$tmp/$deck.vendor.out" "$tmp/$deck.$mode.out")
        [ "$verdict" = same ] || fail "$deck under $mode: $verdict"
        echo "ok   $deck: the $mode run's last thermo line is the vendor's ($(grep '^Temp ' "$tmp/$deck.$mode.answer"))"
    done
    grep -q '^[0-9]*,MPI_Allreduce,' "$tmp/prof-$deck/functions.csv" ||
        fail "$deck: the profile has no MPI_Allreduce"
    # the checker sees a wrong answer: the temperature off in its 8th digit
    awk '$1 == 200 && NF > 3 { $2 = $2 * 1.00000001 } { print }' "$tmp/$deck.vendor.out" >"$tmp/$deck.off.out"
    verdict=$(python3 $ANSWER compare lammps-$deck "$tmp/$deck.vendor.out" "$tmp/$deck.off.out")
    [[ $verdict == differs:* ]] || fail "$deck: the checker accepted a temperature off by 1e-8: $verdict"
done
echo "ok"
