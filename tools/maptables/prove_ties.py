#!/usr/bin/env python3
"""Can a tie with Scotch be broken? For each case that `hiercoll-maptables --vs-scotch --keep`
kept where hiercoll's max equals that of Scotch's best strategy, asks the SAT solver CaDiCaL
whether any mapping has a strictly lower max with a sum at most (1 + slack) x Scotch's.
"unbreakable" means that no such mapping exists: the encoding only widens the question
(below), so that answer is a proof. A mapping found is scored with the cost model and
written to DIR/lower.map.

Usage: prove_ties.py [--slack 0.05] [--timeout SECONDS] [--jobs N] [--self-check]
                     [--shuffle SEED] DIR...

The encoding (docs/algorithms-mapping.md, "Which ties can be broken"): ranks go into the
groups of cores of the lowest level above the cores (one-hot, at most as many ranks as a group
has cores); for every edge and level a variable says that its ends sit in different elements
of that level. Every rank's time below Scotch's max forbids each minimal combination of
levels its six heaviest edges could cross (its other edges count at the cheapest level). The
sum counts, per level, the crossing edges that weigh at least the median edge, as if they
weighed that (lighter ones not at all), with a unary counter, and forbids the combinations of
counts above the allowance. The children of every element are interchangeable, so the first
rank in child k must come after the first rank in child k-1 (in rank order, or a shuffled
one). --self-check first fixes Scotch's own mapping and checks that the encoding lets it
through. Needs a tree machine with every core available (what --vs-scotch builds)."""
import argparse
import itertools
import math
import os
import random
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

RTOL = 1e-9  # HC_MAP_COST_RTOL: costs within it are equal
RANK_TERMS = 6  # edges per rank whose level is encoded exactly


class Case:
    """A kept case: graph, machine, hiercoll's and Scotch's mappings, scored alike."""

    def __init__(self, path):
        self.path = path
        lines = [l for l in open(os.path.join(path, 'graph.metis')) if not l.startswith('%')]
        self.n = int(lines[0].split()[0])
        self.edges = []
        for i in range(self.n):
            t = lines[1 + i].split()
            for k in range(0, len(t), 2):
                j = int(t[k]) - 1
                if i < j:
                    self.edges.append((i, j, float(t[k + 1])))
        spec, bws = open(os.path.join(path, 'machine.txt')).read().split('\n')[:2]
        self.spec = spec
        self.arity = [int(x.split(':')[1]) for x in spec.split()]
        self.cost = [1 / float(b) for b in bws.split(',')]  # c_l: seconds per byte at level l
        self.stride = [1] * len(self.arity)
        for l in range(len(self.arity) - 2, -1, -1):
            self.stride[l] = self.stride[l + 1] * self.arity[l + 1]
        self.ncores = self.stride[0] * self.arity[0]
        self.hiercoll = self.score(read_map(os.path.join(path, 'hiercoll.map')))
        self.scotch = self.scotch_map = None
        for f in sorted(os.listdir(path)):
            if f.startswith('scotch-') and f.endswith('.map'):
                m = read_map(os.path.join(path, f))
                if len(set(m)) < len(m):
                    continue  # two ranks on one core: not counted, as in the comparison
                c = self.score(m)
                if self.scotch is None or better(c, self.scotch):
                    self.scotch, self.scotch_map = c, m

    def level(self, p, q):
        for l, s in enumerate(self.stride):
            if p // s != q // s:
                return l
        return len(self.stride) - 1

    def score(self, mapping):
        t = [0.0] * self.n
        for i, j, w in self.edges:
            x = w * self.cost[self.level(mapping[i], mapping[j])]
            t[i] += x
            t[j] += x
        return max(t), sum(t) / 2


def read_map(path):
    tok = open(path).read().split()
    m = [0] * int(tok[0])
    for a in range(len(m)):
        m[int(tok[1 + 2 * a])] = int(tok[2 + 2 * a])
    return m


