# SPDX-License-Identifier: GPL-2.0
"""OpenMetrics text (Prometheus histograms) of entries, once or every
interval into a file."""

import argparse
import fractions
import re
import signal
import sys
import time

from .capture import STDIN, Source, open_entry
from .errors import Error
from .model import hist_sum, nr_slots, slot_lo, slot_of, slot_top, top_keys
from .recording import write_atomic
from .render import UNIT_NS


# The fleet layout: every family's buckets are every slot edge of
# EXPORT_BITS (or --bucket-bits), whatever each entry's bits, so that any
# sum over series (CPUs, entries, hosts) adds counts of the same intervals.
EXPORT_BITS = 2

# The default --range of durations (in ns), the same on every host: 100 ns
# to 1 s, 94 buckets at EXPORT_BITS. Values and counts keep every bucket.
EXPORT_RANGE = (100, 1000000000)

# --range all: every bucket of the layout, for every family.
ALL_RANGE = 'all'

# _control counts exported as counters: key, what it counts.
EXPORT_COUNTS = (
    ('missed', 'calls or hits that the probes did not report'),
    ('dropped', 'starts dropped because the table of pending starts was full (key task '
     'and key argN pairs)'),
    ('restarted', 'starts of a key already pending, which restarted it (key argN pairs)'),
    ('expired', 'starts never ended, freed after the expiry (key argN pairs)'),
    ('faulted', 'hits left out as a field path (argN->MEMBER) could not be read (pairs)'),
    ('filtered', 'hits left out by the filters'),
    ('errors', 'error returns of a value retval entry, not binned'),
    ('keys_dropped', 'samples of keys beyond keys_max (by KEY), in key="other"'))

LABEL_NAME_RE = re.compile(r'^[a-zA-Z_][a-zA-Z0-9_]*$')

METRIC_RE = LABEL_NAME_RE

RESERVED_LABELS = ('entry', 'cpu', 'key', 'le', 'quantile')

# --top: the keys of a keyed entry with a series of their own.
EXPORT_KEY_TOP = 20

RANGE_RE = re.compile(r'^([0-9]+\.?[0-9]*|\.[0-9]+)(ns|us|ms|s)?$')


def om_float(v, scale=1):
    """A number for OpenMetrics: v / scale. Raw integers as N.0 with all
    digits (le above 2^53 stays exact in the text, though a float64 reader
    rounds it); seconds as the shortest float that reads back."""
    if scale == 1 and (isinstance(v, int) or float(v).is_integer()):
        return '%d.0' % int(v)
    return repr(float(v) / scale)


def om_label(v):
    return v.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n')


def om_text(v):
    """A key's name as valid UTF-8 (a comm's bytes outside UTF-8 as U+FFFD)."""
    return v.encode('utf-8', 'surrogateescape').decode('utf-8', 'replace')


def om_labels(labels):
    return ','.join('%s="%s"' % (k, om_label(v)) for k, v in labels)


def range_arg(text):
    """argparse type of --range LO:HI: two values in the recorded unit (ns
    for times; a suffix ns, us, ms or s converts), LO < HI; or 'all'."""
    if text.strip() == ALL_RANGE:
        return ALL_RANGE
    parts = text.split(':')
    vals = []
    for w in parts if len(parts) == 2 else ():
        m = RANGE_RE.match(w.strip())
        if m:
            v = float(m.group(1)) * UNIT_NS[m.group(2) or 'ns']
            if v < 1 << 64:
                vals.append(int(v))
    if len(vals) != 2 or vals[0] >= vals[1]:
        raise argparse.ArgumentTypeError("'%s' is not LO:HI with LO < HI (such as 1us:10s "
                                         "or 100:1000000), or 'all'" % text)
    return tuple(vals)


def label_arg(text):
    """argparse type of --label KEY=VALUE."""
    k, eq, v = text.partition('=')
    if not eq or not LABEL_NAME_RE.match(k) or k.startswith('__'):
        raise argparse.ArgumentTypeError("'%s' is not KEY=VALUE with KEY a label name "
                                         '([a-zA-Z_][a-zA-Z0-9_]*, not __...)' % text)
    if k in RESERVED_LABELS:
        raise argparse.ArgumentTypeError("label '%s' is the exporter's own (%s)"
                                         % (k, ', '.join(RESERVED_LABELS)))
    return k, v


