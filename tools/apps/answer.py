#!/usr/bin/env python3
"""The answer of one application run, and whether two runs give the same one.

    answer.py extract APP LOG            print the run's answer, one "name value" a line
    answer.py compare APP REF LOG        exit 0 "same", 1 "differs: ..." (2: no answer in a log)

APP is lammps-lj, lammps-pppm (the thermo line of the last step), gromacs (the energies of
the last step in md.log); with APPS_ANSWER_STEP=N, of step N (the cluster's longer runs are
compared at a step before chaos has amplified another summation order's last bits), hpcc (its own PASSED/FAILED checks), scalapack-* (the drivers' own
"tests completed and passed" / "failed" counts). The tolerances, and why, are in docs/apps.md.
"""
import os
import re
import sys

# Compare the MD codes at this step instead of the last one (None: the last).
AT_STEP = int(os.environ["APPS_ANSWER_STEP"]) if os.environ.get("APPS_ANSWER_STEP") else None

# LAMMPS prints its thermo values with 14 significant digits (the decks' format): the same
# trajectory must agree to round-off in the last sums. 1e-9 relative is eleven orders of
# magnitude below what a wrong sum changes and far above the last-bit differences of another
# summation order (docs/apps.md measures both).
LAMMPS_RTOL = 1e-9
LAMMPS_ATOL = 1e-12
# GROMACS (mixed precision: floats) prints 6 significant digits. Another summation order of
# the same run moves the energies of the last step by up to 3e-4 and the pressure by about
# 0.5 bar (the vendor at 2, 4 and 8 ranks, docs/apps.md); a wrong sum moves them by percents
# and the pressure by hundreds of bar.
GROMACS_RTOL = 1e-3
GROMACS_ATOL = 1e-3
GROMACS_ATOL_OF = {"Pressure (bar)": 5.0, "Pres. DC (bar)": 5.0}
# HPCC judges HPL, PTRANS and RandomAccess itself; its FFT error is ours to judge.
FFT_MAXERR = 1e-8


def lammps(text):
    """The last thermo line of the last run: {column: value}."""
    header, last = None, None
    lines = text.splitlines()
    for i, line in enumerate(lines):
        words = line.split()
        if words and words[0] == "Step":
            header = words
            last = None
            for nxt in lines[i + 1:]:
                vals = nxt.split()
                if len(vals) != len(header) or not re.fullmatch(r"-?\d+", vals[0]):
                    break
                try:
                    [float(v) for v in vals]
                except ValueError:
                    break
                if AT_STEP is None or int(vals[0]) == AT_STEP:
                    last = vals
    if not header or not last:
        return None
    return {h: float(v) for h, v in zip(header, last)}


def gromacs(text):
    """Energies of the last step md.log printed: {name: value} plus Step."""
    lines = text.splitlines()
    out = None
    step = None
    for i, line in enumerate(lines):
        if re.fullmatch(r"\s+Step\s+Time", line) and i + 1 < len(lines):
            m = re.fullmatch(r"\s+(\d+)\s+\S+", lines[i + 1])
            if m:
                step = int(m.group(1))
        if line.strip() == "Energies (kJ/mol)" and step is not None and \
                (AT_STEP is None or step == AT_STEP):
            vals = {"Step": float(step)}
            j = i + 1
            # name lines and value lines alternate, 15 characters a field
            while j + 1 < len(lines) and lines[j].strip() and lines[j + 1].strip():
                names = [lines[j][k:k + 15].strip() for k in range(0, len(lines[j]), 15)]
                nums = lines[j + 1].split()
                if len(nums) != len([n for n in names if n]):
                    break
                try:
                    for n, v in zip([n for n in names if n], nums):
                        vals[n] = float(v)
                except ValueError:
                    break
                j += 2
            out = vals
            step = None
    return out


def hpcc(text):
    """HPCC's own verdicts: its residual-check counts (HPL, PTRANS), RandomAccess's
    "(passed)"/"(failed)", and the FFT's largest error from its summary."""
    out = {"passed": 0, "failed": 0, "randomaccess_failed": 0, "randomaccess_passed": 0}
    seen = False
    for line in text.splitlines():
        m = re.search(r"(\d+) tests? completed and (passed|failed) residual checks", line)
        if m:
            out[m.group(2)] += int(m.group(1))
            seen = True
        m = re.search(r"Found \d+ errors in \d+ locations \((passed|failed)\)", line)
        if m:
            out["randomaccess_" + m.group(1)] += 1
            seen = True
        if line.startswith("MPIFFT_maxErr="):
            out["MPIFFT_maxErr"] = float(line.split("=", 1)[1])
        if line.startswith("End of Summary section"):
            out["summary"] = 1
    return out if seen else None


