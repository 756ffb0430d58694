# hiercoll-cluster up 2 --slurm: sinfo lists both hosts idle, srun -N2 -n2 hostname prints
# both names, a batch job runs, and down leaves no Slurm daemon and no munged behind.
. tests/e2e/cluster_common.bash
"$CLUSTER" check --slurm || exit 77
cluster_up 2 --slurm
state=$(on h1 sinfo -h -N -o '%N %t' | sort | tr '\n' ' ')
[ "$state" = "h1 idle h2 idle " ] || fail "sinfo: '$state'"
names=$(on h1 timeout 60 srun -N2 -n2 hostname | sort | tr '\n' ' ')
[ "$names" = "h1 h2 " ] || fail "srun -N2 -n2 hostname printed '$names'"
printf '#!/bin/sh\nhostname\n' >"$TMP/job.sh"
on h1 timeout 60 sbatch --wait -N1 -w h2 -o "$TMP/job.out" "$TMP/job.sh" >/dev/null ||
    fail "sbatch --wait"
[ "$(cat "$TMP/job.out")" = h2 ] || fail "the batch job printed '$(cat "$TMP/job.out")'"
state_dir=${HC_CLUSTER_STATE:-/run/hiercoll-cluster}/$HC_CLUSTER
"$CLUSTER" down --name "$HC_CLUSTER" >/dev/null || fail "down"
# nothing of this cluster left running: no process (but an exited one not yet reaped) names
# its folder, as every daemon's command line does
left=""
for pid in $(pgrep -f -- "$state_dir"); do
    [ "$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)" = Z ] || left="$left $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"
done
[ -z "$left" ] || fail "left running after down: $left"
[ ! -e "$state_dir" ] || fail "$state_dir left behind"
echo "ok: sinfo h1 h2 idle, srun on both, sbatch on h2, nothing left after down"
