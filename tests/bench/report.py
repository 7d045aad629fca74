#!/usr/bin/env python3
"""Pair the guests' run lines with the plugin's marker counts; print the
tables of "make bench" and write bench.json.

Usage: report.py BUILDDIR TARGET...
"""
import json
import statistics
import sys
from pathlib import Path


def load(tdir):
    runs, skips, meta = [], {}, {}
    for line in (tdir / 'log/results.txt').read_text(errors='replace').splitlines():
        w = line.split()
        if w[:1] == ['run'] and len(w) >= 5:
            runs.append((w[1], int(w[2]), int(w[3]), w[4]))
        elif w[:1] == ['skip']:
            skips[w[1]] = ' '.join(w[2:])
        elif line.startswith('# kernel '):
            meta['kernel'] = w[2]
    marks = [int(x) for x in (tdir / 'log/markers.txt').read_text().split('\n')
             if x and not x.startswith('#')]
    if len(marks) != 2 * len(runs):
        sys.exit(f'{tdir}: {len(runs)} runs but {len(marks)} markers')
    res = {}
    for i, (cfg, rnd, n, ns) in enumerate(runs):
        d = res.setdefault(cfg, {}).setdefault(rnd, {})
        d[n] = (marks[2 * i + 1] - marks[2 * i], int(ns) if ns.lstrip('-').isdigit() else None)
    return res, skips, meta


def per_iter(res):
    out = {}
    for cfg, rounds in res.items():
        ipi, nspi = [], []
        for rnd, sizes in sorted(rounds.items()):
            if len(sizes) != 2:
                continue
            (n1, (i1, t1)), (n2, (i2, t2)) = sorted(sizes.items())
            ipi.append((i2 - i1) / (n2 - n1))
            # Time is taken around the loop only: no start-up to remove,
            # and a difference of two noisy times would double the noise.
            if t1 is not None and t2 is not None:
                nspi.append((t1 + t2) / (n1 + n2))
        out[cfg] = {'insn_per_iter': ipi, 'ns_per_iter': nspi}
    return out


def main():
    build = Path(sys.argv[1])
    report = {}
    for t in sys.argv[2:]:
        res, skips, meta = load(build / t)
        report[t] = {'meta': meta, 'skipped': skips, 'configs': per_iter(res)}
    (build / 'bench.json').write_text(json.dumps(report, indent=1))
    for t, r in report.items():
        print(f"== {t} ({r['meta'].get('kernel')})")
        base = r['configs'].get('untraced')
        b = statistics.median(base['insn_per_iter']) if base else 0
        bt = statistics.median(base['ns_per_iter']) if base else 0
        for cfg, v in r['configs'].items():
            i = v['insn_per_iter']
            ns = v['ns_per_iter']
            print(f"{cfg:32s} insn/iter {statistics.median(i):9.1f} (+{statistics.median(i) - b:8.1f})"
                  f" range {min(i):.1f}-{max(i):.1f}  ns/iter {statistics.median(ns):8.0f} (+{statistics.median(ns) - bt:6.0f})")
        for cfg, why in r['skipped'].items():
            print(f"{cfg:32s} skipped: {why}")


main()
