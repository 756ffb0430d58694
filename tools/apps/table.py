#!/usr/bin/env python3
"""The tables of tools/apps/apps.sh, from the runs it recorded.

    table.py RESULTS.tsv                       the local table (a line per application and NP)
    table.py --brief RESULTS.tsv APP NP        one line: that application at NP ranks
    table.py --cluster RESULTS.tsv             the two-pass table (rate, application, order)
    table.py --cluster-brief RESULTS.tsv RATE APP ORDER
    table.py --mapping PROFILE_DIR             what the mapping did: remapped or kept, and why
    table.py --share PROFILE_DIR SECONDS NP    share of the time in Bcast+Allreduce and in MPI

Times are medians of the runs that finished, in seconds; ratio = hiercoll / vendor.
"""
import csv
import os
import statistics
import sys


def read_tsv(path):
    with open(path) as f:
        return list(csv.DictReader(f, delimiter="\t"))


def secs(rows):
    return [float(r["seconds"]) for r in rows if r["seconds"] not in ("failed", "")]


def med(values):
    return statistics.median(values) if values else None


def fmt(x, spec):
    return "-" if x is None else format(x, spec)


def share(profile, seconds, np_):
    """(Bcast+Allreduce, all MPI) time as a share of np x wall, from functions.csv."""
    path = os.path.join(profile, "functions.csv")
    if not os.path.exists(path) or not seconds:
        return None, None
    coll = total = 0.0
    with open(path) as f:
        rows = [l for l in f if not l.startswith("#")]
    for r in csv.DictReader(rows):
        t = float(r["time_us"]) / 1e6
        total += t
        if r["function"] in ("MPI_Bcast", "MPI_Allreduce"):
            coll += t
    wall = seconds * np_
    return 100.0 * coll / wall, 100.0 * total / wall


def own_time(profile, seconds):
    """The profiler's own time (summary.txt: the busiest rank's recording, or a crowded host's
    shared over its CPUs when larger, + finalize) as a share of the run's wall time."""
    path = os.path.join(profile, "summary.txt")
    if not os.path.exists(path) or not seconds:
        return None
    ms = {}
    for line in open(path):
        w = line.split()
        if len(w) > 2 and w[0] in ("recording", "shared", "finalize") and w[2] == "ms":
            ms[w[0]] = float(w[1])
    if "recording" not in ms or "finalize" not in ms:
        return None
    recording = max(ms["recording"], ms.get("shared", 0.0))
    return 100.0 * (recording + ms["finalize"]) / 1e3 / seconds


def answer(rows):
    answers = {r["answer"] for r in rows}
    if "failed" in answers:
        return "failed"
    if "differs" in answers:
        return "differs"
    return "same" if answers == {"same"} else "-"


def local_row(rows, app, np_):
    sel = [r for r in rows if r["app"] == app and r["np"] == np_]
    by = {m: [r for r in sel if r["mode"] == m] for m in ("vendor", "hiercoll", "profiled")}
    v, h, p = (med(secs(by[m])) for m in ("vendor", "hiercoll", "profiled"))
    shares = [share(r["profile"], float(r["seconds"]), int(np_)) for r in by["profiled"]
              if r["profile"] and r["seconds"] != "failed"]
    coll = med([s[0] for s in shares if s[0] is not None])
    mpi = med([s[1] for s in shares if s[1] is not None])
    own = med([x for x in (own_time(r["profile"], float(r["seconds"])) for r in by["profiled"]
                           if r["profile"] and r["seconds"] != "failed") if x is not None])
    return {
        "APP": app, "NP": np_,
        "VENDOR_S": fmt(v, ".3f"), "HIERCOLL_S": fmt(h, ".3f"),
        "RATIO": fmt(h / v if v and h else None, ".3f"),
        "ANSWER": answer(sel),
        "BCAST+AR%": fmt(coll, ".1f"), "MPI%": fmt(mpi, ".1f"),
        "PROFILED_S": fmt(p, ".3f"),
        "PROF_OVERHEAD": fmt(100.0 * (p / h - 1) if p and h else None, "+.1f") + ("%" if p and h else ""),
        "PROF_OWN%": fmt(own, ".2f"),
        "RUNS": "/".join(str(len(secs(by[m]))) for m in ("vendor", "hiercoll", "profiled")),
    }


def print_table(table, cols, numeric_from=2):
    """Aligned columns: names and the answer to the left, numbers to the right."""
    lines = [{c: c for c in cols}] + table
    widths = {c: max(len(str(r[c])) for r in lines) for c in cols}
    for r in lines:
        cells = [str(r[c]).ljust(widths[c]) if i < numeric_from or c in ("ANSWER", "MAPPING")
                 else str(r[c]).rjust(widths[c]) for i, c in enumerate(cols)]
        print("  ".join(cells).rstrip())


LOCAL_COLS = ["APP", "NP", "VENDOR_S", "HIERCOLL_S", "RATIO", "ANSWER", "BCAST+AR%", "MPI%",
              "PROFILED_S", "PROF_OVERHEAD", "PROF_OWN%", "RUNS"]


def keys_of(rows, fields):
    """The distinct values of FIELDS in the order the runs came."""
    keys = []
    for r in rows:
        k = tuple(r[f] for f in fields)
        if k not in keys:
            keys.append(k)
    return keys


