#!/usr/bin/env bash
# make apps: real MPI applications (LAMMPS, GROMACS, HPC Challenge, ScaLAPACK's tests) under
# the vendor's MPI and under hiercoll's preload, their answers compared, one table at the end.
#
#   bash tools/apps/apps.sh [local|cluster]        (make apps [APPS_MODE=cluster])
#
# local (default): every application at APPS_NP ranks (2 4 8) on this machine; each
#   repetition runs the vendor, the preload and the preload with HIERCOLL_PROFILE, one after
#   the other (alternating, each repetition starting with the next mode), APPS_REPS (5) times. Table: median wall times, hiercoll / vendor,
#   whether the answers are the vendor's, the share of the time in MPI_Bcast + MPI_Allreduce
#   and in all of MPI (from the profiled runs), and the profiling overhead (profiled /
#   hiercoll).
# cluster: the two-pass workflow on a cluster of namespaces (tools/cluster/hiercoll-cluster,
#   root): 2 hosts of 4 ranks, links at each of APPS_RATES (1gbit 100mbit), each Open MPI
#   application launched in each of APPS_ORDERS (slot: Open MPI's default, ranks fill a host
#   first; node: --map-by node, round robin over the hosts; slurm-cyclic: srun's cyclic
#   distribution on the cluster running Slurm, an order of its own: APPS_ORDERS=slurm-cyclic).
#   Pass 1 profiles (hiercoll profile), pass 2 is next-run.sh;
#   then APPS_REPS alternating runs of each (1 2, 2 1, ...), both profiled so they carry the
#   same overhead.
#
# Variables: APPS (default: every application), APPS_NP ("2 4 8"), APPS_REPS (5), APPS_QUICK=1
# (one repetition, the check that everything runs), APPS_OUT (build/apps), APPS_RATES,
# APPS_ORDERS, APPS_HOSTS (2), APPS_RANKS_PER_HOST (4), APPS_TIMEOUT (600 s a run), V=1 (show
# every command's output), APPS_INSTALL=0 (do not install packages).
. "$(dirname "$0")/common.bash"
MODE=${1:-${APPS_MODE:-local}}
APPS=${APPS:-$ALL_APPS}
REPS=${APPS_REPS:-5}
[ -n "${APPS_QUICK:-}" ] && REPS=1
TIMEOUT=${APPS_TIMEOUT:-600}
HC=$BUILD/bin/hiercoll
t_start=$(date +%s)
mkdir -p "$OUT/logs"
case $MODE in local|cluster) ;; *) die "mode '$MODE': local or cluster" ;; esac
[ -x "$HC" ] || die "$HC is missing: run make first"

# --- packages and inputs ------------------------------------------------------------------
if [ "${APPS_INSTALL:-1}" != 0 ]; then
    step "Installing the applications (log: $OUT/logs/install.log)"
    if logged "$OUT/logs/install.log" bash "$APPS_DIR/install.sh" $APPS; then
        done_step "$(tail -n 1 "$OUT/logs/install.log")"
    else
        done_step "failed, see $OUT/logs/install.log (applications that are missing are skipped)"
    fi
fi
runnable=""
for app in $APPS; do
    why=$(app_missing "$app" "$MODE")
    if [ -n "$why" ]; then echo "$app: skipped: $why"; else runnable="$runnable $app"; fi
done
[ -n "$runnable" ] || die "no application can run here"
step "Preparing the inputs in $INPUTS (log: $OUT/logs/inputs.log)"
logged "$OUT/logs/inputs.log" bash "$APPS_DIR/inputs.sh" $runnable ||
    { done_step "failed"; tail -n 20 "$OUT/logs/inputs.log"; exit 1; }
done_step "done"

# answer_of APP REF RUN: "same", "differs" (why in RUN/answer.txt-check) or "failed"
answer_of() {
    local app=$1 ref=$2 run=$3 out
    out=$(python3 "$APPS_DIR/answer.py" compare "$app" "$ref" "$run" 2>&1)
    echo "$out" >"$(dirname "$run")/answer-check.txt"
    case $out in same) echo same ;; *) echo differs ;; esac
}

