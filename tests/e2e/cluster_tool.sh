# tools/cluster/hiercoll-cluster: hosts with their own name, address, /etc/hosts, /sys and
# /dev/shm; nothing added to this machine's own network namespace; links shaped both ways;
# Hydra and Open MPI launch through the rsh-style launcher; `down` leaves nothing, also after
# an interrupted `up` and with processes still running on the hosts.
. tests/e2e/cluster_common.bash
links_before=$(ip -o link | awk -F': ' '{print $2}' | sort)
cluster_up 3 --rate 100mbit --ranks-per-host 2

for i in 1 2 3; do
    [ "$(on h$i hostname)" = "h$i" ] || fail "h$i: hostname"
    on h$i ip -o -4 addr show dev eth0 | grep -q "inet 10\.77\.0\.$i/24" || fail "h$i: address"
    [ "$(on h$i ls /sys/class/net | sort | tr '\n' ' ')" = "eth0 lo " ] || fail "h$i: sees other interfaces"
    on h$i getent hosts h1 h2 h3 | awk '{print $2}' | tr '\n' ' ' | grep -qx 'h1 h2 h3 ' || fail "h$i: names"
    on h$i tc qdisc show dev eth0 | grep -q 'tbf.*rate 100Mbit' || fail "h$i: egress not shaped"
done
# without --pin a host's processes may run on every core
[ "$(on h1 sh -c 'taskset -pc $$' | sed 's/.*: //')" = "$(taskset -pc $$ | sed 's/.*: //')" ] ||
    fail "without --pin a host's processes are not on every core"
# nothing of the cluster in this machine's own namespace
[ "$(ip -o link | awk -F': ' '{print $2}' | sort)" = "$links_before" ] || fail "interfaces added to the main namespace"
ip -o addr | grep -q '10\.77\.' && fail "a cluster address in the main namespace"
# own /dev/shm per host
on h1 touch /dev/shm/hc-cluster-probe
on h2 test -e /dev/shm/hc-cluster-probe && fail "h2 sees h1's /dev/shm"
test -e /dev/shm/hc-cluster-probe && fail "this machine sees h1's /dev/shm"

# the shaped link, measured: 8 MB from h2 to h1 and back at 100 Mbit/s (12.5 MB/s)
cat >"$TMP/sink.py" <<'PY'
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 5555)); s.listen(1); s.settimeout(20)
c, _ = s.accept(); n = 0; t0 = None
while True:
    b = c.recv(1 << 16)
    if not b: break
    if t0 is None: t0 = time.time()
    n += len(b)
print(f"{n / (time.time() - t0) / 1e6:.1f} MB/s")
PY
cat >"$TMP/source.py" <<'PY'
import socket, sys, time
for _ in range(100):
    try: c = socket.create_connection((sys.argv[1], 5555)); break
    except OSError: time.sleep(0.05)
c.sendall(b"x" * 8_000_000); c.close()
PY
for dir in "h1 h2" "h2 h1"; do
    set -- $dir
    on "$1" python3 "$TMP/sink.py" >"$TMP/rate" & sink=$!
    on "$2" python3 "$TMP/source.py" "$1" || fail "send $2 -> $1"
    wait $sink || fail "receive $2 -> $1"
    rate=$(cut -d' ' -f1 "$TMP/rate")
    echo "$2 -> $1: $rate MB/s (link 100 Mbit/s = 12.5 MB/s)"
    awk -v r="$rate" 'BEGIN { exit !(r > 6 && r < 13.5) }' || fail "$2 -> $1 at $rate MB/s, not shaped to 100 Mbit/s"
done

# Hydra through the launcher: the host file puts 2 ranks on each host
on h1 "$MPIEXEC" -n 6 hostname | sort | uniq -c | awk '{print $2 ":" $1}' | tr '\n' ' ' >"$TMP/hyd"
[ "$(cat "$TMP/hyd")" = "h1:2 h2:2 h3:2 " ] || fail "Hydra placed ranks as $(cat "$TMP/hyd")"
# the launcher alone, with an rsh-style command line
[ "$(on h1 tools/cluster/rsh -x h3 'echo $(hostname)')" = h3 ] || fail "launcher"

