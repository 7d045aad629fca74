# SPDX-License-Identifier: GPL-2.0
"""The model: slot math (as kstats_record() maps a value to a slot), the
histogram and its estimators, an entry's histograms and metadata, and
the probe bias a control entry carries. No I/O; the layer at the bottom
(with errors.py)."""

import fractions
import math
from typing import Iterable, List, NamedTuple, Optional, Sequence, Tuple, Union

from .errors import Error

# An estimate: a float, or an int where a float would lose the slot.
Number = Union[int, float, fractions.Fraction]

MAX_BITS = 5

SUM_BITS = 20           # KSTATS_SUM_BITS in kstats_internal.h


def nr_slots(bits: int) -> int:
    return (65 - bits) << bits


def slot_lo(slot: int, bits: int) -> int:
    """Smallest value that maps to slot."""
    bucket = slot >> bits
    if bucket == 0:
        return slot
    return ((1 << bits) | (slot & ((1 << bits) - 1))) << (bucket - 1)


def slot_width(slot: int, bits: int) -> int:
    """Number of distinct integer values in slot."""
    bucket = slot >> bits
    return 1 if bucket == 0 else 1 << (bucket - 1)


def slot_top(slot: int, bits: int) -> int:
    """Largest value that maps to slot (slots hold integers)."""
    return slot_lo(slot, bits) + slot_width(slot, bits) - 1


def slot_of(value: int, bits: int) -> int:
    """Slot of an integer value >= 0, exactly as kstats_record() does."""
    bucket = (value >> bits).bit_length()
    if bucket == 0:
        return value
    return (bucket << bits) | ((value >> (bucket - 1)) & ((1 << bits) - 1))


def mean_error(slot: int, bits: int) -> int:
    """Bound on how far below the true slot mean the printed avg can be:
    avg truncates, and above 2^(21+bits) the kernel drops the low bits of
    each sample's offset (KSTATS_SUM_BITS)."""
    bucket = slot >> bits
    shift = bucket - 1 - SUM_BITS if bucket > SUM_BITS + 1 else 0
    return 1 << shift


class Row(NamedTuple):
    """One histogram row: a slot, its samples and their mean."""
    slot: int
    count: int
    avg: float


class Line(NamedTuple):
    """One parsed line of an entry file: cpu None for a CPUS (all CPUs)
    line, whose ncpus is the number of possible CPUs (None on CPU lines)."""
    lineno: int
    slot: int
    cpu: Optional[int]
    count: int
    avg: int
    p: float
    ncpus: Optional[int]


