#!/bin/sh
# Installs the Debian packages hiercoll needs, only those that are missing.
# Quiet and instant when everything is present; prints the exact command when not root.
# While installing it prints one line and keeps apt's output in a log it names (V=1: shows it).
# MPI_FAMILIES (default "mpich ompi") says which MPI families to install: MPICH, Open MPI.
set -e
PKGS="gfortran libnuma-dev libhwloc-dev hwloc libunwind-dev libmetis-dev libscotch-dev"
for family in ${MPI_FAMILIES:-mpich ompi}; do
    case $family in
        mpich) PKGS="$PKGS mpich libmpich-dev" ;;
        ompi) PKGS="$PKGS openmpi-bin libopenmpi-dev" ;;
    esac
done
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
    echo "hiercoll: missing packages:$missing" >&2
    echo "hiercoll: run: sudo apt-get update && sudo apt-get install -y$missing" >&2
    exit 1
fi
log=${HC_DEPS_LOG:-/tmp/hiercoll-install-deps.log}
export DEBIAN_FRONTEND=noninteractive
if [ -n "${V:-}" ]; then
    echo "hiercoll: installing:$missing" >&2
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends $missing >&2
    exit
fi
echo "hiercoll: installing:$missing (log: $log) ..." >&2
if { apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing; } >"$log" 2>&1; then
    echo "hiercoll: installed:$missing" >&2
else
    tail -n 20 "$log" >&2
    echo "hiercoll: apt-get install failed: see $log" >&2
    exit 1
fi
