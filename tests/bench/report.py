#!/usr/bin/env python3
"""Pair the guests' "run" lines with the plugin's marker counts, print the
tables of "make bench" and write bench.json with every figure. The arm64
targets (env.txt's "arch" line) are labelled as such; their guests skip
experiments 2 and 3 ("skip experiment-N"), which are x86's.

Usage: report.py BUILDDIR TARGET...
"""
import json
import math
import re
import statistics as st
import sys
from pathlib import Path

PCT = ['p10', 'p50', 'p90', 'p99', 'p99.9']


def load(tdir):
    """Everything one guest printed, with instruction counts per run."""
    log = tdir / 'log'
    g = {'runs': [], 'skipped': {}, 'meta': {}, 'loopns': {}, 'clocks': [],
         'empty': {}, 'emptyhist': {}, 'sizes': {}, 'exitwalk': []}
    for line in (log / 'results.txt').read_text(errors='replace').splitlines():
        w = line.split()
        if not w:
            continue
        if w[0] == 'run' and len(w) >= 5:
            g['runs'].append((w[1], int(w[2]), int(w[3]), w[4], w[5:]))
        elif len(w) > 2 and w[0] == '#' and w[1].startswith('kstats-') and 'samples' in w:
            kv = dict(zip(w[2::2], w[3::2]))
            g.setdefault('entries', {})[w[1].rstrip(':')] = kv
        elif w[0] == 'skip':
            g['skipped'][w[1]] = ' '.join(w[2:])
        elif line.startswith('# kernel '):
            g['meta']['kernel'] = w[2]
        elif w[0] == 'exitwalk' and len(w) == 4 and w[2].isdigit() and w[3].isdigit():
            g['exitwalk'].append((int(w[2]), int(w[3])))
        elif w[0] == 'loopns' and 'ps_per_iter' in w:
            g['loopns'].setdefault(w[1], []).append(int(w[-1]) / 1000)
        elif w[0] == 'clocks' and len(w) >= 16:
            g['clocks'].append({'probe': w[2], 'cache': w[3],
                                'n': int(w[5]),
                                **{w[i]: int(w[i + 1]) for i in range(6, 16, 2)}})
        elif w[0] in ('empty', 'emptyhist') and len(w) >= 12:
            kv = dict(zip(w[2::2], w[3::2]))
            g[w[0]][w[1]] = {k: int(v) for k, v in kv.items() if v.isdigit()}
    for k in ('env.txt',):
        if (log / k).exists():
            for line in (log / k).read_text().splitlines():
                key, _, val = line.partition(' ')
                g['meta'][key] = val
    if (log / 'nm.txt').exists():
        for line in (log / 'nm.txt').read_text().splitlines():
            w = line.split()
            if len(w) == 4 and w[3].startswith('exp_loop_'):
                g['sizes'][w[3]] = int(w[1], 16)
    if (log / 'markers.txt').exists():
        text = (log / 'markers.txt').read_text()
        marks = [int(x) for x in text.split('\n') if x and not x.startswith('#')]
        # The plugin's noirq=1 (arm64): entries seen, instructions left out.
        m = re.search(r'^# irq entries (\d+), instructions left out (\d+)$',
                      text, re.MULTILINE)
        if m:
            g['irq'] = {'entries': int(m[1]), 'left_out': int(m[2])}
    else:
        # A real machine (bench-host.sh): perf stat's count of each run.
        marks = []
        for r in g['runs']:
            marks += [0, int(r[4][0]) if r[4] else 0]
    if len(marks) != 2 * len(g['runs']):
        sys.exit(f"{tdir}: {len(g['runs'])} runs but {len(marks)} markers")
    res = {}
    for i, (cfg, rnd, n, ns, _) in enumerate(g['runs']):
        t = int(ns) if ns.lstrip('-').isdigit() and int(ns) > 0 else None
        sizes = res.setdefault(cfg, {}).setdefault(rnd, {})
        if n in sizes:
            sys.exit(f'{tdir}: {cfg} round {rnd} size {n} ran twice')
        sizes[n] = (marks[2 * i + 1] - marks[2 * i], t)
    g['configs'] = per_iter(res)
    del g['runs']
    return g


