#!/usr/bin/env bash
# next-run.sh launches the second run like the first: a launcher option (Hydra's
# -prepend-rank, Open MPI's --tag-output) and another library's variable given to the ranks
# (-genv / -x UCX_LOG_LEVEL) come back, what is about placement (-n, the profile directory)
# does not, and each rank runs bound to the core the mapping gives it. A probe program reports
# from inside every rank: its CPUs, the variable, and the launcher's output prefix.
# hc-test: each-family
. tests/e2e/cli_common.bash
[ "$(nproc)" -ge 2 ] || { echo "skip: needs 2 cores"; exit 77; }
cat >"$TMP/who.c" <<'C'
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* Each rank prints "rank R cpus LIST env VALUE" (its affinity, UCX_LOG_LEVEL), after a ring of
 * messages so that the profile has a task graph. */
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, token = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < 10; i++)
        MPI_Sendrecv_replace(&token, 1, MPI_INT, (rank + 1) % size, 0, (rank + size - 1) % size,
                             0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    cpu_set_t s;
    sched_getaffinity(0, sizeof s, &s);
    char cpus[256] = "";
    for (int c = 0; c < CPU_SETSIZE && strlen(cpus) < 200; c++)
        if (CPU_ISSET(c, &s))
            snprintf(cpus + strlen(cpus), sizeof cpus - strlen(cpus), "%s%d", *cpus ? "," : "", c);
    const char *v = getenv("UCX_LOG_LEVEL");
    printf("rank %d cpus %s env %s\n", rank, cpus, v ? v : "(unset)");
    MPI_Finalize();
    return 0;
}
C
"$MPICC" -o "$TMP/who" "$TMP/who.c" || fail "cannot build the probe program"
if [ "$HC_FAMILY" = ompi ]; then option=--tag-output prefix='^\[1,[0-9]+\]<stdout>:'
else option=-prepend-rank prefix='^\[[0-9]+\] '; fi

cd "$TMP"
mpi_cmd 4 LD_PRELOAD="$LIB" HIERCOLL_PROFILE="$TMP/p1" HIERCOLL_VIRTUAL_NODE_SIZE=2 \
    UCX_LOG_LEVEL=warn "$TMP/who"
MPI_CMD=("${MPI_CMD[0]}" "$option" "${MPI_CMD[@]:1}")
timeout 120 "${MPI_CMD[@]}" >run1.out 2>run1.err || { cat run1.out run1.err; fail "run 1 failed"; }
[ -s p1/next-run.sh ] || { cat run1.err; fail "no next-run.sh"; }
cat p1/next-run.sh
expect_in p1/next-run.sh "^exec '$MPIEXEC'"
expect_in p1/next-run.sh "'$option'"
if [ "$HC_FAMILY" = ompi ]; then
    expect_in p1/next-run.sh "'-x' 'UCX_LOG_LEVEL=warn'"
else
    expect_in p1/next-run.sh "'-genv' 'UCX_LOG_LEVEL' 'warn'"
fi
# placement and this run's own settings are not repeated: one -n, no profile directory
[ "$(grep -c -- " -n \| '-n' " p1/next-run.sh)" -eq 1 ] || fail "next-run.sh repeats -n"
grep -q "HIERCOLL_PROFILE.*$TMP/p1'" p1/next-run.sh && fail "next-run.sh carries the first run's profile directory"

timeout 120 sh p1/next-run.sh >run2.out 2>run2.err || { cat run2.out run2.err; fail "run 2 failed"; }
grep -q "assigns it" run2.err && { cat run2.err; fail "run 2: a rank is not where the mapping says"; }
lines=$(grep -E "${prefix}rank [0-9]+ cpus" run2.out | wc -l)
[ "$lines" -eq 4 ] || { cat run2.out; fail "run 2: $lines prefixed rank lines, want 4 ($option)"; }
for r in 0 1 2 3; do
    core=$(awk -v r="$r" '$1 == "rank" && $2 == r { print $6 }' p1/mapping.txt)
    line=$(grep -E "${prefix}rank $r cpus" run2.out | sed -E "s/$prefix//")
    # bound to the mapped core: that CPU alone, or with its hardware-thread siblings
    siblings=$(cat "/sys/devices/system/cpu/cpu$core/topology/thread_siblings_list" 2>/dev/null)
    [ "$line" = "rank $r cpus $core env warn" ] || [ "$line" = "rank $r cpus $siblings env warn" ] ||
        fail "run 2, rank $r: '$line', want core $core and UCX_LOG_LEVEL=warn"
done
echo "ok   run 2: $option and UCX_LOG_LEVEL kept, every rank on its mapped core"
