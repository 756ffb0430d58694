# Sourced by tools/apps/*.sh: the applications, how each one is launched, and how the harness
# prints (one line per step, logs in files, V=1 shows everything). Not run on its own.
#
# An application is a name the harness knows:
#   lammps-lj     LAMMPS, Lennard-Jones melt (inputs/lj.in)              Open MPI (Debian's lmp)
#   lammps-pppm   LAMMPS, charged particles, PPPM (inputs/pppm.in)       Open MPI
#   gromacs       GROMACS, SPC water with PME (inputs/water*.mdp)        Open MPI (gmx_mpi)
#   hpcc          HPC Challenge (hpccinf.txt written by inputs.sh)       Open MPI
#   scalapack     ScaLAPACK's LU test driver xdlu (LU.dat by inputs.sh)  MPICH (Open MPI on
#                 the cluster, where MPICH 4.0.2 hangs at exit: docs/cluster.md)
set -u
APPS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$APPS_DIR/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
OUT=${APPS_OUT:-$BUILD/apps}
case $OUT in /*) ;; *) OUT=$PWD/$OUT ;; esac
INPUTS=$OUT/inputs
V=${V:-}
ALL_APPS="lammps-lj lammps-pppm gromacs hpcc scalapack"
SCALAPACK_TESTS=/usr/lib/x86_64-linux-gnu/scalapack

# Open MPI as root, and ranks that wait yield their core (8 ranks on 2 cores: without it the
# polling ranks starve the working ones and a run takes tens of times longer, vendor or not).
if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export OMPI_MCA_mpi_yield_when_idle=${OMPI_MCA_mpi_yield_when_idle:-1}
# One thread per rank everywhere (GROMACS and the BLAS would start one per core otherwise),
# and GROMACS overwrites its output files instead of keeping numbered backups.
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 GMX_MAXBACKUP=-1

# --- printing -----------------------------------------------------------------------------
# step TEXT: the start of a step, one line. progress TEXT: the step's progress, rewritten in
# place on a terminal (one line per call otherwise only with V=1). done_step TEXT: its end.
IS_TTY=""
[ -t 1 ] && IS_TTY=1
STEP_TEXT=""
step() { STEP_TEXT=$*; if [ -n "$IS_TTY" ]; then printf '%s ...' "$*"; else printf '%s ...\n' "$*"; fi; }
progress() {
    if [ -n "$IS_TTY" ]; then printf '\r\033[K%s ... %s' "$STEP_TEXT" "$*"
    elif [ -n "$V" ]; then printf '  %s\n' "$*"; fi
}
done_step() {
    if [ -n "$IS_TTY" ]; then printf '\r\033[K%s: %s\n' "$STEP_TEXT" "$*"
    else printf '  %s\n' "$*"; fi
}
# logged LOG CMD...: runs CMD with its output in LOG (and on the terminal too with V=1).
logged() {
    local log=$1 rc
    shift
    mkdir -p "$(dirname "$log")"
    if [ -n "$V" ]; then
        "$@" 2>&1 | tee "$log"
        rc=${PIPESTATUS[0]}
    else
        "$@" >"$log" 2>&1
        rc=$?
    fi
    return $rc
}
die() { echo "apps: $*" >&2; exit 1; }
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

# --- the applications ---------------------------------------------------------------------
# app_family APP [cluster]: the MPI family the application is built for (mpich or ompi).
app_family() {
    case $1 in
        scalapack) if [ "${2:-}" = cluster ]; then echo ompi; else echo mpich; fi ;;
        lammps-lj|lammps-pppm|gromacs|hpcc) echo ompi ;;
        *) die "unknown application '$1' (known: $ALL_APPS)" ;;
    esac
}
# app_package APP: the Debian package that brings it.
app_package() {
    case $1 in
        lammps-*) echo lammps ;;
        gromacs) echo "gromacs gromacs-data" ;;
        hpcc) echo hpcc ;;
        scalapack) echo scalapack-mpi-test ;;
    esac
}
# app_missing APP: why the application cannot run here (empty when it can).
app_missing() {
    local fam
    fam=$(app_family "$1" "${2:-}")
    case $1 in
        lammps-*) command -v lmp >/dev/null || { echo "lmp is not installed (package lammps)"; return; } ;;
        gromacs) command -v gmx_mpi >/dev/null && command -v gmx >/dev/null ||
                     { echo "gmx_mpi is not installed (package gromacs)"; return; } ;;
        hpcc) command -v hpcc >/dev/null || { echo "hpcc is not installed (package hpcc)"; return; } ;;
        scalapack) [ -x "$(scalapack_dir "$fam")/xdlu" ] ||
                       { echo "ScaLAPACK's test drivers are not installed (package scalapack-mpi-test)"; return; } ;;
    esac
    [ -e "$(family_lib "$fam")" ] || echo "$(family_lib "$fam") is not built"
}
scalapack_dir() { if [ "$1" = mpich ]; then echo "$SCALAPACK_TESTS/mpich-tests"; else echo "$SCALAPACK_TESTS/openmpi-tests"; fi; }
family_lib() { if [ "$1" = mpich ]; then echo "$BUILD/lib/libhiercoll.so"; else echo "$BUILD/lib/libhiercoll-ompi.so"; fi; }

# Sizes. Local runs (make apps): every rank count on this machine's 2 cores, a second or a few
# each. Cluster runs (APPS_MODE=cluster): 8 ranks over 2 hosts, longer runs of the same small
# systems, so that few atoms or grid points per rank make communication matter, as in a
# strong-scaled job (docs/apps.md).
# APPS_STEPS overrides the MD step counts (the e2e test uses it). ScaLAPACK's cluster run
# factors one matrix of LU_CLUSTER_N: its panels' broadcasts and row swaps then cross the link
# in every step (N = 200 and 400, the local sizes, took 0.4 s, mostly start-up, at 100 Mbit/s).
LU_CLUSTER_N=${LU_CLUSTER_N:-1500}
app_steps() {
    local app=$1 mode=${2:-local}
    if [ -n "${APPS_STEPS:-}" ]; then echo "$APPS_STEPS"; return; fi
    case $app:$mode in
        lammps-lj:local) echo 200 ;;
        lammps-pppm:local) echo 200 ;;
        gromacs:local) echo 200 ;;
        lammps-lj:cluster) echo 500 ;;
        lammps-pppm:cluster) echo 300 ;;
        gromacs:cluster) echo 500 ;;
        *) echo 0 ;;
    esac
}

# app_cmd APP NP [cluster]: sets CMD (the program and its arguments, run in a directory of its
# own), ANSWER (the file, in that directory, that holds its answer) and SETUP (a command
# that prepares the directory: copies the input files the program reads from its cwd).
app_cmd() {
    local app=$1 np=$2 mode=${3:-local} steps
    steps=$(app_steps "$app" "$mode")
    SETUP=(true)
    case $app in
        lammps-lj)
            CMD=(lmp -in "$INPUTS/lj.in" -var steps "$steps" -log none -echo none -screen answer.txt)
            ANSWER=answer.txt ;;
        lammps-pppm)
            CMD=(lmp -in "$INPUTS/pppm.in" -var steps "$steps" -log none -echo none -screen answer.txt)
            ANSWER=answer.txt ;;
        gromacs)
            # -reprod: no dynamic load balancing and no PME tuning, both decided by timings
            # (a run would not repeat itself); -npme 0: every rank does its share of PME.
            CMD=(gmx_mpi mdrun -s "$INPUTS/water.tpr" -nsteps "$steps" -reprod -ntomp 1 -npme 0 -nb cpu -quiet)
            ANSWER=md.log ;;
        hpcc)
            CMD=(hpcc)
            SETUP=(cp "$INPUTS/hpccinf-$np.txt" hpccinf.txt)
            ANSWER=hpccoutf.txt ;;
        scalapack)
            CMD=("$(scalapack_dir "$(app_family scalapack "$mode")")/xdlu")
            local lu=LU-$np.dat
            [ "$mode" = cluster ] && lu=LU-cluster-$np.dat
            SETUP=(cp "$INPUTS/$lu" LU.dat)
            ANSWER=stdout.txt ;;
        *) die "unknown application '$app'" ;;
    esac
}

# launch_cmd FAMILY NP MODE PROFILE_DIR: sets LAUNCH, the launcher and its options for one
# local run; MODE vendor (no preload), hiercoll (the preload) or profiled (the preload with
# HIERCOLL_PROFILE=PROFILE_DIR).
launch_cmd() {
    local fam=$1 np=$2 mode=$3 prof=${4:-} lib
    lib=$(family_lib "$fam")
    if [ "$fam" = ompi ]; then
        LAUNCH=(mpirun.openmpi --oversubscribe -n "$np" -x OMP_NUM_THREADS -x GMX_MAXBACKUP)
        [ "$mode" = vendor ] || LAUNCH+=(-x "LD_PRELOAD=$lib")
        [ "$mode" = profiled ] && LAUNCH+=(-x "HIERCOLL_PROFILE=$prof")
    else
        LAUNCH=(mpiexec.mpich -n "$np")
        [ "$mode" = vendor ] || LAUNCH+=(-genv LD_PRELOAD "$lib")
        [ "$mode" = profiled ] && LAUNCH+=(-genv HIERCOLL_PROFILE "$prof")
    fi
    return 0
}

# timed_run DIR TIMEOUT CMD...: runs CMD in DIR (made anew), stdout in DIR/stdout.txt and
# stderr in DIR/stderr.txt; prints its wall time in seconds, or "failed" (exit status in
# DIR/rc, 124 past TIMEOUT seconds). With V=1 the command and its output go to stderr.
timed_run() {
    local dir=$1 limit=$2 t0 t1 rc
    shift 2
    [ -n "$V" ] && printf '+ (cd %s && %s)\n' "$dir" "$*" >&2
    t0=$(date +%s.%N)
    ( cd "$dir" && timeout -k 5 "$limit" "$@" >stdout.txt 2>stderr.txt </dev/null )
    rc=$?
    t1=$(date +%s.%N)
    echo "$rc" >"$dir/rc"
    # V=1: the run's output too (on stderr: stdout is the time)
    [ -n "$V" ] && cat "$dir/stdout.txt" "$dir/stderr.txt" >&2
    if [ "$rc" = 0 ]; then
        awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
    else
        echo failed
    fi
}