def per_iter(res):
    """Instructions per iteration from the two sizes of each round (the
    difference removes start-up costs), and ns per iteration."""
    out = {}
    for cfg, rounds in res.items():
        ipi, nspi = [], []
        for _, sizes in sorted(rounds.items()):
            if len(sizes) != 2:
                continue
            (n1, (i1, t1)), (n2, (i2, t2)) = sorted(sizes.items())
            ipi.append((i2 - i1) / (n2 - n1))
            # Time is taken around the loop only: no start-up to remove,
            # and a difference of two noisy times would double the noise.
            if t1 is not None and t2 is not None:
                nspi.append((t1 + t2) / (n1 + n2))
        if ipi:
            out[cfg] = {'insn_per_iter': ipi, 'ns_per_iter': nspi,
                        'insn': st.median(ipi),
                        'ns': st.median(nspi) if nspi else None}
    return out


# Each kstats configuration, its floor (empty handlers of the same
# mechanism; pairs hit two probes per iteration) and ftrace's equivalent.
KSTATS = [
    # config, label, floor configs (summed), ftrace equivalents
    ('kstats-trace', 'kstats trace vfs_read (default mechanism)', None,
     ['ftrace-kretprobe-hist', 'ftrace-synth-vfs-read', 'bpftrace-kretprobe',
      'bpftrace-kfunc', 'perf-ftrace-latency']),
    ('kstats-kretprobe', 'kstats trace vfs_read via kretprobe',
     ['floor-kretprobe'], ['ftrace-kretprobe-hist', 'ftrace-synth-vfs-read']),
    ('kstats-fprobe', 'kstats trace vfs_read via fprobe', ['floor-fprobe'],
     ['ftrace-fprobe-hist', 'ftrace-synth-vfs-read']),
    ('kstats-direct', 'kstats trace vfs_read via direct', ['floor-direct'],
     ['ftrace-kretprobe-hist', 'ftrace-synth-vfs-read', 'bpftrace-kfunc']),
    ('kstats-pcpu', 'kstats trace pcpu:vfs_read', None,
     ['ftrace-kretprobe-hist', 'ftrace-synth-vfs-read']),
    ('kstats-entry-pair-cpu', 'kstats pair vfs_read->vfs_write, key cpu',
     ['floor-ftrace', 'floor-ftrace'], ['ftrace-kprobe-hist']),
    ('kstats-entry-pair-task', 'kstats pair vfs_read->vfs_write, key task',
     ['floor-ftrace', 'floor-ftrace'], ['ftrace-kprobe-hist']),
    ('kstats-kprobe-pair-cpu',
     'kstats pair vfs_read+N->vfs_write+N (kprobes), key cpu',
     ['floor-kprobe', 'floor-kprobe'], ['ftrace-kprobe-hist']),
    ('kstats-kprobe-pair-task',
     'kstats pair vfs_read+N->vfs_write+N (kprobes), key task',
     ['floor-kprobe', 'floor-kprobe'], ['ftrace-kprobe-hist']),
    ('kstats-tp-pair-cpu', 'kstats pair sys_enter->sys_exit, key cpu',
     ['floor-tracepoint', 'floor-tracepoint'], ['ftrace-synth-syscall']),
    ('kstats-tp-pair-task', 'kstats pair sys_enter->sys_exit, key task',
     ['floor-tracepoint', 'floor-tracepoint'], ['ftrace-synth-syscall']),
    ('kstats-trace-mono', 'kstats trace vfs_read clock mono', None,
     ['ftrace-kretprobe-hist']),
    ('kstats-direct-mono', 'kstats trace vfs_read via direct clock mono',
     ['floor-direct'], ['ftrace-kretprobe-hist']),
    ('kstats-entry-pair-cpu-mono',
     'kstats pair vfs_read->vfs_write, key cpu, clock mono',
     ['floor-ftrace', 'floor-ftrace'], ['ftrace-kprobe-hist']),
    ('kstats-filtered', 'kstats trace vfs_read pid 0 (every call filtered out)',
     None, []),
    ('kstats-by-comm', 'kstats trace vfs_read by comm', None,
     ['ftrace-kretprobe-hist']),
    ('kstats-by-pid', 'kstats trace vfs_read by pid', None,
     ['ftrace-kretprobe-hist']),
    ('kstats-by-arg', 'kstats trace vfs_read by arg3', None,
     ['ftrace-kretprobe-hist']),
    ('kstats-outliers', 'kstats trace vfs_read outliers 10', None,
     ['ftrace-kretprobe-hist']),
    ('kstats-value-arg', 'kstats trace vfs_read value arg3', None,
     ['ftrace-kprobe-hist']),
    ('kstats-value-retval', 'kstats trace vfs_read value retval', None,
     ['ftrace-kretprobe-hist']),
    ('kstats-gap', 'kstats gap vfs_read',
     ['floor-ftrace'], ['ftrace-kprobe-hist']),
    ('kstats-counter', 'kstats trace vfs_read counter page-faults', None, []),
]

