# Sourced by hiercoll-cluster: a Slurm cluster on the namespace hosts (up --slurm).
#
# One munged (in the first host, its own key and socket in the cluster's state folder, so a
# munged of this machine is neither used nor disturbed), slurmctld on the first host, and a
# slurmd on every host under its own name and address. Every daemon runs inside a host's
# namespaces, so `down` ends them with the host (pids_in_netns). Clients (sinfo, srun, salloc,
# sbatch) find the cluster through SLURM_CONF, which `exec` sets. docs/cluster.md says why each
# setting of the generated slurm.conf is there.

SLURM_TOOLS="munged slurmctld slurmd slurmstepd srun sinfo scontrol"

# Shell commands (each ending in &&) that mount, on a host's own /sys, the cgroup file systems
# this machine has under /sys/fs/cgroup: slurmd refuses to start without them, even with
# plugins that use no cgroup. Mounting a hierarchy again attaches the existing one.
slurm_cgroup_mounts() {
    awk '$2 == "/sys/fs/cgroup" && $3 == "tmpfs" { printf "mount -t tmpfs -o mode=755 cgroup %s && ", $2 }
         $2 ~ "^/sys/fs/cgroup" && ($3 == "cgroup" || $3 == "cgroup2") {
             o = $4; gsub(/(^|,)(rw|ro|relatime|nosuid|nodev|noexec)(,|$)/, ",", o)
             gsub(/^,+|,+$/, "", o); gsub(/,,+/, ",", o)
             printf "mkdir -p %s && mount -t %s %s%s %s %s && ", $2, $3, o == "" ? "" : "-o ", o, $3, $2 }' /proc/self/mounts
}

# A folder of the state that each host mounts a tmpfs of its own on, as a node's local disk:
# Slurm's PMIx plugin makes its folders for a job step under TmpFS by fixed names, which the
# hosts' shared /tmp would make collide.
slurm_local_mount() {
    local d
    d="$(state_dir)/slurm/local"
    mkdir -p "$d" || die "cannot create $d"
    echo "mount -t tmpfs -o mode=1777 local '$d' && "
}

slurm_check() {
    local t
    for t in $SLURM_TOOLS; do
        command -v "$t" >/dev/null ||
            cannot "$t is not installed (apt-get install slurm-wlm munge; see docs/cluster.md)"
    done
}

# The slurm.conf node line of HOST, from what slurmd itself detects there (hwloc, with the
# host's own --host-env, e.g. a smaller HWLOC_XMLFILE): sockets, cores and threads as slurmd
# will check them at registration. RealMemory is left out: no job asks for memory, and all
# hosts share this machine's.
slurm_node_line() {
    local host=$1 i=$2 conf
    conf=$( (cmd_exec "$host" slurmd -C) 2>/dev/null | head -1)
    [[ $conf == NodeName=* ]] || die "slurmd -C on $host printed no node line"
    conf=$(sed -E 's/ (RealMemory|Boards)=[^ ]*//g; s/^NodeName=[^ ]*//' <<<"$conf")
    echo "NodeName=$host NodeAddr=$SUBNET.$i$conf State=UNKNOWN"
}

slurm_write_conf() {
    local dir=$1 sd=$1/slurm i
    local hosts=()
    mapfile -t hosts <"$dir/hosts.list"
    {
        cat <<EOF
# hiercoll-cluster: Slurm on the namespace hosts of cluster $NAME (docs/cluster.md)
ClusterName=hc
SlurmctldHost=${hosts[0]}($SUBNET.1)
SlurmUser=root
SlurmdUser=root
# this cluster's own munged (not the machine's)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sd/munge.socket
StateSaveLocation=$sd/state
SlurmdSpoolDir=$sd/spool/%n
SlurmctldPidFile=$sd/slurmctld.pid
SlurmdPidFile=$sd/slurmd-%n.pid
SlurmctldLogFile=$sd/log/slurmctld.log
SlurmdLogFile=$sd/log/slurmd-%n.log
# each host mounts its own /sys, without cgroups: processes are tracked by parentage and
# bound with sched_setaffinity, which need none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
# cores are the unit a job is given, as on most clusters
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
# a folder of each host's own (PMIx makes its step folders there by fixed names)
TmpFS=$sd/local
# a host that restarts comes back by itself; jobs end quickly when asked to
ReturnToService=2
KillWait=5
MailProg=/bin/true
EOF
        for i in "${!hosts[@]}"; do slurm_node_line "${hosts[i]}" $((i + 1)); done
        echo "PartitionName=hc Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
    } >"$sd/slurm.conf.tmp" || return 1
    mv "$sd/slurm.conf.tmp" "$sd/slurm.conf"
}

# A daemon in HOST's namespaces, in the background; its output goes to log/NAME.out.
slurm_daemon() {
    local host=$1 name=$2
    shift 2
    (cmd_exec "$host" setsid "$@" </dev/null >"$(state_dir)/slurm/log/$name.out" 2>&1 &)
}

slurm_up() {
    local dir sd h1 i
    dir=$(state_dir)
    sd=$dir/slurm
    mkdir -p "$sd/state" "$sd/spool" "$sd/log" || die "cannot create $sd"
    chmod 700 "$sd"
    touch "$dir/slurm.on"
    h1=$(head -1 "$dir/hosts.list")
    # munge: a key of the cluster's own (munged insists it is readable by its owner only)
    head -c 1024 /dev/urandom >"$sd/munge.key" && chmod 400 "$sd/munge.key" || die "munge key"
    slurm_daemon "$h1" munged munged --foreground --force --key-file="$sd/munge.key" \
        --socket="$sd/munge.socket" --pid-file="$sd/munged.pid" --log-file="$sd/log/munged.log" \
        --seed-file="$sd/munged.seed"
    for i in $(seq 100); do [ -S "$sd/munge.socket" ] && break; sleep 0.05; done
    [ -S "$sd/munge.socket" ] || die "munged did not start: $(cat "$sd/log/munged.out" "$sd/log/munged.log" 2>/dev/null)"
    slurm_write_conf "$dir" || die "cannot write $sd/slurm.conf"
    slurm_daemon "$h1" slurmctld slurmctld -D -f "$sd/slurm.conf"
    local h
    for h in $(cat "$dir/hosts.list"); do
        slurm_daemon "$h" "slurmd-$h" slurmd -D -N "$h" -f "$sd/slurm.conf"
    done
    # ready when every node is idle (slurmd registered with the node line slurmctld expects)
    local n state=""
    n=$(wc -l <"$dir/hosts.list")
    for i in $(seq 200); do
        state=$( (cmd_exec "$h1" sinfo -h -N -o '%N %t') 2>/dev/null)
        [ "$(grep -c ' idle$' <<<"$state")" = "$n" ] && return 0
        sleep 0.1
    done
    die "Slurm did not come up (nodes: ${state:-none}); logs in $sd/log: $(tail -n 3 "$sd"/log/*.log 2>/dev/null)"
}