class Hist(object):
    """A histogram: ascending Rows (slot, count, avg), all at `bits`.

    Estimates use one model of the samples inside a slot: `count` points
    evenly spread over the widest interval centred on the slot's mean that
    stays inside the slot. The model keeps every estimate inside the slot
    that the true value is in, so an estimate is never further from the
    truth than the slot width minus one; single-value slots are exact.
    """

    def __init__(self, bits: Optional[int], rows: Iterable[Sequence]):
        self.bits = bits
        self.rows = [Row(*r) for r in rows if r[1] > 0]
        self.count = sum(r.count for r in self.rows)

    # -- summary numbers
    def total(self) -> float:
        return sum(c * a for _, c, a in self.rows)

    def mean(self) -> Optional[float]:
        return self.total() / self.count if self.count else None

    def mean_bound(self) -> Optional[float]:
        """The true mean lies in [mean, mean + bound)."""
        if not self.count or self.bits is None:
            return None
        return sum(c * mean_error(s, self.bits) for s, c, _ in self.rows) / self.count

    def _spread(self, slot, avg):
        lo, top = slot_lo(slot, self.bits), slot_top(slot, self.bits)
        avg = min(max(avg, lo), top)
        d = min(avg - lo, top - avg)
        return avg - d, avg + d

    def variance(self) -> float:
        """Sample variance under the in-slot model."""
        n = self.count
        if n < 2:
            return 0.0
        m = self.mean()
        acc = 0.0
        for s, c, a in self.rows:
            acc += c * (a - m) ** 2
            if c > 1:
                lo, hi = self._spread(s, a)
                acc += c * (hi - lo) ** 2 * (c + 1) / (12.0 * (c - 1))
        return acc / (n - 1)

    def stddev(self) -> float:
        return math.sqrt(self.variance())

    def rank(self, k: int) -> Optional[Tuple[Number, int]]:
        """Estimate of the k-th smallest sample (1-based): (value, slot)."""
        if not self.count:
            return None
        k = min(max(int(k), 1), self.count)
        cum = 0
        for s, c, a in self.rows:
            if cum + c >= k:
                a = fractions.Fraction(a)
                lo, hi = self._spread(s, a)
                v = a if c == 1 else lo + (hi - lo) * (k - cum - 1) / (c - 1)
                # Exact arithmetic: floats lose the slot above 2^53.
                v = min(max(v, slot_lo(s, self.bits)), slot_top(s, self.bits))
                return (float(v) if v < 1 << 53 else int(v)), s
            cum += c
        raise AssertionError('rank beyond count')

    def quantile(self, q: Number) -> Optional[Tuple[Number, int]]:
        """Nearest-rank quantile: the ceil(q*N)-th smallest sample.
        q is a fractions.Fraction (or int) in [0, 1]."""
        if not self.count:
            return None
        k = math.ceil(fractions.Fraction(q) * self.count)
        return self.rank(max(k, 1))

    def estimate(self, q: Number) -> Optional[dict]:
        """Quantile with its slot and error bound, as a dict."""
        r = self.quantile(q)
        if r is None:
            return None
        v, s = r
        lo, top = slot_lo(s, self.bits), slot_top(s, self.bits)
        return {'value': v, 'bound': top - lo, 'slot': s, 'lo': lo, 'hi': top}

    def min(self) -> Optional[dict]:
        return self.estimate(0)

    def max(self) -> Optional[dict]:
        return self.estimate(1)

    def cdf_rows(self) -> List[Tuple[int, int, float, int]]:
        """(slot, count, avg, cum) with cum the count up to the slot."""
        cum = 0
        out = []
        for s, c, a in self.rows:
            cum += c
            out.append((s, c, a, cum))
        return out

    def merged(self, bits: Optional[int]) -> 'Hist':
        """The same samples at fewer bits: slots nest exactly."""
        if bits is None or self.bits is None or bits >= self.bits:
            return self
        acc = {}
        for s, c, a in self.rows:
            t = slot_of(slot_lo(s, self.bits), bits)
            n, tot = acc.get(t, (0, 0))
            acc[t] = (n + c, tot + c * a)
        return Hist(bits, [(t, n, tot / n) for t, (n, tot) in sorted(acc.items())])

    def delta(self, old: 'Hist') -> Optional['Hist']:
        """Samples added since `old` (None if some count went down: reset)."""
        prev = {s: (c, a) for s, c, a in old.rows}
        rows = []
        for s, c, a in self.rows:
            pc, pa = prev.pop(s, (0, 0))
            if c < pc:
                return None
            if c > pc:
                avg = (c * a - pc * pa) / (c - pc)
                avg = min(max(avg, slot_lo(s, self.bits)), slot_top(s, self.bits))
                rows.append((s, c - pc, avg))
        if any(c for c, _ in prev.values()):
            return None
        return Hist(self.bits, rows)


class Entry(object):
    """One entry file (live or saved) and its metadata."""

    def __init__(self, name: str, path: str):
        self.name = name
        self.path = path
        self.bits = None
        self.bits_from = None
        self.info = {}          # its _control pairs, or a save header
        self.ncpus = None       # possible CPUs, from the CPUS lines
        self.has_totals = False
        self.has_cpus = False
        self.rows = []          # Lines, see parse_entry_text()
        self.total = None       # Hist
        self.cpus = {}          # cpu -> Hist
        self.by = None          # by KEY (its _control line), None: no keys
        self.keys = None        # [Key] of _keys/NAME (None: not keyed or not read)
        self.keys_text = None   # the text of _keys/NAME as read
        self.outliers = None    # [outliers.Outlier] of _outliers/NAME (None: none read)
        self.outliers_text = None   # the text of _outliers/NAME as read

    def cpu_hist(self, cpu: Optional[int]) -> Hist:
        if cpu is None:
            return self.total
        if self.has_totals and not self.has_cpus:
            raise Error('%s has no per-CPU lines (only CPUS totals)' % self.path)
        return self.cpus.get(cpu, Hist(self.bits, []))