LABELS = {
    'untraced': 'untraced (bench-mark dd loop)',
    'busybox-dd': 'untraced, busybox dd bs=1',
    'floor-kretprobe': 'floor: empty kretprobe on vfs_read',
    'floor-kprobe': 'floor: empty kprobe on vfs_read',
    'floor-fprobe': 'floor: empty fprobe (entry+exit) on vfs_read',
    'floor-fprobe-entry': 'floor: empty fprobe entry on vfs_read',
    'floor-ftrace': 'floor: empty ftrace_ops callback on vfs_read',
    'floor-direct': 'floor: ftrace direct call, returning trampoline',
    'floor-tracepoint': 'floor: empty tracepoint probe on sys_enter',
    'ftrace-syscall-hist': 'ftrace: hist trigger on raw_syscalls/sys_enter',
    'ftrace-kprobe-hist': 'ftrace: kprobe event + hist on vfs_read',
    'ftrace-kretprobe-hist': 'ftrace: kretprobe event + hist on vfs_read',
    'ftrace-fprobe-hist': 'ftrace: fprobe vfs_read%return event + hist',
    'ftrace-synth-syscall': 'ftrace: synthetic latency hist sys_enter->sys_exit',
    'ftrace-synth-vfs-read': 'ftrace: synthetic latency hist of vfs_read (kprobe+kretprobe)',
    'bpftrace-kretprobe': 'bpftrace: hist() of vfs_read, kprobe+kretprobe',
    'bpftrace-kfunc': 'bpftrace: hist() of vfs_read, kfunc+kretfunc',
    'perf-ftrace-latency': 'perf ftrace latency -T vfs_read',
    'untraced@bpf-boot': 'untraced, in the bpftrace guest',
    'kstats-trace@bpf-boot': 'kstats trace vfs_read, in the bpftrace guest',
}
for c, label, _, _ in KSTATS:
    LABELS[c] = label
    LABELS[c + '-stopped'] = label + ', stopped'


def arm64(report, t):
    """Whether target t's guest ran on arm64 (bench.sh's env.txt)."""
    return report[t].get('meta', {}).get('arch', '').startswith('arm64')


def tlabel(report, t, fmt='{t} (arm64)'):
    """Target t as the report names it: arm64 ones say so."""
    return fmt.format(t=t) if arm64(report, t) else t


def welch(a, b):
    """Difference of means b - a with its 95% interval (normal approx.)."""
    if len(a) < 2 or len(b) < 2:
        return None
    d = st.mean(b) - st.mean(a)
    se = math.sqrt(st.variance(a) / len(a) + st.variance(b) / len(b))
    return d, 1.96 * se


def fmt(x, spec='.0f'):
    return '-' if x is None else format(x, spec)


