#!/bin/sh
# Installs the Debian packages of the applications (tools/apps/common.bash), those missing only.
# Usage: install.sh [APP...]. As root it runs apt-get; otherwise it prints the command.
# The last line says what happened.
APPS=${*:-lammps-lj lammps-pppm gromacs hpcc scalapack}
pkgs=""
for app in $APPS; do
    case $app in
        lammps-*) pkgs="$pkgs lammps" ;;
        gromacs) pkgs="$pkgs gromacs gromacs-data" ;;
        hpcc) pkgs="$pkgs hpcc" ;;
        scalapack) pkgs="$pkgs scalapack-mpi-test" ;;
    esac
done
missing=""
for p in $(echo $pkgs | tr ' ' '\n' | sort -u); do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
    echo "all installed:" $(echo $pkgs | tr ' ' '\n' | sort -u)
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "not root; run: sudo apt-get update && sudo apt-get install -y$missing"
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing || {
    echo "apt-get install$missing failed"; exit 1; }
echo "installed:$missing"