class Key(NamedTuple):
    """One key of a keyed entry (by KEY): the name to print (a comm
    unescaped, a cgroup's path), the word the kernel wrote ('other' for
    the other histogram), whether it is the other histogram, and its
    histograms as an Entry of their own."""
    name: str
    raw: str
    other: bool
    entry: 'Entry'


def hist_sum(bits: Optional[int], hists: Iterable[Hist]) -> Hist:
    """The samples of several histograms of the same bits as one."""
    acc = {}
    for h in hists:
        for s, c, a in h.rows:
            n, t = acc.get(s, (0, 0))
            acc[s] = (n + c, t + c * a)
    return Hist(bits, [(s, n, t / n) for s, (n, t) in sorted(acc.items())])


# --sort of the key table: the key's figure, largest first ('key': by name).
KEY_SORTS = ('count', 'p50', 'p90', 'p99', 'max', 'key')


def key_order(k: Key) -> tuple:
    """Keys by name: numbers (pid, tid, cpu, argN, unmapped cgroups, and
    signed ones) as numbers."""
    n = k.name[1:] if k.name.startswith('-') else k.name
    return (0, int(k.name), '') if n.isdigit() else (1, 0, k.name)


def key_figure(h: Hist, sort: str) -> Number:
    """The figure of --sort of one key's histogram (-1: no samples)."""
    if not h.count:
        return -1
    if sort == 'count':
        return h.count
    if sort == 'max':
        return h.max()['value']
    return h.quantile(fractions.Fraction(sort[1:]) / 100)[0]


def sorted_keys(keys: Sequence[Key], sort: str, cpu: Optional[int] = None) -> List[Key]:
    """The keys but the other histogram, in the order of --sort: the
    largest figure first, ties by name; 'key': by name."""
    keys = [k for k in keys if not k.other]
    keys.sort(key=key_order)
    if sort != 'key':
        keys.sort(key=lambda k: -key_figure(k.entry.cpu_hist(cpu), sort))
    return keys


def top_keys(e: 'Entry', sort: str, top: int,
             cpu: Optional[int] = None) -> Tuple[List[Key], List[Key]]:
    """(the first `top` keys of --sort, the rest with the kernel's other
    histogram): what the key table prints as rows, and sums as 'other'."""
    keys = sorted_keys(e.keys, sort, cpu)
    return keys[:top], keys[top:] + [k for k in e.keys if k.other]


def find_key(e: 'Entry', word: str) -> Optional[Key]:
    """The key printed as word, or written so by the kernel ('other': the
    other histogram)."""
    for k in e.keys or []:
        if word in (k.name, k.raw):
            return k
    return None


def key_deltas(e: 'Entry', prev: Optional[dict], cpu: Optional[int] = None):
    """watch's keys: ([(Key, samples since prev)] the most first, and the
    map to pass as prev next time: {(other, raw): Hist}). A key new since
    prev, or whose counts went down (a reset), counts all its samples."""
    if e.keys is None:
        return None, None
    now = {(k.other, k.raw): k.entry.cpu_hist(cpu) for k in e.keys}
    if prev is None:
        return None, now
    out = []
    for k in sorted_keys(e.keys, 'key') + [k for k in e.keys if k.other]:
        h = now[(k.other, k.raw)]
        old = prev.get((k.other, k.raw))
        d = h.delta(old) if old is not None else None
        out.append((k, h if d is None else d))
    out.sort(key=lambda x: -x[1].count)
    return out, now