def dd_table(report, targets):
    lines = ['Experiment 1: dd (1-byte read + 1-byte write per iteration), '
             'instructions per iteration (median of rounds; +extra over '
             'untraced) and ns per iteration (median), per kernel']
    # Column widths: x86's as they always were, an arm64 target's as wide
    # as its label.
    width = {t: len(t + ' arm64 insn') if arm64(report, t) else 10
             for t in targets}
    head = f"{'configuration':62s}" + ''.join(
        f" | {(t + ' arm64 insn' if arm64(report, t) else t + ' insn'):>{width[t]}s}"
        f" {'+extra':>7s} {'ns':>7s} {'+ns':>7s}" for t in targets)
    lines += [head, '-' * len(head)]
    order = ['untraced', 'busybox-dd'] + [c for c in LABELS if c.startswith('floor-')]
    for c, *_ in KSTATS:
        order += [c, c + '-stopped']
    order += [c for c in LABELS if c.startswith(('ftrace-', 'bpftrace', 'perf', 'untraced@', 'kstats-trace@'))]
    for c in order:
        # A row no kernel measured (a subset of configurations, or a
        # stopped variant that is not run) is left out, not shown as n/a.
        if c.endswith('-stopped') and not any(
                c in report[t]['configs'] for t in targets):
            continue
        row = f'{LABELS[c]:62s}'
        for t in targets:
            cf = report[t]['configs']
            base = cf.get('untraced')
            v = cf.get(c)
            w = width[t]
            if not v or not base:
                row += f" | {'n/a':>{w}s} {'':7s} {'':7s} {'':7s}"
                continue
            row += (f" | {v['insn']:{w}.1f} {v['insn'] - base['insn']:+7.0f}"
                    f" {fmt(v['ns'])!s:>7s} "
                    f"{fmt(v['ns'] - base['ns'] if v['ns'] and base['ns'] else None, '+.0f'):>7s}")
        lines.append(row)
    return lines


def ratios(report, targets):
    lines = ['', 'Ratios of kstats\' extra instructions (and extra ns) per '
             'iteration to the floor and to ftrace\'s equivalent']
    for t in targets:
        cf = report[t]['configs']
        base = cf.get('untraced')
        if not base:
            continue

        def extra(c, key='insn'):
            v = cf.get(c)
            if not v or v[key] is None or base[key] is None:
                return None
            return v[key] - base[key]
        lines.append(f'  {tlabel(report, t)}:')
        for c, label, floor, eq in KSTATS:
            for suffix in ('', '-stopped'):
                e = extra(c + suffix)
                if e is None:
                    continue
                parts = []
                if floor and all(extra(f) is not None for f in floor):
                    fl = sum(extra(f) for f in floor)
                    parts.append(f'floor {fl:+.0f}: x{e / fl:.2f} (own {e - fl:+.0f})')
                for q in eq:
                    x = extra(q)
                    if x:
                        ns, nq = extra(c + suffix, 'ns'), extra(q, 'ns')
                        # Under TCG on a busy host a time difference may
                        # be lost in the noise: no ratio of noise.
                        tr = (f', time x{ns / nq:.2f}' if ns and nq and ns > 0 and nq > 0
                              else ', time n/a')
                        parts.append(f'{q} {x:+.0f}: x{e / x:.2f}{tr}')
                r = report[t].setdefault('ratios', {})
                r[c + suffix] = parts
                lines.append(f'    {c + suffix:28s} {e:+6.0f}  ' + '; '.join(parts))
    return lines


# The probe-effect targets of the project (issue "Probe effect at the
# floor"), in extra instructions per dd iteration: (what, value of the
# figures, limit of the figures). A figure missing from a run is n/a.
def _own(a, b, n=1):
    return lambda x: (x(a) - sum(x(f) for f in b)) / n


