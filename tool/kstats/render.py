# SPDX-License-Identifier: GPL-2.0
"""Text and JSON output: units and times, tables, bpftrace-style
histograms, show's and diff's reports. Computes nothing it does not
print; calls model and stats for the numbers."""

import fractions
import math
import time

from .errors import Error
from .fit import fit_table, join_fit, table, too_wide, wrap  # noqa: F401 (table: render's)
from .model import shift_summary, slot_lo, slot_top, summary, timeless
from .stats import half


DEFAULT_PERCENTILES = '50,90,99,99.9'

# Time units for --unit: nanoseconds per unit. kstats entries hold ns.
UNITS = (('ns', 1), ('us', 1000), ('ms', 1000000), ('s', 1000000000))

UNIT_NS = dict(UNITS)

# The unit of value entries ("trace FUNC value argN|retval") and counter
# entries ("trace ... counter EVENT"): no time.
VALUE_UNIT = 'value'


def auto_unit(v):
    """The largest unit in which |v| ns is at least 1."""
    unit = 'ns'
    for u, n in UNITS:
        if abs(v) >= n:
            unit = u
    return unit


def fmt_t(v, unit=None):
    """A time in ns with its unit: '812ns', '7.44us', '1.05ms'; three
    significant digits outside whole ns, in any unit ('0.00744ms').
    unit None picks one per value; a fixed unit prints v rounded to whole
    ns (the resolution of the data): whole ns, or three significant digits
    with no digit below 1 ns ('0.000001ms', not '0.00000100ms').
    VALUE_UNIT prints a plain number (value entries hold no time)."""
    if v is None:
        return '-'
    if unit == VALUE_UNIT:
        return '%d' % round(v) if float(v).is_integer() or abs(v) >= 100 else '%.1f' % v
    if unit is not None:
        ns = int(round(v))
        if unit == 'ns':
            return '%d%s' % (ns, unit)
        return sig3(ns / UNIT_NS[unit], len(str(UNIT_NS[unit])) - 1) + unit
    unit = auto_unit(v)
    x = v / UNIT_NS[unit]
    if unit == 'ns':
        whole = float(x).is_integer() or abs(x) >= 100
        return ('%d' % round(x) if whole else '%.1f' % x) + unit
    return sig3(x) + unit


def sig3(x, decimals=12):
    """x with three significant digits, without an exponent, and at most
    that many decimals: 812, 7.44, 0.0250; numbers of 1000 and more whole."""
    ax = abs(x)
    if ax == 0:
        return '0'
    digits = min(max(2 - int(math.floor(math.log10(ax))), 0), decimals)
    out = '%.*f' % (digits, x)
    if digits and abs(float(out)) >= 10 ** (3 - digits):
        # Rounding carried into a new digit (9.995 -> 10.00): one less.
        out = '%.*f' % (digits - 1, x)
    return out


def fmt_range(lo, hi, unit=None, closed=False):
    """[lo, hi) with units (hi excluded), [lo, hi] if closed, or [v]."""
    if lo == hi - (0 if closed else 1):
        return '[%s]' % fmt_t(lo, unit)
    return '[%s, %s%s' % (fmt_t(lo, unit), fmt_t(hi, unit), ']' if closed else ')')


def parse_percentiles(text):
    """(label, fraction) pairs of '50,p99,99.9': each a number in (0, 100],
    with or without a leading p."""
    out = []
    for w in text.split(','):
        w = w.strip()
        if w[:1] in ('p', 'P'):
            w = w[1:]
        try:
            q = fractions.Fraction(w)
        except ValueError:
            raise Error("percentile '%s' is not a number" % w)
        if not 0 < q <= 100:
            raise Error('percentile %s is not in (0, 100]' % w)
        out.append((w, q / 100))
    return out


UNRESOLVED = '*'    # the mark of a percentile that its count cannot resolve


def unresolved(q, count):
    """Whether count samples are too few for the percentile q (a
    fraction): fewer than 1 / (1 - q), so that fewer than one sample lies
    above it and its nearest rank is the last, the max."""
    return 0 < count and q < 1 and (1 - q) * count < 1


def unresolved_note(percentiles, marked):
    """The note under a table with percentiles marked UNRESOLVED (the
    labels of marked)."""
    need = ', '.join('p%s %d' % (w, math.ceil(1 / (1 - q)))
                     for w, q in percentiles if w in marked)
    return ('%s too few samples for the percentile: it reads as the max (samples needed: '
            '%s)' % (UNRESOLVED, need))


