# The machinefile `hiercoll map` writes for several hosts, launched by MPICH Hydra: every rank
# starts on the machinefile line (host) and the core the mapping gives it. Hosts are emulated
# with Hydra's fork launcher: every "host" is this machine, but Hydra still starts one proxy
# per machinefile line and binds that proxy's ranks by the line's binding=user: list, as it
# does on a cluster. So ranks of one line must share a proxy process and other lines not.
# Open MPI's rankfile is launched by remap_stencil.sh and remap_launcher.sh (one host).
# hc-test: each-family
. tests/e2e/cli_common.bash
[ "$HC_FAMILY" = mpich ] || { echo "skip: the machinefile is for MPICH's Hydra"; exit 77; }
[ "$(nproc)" -ge 2 ] || { echo "needs 2 cores"; exit 77; }

# tests/e2e/pairs8.graph: 8 tasks in 4 heavy pairs joined by a light ring; a good mapping keeps
# pairs on one host.
cat >"$TMP/who.c" <<'C'
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    cpu_set_t s;
    sched_getaffinity(0, sizeof s, &s);
    /* rank 0 prints all, so lines from different processes cannot interleave */
    int mine[2] = {(int)getppid(), 0}, size, *all;
    for (int c = 0; c < 30; c++)
        if (CPU_ISSET(c, &s))
            mine[1] |= 1 << c;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int buf[2 * 64];
    all = buf;
    MPI_Gather(mine, 2, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD);
    for (int r = 0; rank == 0 && r < size && r < 64; r++) {
        printf("rank %d proxy %d cpus", r, all[2 * r]);
        for (int c = 0; c < 30; c++)
            if (all[2 * r + 1] >> c & 1)
                printf(" %d", c);
        printf("\n");
    }
    MPI_Finalize();
    return 0;
}
C
mpicc.mpich -o "$TMP/who" "$TMP/who.c" || fail "cannot build the probe program"
expect_status 0 "$HC" map --graph tests/e2e/pairs8.graph --machine "node:4 core:2" \
    --bandwidths 1e9,8e9 --out "$TMP/m"
HYDRA_LAUNCHER=fork timeout 60 "$MPIEXEC" -f "$TMP/m/machinefile" -n 8 "$TMP/who" \
    >"$TMP/run" 2>&1 || { cat "$TMP/run"; fail "Hydra did not run the machinefile"; }
python3 - "$TMP/m/mapping.txt" "$TMP/m/machinefile" "$TMP/run" <<'PY' || fail "placement"
import re, sys
mapping = {}
for l in open(sys.argv[1]):
    m = re.match(r"rank (\d+) host (\S+) core (\d+)$", l.strip())
    if m:
        mapping[int(m[1])] = (m[2], int(m[3]))
lines = [l.split() for l in open(sys.argv[2]) if l.strip() and not l.startswith("#")]
ran = {}
for l in open(sys.argv[3]):
    m = re.match(r"rank (\d+) proxy (\d+) cpus ([\d ]+)$", l.strip())
    if m:
        ran[int(m[1])] = (int(m[2]), [int(c) for c in m[3].split()])
assert sorted(mapping) == list(range(8)) and sorted(ran) == list(range(8)), (mapping, ran)
rank, proxies = 0, []
for host_count, binding in lines:
    host, count = host_count.split(":")
    cores = [int(c) for c in binding.removeprefix("binding=user:").split(",")]
    assert len(cores) == int(count), host_count
    group = range(rank, rank + int(count))
    for r, core in zip(group, cores):
        assert mapping[r] == (host, core), f"line {host_count}: rank {r} is {mapping[r]}"
        assert ran[r][1] == [core], f"rank {r} runs on cpus {ran[r][1]}, mapped to core {core}"
    assert len({ran[r][0] for r in group}) == 1, f"ranks of {host_count} in several proxies"
    proxies.append(ran[rank][0])
    rank += int(count)
assert rank == 8, rank
assert len(set(proxies)) == len(proxies), "two machinefile lines in one proxy"
# the heavy pairs stay together
for a in range(0, 8, 2):
    assert mapping[a][0] == mapping[a + 1][0], f"pair {a},{a+1} split: {mapping}"
print(f"{len(lines)} machinefile lines, 8 ranks placed and bound as mapped")
PY
echo "ok"