GOALS = [
    ('trace vfs_read, default mechanism: total <= +200',
     lambda x: x('kstats-trace'), lambda x: 200),
    ('stopped kretprobe entry <= the kprobe (entry) floor',
     lambda x: x('kstats-kretprobe-stopped'), lambda x: x('floor-kprobe')),
    ('stopped fprobe entry <= the fprobe entry floor',
     lambda x: x('kstats-fprobe-stopped'), lambda x: x('floor-fprobe-entry')),
    ('stopped direct entry <= +40',
     lambda x: x('kstats-direct-stopped'), lambda x: 40),
    ('key task <= 1.5 x key cpu (entry pair)',
     lambda x: x('kstats-entry-pair-task') / x('kstats-entry-pair-cpu'),
     lambda x: 1.5),
    ('key task <= 1.5 x key cpu (tracepoint pair)',
     lambda x: x('kstats-tp-pair-task') / x('kstats-tp-pair-cpu'),
     lambda x: 1.5),
    ('own addition over the floor <= 100, via kretprobe',
     _own('kstats-kretprobe', ['floor-kretprobe']), lambda x: 100),
    ('own addition over the floor <= 100, via fprobe',
     _own('kstats-fprobe', ['floor-fprobe']), lambda x: 100),
    ('own addition over the floor <= 100, via direct',
     _own('kstats-direct', ['floor-direct']), lambda x: 100),
    ('own addition per pair endpoint <= 60, entry pair key cpu',
     _own('kstats-entry-pair-cpu', ['floor-ftrace'] * 2, 2), lambda x: 60),
    ('own addition per pair endpoint <= 60, kprobe pair key cpu',
     _own('kstats-kprobe-pair-cpu', ['floor-kprobe'] * 2, 2), lambda x: 60),
    ('own addition per pair endpoint <= 60, tracepoint pair key cpu',
     _own('kstats-tp-pair-cpu', ['floor-tracepoint'] * 2, 2), lambda x: 60),
    # Issue 28: per-key histograms and outliers over the plain entry.
    ('by comm <= trace vfs_read + 60',
     _own('kstats-by-comm', ['kstats-trace']), lambda x: 60),
    ('by pid <= trace vfs_read + 60',
     _own('kstats-by-pid', ['kstats-trace']), lambda x: 60),
    ('outliers 10 <= trace vfs_read + 15',
     _own('kstats-outliers', ['kstats-trace']), lambda x: 15),
]


def goals(report, targets):
    lines = ['', 'Targets (extra instructions per iteration over untraced)']
    for t in targets:
        cf = report[t]['configs']
        base = cf.get('untraced')
        if not base:
            continue

        def x(c):
            if c not in cf:
                raise KeyError(c)
            return cf[c]['insn'] - base['insn']
        lines.append(f'  {tlabel(report, t)}:')
        for what, val, limit in GOALS:
            try:
                v, lim = val(x), limit(x)
            except (KeyError, ZeroDivisionError) as e:
                lines.append(f'    {what:62s} n/a ({e})')
                continue
            verdict = 'met' if v <= lim else 'NOT met'
            report[t].setdefault('goals', {})[what] = {
                'value': round(v, 2), 'limit': round(lim, 2), 'met': v <= lim}
            lines.append(f'    {what:62s} {v:8.2f} (limit {lim:.2f}) {verdict}')
    return lines


def experiments(report, targets):
    lines = []
    for t in targets:
        g = report[t]
        cf = g['configs']
        # A guest without kstats_bench_exp.ko (arm64) skipped both.
        if 'experiment-2' in g['skipped'] or 'experiment-3' in g['skipped']:
            for n in ('2', '3'):
                why = g['skipped'].get(f'experiment-{n}')
                if why is not None:
                    lines += ['', (f'Experiment {n} ({tlabel(report, t, "{t}, arm64")}): '
                                   f'skipped: {why or "not supported"}')]
        else:
            lines += exp23(g, t)
        lines += ['', (f'Experiment 4 ({tlabel(report, t, "{t}, arm64")}): pipe ping-pong, '
                       'ns per round trip, mean difference to off with 95% interval')]
        # The bpftrace guest's rows against its own boot's pp-off.
        main_pp = ('pp-off', 'pp-kstats', 'pp-ftrace', 'pp-runqlat', 'pp-offcpu')
        bpf_pp = tuple(c + '@bpf-boot' for c in ('pp-off', 'pp-runqlat', 'pp-offcpu',
                                                 'pp-bpftrace-runqlat', 'pp-bpftrace-offcpu'))
        for group in (main_pp, bpf_pp):
            off = cf.get(group[0])
            for c in group:
                v = cf.get(c)
                if not v or not off:
                    continue
                w = welch(off['ns_per_iter'], v['ns_per_iter'])
                sig = ''
                if w and c != group[0]:
                    d, h = w
                    sig = (f'  diff {d:+.0f} +/- {h:.0f} ns '
                           f'({100 * d / st.mean(off["ns_per_iter"]):+.1f}%)'
                           + ('' if abs(d) > h else ', no difference proven'))
                    g.setdefault('pingpong', {})[c] = {'diff_ns': d, 'ci95_ns': h}
                lines.append(f"  {c:10s} insn {v['insn']:8.1f} ({v['insn'] - off['insn']:+.1f})"
                             f" ns {fmt(v['ns'])}{sig}")
        lines += exp5(g, t, report)
        lines += exp6(g, t, report)
    return lines