def key_pairs(ea: Sequence['Entry'], eb: Sequence['Entry'],
              cpu: Optional[int] = None) -> List[tuple]:
    """diff's keys: (name, A's samples, B's samples, other) of every key of
    either side (None: not on that side), each side's runs summed; by the
    samples of both sides, the most first, the other histogram last."""
    sides = []
    for es in (ea, eb):
        acc = {}
        for e in es:
            for k in e.keys:
                acc.setdefault((k.other, k.name), []).append(k.entry.cpu_hist(cpu))
        sides.append({n: hist_sum(es[0].bits, hs) for n, hs in acc.items()})
    names = sorted(set(sides[0]) | set(sides[1]))
    names.sort(key=lambda n: (n[0], -sum(s[n].count for s in sides if n in s)))
    return [(n[1], sides[0].get(n), sides[1].get(n), n[0]) for n in names]


def summary(h: Hist, percentiles: List[Tuple[str, Number]]) -> dict:
    """Dict of the summary numbers of a histogram."""
    d = {'count': h.count}
    if not h.count:
        d.update({'sum': 0, 'mean': None, 'mean_bound': None, 'stddev': None,
                  'min': None, 'max': None,
                  'percentiles': {'p' + w: None for w, _ in percentiles}})
        return d
    d['sum'] = h.total()
    d['mean'] = h.mean()
    d['mean_bound'] = h.mean_bound()
    d['stddev'] = h.stddev()
    d['min'] = h.min()
    d['max'] = h.max()
    d['percentiles'] = {'p' + w: h.estimate(q) for w, q in percentiles}
    return d


def timeless(e: Entry) -> Optional[str]:
    """'a value entry (value arg3)' or 'a counter entry (counter
    page-faults)' if e's samples are no times, else None."""
    for k in ('value', 'counter'):
        if k in e.info:
            return 'a %s entry (%s %s)' % (k, k, e.info[k])
    return None


def bias_of(e: Entry) -> Tuple[int, int, str]:
    """(bias_ns, bias_p99_ns, mechanism) of a control entry, from its
    _control line (or save header); an Error says why there is none."""
    info = e.info
    if timeless(e):
        raise Error('%s is %s: it holds no time and has no probe bias'
                    % (e.name, timeless(e)))
    if info.get('origin') == 'kernel':
        raise Error('%s is a kernel entry (a kstats_record() hook, no probe): it has no '
                    'probe bias to subtract' % e.name)
    if info.get('mechanism') == 'gap':
        raise Error('%s is a gap entry (the time between hits of %s): the probe adds no '
                    'bias to it' % (e.name, info.get('targets', '?')))
    b, q = info.get('bias_ns'), info.get('bias_p99_ns')
    if b is None:
        raise Error('%s has no bias_ns in its _control line (an older kstats module, or '
                    'no _control beside the file)' % e.name)
    if b == '-' or q in (None, '-'):
        raise Error('%s: its mechanism %s is not calibrated yet (bias_ns -): run '
                    'kstats calibrate first' % (e.name, info.get('mechanism', '?')))
    if not b.isdigit() or not q.isdigit():
        raise Error('%s: bias_ns %r or bias_p99_ns %r is not a number' % (e.name, b, q))
    return int(b), max(int(q), int(b)), info.get('mechanism', '?')


def shift_estimate(est: Optional[dict], b: int, spread: int) -> Optional[dict]:
    if est is None:
        return None
    est = dict(est)
    est['value'] = max(est['value'] - b, 0)
    est['bound'] += spread
    est['lo'] = max(est['lo'] - b - spread, 0)
    est['hi'] = max(est['hi'] - b + spread, 0)
    return est


def shift_summary(d: dict, b: int, spread: int) -> dict:
    """A summary() with the bias b subtracted (clamped at 0) and every
    bound widened by the bias spread."""
    if not d['count']:
        return d
    d = dict(d)
    d['sum'] = max(d['sum'] - b * d['count'], 0)
    d['mean'] = max(d['mean'] - b, 0)
    d['mean_bound'] += spread
    d['min'] = shift_estimate(d['min'], b, spread)
    d['max'] = shift_estimate(d['max'], b, spread)
    d['percentiles'] = {k: shift_estimate(v, b, spread) for k, v in d['percentiles'].items()}
    return d
