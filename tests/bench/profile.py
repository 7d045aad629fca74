#!/usr/bin/env python3
"""Where a configuration's extra instructions go, by kernel function.

Reads a bench guest's log directory (make bench KSTATS_BENCH_PROFILE=1):
profile.txt from the TCG plugin (per marker, the kernel blocks run since
the one before: "VADDR INSNS EXECUTIONS"), and results.txt, whose k-th
"run CONFIG ROUND N NS" line is the k-th pair of markers and whose
"ksym ADDR TYPE NAME [MODULE]" lines are the guest's text symbols.
Prints, for each configuration, its instructions per iteration by
function (the 2N runs' less the N runs', as report.py counts), less its
baseline's (pp-off for the ping-pong rows, untraced for the rest), the
largest differences first, each function's calls per iteration beside
it (the runs of the block at its address: a hook's calls count the hits).

Usage: profile.py LOGDIR [TOP]
"""
import bisect
import collections
import sys


def read_results(path):
    runs, syms = [], []
    with open(path, errors='replace') as f:
        for line in f:
            w = line.split()
            if len(w) >= 5 and w[0] == 'run':
                runs.append((w[1], int(w[3])))
            elif len(w) >= 4 and w[0] == 'ksym':
                name = w[3] + (' ' + w[4] if len(w) > 4 else '')
                syms.append((int(w[1], 16), name))
    syms.sort()
    return runs, syms


def read_profile(path):
    """The blocks of each marker's section, by marker number."""
    sections, cur = {}, None
    with open(path) as f:
        for line in f:
            w = line.split()
            if w[0] == 'mark':
                cur = sections.setdefault(int(w[1]), [])
            elif cur is not None and len(w) == 3:
                cur.append((int(w[0], 16), int(w[1]), int(w[2])))
    return sections


def by_function(blocks, addrs, names):
    """Instructions by function, and calls: runs of its first block."""
    insns, calls = collections.Counter(), collections.Counter()
    for vaddr, n, count in blocks:
        i = bisect.bisect_right(addrs, vaddr) - 1
        name = names[i] if i >= 0 else '?'
        insns[name] += n * count
        if i >= 0 and vaddr == addrs[i]:
            calls[name] += count
    return insns, calls


def main():
    logdir = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 25
    runs, syms = read_results(logdir + '/results.txt')
    addrs = [a for a, _ in syms]
    names = [n for _, n in syms]
    sections = read_profile(logdir + '/profile.txt')
    # Each configuration runs N and 2N iterations: the difference of
    # the two, per iteration, leaves out what a run costs once.
    sizes = collections.defaultdict(set)
    for config, n in runs:
        sizes[config].add(n)
    totals = collections.defaultdict(collections.Counter)
    calls = collections.defaultdict(collections.Counter)
    iters = collections.Counter()
    for k, (config, n) in enumerate(runs):
        # Run k lies between markers 2k and 2k + 1: the section of the latter.
        blocks = sections.get(2 * k + 1)
        if blocks is None:
            continue
        sign = 1 if n > min(sizes[config]) or len(sizes[config]) == 1 else -1
        funcs, entries = by_function(blocks, addrs, names)
        totals[config].update({f: sign * v for f, v in funcs.items()})
        calls[config].update({f: sign * v for f, v in entries.items()})
        iters[config] += sign * n
    per = {c: {f: v / iters[c] for f, v in totals[c].items()}
           for c in totals if iters[c] > 0}
    for config, mine in per.items():
        base = 'pp-off' if config.startswith('pp-') else 'untraced'
        if config == base or base not in per:
            continue
        b = per[base]
        diff = {f: mine.get(f, 0) - b.get(f, 0) for f in set(mine) | set(b)}
        print(f'{config}: {sum(diff.values()):+.1f} kernel instructions per iteration over {base}')
        for f, d in sorted(diff.items(), key=lambda x: -abs(x[1]))[:top]:
            if abs(d) >= 0.5:
                c = calls[config][f] / iters[config]
                print(f'  {d:+9.1f}  {f}' + (f'  ({c:.2f} calls)' if c > 0 else ''))
        print()

if __name__ == '__main__':
    main()