def local_table(path):
    rows = read_tsv(path)
    table = [local_row(rows, *k) for k in keys_of(rows, ("app", "np"))]
    print_table(table, LOCAL_COLS)
    print("(medians of wall times, launcher included; RATIO = hiercoll / vendor; ANSWER: every run's\n"
          " answer against the vendor's first (tools/apps/answer.py, docs/apps.md); BCAST+AR%, MPI%:\n"
          " time in MPI_Bcast + MPI_Allreduce, in all MPI, over NP x wall, from the profiled runs;\n"
          " PROF_OVERHEAD: profiled / hiercoll - 1; PROF_OWN%: the profiler's own time, as it\n"
          " measured it (summary.txt: recording + finalize), over the wall;\n"
          " RUNS: runs that finished, vendor/hiercoll/profiled)")


def mapping(profile):
    """'remapped (model -X%)' or 'kept: reason'."""
    path = os.path.join(profile, "mapping.txt")
    if not os.path.exists(path):
        return "none: no mapping.txt"
    launched = mapped = fitted = None
    for line in open(path):
        w = line.split()
        if len(w) >= 4 and w[0] == "cost" and w[2] == "max":
            if w[1] == "launched":
                launched = float(w[3])
            elif w[1] == "mapped":
                mapped = float(w[3])
            elif w[1] == "fitted":
                fitted = float(w[3])
    if launched is None or mapped is None:
        return "?"
    if fitted is not None and mapped >= launched * 0.999:
        return "kept (model max %+.0f%% did not hold between the run's halves)" % (
            100.0 * (fitted / launched - 1))
    if mapped >= launched * 0.999:
        return "kept (no better placement in the model)"
    if not os.path.exists(os.path.join(profile, "next-run.sh")):
        return "no next-run.sh"
    return "remapped (model max %+.0f%%)" % (100.0 * (mapped / launched - 1))


def between_nodes(profile):
    path = os.path.join(profile, "summary.txt")
    if not os.path.exists(path):
        return None
    for line in open(path):
        if line.strip().startswith("between nodes"):
            return float(line.split()[-1].rstrip("%"))
    return None


def cluster_row(rows, rate, app, order):
    sel = [r for r in rows if r["rate"] == rate and r["app"] == app and r["order"] == order]
    p1 = [r for r in sel if r["pass"] == "1"]
    p2 = [r for r in sel if r["pass"] == "2"]
    a, b = med(secs(p1)), med(secs(p2))
    net1 = med([x for x in (between_nodes(r["profile"]) for r in p1) if x is not None])
    net2 = med([x for x in (between_nodes(r["profile"]) for r in p2) if x is not None])
    return {
        "RATE": rate, "APP": app, "ORDER": order,
        "PASS1_S": fmt(a, ".3f"), "PASS2_S": fmt(b, ".3f"),
        "SPEEDUP": fmt(a / b if a and b else None, ".2f"),
        "ANSWER": answer(sel),
        "NET%1": fmt(net1, ".1f"), "NET%2": fmt(net2, ".1f"),
        "RUNS": "%d/%d" % (len(secs(p1)), len(secs(p2))),
        "MAPPING": sel[0]["mapping"] if sel else "-",
    }


CLUSTER_COLS = ["RATE", "APP", "ORDER", "PASS1_S", "PASS2_S", "SPEEDUP", "ANSWER", "NET%1",
                "NET%2", "RUNS", "MAPPING"]


def cluster_table(path):
    rows = read_tsv(path)
    table = [cluster_row(rows, *k) for k in keys_of(rows, ("rate", "app", "order"))]
    print_table(table, CLUSTER_COLS, numeric_from=3)
    print("(medians of wall times; SPEEDUP = pass 1 / pass 2; ANSWER: every run against pass 1's\n"
          " first; NET%1, NET%2: share of the bytes that crossed between hosts in pass 1, pass 2;\n"
          " RUNS: runs that finished, pass 1/pass 2; MAPPING: what pass 1's profile recommended)")


def main(argv):
    if len(argv) == 2:
        local_table(argv[1])
    elif len(argv) == 5 and argv[1] == "--brief":
        r = local_row(read_tsv(argv[2]), argv[3], argv[4])
        print("vendor %s s, hiercoll %s s (ratio %s), profiled %s s; answer %s; Bcast+Allreduce %s%%"
              % (r["VENDOR_S"], r["HIERCOLL_S"], r["RATIO"], r["PROFILED_S"], r["ANSWER"],
                 r["BCAST+AR%"]))
    elif len(argv) == 3 and argv[1] == "--cluster":
        cluster_table(argv[2])
    elif len(argv) == 6 and argv[1] == "--cluster-brief":
        r = cluster_row(read_tsv(argv[2]), argv[3], argv[4], argv[5])
        print("pass 1 %s s, pass 2 %s s (speedup %s); answer %s; between hosts %s%% -> %s%%; %s"
              % (r["PASS1_S"], r["PASS2_S"], r["SPEEDUP"], r["ANSWER"], r["NET%1"], r["NET%2"],
                 r["MAPPING"]))
    elif len(argv) == 3 and argv[1] == "--mapping":
        print(mapping(argv[2]))
    elif len(argv) == 5 and argv[1] == "--share":
        c, m = share(argv[2], float(argv[3]), int(argv[4]))
        print(fmt(c, ".1f"), fmt(m, ".1f"))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
