#!/usr/bin/env python3
"""Print the comparison of "make compare-sched": per guest and question
of tests/bench/sched-guest.sh, the samples that the kstats tool and
bpftrace counted, their medians and 99th percentiles (kstats': the
tool's estimates from its slots; bpftrace's: the power-of-two bucket
that holds them), per key where the question has keys (comm, disk,
flags), and for off-CPU time by stack the largest totals by the
function where tasks slept. Exits 1 if a question has no output, a tool
counted nothing, the guest lacked a disk or a module, or their counts
of the workload's tasks or disks differ by more than MAX_APART and
MAX_APART_N: both are attached around the same workload, a moment
apart.

Usage: sched-report.py BUILDDIR TARGET...
"""
import re
import sys
from pathlib import Path

MAX_APART, MAX_APART_N = 0.05, 20
# The workload's tasks, by comm (hackbench's, the disk reads', the naps').
WORKLOAD = ('sched-messaging', 'dd', 'python3')
UNITS = {'ns': 1, 'us': 1e3, 'ms': 1e6, 's': 1e9}
# bpftrace's bucket edges: 1, 2, ... 1K, 2K, ... 1M.
EDGE_UNITS = {'': 1, 'K': 1024, 'M': 1024 ** 2, 'G': 1024 ** 3}
# Frames of the switch itself, under the function where a task slept.
SWITCH = re.compile(r'^(__traceiter_sched_switch|__schedule|schedule|'
                    r'finish_task_switch|__cond_resched|preempt_schedule|'
                    r'io_schedule|schedule_timeout|schedule_hrtimeout|'
                    r'irqentry_exit|syscall_exit_to_user_mode)')


def load(results):
    """Header lines, disk numbers and the questions of one guest."""
    meta, devs, sections, cur = [], {}, [], None
    for line in results.read_text(errors='replace').splitlines():
        w = line.split()
        if not w:
            continue
        if w[0] == 'section':
            cur = {'name': w[1], 'cmd': '', 'notes': [], 'kstats': [], 'bpf': [],
                   'at': {}}
            sections.append(cur)
        elif w[0] == 'dev' and len(w) == 3:
            major, minor = w[2].split(':')
            devs[str(int(major) << 20 | int(minor))] = w[1]
        elif cur is None:
            if w[0] == '#':
                meta.append(line[2:])
        elif w[0] == 'at' and len(w) == 3:
            cur['at'][w[1]] = float(w[2])
        elif w[0] == 'kstats_cmd':
            cur['cmd'] = line.split(None, 1)[1]
        elif w[0] == 'kstats':
            cur['kstats'].append(line[7:])
        elif w[0] == 'bpf':
            cur['bpf'].append(line[4:])
        elif w[0] == '#':
            cur['notes'].append(line[2:])
        elif w[0] == 'end':
            cur['done'] = True
            cur = None
    return meta, devs, sections


def ns(text):
    """A duration of the tool's output (130us, 1.15ms, 8.43s) in ns."""
    m = re.fullmatch(r'([0-9.]+)(ns|us|ms|s)\*?', text)
    return float(m.group(1)) * UNITS[m.group(2)] if m else None


def kstats_total(lines):
    """count, p50 and p99 of the tool's table of estimates."""
    row = {}
    for line in lines:
        w = line.split()
        if len(w) >= 2 and w[0] in ('count', 'p50', 'p99') and w[0] not in row:
            row[w[0]] = w[1]
    if 'count' not in row:
        return None
    return int(row['count']), ns(row.get('p50', '')), ns(row.get('p99', ''))


def kstats_keys(lines):
    """{key: (count, p50)} of the tool's key table."""
    keys, on = {}, False
    for line in lines:
        if line.startswith('per key'):
            on = True
        elif on and line.startswith('key '):
            continue
        elif on and line.startswith('keys '):
            break
        elif on:
            m = re.match(r'(.+?)\s+([0-9]+)\s+(\S+)', line)
            if m and m.group(1) != 'other':
                keys[m.group(1)] = (int(m.group(2)), ns(m.group(3)))
    return keys