def hist_rows(m):
    """(lo, top, count) rows of a histogram from its first to its last
    non-empty slot; each run of empty slots is one row of count 0."""
    counts = {s: c for s, c, _ in m.rows}
    out = []
    for s in range(m.rows[0].slot, m.rows[-1].slot + 1):
        lo, top, c = slot_lo(s, m.bits), slot_top(s, m.bits), counts.get(s, 0)
        if not c and out and not out[-1][2]:
            out[-1] = (out[-1][0], top, 0)
        else:
            out.append((lo, top, c))
    return out


def group_rows(rows, max_rows):
    """Adjacent rows joined k at a time, k the smallest that fits."""
    k = -(-len(rows) // max_rows)
    out = []
    for i in range(0, len(rows), k):
        part = rows[i:i + k]
        out.append((part[0][0], part[-1][1], sum(c for _, _, c in part)))
    return out


BAR_WIDTH = 52      # the histogram's bars, at most
MIN_BAR_WIDTH = 10  # and at least, when they shrink to fit the terminal


def hist_lines(h, width=BAR_WIDTH, max_rows=40, bits=None, indent='', unit=None, shift=0,
               fit=None):
    """bpftrace-style histogram: '[lo, hi)  count |@@@@   |', merged to the
    largest bits (at most the entry's) that fits in max_rows rows; a run
    of empty slots is one row. If even bits 0 gives more rows than
    max_rows, adjacent rows are joined so that max_rows holds. shift:
    subtracted from the ranges (clamped at 0). fit: the lines' width at
    most (None: no limit), by narrower bars (at least MIN_BAR_WIDTH)."""
    if not h.count:
        return [], None
    if bits is not None:
        bits = min(max(bits, 0), h.bits)
    else:
        bits = h.bits
        while bits > 0 and len(hist_rows(h.merged(bits))) > max_rows:
            bits -= 1
    rows = hist_rows(h.merged(bits))
    if len(rows) > max_rows:
        rows = group_rows(rows, max_rows)
    if shift:
        # Rows wholly at or below the shift clamp to 0: one [0] row.
        low = [c for lo, top, c in rows if top <= shift]
        rows = [(max(lo - shift, 0), top - shift, c) for lo, top, c in rows if top > shift]
        if low:
            rows.insert(0, (0, 0, sum(low)))
    peak = max(c for _, _, c in rows)
    labels = [fmt_range(lo, top + 1, unit) for lo, top, _ in rows]
    lw = max(len(x) for x in labels)
    cw = max(len(str(c)) for _, _, c in rows)
    if fit:
        width = min(width, max(fit - len(indent) - lw - cw - 4, MIN_BAR_WIDTH))
    out = []
    for (lo, top, c), label in zip(rows, labels):
        n = int(round(c * width / peak)) if c else 0
        out.append('%s%s %s |%s|' % (indent, label.ljust(lw), str(c).rjust(cw),
                                     ('@' * n).ljust(width)))
    return out, (bits if len(out) == len(hist_rows(h.merged(bits))) else None)


def typed(v):
    """A _control word for JSON: a number as a number, '-' (none yet) as
    null, anything else as the string."""
    if v == '-':
        return None
    return int(v) if v.isdigit() else v


def typed_info(info):
    return {k: typed(v) for k, v in info.items() if not k.startswith('_')}


def entry_summary(e, h, args, percentiles):
    d = summary(h, percentiles)
    bias = getattr(args, 'bias', None)
    return shift_summary(d, bias[0], bias[1] - bias[0]) if bias else d


def exact_extremes(e, args):
    """(min, max) exactly as the kernel kept them, from the entry's
    _control line (min N max N, kstats with exact extremes), or None:
    not listed, per-CPU views (--cpu) and shifted ones (--subtract-bias)."""
    lo, hi = e.info.get('min', ''), e.info.get('max', '')
    if not (lo.isdigit() and hi.isdigit()) or args.cpu is not None or args.bias:
        return None
    return int(lo), int(hi)


def summary_line(s, percentiles, unit=None, exact=None, width=None):
    """One line like perf ftrace latency's statistics (more, each of at
    most width columns, where it is wider); min and max exact if given,
    else estimated from their slots."""
    if not s['count']:
        return 'count 0'
    lo, hi = exact if exact else (s['min']['value'], s['max']['value'])
    parts = ['count %d' % s['count'], 'min %s' % fmt_t(lo, unit),
             'mean %s' % fmt_t(s['mean'], unit), 'max %s' % fmt_t(hi, unit)]
    parts += ['p%s%s %s' % (w, UNRESOLVED if unresolved(q, s['count']) else '',
                            fmt_t(s['percentiles']['p' + w]['value'], unit))
              for w, q in percentiles]
    return '\n'.join(join_fit(parts, width))


def bias_note(args):
    b, q, mech = args.bias
    return ('bias subtracted: values shifted down by %s (bias_ns of %s: the p50 of an empty '
            'call; clamped at 0), bounds widened by the bias spread %s (bias_p99_ns %d - '
            'bias_ns %d)' % (fmt_t(b, args.unit), mech, fmt_t(q - b, args.unit), q, b))


# _control counts of calls or hits that the histogram lacks.
LOSS_KEYS = ('missed', 'dropped', 'unpaired', 'expired')


def entry_warning(e, stopped_here=False):
    """Why entry e's histogram may mislead, as one line, or None: the
    counts of LOSS_KEYS that its _control line lists, where above 1% of
    its samples, and a state of stopped (unless the caller stopped it, to
    read it whole: stopped_here)."""
    count = e.total.count
    why = []
    for key in LOSS_KEYS:
        v = e.info.get(key, '')
        if v.isdigit() and int(v) * 100 > count:
            share = '%.3g%% of count %d' % (100.0 * int(v) / count, count) if count else \
                'count 0'
            why.append('%s %s (%s)' % (key, v, share))
    if e.info.get('state') == 'stopped' and not stopped_here:
        why.append('state stopped (no new samples are counted)')
    return '%s: %s' % (e.name, ', '.join(why)) if why else None


def entry_unit(e, args):
    """--unit, or VALUE_UNIT for a value or counter entry, whose samples
    are no times."""
    if timeless(e):
        if args.unit:
            raise Error('%s is %s: --unit is for times' % (e.name, timeless(e)))
        return VALUE_UNIT
    return args.unit


def show_text(e, h, args, percentiles):
    out = []
    unit = entry_unit(e, args)
    width = getattr(args, 'width', None)
    what = 'CPU %d' % args.cpu if args.cpu is not None else 'all CPUs'
    rel = 100.0 / (1 << e.bits)
    out += wrap('%s  (%s)' % (e.name, e.path), width)
    out += wrap('bits %d (%s): slots at most %.4g%% wide; %s CPUs possible; %s' % (
        e.bits, e.bits_from, rel, e.ncpus if e.ncpus is not None else '?', what), width)
    extra = ['%s %s' % (k, v) for k, v in e.info.items()
             if k not in ('name', 'bits') and not k.startswith('_')]
    if extra:
        out += join_fit(extra, width, ' ')
    if args.bias:
        out += wrap(bias_note(args), width)
    if not h.count:
        if args.cpu is not None and e.cpus:
            out += wrap('no samples on CPU %d (CPUs with samples: %s)' % (
                args.cpu, ', '.join(map(str, sorted(e.cpus)))), width)
        else:
            out.append('no samples')
        return out
    s = entry_summary(e, h, args, percentiles)
    out.append(summary_line(s, percentiles, unit, exact_extremes(e, args), width))
    rows = [['', 'value', '±bound', 'slot range']]
    rows.append(['count', str(h.count), '', ''])
    rows.append(['mean', fmt_t(s['mean'], unit), ('±' if args.bias else '+') +
                 fmt_t(s['mean_bound'], unit), ''])
    rows.append(['stddev', fmt_t(s['stddev'], unit), '', ''])

    def est_row(label, est):
        return [label, fmt_t(est['value'], unit), '±' + fmt_t(est['bound'], unit),
                fmt_range(est['lo'], est['hi'], unit, closed=True)]
    rows.append(est_row('min', s['min']))
    marked = [w for w, q in percentiles if unresolved(q, h.count)]
    for w, _ in percentiles:
        rows.append(est_row('p' + w + (UNRESOLVED if w in marked else ''),
                            s['percentiles']['p' + w]))
    rows.append(est_row('max', s['max']))
    out.append('')
    out.append(fit_table(rows, 'lrrl', width, drop=(3, 2)))
    if marked:
        out += wrap(unresolved_note(percentiles, marked), width)
    out.append('')
    lines, hb = hist_lines(h, max_rows=args.rows, bits=args.hist_bits, unit=unit,
                           shift=args.bias[0] if args.bias else 0, fit=width)
    if hb is None:
        split = 'several powers of two per row, to fit --rows %d' % args.rows
        hb = 0
    else:
        split = 'one slot per row' if hb == e.bits else '%d slot%s per power of two' % (
            1 << hb, 's' if hb else '')
    out += wrap('histogram (%s, bits %d):' % (split, hb), width)
    out.extend(lines)
    if args.cpu is None and e.cpus:
        out.append('')
        out.append('per CPU:')
        prow = [['cpu', 'count', 'share', 'mean'] + ['p' + w for w, _ in percentiles] + ['max']]
        marked = set()
        for cpu in sorted(e.cpus):
            ch = e.cpus[cpu]
            cs = entry_summary(e, ch, args, percentiles)
            marked.update(w for w, q in percentiles if unresolved(q, ch.count))
            prow.append([str(cpu), str(ch.count), '%.1f%%' % (100.0 * ch.count / h.count),
                         fmt_t(cs['mean'], unit)] +
                        [fmt_t(cs['percentiles']['p' + w]['value'], unit) +
                         (UNRESOLVED if unresolved(q, ch.count) else '')
                         for w, q in percentiles] + [fmt_t(cs['max']['value'], unit)])
        # Too wide: without share, then without the percentiles, the last first.
        drop = [2] + list(range(3 + len(percentiles), 3, -1))
        out.append(fit_table(prow, 'r' * len(prow[0]), width, drop))
        if marked:
            out += wrap(unresolved_note(percentiles, marked), width)
    return out


TIME_KEYS = ('value', 'bound', 'lo', 'hi', 'mean', 'mean_bound', 'stddev', 'sum', 'avg')


def scale_times(d, div):
    """Every time value of a JSON document divided by div (a unit)."""
    if div == 1:
        return d
    if isinstance(d, list):
        return [scale_times(x, div) for x in d]
    if not isinstance(d, dict):
        return d
    return {k: (v / div if k in TIME_KEYS and isinstance(v, (int, float)) else
                scale_times(v, div)) for k, v in d.items()}


def entry_json(e, h, args, percentiles):
    unit = entry_unit(e, args) or 'ns'
    # A counter entry's samples are counts of its event.
    d = {'name': e.name, 'path': e.path, 'bits': e.bits, 'bits_from': e.bits_from,
         'cpus_possible': e.ncpus, 'cpu': args.cpu, 'unit': e.info.get('counter', unit),
         'info': typed_info(e.info)}
    b = args.bias[0] if args.bias else 0
    if args.bias:
        d['bias_subtracted'] = {'bias_ns': b, 'bias_p99_ns': args.bias[1],
                                'spread_ns': args.bias[1] - b, 'mechanism': args.bias[2]}
    d.update(entry_summary(e, h, args, percentiles))
    d['unresolved'] = ['p' + w for w, q in percentiles if unresolved(q, h.count)]
    d['slots'] = [{'slot': s, 'lo': max(slot_lo(s, e.bits) - b, 0),
                   'hi': max(slot_top(s, e.bits) - b, 0),
                   'count': c, 'avg': max(a - b, 0), 'cdf': cum / h.count}
                  for s, c, a, cum in h.cdf_rows()]
    if args.cpu is None:
        d['per_cpu'] = {str(c): entry_summary(e, e.cpus[c], args, percentiles)
                        for c in sorted(e.cpus)}
    return scale_times(d, UNIT_NS.get(unit, 1))


def boxline(h, lo_x, hi_x, width, mark):
    """ministat-like strip on a log axis: |---[  M A  ]---| from p1 to p99,
    the box from p25 to p75, M the median and A the mean."""
    def col(v):
        v = max(v, 0.5)
        f = (math.log(v) - lo_x) / (hi_x - lo_x) if hi_x > lo_x else 0.5
        return min(max(int(round(f * (width - 1))), 0), width - 1)

    def q(x):
        return h.quantile(fractions.Fraction(x))[0]
    line = [' '] * width
    a, b = col(q('0.01')), col(q('0.99'))
    for i in range(a, b + 1):
        line[i] = '-'
    line[a], line[b] = '|', '|'
    c, d = col(q('0.25')), col(q('0.75'))
    for i in range(c, d + 1):
        line[i] = ' '
    line[c], line[d] = '[', ']'
    line[col(q('0.5'))] = 'M'
    line[col(h.mean())] = 'A'
    return '%s | %s |' % (mark, ''.join(line))


def calibration_table(cal, unit):
    rows = [['mechanism', 'bias p50', 'bias p99', 'cost', 'samples']]
    for d in cal.values():
        rows.append([d['mechanism'], fmt_t(d['bias_ns'], unit), fmt_t(d['bias_p99_ns'], unit),
                     fmt_t(d['cost_ns'], unit), str(d['samples'])])
    return table(rows)


def diff_json(c, ea, eb, confidence, unit, warnings, percentiles):
    """diff --json: the Comparison c of entries ea against eb."""
    return {'confidence': confidence, 'mode': 'per-run' if c.per_run else 'per-sample',
            'unit': 'ns' if unit != VALUE_UNIT else VALUE_UNIT, 'warnings': warnings,
            'each_test_confidence': 100 * c.conf2, 'different': c.different,
            'a': dict(paths=[e.path for e in ea], bits=c.a.bits, runs=len(ea),
                      **summary(c.a, percentiles)),
            'b': dict(paths=[e.path for e in eb], bits=c.b.bits, runs=len(eb),
                      **summary(c.b, percentiles)),
            'mean': c.res['mean'], 'median': c.res['median'],
            'percentiles': {'test': c.ptest, 'rows': c.rows}}


def diff_verdict(label, r, unit, conf2):
    """The lines of one verdict (mean or median) of diff."""
    if 'interval' in r:
        # An interval of order statistics is not symmetric: print it.
        lo, hi = r['interval']
        spread = '%s in [%s, %s]' % (fmt_t(r['difference'], unit), fmt_t(lo, unit),
                                     fmt_t(hi, unit))
        base = r['difference'] / r['percent'] if r['percent'] else None
        pct = base and '%.3f%% in [%.3f%%, %.3f%%]' % (r['percent'], lo / base, hi / base)
    else:
        spread = '%s +/- %s' % (fmt_t(r['difference'], unit), fmt_t(r['ci'], unit))
        pct = r['percent'] is not None and '%.3f%% +/- %.3f%%' % (r['percent'],
                                                                 r['percent_ci'])
    if r['different']:
        out = ['%s: Difference at %.1f%% confidence' % (label, 100 * conf2),
               '        ' + spread]
        if pct:
            out.append('        ' + pct)
    else:
        out = ['%s: No difference proven at %.1f%% confidence' % (label, 100 * conf2),
               '        (difference %s)' % spread]
    return out + ['        (%s)' % r['test']]


def diff_plot(a, b, unit, w=70):
    """Both sides' boxlines on one log axis from the lower p1 to the
    higher p99."""
    p1, p99 = fractions.Fraction(1, 100), fractions.Fraction(99, 100)
    lo_x = math.log(max(min(a.quantile(p1)[0], b.quantile(p1)[0]), 0.5))
    hi_x = math.log(max(a.quantile(p99)[0], b.quantile(p99)[0], 1))
    left, right = fmt_t(round(math.exp(lo_x)), unit), fmt_t(round(math.exp(hi_x)), unit)
    return ['  +' + '-' * (w + 2) + '+', boxline(a, lo_x, hi_x, w, 'x'),
            boxline(b, lo_x, hi_x, w, '+'), '  +' + '-' * (w + 2) + '+',
            '    ' + left + ' ' * max(w - len(left) - len(right), 1) + right,
            '   log scale: |--- p1 to p99 ---|, [ p25 to p75 ], M median, A mean']


def diff_percentile_table(c, unit):
    if c.per_run:
        prow = [['', 'x', '+', 'change', '+/-', '']]
        for r in c.rows:
            prow.append([r['p'], fmt_t(r['x'], unit), fmt_t(r['y'], unit),
                         '%+.1f%%' % (100.0 * r['difference'] / r['x']) if r['x'] else '-',
                         fmt_t(r['ci'], unit), 'different' if r['different'] else '-'])
    else:
        prow = [['', 'x', '+', 'change', 'x interval', '+ interval', '']]
        for r in c.rows:
            prow.append([r['p'], fmt_t(r['x'], unit), fmt_t(r['y'], unit),
                         '%+.1f%%' % (100.0 * (r['y'] - r['x']) / r['x']) if r['x'] else '-',
                         fmt_range(r['x_interval'][0], r['x_interval'][1], unit, True),
                         fmt_range(r['y_interval'][0], r['y_interval'][1], unit, True),
                         'different' if r['different'] else '-'])
    return table(prow, 'lrrrrrl')


def diff_text(c, ea, eb, unit, conf):
    """diff's report: the entries, the plot, the sides' numbers, how they
    were tested, the verdicts and the percentiles."""
    out = []
    for mark, es in (('x', ea), ('+', eb)):
        for e in es:
            out.append('%s %s  (%s, bits %d)' % (mark, e.name, e.path, e.bits))
    out += diff_plot(c.a, c.b, unit)
    rows = [['', 'Runs', 'N', 'Min', 'Max', 'Median', 'Avg', 'Stddev']]
    for mark, h, es in (('x', c.a, ea), ('+', c.b, eb)):
        rows.append([mark, str(len(es)), str(h.count), fmt_t(h.min()['value'], unit),
                     fmt_t(h.max()['value'], unit), fmt_t(half(h), unit),
                     fmt_t(h.mean(), unit), fmt_t(h.stddev(), unit)])
    out.append(table(rows, 'lrrrrrrr'))
    if c.per_run:
        out.append('Test across runs: one mean and one median per run (run-to-run noise '
                   'included).')
    else:
        out.append('Per-sample test: every sample taken as independent, so run-to-run '
                   'noise is NOT included;')
        out.append('  with several captures per side (A1 A2 -- B1 B2) the test is across '
                   'runs.')
    out.append('Mean and median are each tested at %g%% (Bonferroni), so that "either '
               'differs" is wrong at most %g%% of the time.' % (100 * c.conf2,
                                                                 100 * (1 - conf)))
    out += diff_verdict('Mean', c.res['mean'], unit, c.conf2)
    out += diff_verdict('Median', c.res['median'], unit, c.conf2)
    out.append('Verdict: %s' % ('different' if c.different else 'no difference proven'))
    out.append('Percentiles: %s:' % c.ptest)
    out.append(diff_percentile_table(c, unit))
    return '\n'.join(out)


def watch_json(e, h, d, dt, args, percentiles, reset):
    unit = entry_unit(e, args) or 'ns'
    doc = {'time': time.strftime('%Y-%m-%dT%H:%M:%S%z'), 'name': e.name, 'cpu': args.cpu,
           'unit': e.info.get('counter', unit), 'reset': reset, 'warning': entry_warning(e),
           'interval': None if d is None else dict(
               seconds=dt, rate=d.count / dt if dt > 0 else None,
               **summary(d, percentiles)),
           'total': summary(h, percentiles)}
    return scale_times(doc, UNIT_NS.get(unit, 1))


def watch_text(e, h, d, dt, args, n, unit, reset):
    """watch's screen n: a header, the last interval (d, dt seconds) and
    the total h, and with --hist the last interval's histogram."""
    percentiles = args.percentiles
    width = getattr(args, 'width', None)
    lines = wrap('kstats watch %s%s  every %g s, %s  %s' % (
        e.name, '' if args.cpu is None else ' CPU %d' % args.cpu, args.interval,
        'Ctrl-C to stop' if args.count is None else '%d of %d' % (n + 1, args.count),
        time.strftime('%H:%M:%S')), width)
    warning = entry_warning(e)
    if warning:
        lines += wrap('warning: ' + warning, width)
    head = ['', 'samples', 'rate/s', 'mean'] + ['p' + w for w, _ in percentiles] + ['max']
    rows = [head]
    marked = set()

    def row(label, hh, rate):
        if not hh.count:
            return [label, '0', rate, '-'] + ['-'] * len(percentiles) + ['-']
        marked.update(w for w, q in percentiles if unresolved(q, hh.count))
        return [label, str(hh.count), rate, fmt_t(hh.mean(), unit)] + \
            [fmt_t(hh.quantile(q)[0], unit) + (UNRESOLVED if unresolved(q, hh.count) else '')
             for _, q in percentiles] + [fmt_t(hh.max()['value'], unit)]
    if d is not None:
        rows.append(row('last %.2f s' % dt, d, '%.1f' % (d.count / dt if dt > 0 else 0)))
    else:
        rows.append(['last -', '-', '-', '-'] + ['-'] * len(percentiles) + ['-'])
    rows.append(row('total', h, '-'))
    note = ' (counters went down: reset; interval is since then)' if reset else ''
    # Too wide: without the percentiles, the last first, then the mean.
    text = fit_table(rows, 'l' + 'r' * (len(head) - 1), width,
                     list(range(3 + len(percentiles), 2, -1)))
    if too_wide(text + note, width):
        lines += [text] + wrap(note.strip(), width)
    else:
        lines.append(text + note)
    if marked:
        lines += wrap(unresolved_note(percentiles, marked), width)
    if args.hist and d is not None and d.count:
        lines.append('last interval:')
        lines.extend(hist_lines(d, max_rows=args.rows, unit=unit, fit=width)[0])
    return lines