def layout_slots(bits, rng=None):
    """The slots of the layout whose largest values are the le edges:
    every slot of `bits` but the last (its edge is +Inf), or those from
    the slot holding LO to the slot holding HI."""
    last = nr_slots(bits) - 1
    if rng is None:
        return range(last)
    return range(slot_of(rng[0], bits), min(slot_of(rng[1], bits) + 1, last))


def model_le(h, slot, edge):
    """How many of h's samples in `slot` are at most edge, under the
    in-slot model of Hist.rank(): count points evenly spread over the
    widest interval centred on the slot's avg."""
    for s, c, a in h.rows:
        if s != slot:
            continue
        lo, hi = h._spread(s, fractions.Fraction(a))
        if edge >= hi:
            return c
        if edge < lo:
            return 0
        return int((edge - lo) * (c - 1) / (hi - lo)) + 1 if c > 1 else int(a <= edge)
    return 0


def cumulative_at(h, edges):
    """Cumulative counts of h at each edge (ascending integers). Exact at
    every edge of h's own slots (slots of fewer bits are unions of finer
    ones); inside a slot of h, the in-slot model gives the count."""
    out = []
    rows = h.rows
    i, cum = 0, 0
    for edge in edges:
        while i < len(rows) and slot_top(rows[i].slot, h.bits) <= edge:
            cum += rows[i].count
            i += 1
        inner = 0
        if i < len(rows) and slot_lo(rows[i].slot, h.bits) <= edge:
            inner = model_le(h, rows[i].slot, edge)
        out.append(cum + inner)
    return out


def om_histogram(metric, labels, h, bits, scale, rng=None):
    """_bucket lines at the layout's edges (a slot's largest value: slots
    hold integers), the same for every series of the family whatever its
    samples and bits, then +Inf, _sum and _count. scale: recorded units
    per output unit."""
    lab = om_labels(labels)
    sep = ',' if lab else ''
    src = h.merged(bits)
    edges = [slot_top(s, bits) for s in layout_slots(bits, rng)]
    out = ['%s_bucket{%s%sle="%s"} %d' % (metric, lab, sep, om_float(t, scale), n)
           for t, n in zip(edges, cumulative_at(src, edges))]
    out.append('%s_bucket{%s%sle="+Inf"} %d' % (metric, lab, sep, h.count))
    out.append('%s_sum{%s} %s' % (metric, lab, om_float(round(h.total(), 3), scale)))
    out.append('%s_count{%s} %d' % (metric, lab, h.count))
    return out


def metric_word(text):
    """text as part of a metric name."""
    return re.sub(r'[^a-zA-Z0-9_]', '_', text)


def export_family(e, args):
    """(name, help, unit, scale) of the histogram family of entry e: by
    kind, durations in seconds (ns with --raw), values and counts of an
    event as recorded."""
    p = args.prefix
    if 'counter' in e.info:
        ev = e.info['counter']
        return ('%s_%s' % (p, metric_word(ev)), 'kstats histograms of the number of %s '
                'events per call, one per entry' % ev, None, 1)
    if 'value' in e.info:
        return ('%s_value' % p, 'kstats histograms of values (value argN or retval), as '
                'recorded, one per entry', None, 1)
    if args.raw:
        return (args.metric or '%s_duration_raw' % p, 'kstats histograms of '
                'durations in ns, one per entry', None, 1)
    return (args.metric or '%s_duration_seconds' % p, 'kstats histograms of durations in '
            'seconds, one per entry', 'seconds', 1e9)


def export_range(e, args):
    """The range of entry e's buckets: --range (None for all), else
    EXPORT_RANGE for durations and every bucket for values and counts."""
    if args.range is not None:
        return None if args.range == ALL_RANGE else args.range
    return None if 'counter' in e.info or 'value' in e.info else EXPORT_RANGE