def less(a, b):
    return a < b - RTOL * abs(b)


def better(a, b):
    return less(a[0], b[0]) or (not less(b[0], a[0]) and less(a[1], b[1]))


class Cnf:
    def __init__(self):
        self.nvars = 0
        self.clauses = []

    def var(self):
        self.nvars += 1
        return self.nvars

    def add(self, *lits):
        self.clauses.append(lits)

    def exactly_one(self, lits):
        self.add(*lits)
        prev = None  # sequential at-most-one
        for l in lits[:-1]:
            s = self.var()
            self.add(-l, s)
            if prev:
                self.add(-prev, s)
                self.add(-l, -prev)
            prev = s
        if prev:
            self.add(-lits[-1], -prev)

    def counter(self, lits, k):
        """out[j] is true whenever at least j+1 of lits are (sequential counter)."""
        row = []
        for l in lits:
            new = [self.var() for _ in range(k)]
            self.add(-l, new[0])
            if row:
                for j in range(k):
                    self.add(-row[j], new[j])
                    if j:
                        self.add(-l, -row[j - 1], new[j])
            row = new
        return row

    def at_most(self, lits, k):
        if k < len(lits):
            self.add(-self.counter(lits, k + 1)[k])

    def write(self, f):
        f.write('p cnf %d %d\n' % (self.nvars, len(self.clauses)))
        for c in self.clauses:
            f.write(' '.join(map(str, c)) + ' 0\n')