# a process that is gone, or a zombie waiting for its parent to reap it
alive() { [ -r /proc/$1/stat ] && [ "$(awk '{print $3}' /proc/$1/stat 2>/dev/null)" != Z ]; }

# status, then down with a process left running on a host
on h2 sleep 300 2>/dev/null & left=$!
sleep 0.3
"$CLUSTER" status --name "$HC_CLUSTER" >"$TMP/status"
grep -Eq '^  h2 +10\.77\.0\.2 +up, 1 processes' "$TMP/status" || { cat "$TMP/status"; fail "status"; }
holders=$(cat /run/hiercoll-cluster/"$HC_CLUSTER"/*.pid)
"$CLUSTER" down --name "$HC_CLUSTER" >/dev/null || fail "down"
wait $left 2>/dev/null
for p in $holders; do alive $p && fail "holder $p still running"; done
[ -e /run/hiercoll-cluster/"$HC_CLUSTER" ] && fail "state left behind"
"$CLUSTER" status --name "$HC_CLUSTER" | grep -q "no cluster" || fail "status after down"

# an interrupted up leaves nothing
"$CLUSTER" up 40 >/dev/null 2>&1 & up=$!
for _ in $(seq 100); do
    ls /run/hiercoll-cluster/"$HC_CLUSTER"/h2.pid >/dev/null 2>&1 && break
    sleep 0.02
done
holders=$(cat /run/hiercoll-cluster/"$HC_CLUSTER"/*.pid 2>/dev/null)
kill -TERM $up   # (INT is ignored by background jobs of a script)
wait $up
[ -n "$holders" ] || fail "up was not interrupted half way"
sleep 0.2
for p in $holders; do alive $p && fail "interrupted up left holder $p"; done
[ -e /run/hiercoll-cluster/"$HC_CLUSTER" ] && fail "interrupted up left its state"

# run: up, the command on h1, down, the command's status
[ "$("$CLUSTER" run 2 --name "$HC_CLUSTER-run" -- hostname 2>/dev/null)" = h1 ] || fail "run"
expect_status 3 "$CLUSTER" run 1 --name "$HC_CLUSTER-run" -- sh -c 'exit 3'
[ -e /run/hiercoll-cluster/"$HC_CLUSTER-run" ] && fail "run left its cluster"

# --pin: every host's processes on cores of its own (h1 and h2 apart where there are 2 cores
# or more), and Open MPI told not to bind its ranks anew over all of them
pinned="$HC_CLUSTER-pin"
cluster_up 2 --pin --name "$pinned"
affinity() { "$CLUSTER" exec --name "$pinned" "$1" sh -c 'taskset -pc $$' | sed 's/.*: //'; }
c1=$(affinity h1) c2=$(affinity h2)
policy=$("$CLUSTER" exec --name "$pinned" h2 sh -c 'echo $OMPI_MCA_hwloc_base_binding_policy')
"$CLUSTER" down --name "$pinned" >/dev/null
[ -n "$c1" ] && [ -n "$c2" ] || fail "--pin: no affinity read ('$c1', '$c2')"
[ "$(nproc --all)" -lt 2 ] || [ "$c1" != "$c2" ] || fail "--pin: h1 and h2 share cores $c1"
[ "$policy" = none ] || fail "--pin: Open MPI's binding policy is '$policy', not none"

# bad input
expect_status 1 "$CLUSTER" up 0
expect_in "$TMP/err" "N must be 1..64"
expect_status 1 "$CLUSTER" up 2 --rate fast
expect_in "$TMP/err" "bad rate 'fast'"
expect_status 1 "$CLUSTER" exec h1 true
expect_in "$TMP/err" "has no host h1"
echo "ok"