def edge(text):
    m = re.fullmatch(r'([0-9]+)([KMG]?)', text)
    return int(m.group(1)) * EDGE_UNITS[m.group(2)]


def bpf_hists(lines):
    """{map key: [(lo, hi, count)]} of bpftrace's hist() maps (us)."""
    hists, cur = {}, None
    for line in lines:
        m = re.match(r'@\w+(?:\[(.*)\])?:\s*$', line)
        if m:
            cur = hists.setdefault(m.group(1) or '', [])
            continue
        m = re.match(r'\[([0-9KMG]+), ([0-9KMG]+)\)\s+([0-9]+) \|', line)
        if m and cur is not None:
            cur.append((edge(m.group(1)), edge(m.group(2)), int(m.group(3))))
    return hists


def hist_rank(buckets, q):
    """The bucket [lo, hi) that holds quantile q, in ns, as text."""
    n = sum(c for _, _, c in buckets)
    k, seen = max(1, -(-int(q * 1000) * n // 1000)), 0
    for lo, hi, c in buckets:
        seen += c
        if seen >= k:
            return f'[{fmt(lo * 1000)}, {fmt(hi * 1000)})'
    return '-'


def fmt(v):
    """ns in three significant digits without trailing zeros, so that
    bpftrace's power-of-two edges read as its own (64us, 4.1ms), where
    the tool's fmt_t() writes 64.0us and 4.10ms."""
    if v is None:
        return '-'
    for unit, f in (('s', 1e9), ('ms', 1e6), ('us', 1e3)):
        if v >= f:
            return f'{v / f:.3g}{unit}'
    return f'{v:.0f}ns'


def site(frames):
    """The function where a task slept: the innermost frame that is not
    the switch's own (frames outermost first)."""
    for f in reversed(frames):
        name = f.split('+')[0]
        if not SWITCH.match(name):
            return name
    return frames[0].split('+')[0] if frames else '?'


def kstats_folded(lines):
    """{site: total ns} of the tool's --folded lines."""
    sites = {}
    for line in lines:
        m = re.fullmatch(r'(\S+;\S+|\S+\+0x\S+|\[other\]) ([0-9]+)', line)
        if m:
            s = site(m.group(1).split(';'))
            sites[s] = sites.get(s, 0) + int(m.group(2))
    return sites


def bpf_stacks(lines):
    """{site: total ns} of bpftrace's @ns[kstack] sums (innermost first)."""
    sites, frames = {}, None
    for line in lines:
        if line.startswith('@ns['):
            frames = []
        elif frames is not None and line.startswith(']: '):
            s = site(list(reversed(frames)))
            sites[s] = sites.get(s, 0) + int(line[3:])
            frames = None
        elif frames is not None and line.strip():
            frames.append(line.strip())
    return sites


def far_apart(a, b):
    """Counts more than MAX_APART and MAX_APART_N samples apart."""
    return abs(a - b) > max(MAX_APART * max(a, b), MAX_APART_N)


def compare(sec, devs, errors, where):
    """Print one question's rows; add what fails to errors."""
    at = sec['at']
    what = f"{where} {sec['name']}"
    print(f"{sec['name']}: {sec['cmd']}")
    if 'stop' in at and 'kstats_in' in at and 'bpftrace_in' in at:
        print(f"  attached for: kstats {at['stop'] - at['kstats_in']:.1f} s, "
              f"bpftrace {at['stop'] - at['bpftrace_in']:.1f} s "
              f"(workload {at['stop'] - max(at['kstats_in'], at['bpftrace_in']):.1f} s)")
    else:
        errors.append(f'{what}: a tool did not attach')
    if not sec.get('done') or 'kstats exited 0' not in sec['notes'] or \
            'bpftrace exited 0' not in sec['notes']:
        errors.append(f"{what}: did not finish ({'; '.join(sec['notes'])})")
    for note in sec['notes']:
        if note.startswith('left in _control') and not note.endswith(' 0'):
            errors.append(f'{what}: {note}')
    if sec['name'] == 'offcpu':
        ks, bs = kstats_folded(sec['kstats']), bpf_stacks(sec['bpf'])
        kt, bt = sum(ks.values()), sum(bs.values())
        print(f'  off-CPU total: kstats {fmt(kt)}, bpftrace {fmt(bt)}')
        print(f"  {'slept in (largest 8)':<32} {'kstats':>15} {'bpftrace':>15}")
        for s in sorted(ks, key=ks.get, reverse=True)[:8]:
            print(f'  {s[:32]:<32} {fmt(ks[s]):>8} {100 * ks[s] / max(kt, 1):5.1f}% '
                  f'{fmt(bs.get(s)):>8} {100 * bs.get(s, 0) / max(bt, 1):5.1f}%')
        if not kt or not bt:
            errors.append(f'{where} offcpu: a tool counted nothing')
        return
    total = kstats_total(sec['kstats'])
    hists = bpf_hists(sec['bpf'])
    if total is None or not hists:
        errors.append(f"{what}: no {'kstats' if total is None else 'bpftrace'} output")
        return
    every = sorted(b for h in hists.values() for b in h)
    print(f"  {'':<18} {'count':>8} {'p50':>9} {'':>17} {'p99':>9}")
    row('kstats', total[0], total[1], total[2])
    row('bpftrace', sum(c for _, _, c in every), hist_rank(every, 0.5), hist_rank(every, 0.99))
    keys = kstats_keys(sec['kstats'])
    if not keys:
        errors.append(f'{what}: no keys')
    by_comm = '--by comm' in sec['cmd']
    named = bpf_named(hists, sec['cmd'], devs)
    for k, (n, p50) in sorted(keys.items(), key=lambda x: -x[1][0])[:8]:
        # -F's keys are the tool's names and the number: READ|SYNC (2048).
        b = named.get(k.split(' (')[0], [])
        bn = sum(c for _, _, c in b)
        row(k, n, p50)
        row('  bpftrace', bn, hist_rank(b, 0.5) if b else '-')
        # The workload's tasks and disks lived inside both windows.
        if (not by_comm or k in WORKLOAD) and far_apart(n, bn):
            errors.append(f'{what} {k}: kstats {n}, bpftrace {bn}')


def row(name, n, p50, p99=None):
    """A line of the table: count, then the tool's estimates in its own
    columns and bpftrace's buckets in theirs."""
    if isinstance(p50, str):
        line = f"  {name[:18]:<18} {n:>8} {'':>9} {p50:>17} {'':>9} {p99 or '':>17}"
    else:
        line = f"  {name[:18]:<18} {n:>8} {fmt(p50):>9} {'':>17} {fmt(p99) if p99 else '':>9}"
    print(line.rstrip())


def flags(rwbs):
    """The tool's name of a bpftrace rwbs string's flags (R, RS, W...)."""
    op = {'R': 'READ', 'W': 'WRITE', 'D': 'DISCARD', 'F': 'FLUSH'}.get(rwbs[:1], rwbs)
    return op + ('|SYNC' if 'S' in rwbs[1:] else '')


def bpf_named(hists, cmd, devs):
    """bpftrace's histograms under the tool's names of their keys: a
    disk's name for -D's device numbers, the flags' for -F's rwbs, the
    comm as it is."""
    name = {'-D': devs.get, '-F': flags}.get(cmd.split()[-1], lambda k: k)
    return {name(k) or k: h for k, h in hists.items()}


def main():
    build, targets = Path(sys.argv[1]), sys.argv[2:]
    env = build / 'env.txt'
    if env.exists():
        print(env.read_text().rstrip())
    errors = []
    for t in targets:
        meta, devs, sections = load(build / t / 'log' / 'results.tap')
        print(f"\n## {t}: {', '.join(meta)}")
        for m in meta:
            if m.startswith('no ') or m.endswith(' failed'):
                errors.append(f'{t}: {m}')
        if len(sections) < 6:
            errors.append(f'{t}: {len(sections)} questions of 6')
        for sec in sections:
            compare(sec, devs, errors, t)
    for e in errors:
        print('FAIL ' + e)
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