def scalapack(text):
    """The drivers' own counts: 'N tests completed and passed residual checks.' etc."""
    out = {}
    for line in text.splitlines():
        m = re.search(r"(\d+) tests? (completed and passed residual checks|completed without "
                      r"checking|completed and failed residual checks|skipped because of "
                      r"illegal input values)", line)
        if m:
            out[m.group(2)] = out.get(m.group(2), 0) + int(m.group(1))
        m = re.search(r"(\d+) tests? (passed|failed|skipped)", line)
        if m and "residual" not in line:
            out[m.group(2)] = out.get(m.group(2), 0) + int(m.group(1))
        if "END OF TESTS" in line or "End of tests" in line:
            out["end"] = 1
    return out or None


def extract(app, text):
    if app.startswith("lammps"):
        return lammps(text)
    if app == "gromacs":
        return gromacs(text)
    if app == "hpcc":
        return hpcc(text)
    if app.startswith("scalapack"):
        return scalapack(text)
    raise SystemExit("answer.py: unknown application %r" % app)


def close(a, b, rtol, atol):
    return abs(a - b) <= atol + rtol * max(abs(a), abs(b))


def own_verdict(app, ans):
    """Applications that check themselves: None when they passed, else why not."""
    if app == "hpcc":
        if ans["failed"] or ans["randomaccess_failed"]:
            return "HPCC says FAILED: %d residual checks, %d RandomAccess verifications" % (
                ans["failed"], ans["randomaccess_failed"])
        if not ans["passed"] or not ans["randomaccess_passed"]:
            return "HPCC printed no passed check (did it finish?)"
        if "summary" not in ans:
            return "HPCC's output has no summary section (did it finish?)"
        # HPCC prints the FFT's error without judging it; a correct FFT of doubles is
        # near 1e-15
        if ans.get("MPIFFT_maxErr", 1.0) > FFT_MAXERR:
            return "MPIFFT_maxErr %g > %g" % (ans.get("MPIFFT_maxErr", 1.0), FFT_MAXERR)
        return None
    if app.startswith("scalapack"):
        bad = ans.get("completed and failed residual checks", 0) + ans.get("failed", 0)
        good = ans.get("completed and passed residual checks", 0) + ans.get("passed", 0)
        if bad:
            return "%d tests failed their residual checks" % bad
        if not good:
            return "no test passed"
        return None
    return None


def compare(app, ref, run):
    """None when run's answer is the reference's, else the first difference."""
    if app in ("hpcc",) or app.startswith("scalapack"):
        v = own_verdict(app, run)
        if v:
            return v
        # the same checks, each passed
        return None
    rtol, atol = (GROMACS_RTOL, GROMACS_ATOL) if app == "gromacs" else (LAMMPS_RTOL, LAMMPS_ATOL)
    atol_of = GROMACS_ATOL_OF if app == "gromacs" else {}
    if set(ref) != set(run):
        return "different quantities: %s" % " ".join(sorted(set(ref) ^ set(run)))
    worst = None
    for k in ref:
        a, b = ref[k], run[k]
        if not close(a, b, rtol, atol_of.get(k, atol)):
            rel = abs(a - b) / max(abs(a), abs(b), 1e-300)
            if worst is None or rel > worst[0]:
                worst = (rel, "%s %.10g against the vendor's %.10g (relative %.1e > %.0e)"
                         % (k, b, a, rel, rtol))
    return worst[1] if worst else None


def main(argv):
    if len(argv) == 4 and argv[1] == "extract":
        ans = extract(argv[2], open(argv[3], errors="replace").read())
        if ans is None:
            print("no answer in %s" % argv[3], file=sys.stderr)
            return 2
        for k, v in ans.items():
            print(k.replace(" ", "_"), v)
        return 0
    if len(argv) == 5 and argv[1] == "compare":
        app = argv[2]
        ref = extract(app, open(argv[3], errors="replace").read())
        run = extract(app, open(argv[4], errors="replace").read())
        if run is None:
            print("differs: no answer in %s" % argv[4])
            return 2
        if ref is None and not (app == "hpcc" or app.startswith("scalapack")):
            print("differs: no answer in the vendor's %s" % argv[3])
            return 2
        why = compare(app, ref, run)
        if why:
            print("differs: " + why)
            return 1
        print("same")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
