# SPDX-License-Identifier: GPL-2.0
"""The views of an entry's largest samples (trace ... outliers N): show's
and latency's section of them, with their stacks, and show --json's
list. Calls model, fit and render."""

import os
import sys
import time

from .fit import fit_table, wrap
from .model import find_key, timeless
from .render import entry_unit, fmt_t


# Frames printed under each outlier (show --stack N, latency --stack N).
STACK_FRAMES = 3

STACK_INDENT = '    '


def has_outliers(e):
    """Whether e has outliers to show; an entry whose _control line says
    'outliers N' but whose _outliers/NAME was not read gets a warning."""
    if e.outliers is not None:
        return True
    if 'outliers' in e.info:
        sys.stdout.flush()
        sys.stderr.write('kstats: warning: %s keeps outliers (outliers %s), but %s has no '
                         '_outliers/%s: its outliers were not saved\n' % (
                             e.name, e.info['outliers'], os.path.dirname(e.path) or '.',
                             os.path.basename(e.path)))
    return False


def picked(e, args):
    """The outliers of the view: those of --cpu N, and of --key K (the
    other histogram: those of keys without one of their own)."""
    out = e.outliers
    if args.cpu is not None:
        out = [o for o in out if o.cpu == args.cpu]
    k = find_key(e, args.key) if getattr(args, 'key', None) is not None else None
    if k is not None and k.other:
        own = set(x.raw for x in e.keys if not x.other)
        out = [o for o in out if o.key_raw not in own]
    elif k is not None:
        out = [o for o in out if o.key_raw == k.raw]
    return out


def shifted(value, args):
    """A sample as show prints it: less the bias with --subtract-bias
    (clamped at 0)."""
    bias = getattr(args, 'bias', None)
    return max(value - bias[0], 0) if bias else value


def local_time(o):
    """The outlier's CLOCK_REALTIME as local date and time, to the
    microsecond: '2026-11-27 13:40:57.857415'."""
    return '%s.%06d' % (time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(o.sec)),
                        o.nsec // 1000)


def outlier_lines(e, args):
    """The section of e's outliers: a heading, then a row per outlier
    (rank, value, local time, CPU, pid, comm, key) with its first --stack
    frames under it, indented."""
    width = getattr(args, 'width', None)
    nframes = getattr(args, 'stack', None)
    nframes = STACK_FRAMES if nframes is None else nframes
    unit = entry_unit(e, args)
    out = picked(e, args)
    of = []
    if args.cpu is not None:
        of.append('CPU %d' % args.cpu)
    if getattr(args, 'key', None) is not None:
        of.append('key %s' % args.key)
    head = '%s %s%s (outliers %s, since the last reset):' % (
        'largest' if timeless(e) else 'slowest',
        '%d sample%s' % (len(out), '' if len(out) == 1 else 's') if out else 'samples',
        ' of ' + ', '.join(of) if of else '', e.info.get('outliers', '?'))
    if not out:
        return wrap(head[:-1] + ': none', width)
    keyed = any(o.key is not None for o in out)
    rows = [['#', 'value', 'time', 'cpu', 'pid', 'comm'] + (['key'] if keyed else [])]
    for o in out:
        rows.append([str(o.rank), fmt_t(shifted(o.value, args), unit), local_time(o),
                     str(o.cpu), str(o.pid), o.comm] +
                    ([o.key if o.key is not None else '-'] if keyed else []))
    # Too wide: without pid, then cpu.
    text = fit_table(rows, 'rrlrrll', width, drop=(4, 3)).split('\n')
    lines = wrap(head, width) + text[:1]
    for o, row in zip(out, text[1:]):
        lines.append(row)
        lines += [STACK_INDENT + f for f in o.stack[:nframes]]
        more = len(o.stack) - nframes
        if nframes and more > 0:
            lines.append('%s... %d more frame%s' % (STACK_INDENT, more, '' if more == 1 else 's'))
    return lines


def outliers_json(e, args):
    """show --json's "outliers": every outlier of the view, all its
    fields and its whole stack (value in ns until scale_times)."""
    return [{'rank': o.rank, 'value': shifted(o.value, args), 'time': o.sec + o.nsec / 1e9,
             'time_ns': o.sec * 1000000000 + o.nsec, 'mono_ns': o.mono, 'cpu': o.cpu,
             'pid': o.pid,
             'tid': o.tid, 'comm': o.comm, 'key': o.key, 'stack': list(o.stack)}
            for o in picked(e, args)]
