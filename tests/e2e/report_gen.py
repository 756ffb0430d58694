"""Writes a profile directory in the agreed v1 formats (docs/formats-profile.md) with known
numbers, for the report tests: python3 report_gen.py DIR NRANKS RANKS_PER_HOST [MODULE ADDR]."""
import sys

out, n, per_host = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
module, addr = (sys.argv[4], int(sys.argv[5], 16)) if len(sys.argv) > 5 else ("/nonexistent/app", 0x1234)


def host(r):
    return "node%d" % (r // per_host)


# Traffic: a ring in a scrambled order (rank r talks to r +/- n/2), plus a broadcast from 0.
pairs = {}
for r in range(n):
    for d in (n // 2, n - n // 2):
        q = (r + d) % n
        if q != r:
            pairs[(r, q)] = [1000 * (1 + (r + q) % 7), 0]
for q in range(1, n):
    pairs.setdefault((0, q), [0, 0])[1] += 64
with open(out + "/comm_bytes.csv", "w") as f:
    f.write("# hiercoll comm_bytes v1\nsender,receiver,p2p,collective,total,rma\n")
    for (s, r), (p, c) in sorted(pairs.items()):
        f.write("%d,%d,%d,%d,%d,0\n" % (s, r, p, c, p + c))
with open(out + "/comm_msgs.csv", "w") as f:
    f.write("# hiercoll comm_msgs v1\nsender,receiver,p2p,collective,total,rma\n")
    for (s, r), (p, c) in sorted(pairs.items()):
        f.write("%d,%d,%d,%d,%d,0\n" % (s, r, p // 1000, c // 64, p // 1000 + c // 64))
with open(out + "/ranks.csv", "w") as f:
    f.write("# hiercoll ranks v1\nrank,host,core,numa,mpi_time_us,p2p_bytes_sent,"
            "coll_bytes_sent,calls,incomplete\n")
    for r in range(n):
        p = sum(v[0] for (s, _), v in pairs.items() if s == r)
        c = sum(v[1] for (s, _), v in pairs.items() if s == r)
        f.write("%d,%s,%d,%d,%.3f,%d,%d,%d,0\n" % (r, host(r), r % per_host, (r % per_host) // 2,
                                                  100.0 + r * 10, p, c, 10 + r))
with open(out + "/callsites.csv", "w") as f:
    f.write("# hiercoll callsites v1\nsite,function,calls,bytes,time_us,module,offset,symbol,stack\n")
    f.write("1,MPI_Sendrecv,40,4000,900.500,%s,0x%x,?,x\n" % (module, addr))
    f.write("2,MPI_Bcast,8,512,1200.250,/nonexistent/lib.so,0x10,bcast_wrapper,x\n")
# The recommended mapping: the ring's partners (r, r + n/2) on one host.
with open(out + "/mapping.txt", "w") as f:
    f.write("# hiercoll mapping v1\nranks %d\nalgorithm tmmgp+refine\n" % n)
    f.write("cost launched max 0.004 sum 0.02\ncost mapped max 0.001 sum 0.005\n")
    slots = []
    for r in range(n // 2):
        slots += [r, r + n // 2]
    for i, r in enumerate(slots):
        f.write("rank %d host %s core %d\n" % (r, host(i), i % per_host))
with open(out + "/summary.txt", "w") as f:
    f.write("# hiercoll summary v1\n")