# rotate K WORD...: the words starting from the K-th (1-based, cyclically)
rotate() {
    local k=$1
    shift
    local words=("$@") i
    for ((i = 0; i < ${#words[@]}; i++)); do
        printf '%s\n' "${words[(k - 1 + i) % ${#words[@]}]}"
    done
}

# --- local: vendor, hiercoll, profiled -----------------------------------------------------
run_local() {
    local results=$OUT/results.tsv
    NPS=${APPS_NP:-2 4 8}
    printf 'app\tnp\tmode\trep\tseconds\tanswer\tprofile\n' >"$results"
    local app np rep mode fam dir t ans ref total n
    for app in $runnable; do
        fam=$(app_family "$app")
        for np in $NPS; do
            app_cmd "$app" "$np"
            total=$((REPS * 3)) n=0
            step "$app, $np ranks ($fam): $REPS x (vendor, hiercoll, profiled)"
            ref=""
            for rep in $(seq "$REPS"); do
                # each repetition starts with the next mode, so no mode always runs first
                # (after another application's runs) or last
                for mode in $(rotate "$rep" vendor hiercoll profiled); do
                    n=$((n + 1))
                    dir=$OUT/runs/$app/np$np/$mode.$rep
                    rm -rf "$dir" && mkdir -p "$dir"
                    (cd "$dir" && "${SETUP[@]}")
                    launch_cmd "$fam" "$np" "$mode" "$dir/profile"
                    progress "$n/$total: $mode"
                    t=$(timed_run "$dir" "$TIMEOUT" "${LAUNCH[@]}" "${CMD[@]}")
                    [ "$ANSWER" = stdout.txt ] || cp "$dir/$ANSWER" "$dir/answer.out" 2>/dev/null
                    [ "$ANSWER" = stdout.txt ] && cp "$dir/stdout.txt" "$dir/answer.out"
                    if [ "$t" = failed ]; then
                        ans=failed
                    else
                        # the vendor's first run is the reference; every other run is
                        # compared with it (the vendor's too: a run must repeat itself)
                        [ -z "$ref" ] && [ "$mode" = vendor ] && ref=$dir/answer.out
                        ans=$(answer_of "$app" "${ref:-$dir/answer.out}" "$dir/answer.out")
                    fi
                    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$app" "$np" "$mode" "$rep" "$t" "$ans" \
                        "$([ "$mode" = profiled ] && echo "$dir/profile")" >>"$results"
                    if [ "$ans" != same ]; then
                        echo >&2
                        echo "apps: $app $np ranks $mode run $rep: $ans ($dir: stdout.txt, stderr.txt, answer-check.txt)" >&2
                    fi
                done
            done
            done_step "$(python3 "$APPS_DIR/table.py" --brief "$results" "$app" "$np")"
        done
    done
    echo
    echo "== Applications under the vendor's MPI and under hiercoll ($(date -u +%Y-%m-%d), $REPS runs each, load $(cut -d' ' -f1-3 /proc/loadavg))"
    python3 "$APPS_DIR/table.py" "$results" | tee "$OUT/table.txt"
}

# --- cluster: the two-pass workflow -----------------------------------------------------------
CLUSTER=$TOP/tools/cluster/hiercoll-cluster
# order_launch ORDER NP: sets ORDER_LAUNCH (the launcher with its placement options),
# ORDER_ALLOC (what pass 1 runs inside: Slurm's allocation) and
# ORDER_ENV (how it passes variables: env_opts), or sets ORDER_WHY (why the order cannot run
# here) and returns 1.
order_launch() {
    ORDER_ALLOC=()
    case $1 in
        slot) ORDER_LAUNCH=(mpirun.openmpi -n "$2") ORDER_ENV=openmpi ;;
        node) ORDER_LAUNCH=(mpirun.openmpi --map-by node -n "$2") ORDER_ENV=openmpi ;;
        slurm-cyclic)
            # Slurm's round robin over the hosts: the cluster runs Slurm (up --slurm), srun
            # starts the ranks through PMIx, and next-run.sh starts pass 2 with srun too.
            if [ -z "$SLURM_UP" ]; then
                ORDER_WHY="needs Slurm on the cluster: APPS_ORDERS=slurm-cyclic (an order of its own)"
                return 1
            fi
            ORDER_LAUNCH=(srun --mpi=pmix --distribution=cyclic -N "$HOSTS" -n "$2" --overcommit)
            ORDER_ALLOC=("${SLURM_ALLOC[@]}")
            ORDER_ENV=srun ;;
        *) ORDER_WHY="unknown order '$1' (slot, node, slurm-cyclic)"; return 1 ;;
    esac
}

