# The two-pass workflow under Slurm, on a Slurm cluster of namespaces: pass 1 through
# `hiercoll profile -- srun` writes a profile whose matrices are exact and that records the
# Slurm job; next-run.sh (srun --distribution=arbitrary, hiercoll bind) and next-run.sbatch run
# every rank on its mapped host and core, as each rank checks itself (slurm_probe.c); inside an
# allocation of other hosts the mapping is made again onto them, and one with too few CPUs is a
# clear error; the family's own launcher inside an allocation (Open MPI's mpirun, MPICH's
# Hydra) goes through the same two passes.
# Open MPI: 4 ranks on 2 hosts, launched round robin (srun --mpi=pmix). MPICH: its exit hangs
# across hosts on this machine (docs/cluster.md), so 2 ranks on one host that is not the one
# srun runs on (srun --mpi=pmi2).
# hc-test: each-family
. tests/e2e/cli_common.bash
. tests/e2e/slurm_common.bash
"$MPICC" -o "$TMP/probe" tests/e2e/slurm_probe.c || fail "cannot build the probe"
P=$TMP/probe
if [ "$HC_FAMILY" = ompi ]; then
    cluster_up 4 --slurm
    pass1=(srun --mpi=pmix -N2 -w h1,h2 -n4 --distribution=cyclic)
    np=4 hosts='h[12]' other=(-N2 -w h3,h4 -n4) other_hosts='h[34]'
    in_alloc=(salloc -N2 -w h1,h2 -n4) launcher=(mpirun.openmpi -n 4 --map-by node)
    short=(-N1 -w h3 -n2)
else
    cluster_up 2 --slurm
    pass1=(srun --mpi=pmi2 -N1 -w h2 -n2)
    np=2 hosts=h2 other=(-N1 -w h1 -n2) other_hosts=h1
    in_alloc=(salloc -N1 -w h2 -n2) launcher=(mpiexec.mpich -n 2)
    short=(-N1 -w h1 -n1)
fi
cd "$TMP"

# pass 1
mkdir out
job_on1 pass1.log "$HC" profile --out "$TMP/p" -- "${pass1[@]}" "$P" "$TMP/out" ||
    { cat pass1.log; fail "pass 1: ${pass1[*]}"; }
r1=$(newest_job)
grep -q ' unmapped$' $r1/rank.0 || fail "pass 1 ran under a mapping: $(cat $r1/rank.0)"
matrix_exact p "$np"
expect_in p/machine.txt '^slurm job [0-9]+ nodes [^ ]+ cpus_per_node [^ ]+$'
# the hosts Slurm gave, as launched: round robin for Open MPI
[ "$(awk '$1 == "rank" { print $4 }' p/machine.txt | tr '\n' ' ')" = "$(awk '{ print $4 }' $r1/rank.* | tr '\n' ' ')" ] ||
    { cat p/machine.txt $r1/rank.*; fail "machine.txt does not say where the ranks ran"; }
expect_in p/machine.txt '^host h[0-9] cores 1 0;1$'
for f in mapping.txt slurm.hostfile next-run.sh next-run.sbatch; do
    [ -s "p/$f" ] || { cat pass1.log; fail "no $f"; }
done
expect_in p/next-run.sh '--distribution=arbitrary'
expect_in p/next-run.sh "^    '--mpi=pmi[x2]' \\\\$"
expect_in p/next-run.sh 'tuning.txt'
grep -Eq -- "-N2|'-w'|cyclic" p/next-run.sh && { cat p/next-run.sh; fail "next-run.sh keeps placement"; }

# pass 2, outside an allocation: srun allocates the mapping's hosts itself
job_on1 pass2.log sh p/next-run.sh || { cat pass2.log; fail "pass 2 (next-run.sh)"; }
r2=$(newest_job)
ranks_ok "$r2" "$np" "$hosts"
diff <(awk '$1 == "rank" { print $4, $6 }' p/mapping.txt) <(cat "$r2"/rank.* | awk '{ print $4, $6 }') ||
    fail "pass 2: not the mapping's hosts and cores"
echo "pass 2 (next-run.sh): $np ranks on their mapped hosts and cores"

# the batch job next-run.sbatch
JOB_OUT=$TMP/batch.out job_on1 batch.log sbatch --wait -o "$TMP/batch.out" p/next-run.sbatch ||
    { cat batch.log batch.out; fail "sbatch --wait next-run.sbatch"; }
ranks_ok "$(newest_job)" "$np" "$hosts"
echo "next-run.sbatch: $np ranks on their mapped hosts and cores"

# an allocation of other hosts: mapped again onto them, and the ranks go there
job_on1 other.log salloc "${other[@]}" sh p/next-run.sh || { cat other.log; fail "next-run.sh in ${other[*]}"; }
expect_in other.log 'is not in the allocation: mapped again onto the allocation in'
r=$(newest_job)
ranks_ok "$r" "$np" "$other_hosts"
job=${r##*job-}
diff <(awk '$1 == "rank" { print $4, $6 }' "p/alloc-$job/mapping.txt") <(cat "$r"/rank.* | awk '{ print $4, $6 }') ||
    fail "another allocation: not its mapping's hosts and cores"
echo "allocation ${other[*]}: mapped again, $np ranks on their new hosts and cores"

# too few CPUs for the ranks: one clear line, and no job step
n_before=$(ls -d out/job-* | wc -l)
on1 salloc "${short[@]}" sh p/next-run.sh >short.log 2>&1 && { cat short.log; fail "ran on too few CPUs"; }
expect_in short.log "^hiercoll map: .*the allocation has [0-9]+ CPUs? for $np ranks: ask for --ntasks=$np$"
[ "$(ls -d out/job-* | wc -l)" = "$n_before" ] || fail "a job step ran on too few CPUs"
echo "allocation ${short[*]}: $(grep -o 'the allocation has.*' short.log)"

# the family's launcher inside an allocation, both passes (pass 2 makes its own allocation)
job_on1 q1.log "${in_alloc[@]}" "$HC" profile --out "$TMP/q" -- "${launcher[@]}" "$P" "$TMP/out" ||
    { cat q1.log; fail "pass 1: ${in_alloc[*]} ${launcher[*]}"; }
expect_in q/next-run.sh "^exec '${launcher[0]}'"
expect_in q/next-run.sh '^\[ -n "\$\{SLURM_JOB_ID:-\}" \] \|\| exec salloc '
job_on1 q2.log sh q/next-run.sh || { cat q/next-run.sh q2.log; fail "pass 2 of ${launcher[0]} in an allocation"; }
ranks_ok "$(newest_job)" "$np" "$hosts"
echo "${launcher[0]} inside salloc: $np ranks on their mapped hosts and cores in pass 2"
