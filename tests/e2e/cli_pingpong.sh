# hiercoll-pingpong in each family, with no MPIEXEC or --lib: it must launch itself with its own
# family's launcher and library (the Open MPI build once passed Hydra's -genv to
# mpirun.openmpi and preloaded the MPICH library). The table's four modes are parsed back: every figure a
# positive number, the vendor's row the yardstick (1.000), and the added costs recomputed.
# hc-test: each-family
. tests/e2e/mpi_family.bash
tool=$PWD/$BUILD/bin/hiercoll-pingpong$SUFFIX
[ -x "$tool" ] || { echo "FAIL: $tool is not built"; exit 1; }
out=$(mktemp /tmp/hc-pingpong.XXXXXX)
trap 'rm -f "$out"' EXIT
(unset MPIEXEC; timeout -k 5 300 "$tool" --rounds 1 --reps 1 --iters 200) >"$out" 2>&1 ||
    { rc=$?; cat "$out"; echo "FAIL: hiercoll-pingpong$SUFFIX exited $rc"; exit 1; }
python3 - "$out" <<'PY' || { cat "$out"; echo "FAIL: the table"; exit 1; }
import sys
rows = {}
for line in open(sys.argv[1]):
    for mode in ("vendor (no preload)", "preload, profiling off", "profiling, no call sites",
                 "profiling, call sites 1"):
        if line.startswith(mode):
            rows[mode] = line[len(mode):].split()
assert len(rows) == 4, rows
vendor, off = rows["vendor (no preload)"], rows["preload, profiling off"]
assert vendor[1] == "1.000" and vendor[3:] == ["-", "-"] and off[3:] == ["-", "-"], rows
for mode in ("profiling, no call sites", "profiling, call sites 1"):
    pp, ratio, self_ns, add_pp, add_self = map(float, rows[mode])
    assert pp > 0 and self_ns > 0, rows[mode]
    assert abs(ratio - pp / float(vendor[0])) < 2e-3 * max(1, ratio), rows[mode]
    assert abs(add_pp - (pp - float(off[0])) / 2) < 0.16, rows[mode]
    assert abs(add_self - (self_ns - float(off[2]))) < 0.16, rows[mode]
PY
echo "ok: hiercoll-pingpong$SUFFIX ran its four modes under its own family's launcher"