def key_series(e, args, name, lab, scale):
    """The histograms of a keyed entry's keys, label key: the first --top
    by count, then key="other" (the rest and the kernel's other)."""
    top, rest = top_keys(e, 'count', getattr(args, 'top', None) or EXPORT_KEY_TOP)
    out = []
    for label, h in [(k.name, k.entry.total) for k in top] + [
            ('other', hist_sum(e.bits, [k.entry.total for k in rest]))]:
        out += om_histogram(name, lab + [('key', om_text(label))], h, args.out_bits, scale,
                            export_range(e, args))
    return out


def export_entry(e, args, families, labels):
    """Add entry e's histogram(s) and its _control counts, state and bias
    to families: {name: [type, help, unit, lines]} in output order."""
    def fam(name, kind, help_, unit=None):
        f = families.setdefault(name, [kind, help_, unit, []])
        return f[3]
    name, help_, unit, scale = export_family(e, args)
    lab = [('entry', e.name)] + labels
    out = fam(name, 'histogram', help_, unit)
    if args.per_cpu:
        if e.has_totals and not e.has_cpus:
            raise Error('%s has no per-CPU lines for --per-cpu' % e.path)
        for cpu in sorted(e.cpus):
            out += om_histogram(name, lab + [('cpu', str(cpu))], e.cpus[cpu], args.out_bits,
                                scale, export_range(e, args))
    else:
        out += om_histogram(name, lab, e.total, args.out_bits, scale, export_range(e, args))
    if e.keys:
        out += key_series(e, args, name, lab, scale)
    p = args.prefix
    for key, what in EXPORT_COUNTS:
        v = e.info.get(key, '')
        if v.isdigit():
            fam('%s_%s_total' % (p, key), 'counter', 'kstats entries: %s' % what).append(
                '%s_%s_total{%s} %s' % (p, key, om_labels(lab), v))
    state = e.info.get('state')
    if state in ('running', 'stopped'):
        fam('%s_running' % p, 'gauge', '1 if the kstats entry counts samples, 0 if '
            'stopped').append('%s_running{%s} %d' % (p, om_labels(lab), state == 'running'))
    for key, what in (('bias_ns', 'p50'), ('bias_p99_ns', 'p99')):
        v = e.info.get(key, '')
        if v.isdigit():
            name = '%s_%s_seconds' % (p, key[:-3])
            fam(name, 'gauge', "the calibrated bias of the entry's probe mechanism: the %s "
                'of what an empty call measures as' % what, 'seconds').append(
                    '%s{%s} %s' % (name, om_labels(lab), om_float(int(v), 1e9)))


def export_text(entries, args):
    families = {}
    labels = list(args.labels or [])
    for e in entries:
        export_entry(e, args, families, labels)
    out = []
    for name, (kind, help_, unit, lines) in families.items():
        out.append('# TYPE %s %s' % (name, kind))
        if unit:
            out.append('# UNIT %s %s' % (name, unit))
        out.append('# HELP %s %s' % (name, help_))
        out += lines
    out.append('# EOF')
    return '\n'.join(out) + '\n'


def export_once(args):
    """One export: to -o FILE atomically, or to standard output."""
    src = Source(args.dir, args.bits)
    names = args.names or src.names()
    text = export_text([open_entry(n, args) for n in names], args)
    if args.output and args.output != STDIN:
        write_atomic(args.output, text)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()


class Stop(Exception):
    """SIGTERM: leave the export loop between two writes."""


def export_every(args):
    """Export every args.every seconds until SIGINT or SIGTERM (exit 0). A
    failed read is one line on standard error and the file keeps its last
    content (node_textfile_mtime_seconds shows its age); the loop goes on."""
    def on_term(signum, frame):
        raise Stop()
    signal.signal(signal.SIGTERM, on_term)
    try:
        while True:
            t = time.monotonic()
            try:
                export_once(args)
            except Error as err:
                sys.stderr.write('kstats: error: %s\n' % err)
                sys.stderr.flush()
            time.sleep(max(args.every - (time.monotonic() - t), 0))
    except (Stop, KeyboardInterrupt):
        return 0