def encode(case, max_below, sum_cap, order):
    """CNF satisfiable if some mapping (up to the relaxations) has every rank's time below
    max_below and, with sum_cap, a sum at most sum_cap; order: the ranks in the order that
    breaks the symmetry. Returns (cnf, group variables)."""
    L, c, n = len(case.arity), case.cost, case.n
    gsize = case.stride[L - 2] if L > 1 else case.ncores
    G = case.ncores // gsize
    cnf = Cnf()
    x = [[cnf.var() for _ in range(G)] for _ in range(n)]
    for r in range(n):
        cnf.exactly_one(x[r])
    for g in range(G):
        cnf.at_most([x[r][g] for r in range(n)], gsize)
    levels = range(L - 1)  # the levels whose elements hold several groups or one group
    member = {}
    for l in levels:
        per = case.stride[l] // gsize
        for r in range(n):
            for e in range(G // per):
                if per == 1:
                    member[l, r, e] = x[r][e]
                    continue
                y = member[l, r, e] = cnf.var()
                inside = [x[r][g] for g in range(e * per, (e + 1) * per)]
                cnf.add(-y, *inside)
                for v in inside:
                    cnf.add(-v, y)
    for l in levels:  # interchangeable children: first ranks in order
        ne = G // (case.stride[l] // gsize)
        seen = None
        for r in order:
            now = [cnf.var() for _ in range(ne)]
            for e in range(ne):
                cnf.add(-member[l, r, e], now[e])
                cnf.add(-now[e], member[l, r, e], *([seen[e]] if seen else []))
                if seen:
                    cnf.add(-seen[e], now[e])
                if e % case.arity[l]:
                    cnf.add(-member[l, r, e], *([seen[e - 1]] if seen else []))
            seen = now
    apart = {}  # apart[l, k]: edge k's ends in different elements of level l
    for k, (i, j, w) in enumerate(case.edges):
        for l in levels:
            v = apart[l, k] = cnf.var()
            for e in range(G // (case.stride[l] // gsize)):
                cnf.add(-member[l, i, e], member[l, j, e], v)
                cnf.add(-member[l, j, e], member[l, i, e], v)
            if l:
                cnf.add(-apart[l - 1, k], v)
    # every rank below max_below: an edge crossing level l costs w (c_l - c_last) more
    ends = [[] for _ in range(n)]
    for k, (i, j, w) in enumerate(case.edges):
        ends[i].append((w, k))
        ends[j].append((w, k))
    limit = max_below * (1 - RTOL)
    extra = lambda w, l: 0 if l is None else w * (c[l] - c[L - 1])
    choices = [None] + list(range(L - 2, -1, -1))  # finer first
    for r in range(n):
        heavy = sorted(ends[r], reverse=True)[:RANK_TERMS]
        base = sum(w for w, _ in ends[r]) * c[L - 1]
        for combo in itertools.product(choices, repeat=len(heavy)):
            t = base + sum(extra(w, l) for (w, _), l in zip(heavy, combo))
            if t < limit:
                continue
            # only the minimal ones: one edge a level finer must bring the rank below
            if any(l is not None and t - extra(w, l) + extra(w, None if l == L - 2 else l + 1)
                   >= limit for (w, _), l in zip(heavy, combo)):
                continue
            cnf.add(*[-apart[l, k] for (_, k), l in zip(heavy, combo) if l is not None])
    if sum_cap is not None and L > 1:
        # edges at least as heavy as the median count as the median; lighter ones not at all
        wref = sorted(w for _, _, w in case.edges)[len(case.edges) // 2]
        unit = wref * min(c[l] - c[l + 1] for l in levels)
        room = math.floor((sum_cap - sum(w for _, _, w in case.edges) * c[L - 1]) / unit
                          * (1 + RTOL))
        if room < 0:
            cnf.add()
            return cnf, x
        weight, count = [], []
        for l in levels:
            u = math.floor(wref * (c[l] - c[l + 1]) / unit + RTOL)
            crossing = [apart[l, k] for k, (_, _, w) in enumerate(case.edges) if w >= wref]
            weight.append(u)
            count.append(cnf.counter(crossing, min(len(crossing), room // u + 1)))

        def forbid(l, used, held):  # held: the counts reached at the levels above
            if l == len(weight):
                return
            for a in range(len(count[l]) + 1):
                lits = held + ([-count[l][a - 1]] if a else [])
                if used + a * weight[l] > room:
                    cnf.add(*lits)
                    return
                forbid(l + 1, used + a * weight[l], lits)
        forbid(0, 0, [])
    return cnf, x


def canonical_groups(case, mapping, order):
    """The group of each rank in mapping, the children of every element renumbered in the
    order `order` first uses them (the numbering the encoding's symmetry breaking admits)."""
    renamed, used, group = {}, {}, [0] * case.n
    for r in order:
        parent = 0
        for l in range(len(case.arity) - 1):
            old = mapping[r] // case.stride[l]
            if (l, old) not in renamed:
                k = used[l, parent] = used.get((l, parent), -1) + 1
                renamed[l, old] = parent * case.arity[l] + k
            parent = renamed[l, old]
        group[r] = parent
    return group


def solve(case, max_below, sum_cap, timeout, order, fixed=None):
    """'none', 'undecided', or the mapping found; fixed: every rank's group, if given."""
    cnf, x = encode(case, max_below, sum_cap, order)
    for r, g in enumerate(fixed or []):
        cnf.add(x[r][g])
    with tempfile.NamedTemporaryFile('w', suffix='.cnf', delete=False) as f:
        cnf.write(f)
    try:
        out = subprocess.run(['cadical', '-q', f.name], capture_output=True, text=True,
                             timeout=timeout).stdout
    except subprocess.TimeoutExpired:
        return 'undecided'
    finally:
        os.unlink(f.name)
    if 's UNSATISFIABLE' in out:
        return 'none'
    true = {int(v) for l in out.splitlines() if l.startswith('v') for v in l.split()[1:]}
    gsize = case.ncores // len(x[0])
    used = [0] * len(x[0])
    mapping = []
    for r in range(case.n):
        g = next(g for g in range(len(x[r])) if x[r][g] in true)
        mapping.append(g * gsize + used[g])
        used[g] += 1
    return mapping


def check(case, args):
    """One row of the table: the case, the answer, what it rests on, the seconds it took."""
    start = time.monotonic()
    name, verdict, what = answer(case, args)
    return name, verdict, what, time.monotonic() - start


def answer(case, args):
    name = os.path.basename(os.path.normpath(case.path))
    s_max, s_sum = case.scotch
    if less(case.hiercoll[0], s_max):
        return name, 'better already', ''
    cap = s_sum * (1 + args.slack)
    order = list(range(case.n))
    if args.shuffle:
        random.Random(args.shuffle).shuffle(order)
    if args.self_check:  # Scotch's own mapping, its max allowed, must get through
        own = solve(case, s_max * (1 + 1e-6), cap, args.timeout, order,
                    canonical_groups(case, case.scotch_map, order))
        if own == 'none':
            return name, 'WRONG', 'the encoding rejects Scotch\'s own mapping'
        if own == 'undecided':
            return name, 'undecided', 'self-check: no answer in %g s' % args.timeout
    # the max alone first: often no mapping at all goes lower, and that is quick to see
    for sum_cap in (None, cap):
        found = solve(case, s_max, sum_cap, args.timeout, order)
        if found == 'none':
            return name, 'unbreakable', 'no lower max' + (' at all' if sum_cap is None else '')
        if found == 'undecided':
            return name, 'undecided', 'no answer in %g s' % args.timeout
        lo_max, lo_sum = case.score(found)
        if not less(lo_max, s_max):  # what the relaxation let through is no lower
            return name, 'undecided', 'the relaxed question allows max %.3fx' % (lo_max / s_max)
        if lo_sum <= cap * (1 + RTOL):
            path = os.path.join(case.path, 'lower.map')
            with open(path, 'w') as f:
                f.write('%d\n' % case.n + ''.join('%d\t%d\n' % (r, p)
                                                   for r, p in enumerate(found)))
            return name, 'found', 'max %.3fx, sum %.3fx Scotch\'s: %s' % (
                lo_max / s_max, lo_sum / s_sum, path)
    return name, 'undecided', 'the relaxed question allows sum %.3fx' % (lo_sum / s_sum)


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('dirs', nargs='+', metavar='DIR')
    p.add_argument('--slack', type=float, default=0.05,
                   help='sum allowed above Scotch\'s, relative (default 0.05)')
    p.add_argument('--timeout', type=float, default=120, help='seconds per solver run')
    p.add_argument('--jobs', type=int, default=1, help='cases checked at once')
    p.add_argument('--self-check', action='store_true',
                   help='first check that the encoding lets Scotch\'s own mapping through')
    p.add_argument('--shuffle', type=int, default=0, metavar='SEED',
                   help='break the symmetry in a random order of the ranks (0: rank order)')
    args = p.parse_args()
    try:
        subprocess.run(['cadical', '--version'], capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        sys.exit('prove_ties.py: needs the SAT solver cadical (Debian package cadical)')
    cases = []
    for d in args.dirs:
        try:
            cases.append(Case(d))
        except (OSError, ValueError, IndexError) as e:
            sys.exit('prove_ties.py: %s: not a kept case (%s)' % (d, e))
    width = max(len(os.path.basename(os.path.normpath(c.path))) for c in cases)
    print('%-*s  %-14s  %6s  %s' % (width, 'case', 'lower max?', 'time', ''), flush=True)
    tally = {}
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for name, verdict, what, secs in pool.map(lambda c: check(c, args), cases):
            tally[verdict] = tally.get(verdict, 0) + 1
            print('%-*s  %-14s  %5.0fs  %s' % (width, name, verdict, secs, what), flush=True)
    ties = sum(v for k, v in tally.items() if k != 'better already')
    print('%d ties with Scotch: in %d no mapping has a lower max within %g%% of its sum; '
          'a lower one found in %d; %d undecided.' % (
              ties, tally.get('unbreakable', 0), 100 * args.slack, tally.get('found', 0),
              tally.get('undecided', 0)))
    if tally.get('WRONG'):
        sys.exit('prove_ties.py: the encoding is wrong (rows marked WRONG)')


if __name__ == '__main__':
    main()
