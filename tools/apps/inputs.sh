#!/usr/bin/env bash
# Prepares the applications' inputs in $APPS_OUT/inputs (default build/apps/inputs):
#   lj.in, pppm.in           LAMMPS decks (copied from tools/apps/inputs/)
#   water.tpr                GROMACS: SPC water in a 3 nm box (gmx solvate from gromacs-data's
#                            spc216.gro), relaxed (water-em.mdp), equilibrated 2 ps at 300 K
#                            (water-eq.mdp), then the measured run (water.mdp) by gmx grompp
#   hpccinf-NP.txt           HPCC: HPL N=1000 on a P x Q grid for NP ranks (NP = 1..16)
#   LU-NP.dat                ScaLAPACK's xdlu: N = 200 and 400 on a P x Q grid for NP ranks
#   LU-cluster-NP.dat        the same for the cluster's runs: N = LU_CLUSTER_N (common.bash)
# Usage: inputs.sh [APP...]   (default: every application whose program is installed)
. "$(dirname "$0")/common.bash"
mkdir -p "$INPUTS"
apps=${*:-$ALL_APPS}

# grid NP: "P Q", P <= Q, P * Q = NP, as square as it gets
grid() { awk -v n="$1" 'BEGIN { for (p = int(sqrt(n)); p >= 1; p--) if (n % p == 0) { print p, n / p; exit } }'; }

# lu_input P Q COUNT "SIZES": xdlu's input for a P x Q grid, COUNT square problems of SIZES
lu_input() {
    sed -e "s/@P@/$1/" -e "s/@Q@/$2/" -e "s/@NSIZES@/$3/" -e "s/@SIZES@/$4/" \
        "$APPS_DIR/inputs/LU.dat.in"
}

gromacs_inputs() {
    local d=$INPUTS/gromacs
    rm -rf "$d"
    mkdir -p "$d"
    cp "$APPS_DIR/inputs/water.top" "$d/topol.top"
    cd "$d" || return 1
    # about 880 waters (2650 atoms): 330 atoms a rank at 8 ranks, and a box of 3 nm that an
    # 8-rank domain decomposition (4 x 2 x 1 cells of at least the 0.9 nm cut-off) accepts
    gmx -quiet solvate -cs spc216.gro -box 3 3 3 -o solvated.gro -p topol.top &&
        gmx -quiet grompp -f "$APPS_DIR/inputs/water-em.mdp" -c solvated.gro -p topol.top -o em.tpr &&
        gmx -quiet mdrun -s em.tpr -deffnm em -ntmpi 1 -ntomp 1 &&
        gmx -quiet grompp -f "$APPS_DIR/inputs/water-eq.mdp" -c em.gro -p topol.top -o eq.tpr &&
        gmx -quiet mdrun -s eq.tpr -deffnm eq -ntmpi 1 -ntomp 1 &&
        gmx -quiet grompp -f "$APPS_DIR/inputs/water.mdp" -c eq.gro -t eq.cpt -p topol.top -o water.tpr &&
        cp water.tpr "$INPUTS/water.tpr"
}

for app in $apps; do
    case $app in
        lammps-lj) cp "$APPS_DIR/inputs/lj.in" "$INPUTS/" ;;
        lammps-pppm) cp "$APPS_DIR/inputs/pppm.in" "$INPUTS/" ;;
        gromacs)
            command -v gmx >/dev/null || { echo "gromacs: gmx is not installed, no inputs"; continue; }
            ( gromacs_inputs ) >"$INPUTS/gromacs.log" 2>&1 ||
                { tail -n 20 "$INPUTS/gromacs.log"; die "gromacs inputs failed: see $INPUTS/gromacs.log"; } ;;
        hpcc)
            for np in $(seq 16); do
                read -r p q <<<"$(grid "$np")"
                sed -e "s/@P@/$p/" -e "s/@Q@/$q/" "$APPS_DIR/inputs/hpccinf.txt.in" >"$INPUTS/hpccinf-$np.txt"
            done ;;
        scalapack)
            for np in $(seq 16); do
                read -r p q <<<"$(grid "$np")"
                lu_input "$p" "$q" 2 "200 400" >"$INPUTS/LU-$np.dat"
                lu_input "$p" "$q" 1 "$LU_CLUSTER_N" >"$INPUTS/LU-cluster-$np.dat"
            done ;;
        *) die "unknown application '$app' (known: $ALL_APPS)" ;;
    esac
done