def exp5(g, t, report):
    """Experiment 5: a task's exit while a direct entry exists."""
    cf = g['configs']
    off = cf.get('exit-off')
    walk = g.get('exitwalk', [])
    if not off and not walk:
        return []
    lines = ['', (f'Experiment 5 ({tlabel(report, t, "{t}, arm64")}): fork, exit and wait, '
                  'per task, with no entry and with a direct entry on vfs_read '
                  '(each exit walks the dying task\'s stack)')]
    if walk:
        d = [on - o for o, on in walk]
        g['exit_walk_ns'] = {'rounds': walk, 'median_diff_ns': st.median(d)}
        lines.append('  acct_process() to exit_sem() in do_exit(), mean ns per exit, each round '
                     'without / with: ' + ', '.join(f'{o}/{on}' for o, on in walk)
                     + f'; median difference {st.median(d):+.0f} ns')
    if not off:
        return lines
    for c in ('exit-off', 'exit-direct'):
        v = cf.get(c)
        if not v:
            continue
        d = v['insn'] - off['insn']
        extra = '' if c == 'exit-off' else f'  {d:+.0f} insn ({100 * d / off["insn"]:+.2f}%)'
        if c != 'exit-off':
            g.setdefault('exit', {})[c] = {'insn_diff': round(d, 1)}
        lines.append(f"  {c:11s} insn {v['insn']:9.1f} ns {fmt(v['ns'])}{extra}")
    return lines


def exp6(g, t, report):
    """Experiment 6: calls of a user function (bench_ufunc) under uprobes,
    each group against its own boot's uf-off, whose own time the bpftrace
    boot's shift (merge_bpf()) makes no figure: differences only."""
    cf = g['configs']
    groups = (('uf-off', 'uf-kstats-stopped', 'uf-kstats', 'uf-ftrace'),
              tuple(c + '@bpf-boot' for c in ('uf-off', 'uf-kstats', 'uf-bpftrace')))
    if not any(c in cf for grp in groups for c in grp):
        return []
    lines = ['', (f'Experiment 6 ({tlabel(report, t, "{t}, arm64")}): a user function '
                  '(bench_ufunc: two instructions), per call, over no probe')]
    for grp in groups:
        off = cf.get(grp[0])
        if not off:
            continue
        for c in grp:
            v = cf.get(c)
            if not v:
                continue
            d = v['insn'] - off['insn']
            ns = (v['ns'] - off['ns']) if v['ns'] and off['ns'] else None
            if c != grp[0]:
                g.setdefault('ufunc', {})[c] = {'insn_diff': round(d, 1),
                                                'ns_diff': ns}
            lines.append(f"  {c:26s} insn {v['insn']:9.1f} ({d:+.0f})"
                         f"  ns {fmt(ns, '+.0f')}")
    return lines