# env_opts VAR[=VALUE]...: the launcher's options that give the ranks these variables (a
# name alone: its value here) into ENV_OPTS.
env_opts() {
    ENV_OPTS=()
    if [ "$ORDER_ENV" = srun ]; then
        local list=ALL v
        for v in "$@"; do list+=",$v"; done
        ENV_OPTS=(--export="$list")
    else
        local v
        for v in "$@"; do ENV_OPTS+=(-x "$v"); done
    fi
}

run_cluster() {
    local rates=${APPS_RATES:-1gbit 100mbit} orders=${APPS_ORDERS:-slot node}
    HOSTS=${APPS_HOSTS:-2}
    # Under Slurm, mpirun.openmpi needs an allocation of its own: Slurm's order runs alone.
    # Jobs get every core of the hosts, as pass 2's next-run.sh asks: srun's or salloc's own
    # allocation with --overcommit would give a job one CPU a host.
    SLURM_UP=""
    SLURM_ALLOC=(salloc -N "$HOSTS" -n "$((HOSTS * $(getconf _NPROCESSORS_ONLN)))")
    if [[ " $orders " == *" slurm-cyclic "* ]]; then
        [ "$(echo $orders)" = slurm-cyclic ] ||
            die "APPS_ORDERS: slurm-cyclic runs alone (the cluster then runs Slurm)"
        SLURM_UP=--slurm
    fi
    local rph=${APPS_RANKS_PER_HOST:-4}
    local np=$((HOSTS * rph)) results=$OUT/cluster.tsv
    local why
    why=$(bash "$CLUSTER" check 2>&1) || die "no cluster of namespaces here: ${why#hiercoll-cluster: }"
    export HC_CLUSTER=apps-$$
    trap 'bash "$CLUSTER" down --name "$HC_CLUSTER" >/dev/null 2>&1' EXIT
    trap 'exit 130' INT TERM
    local ON=(bash "$CLUSTER" exec --name "$HC_CLUSTER" h1)
    # The runs are longer than the local ones: compare the MD codes at step 200, before chaos
    # amplifies another summation order's last bits past the tolerance (docs/apps.md).
    export APPS_ANSWER_STEP=${APPS_ANSWER_STEP:-200}
    local lib
    lib=$(family_lib ompi)
    printf 'rate\tapp\torder\tpass\trep\tseconds\tanswer\tprofile\tmapping\n' >"$results"
    local rate app order d rep t ans ref mapping
    for rate in $rates; do
        step "Cluster: $HOSTS hosts of $rph ranks, links at $rate (log: $OUT/logs/cluster-$rate.log)"
        logged "$OUT/logs/cluster-$rate.log" bash "$CLUSTER" up "$HOSTS" --rate "$rate" \
            --ranks-per-host "$rph" --name "$HC_CLUSTER" $SLURM_UP || { done_step "failed"; exit 1; }
        # the levels, measured: the mapping takes the link's and shared memory's bandwidths
        local perf=$OUT/cluster/$rate/machine-perf.txt
        mkdir -p "$(dirname "$perf")"
        progress "measuring the levels (hiercoll commperf)"
        local alloc=()
        [ -n "$SLURM_UP" ] && alloc=("${SLURM_ALLOC[@]}")
        logged "$OUT/logs/commperf-$rate.log" "${ON[@]}" "${alloc[@]}" env MPIEXEC=mpirun.openmpi \
            OMPI_MCA_rmaps_base_mapping_policy=node "$HC" commperf --np 4 --iters 50 --out "$perf"
        if grep -q '^level network' "$perf" 2>/dev/null; then
            export HIERCOLL_MACHINE_FILE=$perf
            done_step "up; $(awk '$1 == "level" { printf "%s %.0f MB/s  ", $2, $6 / 1e6 }' "$perf")"
        else
            unset HIERCOLL_MACHINE_FILE
            done_step "up; commperf measured no network level (built-in bandwidths)"
        fi
        for app in $runnable; do
            app_cmd "$app" "$np" cluster
            for order in $orders; do
                if ! order_launch "$order" "$np"; then
                    echo "$app, $order: skipped: $ORDER_WHY"
                    continue
                fi
                d=$OUT/cluster/$rate/$app/$order
                rm -rf "$d" && mkdir -p "$d/run" "$d/runs"
                (cd "$d/run" && "${SETUP[@]}")
                step "$app at $rate, order $order: pass 1 profiled, then $REPS x (pass 1, pass 2)"
                progress "pass 1: hiercoll profile"
                env_opts OMP_NUM_THREADS GMX_MAXBACKUP
                if ! (cd "$d/run" && logged "$d/profile.log" "${ON[@]}" "${ORDER_ALLOC[@]}" "$HC" profile --out "$d/prof" -- \
                        "${ORDER_LAUNCH[@]}" "${ENV_OPTS[@]}" "${CMD[@]}"); then
                    done_step "pass 1 failed: see $d/profile.log"
                    continue
                fi
                mapping=$(python3 "$APPS_DIR/table.py" --mapping "$d/prof")
                ref=""
                for rep in $(seq "$REPS"); do
                    for pass in $(rotate "$rep" 1 2); do
                        progress "run $rep/$REPS: pass $pass"
                        local rd=$d/runs/p$pass.$rep
                        mkdir -p "$rd"
                        # the passes share the run folder: HPCC appends to its output
                        rm -f "$d/run/$ANSWER"
                        if [ $pass = 1 ]; then
                            env_opts OMP_NUM_THREADS GMX_MAXBACKUP "LD_PRELOAD=$lib" \
                                "HIERCOLL_PROFILE=$rd/profile"
                            t=$(timed_run "$d/run" "$TIMEOUT" "${ON[@]}" "${ORDER_ALLOC[@]}" "${ORDER_LAUNCH[@]}" \
                                "${ENV_OPTS[@]}" "${CMD[@]}")
                        elif [ -s "$d/prof/next-run.sh" ]; then
                            t=$(HIERCOLL_PROFILE=$rd/profile timed_run "$d/run" "$TIMEOUT" \
                                "${ON[@]}" sh "$d/prof/next-run.sh")
                        else
                            t=failed
                        fi
                        for f in stdout.txt stderr.txt rc; do cp "$d/run/$f" "$rd/" 2>/dev/null; done
                        cp "$d/run/$ANSWER" "$rd/answer.out" 2>/dev/null
                        if [ "$t" = failed ]; then
                            ans=failed
                        else
                            [ -z "$ref" ] && ref=$rd/answer.out
                            ans=$(answer_of "$app" "$ref" "$rd/answer.out")
                        fi
                        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$rate" "$app" "$order" "$pass" \
                            "$rep" "$t" "$ans" "$rd/profile" "$mapping" >>"$results"
                        [ "$ans" = same ] || { echo >&2; echo "apps: $app $order pass $pass run $rep: $ans ($rd)" >&2; }
                    done
                done
                done_step "$(python3 "$APPS_DIR/table.py" --cluster-brief "$results" "$rate" "$app" "$order")"
            done
        done
        bash "$CLUSTER" down --name "$HC_CLUSTER" >/dev/null 2>&1
    done
    echo
    echo "== The two-pass workflow on $HOSTS hosts x $rph ranks ($(date -u +%Y-%m-%d), $REPS alternating runs each, load $(cut -d' ' -f1-3 /proc/loadavg))"
    python3 "$APPS_DIR/table.py" --cluster "$results" | tee "$OUT/cluster-table.txt"
}

if [ "$MODE" = cluster ]; then run_cluster; else run_local; fi
echo "Done in $(( $(date +%s) - t_start )) s. Runs, logs and answers: $OUT (table: $OUT/$([ "$MODE" = cluster ] && echo cluster-table.txt || echo table.txt))"
