#!/usr/bin/env python3
"""Print the comparison of "make compare-biolatency": per guest and phase
of tests/bench/biolat-guest.sh, the requests that the disk, kstats and
bpftrace counted, and both distributions in us. kstats' percentiles are
the kstats tool's estimates from its slots (tool/kstats/model.py);
bpftrace's are exact, from every latency it printed. Exits 1 if the
counts differ anywhere: they are exact, the timings are not checked.

Usage: biolat-report.py [--slots] BUILDDIR TARGET...
"""
import fractions
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / 'tool'))
from kstats.model import Hist, slot_lo, slot_of, slot_top

PCT = [('p50', fractions.Fraction(1, 2)), ('p90', fractions.Fraction(9, 10)),
       ('p99', fractions.Fraction(99, 100))]


def load(results):
    """Header lines and the phases of one guest's output."""
    meta, phases, cur = [], [], None
    for line in results.read_text(errors='replace').splitlines():
        w = line.split()
        if not w:
            continue
        if w[0] == 'phase':
            cur = {'name': w[1], 'first': w[2], 'params': ' '.join(w[3:]),
                   'notes': [], 'rows': [], 'lat': [], 'bpf': [], 'ctl': {}}
            phases.append(cur)
        elif not phases:
            if w[0] == '#':
                meta.append(line[2:])
        elif cur is None:
            continue
        elif w[0] == 'disk':
            cur['disk'] = (int(w[1]), int(w[2]))
        elif w[0] == 'kstats_control':
            cur['ctl'] = dict(zip(w[1::2], w[2::2]))
        elif w[0] == 'kstats' and len(w) >= 9:
            cur['rows'].append((int(w[2]), int(w[6]), int(w[8])))
        elif w[0] == 'bpf_lat':
            cur['lat'].append(int(w[1]))
        elif w[0] == 'bpf':
            cur['bpf'].append(line[4:])
        elif w[0] == '#':
            cur['notes'].append(line[2:])
        elif w[0] == 'end':
            cur['done'] = True
            cur = None
    return meta, phases


def bpf_count(p):
    """bpftrace's own count(), @n, from its maps at exit."""
    for line in p['bpf']:
        if line.startswith('@n: '):
            return int(line[4:])
    return None


def us(ns):
    return f'{ns / 1000:9.1f}'


def us3(ns):
    """A slot's or range's edge in us, to the ns."""
    return f'{ns / 1000:.3f}'


def exact_rank(values, q):
    """Nearest-rank quantile of exact values."""
    k = max(1, -(-q.numerator * len(values) // q.denominator))
    return sorted(values)[k - 1]


def octaves(rows, bits, lat):
    """Both distributions per range [2^(b-1), 2^b) of ns, keyed by b, as
    bpftrace's hist() has them: kstats' slots nest in these ranges."""
    ks, bp = {}, {}
    for s, c, _ in rows:
        b = slot_lo(s, bits).bit_length()
        ks[b] = ks.get(b, 0) + c
    for v in lat:
        bp[v.bit_length()] = bp.get(v.bit_length(), 0) + 1
    return ks, bp


def show_phase(p, slots):
    """Print one phase; returns whether its counts agree."""
    ctl = p['ctl']
    bits = int(ctl.get('bits', 4))
    hist = Hist(bits, p['rows'])
    lat = p['lat']
    reads, writes = p.get('disk', (None, None))
    n_bpf = bpf_count(p)
    counts = [reads, hist.count, n_bpf, len(lat)]
    ok = (None not in counts and len(set(counts)) == 1 and p.get('done')
          and ctl.get('unpaired') == '0')
    second = 'kstats' if p['first'] == 'bpftrace' else 'bpftrace'
    params = ' '.join(['queue_mode=2'] + p['params'].split())
    print(f"-- {p['name']} (null_blk {params}), "
          f"{p['first']} attached first, then {second}")
    for n in p['notes']:
        print(f'   {n}')
    print(f'   requests: disk {reads} reads ({writes} writes), '
          f"kstats {hist.count} (unpaired {ctl.get('unpaired')}, "
          f"dropped {ctl.get('dropped')}, expired {ctl.get('expired')}), "
          f'bpftrace {n_bpf} (@n; {len(lat)} latencies printed): '
          + ('all equal' if ok else 'DIFFERENT'))
    if not hist.count or not lat:
        return ok
    print(f"   {'us':10}{'count':>9}{'p50':>10}{'p90':>10}{'p99':>10}{'max':>10}")
    kv = [hist.quantile(q)[0] for _, q in PCT] + [int(ctl['max'])]
    bv = [exact_rank(lat, q) for _, q in PCT] + [max(lat)]
    print(f"   {'kstats':10}{hist.count:9d}" + ''.join(f' {us(v)}' for v in kv))
    print(f"   {'bpftrace':10}{len(lat):9d}" + ''.join(f' {us(v)}' for v in bv))
    print(f"   {'difference':10}{'':9}" + ''.join(f' {us(a - b)}' for a, b in zip(kv, bv)))
    print(f'   bpftrace\'s max: request {lat.index(max(lat)) + 1} of {len(lat)} '
          '(in the order of completion)')
    print('   histogram, ns ranges of powers of two (bpftrace\'s hist()):')
    print(f"   {'from us':>10} {'to us':>10} {'kstats':>8} {'bpftrace':>8}")
    ks, bp = octaves(p['rows'], bits, lat)
    for b in range(min(ks | bp), max(ks | bp) + 1):
        lo, hi = (1 << (b - 1)) if b else 0, 1 << b
        print(f'   {us3(lo):>10} {us3(hi):>10} {ks.get(b, 0):8d} {bp.get(b, 0):8d}')
    if slots:
        print(f'   histogram, kstats\' slots (frac_bits {bits}), bpftrace\'s values in them:')
        bs = {}
        for v in lat:
            bs[slot_of(v, bits)] = bs.get(slot_of(v, bits), 0) + 1
        kc = {s: c for s, c, _ in p['rows']}
        for s in sorted(kc.keys() | bs.keys()):
            print(f'   {us3(slot_lo(s, bits)):>10} {us3(slot_top(s, bits) + 1):>10} '
                  f'{kc.get(s, 0):8d} {bs.get(s, 0):8d}')
    return ok


def main(argv):
    slots = '--slots' in argv
    argv = [a for a in argv if a != '--slots']
    if len(argv) < 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    build = Path(argv[0])
    ok = True
    env = build / 'env.txt'
    if env.exists():
        print(env.read_text().rstrip())
    for t in argv[1:]:
        meta, phases = load(build / t / 'log' / 'results.tap')
        print(f'== {t}: ' + ', '.join(meta))
        if not phases:
            print('   no phase ran')
            ok = False
        for p in phases:
            ok = show_phase(p, slots) and ok
    print('counts: ' + ('all equal' if ok else 'DIFFERENT (see above)'))
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