def exp23(g, t):
    """Experiments 2 and 3 of target t's guest g (kstats_bench_exp.ko)."""
    lines = ['', (f'Experiment 2 ({t}): in-kernel costs, ns from the TSC '
                  '(clock reads and kstats_record() back to back, hot and cold)')]
    for c in g['clocks']:
        lines.append(f"  {c['probe']:24s} {c['cache']:4s} " +
                     ' '.join(f'{p} {c[p]:>6d}' for p in PCT))
    lines.append('  runtime of an empty function, per call (TSC around '
                 'the call), under each mechanism:')
    for m, v in g['empty'].items():
        lines.append(f'  {m:24s}      ' + ' '.join(f'{p} {v.get(p, 0):>6d}' for p in PCT))
    if g['emptyhist']:
        lines.append('  the same as kstats\' own histogram reports it (slot means, ns):')
    for m, v in g['emptyhist'].items():
        lines.append(f'  {m:24s}      ' + ' '.join(f'{p} {v.get(p, 0):>6d}' for p in PCT))
    lines += ['', f'Experiment 3 ({t}): markers loop, per iteration']
    cf = g['configs']
    for body in ('empty', 'memcpy'):
        base = cf.get(f'loop-{body}-none')
        for mode in ('none', 'stopped', 'running'):
            v = cf.get(f'loop-{body}-{mode}')
            ns = g['loopns'].get(f'loop-{body}-{mode}')
            if not v:
                continue
            lines.append(f"  {body:6s} {mode:8s} insn {v['insn']:8.2f} "
                         f"(+{v['insn'] - base['insn']:.2f})  ns {st.median(ns) if ns else 0:8.2f}")
    base = cf.get('loop-empty-none')
    for body, what in (('mono', 'ktime_get_mono_fast_ns()'),
                       ('local', 'local_clock()'),
                       ('tsc', 'rdtsc_ordered(), unscaled')):
        v = cf.get(f'loop-{body}-none')
        ns = g['loopns'].get(f'loop-{body}-none')
        if v and base:
            lines.append(f"  a read of {what}: insn {v['insn'] - base['insn']:.2f}"
                         f"  ns {st.median(ns) if ns else 0:.2f} (the loop included)")
    sz = g['sizes']
    for body in ('empty', 'memcpy'):
        a, b = sz.get(f'exp_loop_{body}_none'), sz.get(f'exp_loop_{body}_record')
        if a and b:
            lines.append(f'  bytes of the {body} loop function: {a} without, '
                         f'{b} with kstats_record(): +{b - a}')
    return lines


def merge_bpf(main, bpf):
    """Configurations of the bpftrace guest (another boot, another
    userspace), shifted by the difference of the two boots' untraced runs
    so that their extras stay relative to their own boot's baseline."""
    mb, bb = main['configs'].get('untraced'), bpf['configs'].get('untraced')
    if not mb or not bb:
        return
    for c, v in bpf['configs'].items():
        name = c if c.startswith(('bpftrace', 'perf')) else c + '@bpf-boot'
        w = dict(v)
        w['insn'] = v['insn'] - bb['insn'] + mb['insn']
        if v['ns'] is not None and bb['ns'] and mb['ns']:
            w['ns'] = v['ns'] - bb['ns'] + mb['ns']
        w['same_boot_baseline'] = {'insn': bb['insn'], 'ns': bb['ns']}
        main['configs'][name] = w
    main['skipped'].update(bpf['skipped'])
    main['meta']['bpftrace_boot'] = bpf['meta']


def main():
    build = Path(sys.argv[1])
    targets = sys.argv[2:]
    report = {t: load(build / t) for t in targets}
    for t in targets:
        if (build / f'{t}-bpf/log/results.txt').exists():
            merge_bpf(report[t], load(build / f'{t}-bpf'))
    out = []
    for t in targets:
        m = report[t]['meta']
        arch = f", {m['arch']}" if arm64(report, t) else ''
        if 'irq' in report[t]:
            q = report[t]['irq']
            arch += (f", interrupts left out of the counts ({q['entries']} "
                     f"entries, {q['left_out']} instructions)")
        out.append(f"{t}: kernel {m.get('kernel')}, {m.get('qemu')}, "
                   f"{m.get('accel')}{arch}, host CPU {m.get('host_cpu')}")
    out += [''] + dd_table(report, targets)
    out += ratios(report, targets)
    out += goals(report, targets)
    out += experiments(report, targets)
    for t in targets:
        for c, kv in report[t].get('entries', {}).items():
            # kstats-filtered leaves out every call by design.
            if c == 'kstats-filtered':
                continue
            if kv.get('skipped', '0') != '0' or (kv.get('samples') == '0' and
                                                  kv.get('state') == 'running'):
                out.append(f"{t}: {c}: the entry has {kv.get('samples')} samples, "
                           f"skipped {kv.get('skipped', 0)}: it does not measure every call")
    for t in targets:
        for c, why in report[t]['skipped'].items():
            out.append(f'{t}: skipped {c}: {why or "not supported"}')
    text = '\n'.join(out) + '\n'
    (build / 'bench.txt').write_text(text)
    (build / 'bench.json').write_text(json.dumps(report, indent=1))
    print(text, end='')


if __name__ == '__main__':
    main()
