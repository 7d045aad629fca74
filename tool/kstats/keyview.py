# SPDX-License-Identifier: GPL-2.0
"""The views of keyed entries (trace ... by KEY): show's key table and
JSON keys, --key, watch's keys by rate, diff's comparison key by key.
Calls model, errors and render."""

import fractions
import sys

from .errors import Error
from .fit import fit_table, table, wrap
from .model import find_key, hist_sum, key_pairs, sorted_keys, summary, top_keys
from .render import (
    UNRESOLVED, entry_json, entry_summary, entry_unit, exact_extremes, fmt_t, typed, unresolved,
    unresolved_note)


# The key table's percentiles (show, diff).
KEY_PERCENTILES = [('50', fractions.Fraction(1, 2)), ('90', fractions.Fraction(9, 10)),
                   ('99', fractions.Fraction(99, 100))]

# Rows of the key table (show --top), and of watch's keys by rate.
KEY_TOP = 20
WATCH_KEY_TOP = 10


def exact_max(keys, args):
    """The largest exact max of keys (their 'key K min N max N' lines),
    or None: one not known, per-CPU views and shifted ones."""
    his = [exact_extremes(k.entry, args) for k in keys]
    if not his or None in his:
        return None
    return max(hi for _, hi in his)


def key_row(e, label, keys, args, unit, marked):
    """A key table row of the samples of keys (summed)."""
    h = hist_sum(e.bits, [k.entry.cpu_hist(args.cpu) for k in keys])
    if not h.count:
        return [label, '0', '-', '-', '-', '-']
    s = entry_summary(e, h, args, KEY_PERCENTILES)
    hi = exact_max(keys, args)
    marked.update(w for w, q in KEY_PERCENTILES if unresolved(q, h.count))
    return [label, str(h.count)] + [
        fmt_t(s['percentiles']['p' + w]['value'], unit) +
        (UNRESOLVED if unresolved(q, h.count) else '') for w, q in KEY_PERCENTILES] + [
        fmt_t(s['max']['value'] if hi is None else hi, unit)]


def keys_note(e):
    """The line under the key table: keys seen, at most, dropped."""
    seen = e.info.get('keys', str(len([k for k in e.keys if not k.other])))
    return ('keys %s (at most %s), keys_dropped %s (samples of keys beyond keys_max); '
            'other: the keys below the top and those samples'
            % (seen, e.info.get('keys_max', '?'), e.info.get('keys_dropped', '?')))


def key_table(e, args):
    """show's lines of a keyed entry: its keys in the order of --sort,
    the first --top, then 'other' (the rest and the kernel's other)."""
    unit = entry_unit(e, args)
    width = getattr(args, 'width', None)
    top = getattr(args, 'top', None) or KEY_TOP
    sort = getattr(args, 'sort', None) or 'count'
    rows_keys, rest = top_keys(e, sort, top, args.cpu)
    marked = set()
    rows = [['key', 'count'] + ['p' + w for w, _ in KEY_PERCENTILES] + ['max']]
    stacks = e.by == 'stack'
    rows += [key_row(e, stack_label(i, k.name) if stacks else key_label(k.name, args), [k],
                     args, unit, marked)
             for i, k in enumerate(rows_keys)]
    rows.append(key_row(e, 'other', rest, args, unit, marked))
    out = wrap('per key (by %s, %s, top %d):' % (
        e.by, 'by key' if sort == 'key' else 'largest %s first' % sort, top), width)
    # Too wide: without p90, then p50.
    out.append(fit_table(rows, 'lrrrrr', width, drop=(3, 2)))
    if marked:
        out += wrap(unresolved_note(KEY_PERCENTILES, marked), width)
    out += wrap(keys_note(e), width)
    if stacks and rows_keys:
        out.append('stacks, outermost frame first:')
        out += ['#%d %s' % (i + 1, ' ; '.join(k.name.split(';'))) for i, k in enumerate(rows_keys)]
    return out


def key_name(name, args):
    """What args.key_names calls key name (kstats biolatency -F: the
    kernel's names of the flags), or None: no names, or not a number."""
    namer = getattr(args, 'key_names', None)
    return namer(int(name)) if namer is not None and name.isdigit() else None


def key_label(name, args):
    """A key's row label: its name, and key_name()'s before it."""
    named = key_name(name, args)
    return name if named is None else '%s (%s)' % (named, name)


def stack_label(i, folded):
    """A stack key's row in the key table: its number and its innermost
    frame (where the function returned to); the stacks follow the table."""
    return '#%d %s' % (i + 1, folded.split(';')[-1])


OTHER_FRAME = '[other]'


def folded_lines(e, args):
    """show --folded: 'FRAMES TOTAL' per stack key, the total of its
    samples (ns for a time), the folded form that flame graph tools read;
    then '[other] TOTAL' for the samples of stacks beyond keys_max, if
    any, so that the graph's width is the entry's whole total, and a
    warning on stderr that says how to keep them."""
    if e.by != 'stack' or e.keys is None:
        raise Error('--folded: %s has no stack keys (trace ... by stack)' % e.name)
    lines = ['%s %d' % (k.name, round(k.entry.cpu_hist(args.cpu).total()))
             for k in sorted_keys(e.keys, 'count', args.cpu) if not k.other]
    for k in (k for k in e.keys if k.other):
        h = k.entry.cpu_hist(args.cpu)
        if h.count:
            lines.append('%s %d' % (OTHER_FRAME, round(h.total())))
            sys.stderr.write('kstats: warning: %s: %d samples of stacks beyond keys_max %s '
                             'are one line %s (more keys: trace ... keys N, kstats offcpu '
                             '--keys N)\n' % (e.name, h.count, e.info.get('keys_max', '?'),
                                              OTHER_FRAME))
    return lines


def keys_json(e, args, percentiles):
    """show --json's fields of a keyed entry: by, keys_max, keys_dropped
    and every key (in the order of --sort, the other histogram last),
    each as entry_json makes an entry's object, with its key."""
    d = {'by': e.by}
    for k in ('keys_max', 'keys_dropped'):
        d[k] = typed(e.info[k]) if k in e.info else None
    sort = getattr(args, 'sort', None) or 'count'
    keys = sorted_keys(e.keys, sort, args.cpu) + [k for k in e.keys if k.other]
    d['keys'] = []
    for k in keys:
        item = {'key': k.name}
        named = key_name(k.name, args)
        if named is not None:
            item['name'] = named
        if k.other:
            item['other'] = True
        item.update(entry_json(k.entry, k.entry.cpu_hist(args.cpu), args, percentiles))
        d['keys'].append(item)
    return d


def key_entry(e, word):
    """The Entry of e's key word (--key), an error naming the keys if none."""
    k = find_key(e, word)
    if k is None:
        names = [x.name for x in sorted_keys(e.keys, 'count')]
        more = ', ...' if len(names) > 20 else ''
        raise Error('no key %s in %s (by %s; keys: %s%s)' % (
            word, e.name, e.by, ', '.join(names[:20] + ['other']), more))
    return k.entry


def key_side(h):
    """(count, p50, p99) of one side of a key in diff (None: no samples)."""
    if h is None or not h.count:
        return 0, None, None
    return (h.count, h.quantile(fractions.Fraction(1, 2))[0],
            h.quantile(fractions.Fraction(99, 100))[0])


def change(x, y):
    return '%+.1f%%' % (100.0 * (y - x) / x) if x and y is not None else '-'


def diff_keys_text(pairs, unit):
    """diff's table of keys (model.key_pairs): count, p50 and p99 of
    each side and their change."""
    rows = [['key', 'count x', 'count +', 'change', 'p50 x', 'p50 +', 'change', 'p99 x',
             'p99 +', 'change']]
    for name, a, b, _ in pairs:
        (na, a50, a99), (nb, b50, b99) = key_side(a), key_side(b)
        rows.append([name, str(na), str(nb), change(na, nb), fmt_t(a50, unit),
                     fmt_t(b50, unit), change(a50, b50), fmt_t(a99, unit), fmt_t(b99, unit),
                     change(a99, b99)])
    return ['Per key (x: A, +: B; other: the samples of keys beyond keys_max):',
            table(rows, 'l' + 'r' * 9)]


def diff_keys_json(pairs):
    def side(h):
        n, p50, p99 = key_side(h)
        return None if h is None else {'count': n, 'p50': p50, 'p99': p99}
    return [dict(key=name, a=side(a), b=side(b), **({'other': True} if other else {}))
            for name, a, b, other in pairs]


def diff_keys(ea, eb, cpu):
    """diff's keys (model.key_pairs) when every capture of both sides has
    them, else None; keys by different KEYs do not compare."""
    if not all(e.keys is not None for e in ea + eb):
        return None
    bys = sorted(set(e.by for e in ea + eb))
    if len(bys) > 1:
        sys.stderr.write('kstats: warning: the captures are keyed by %s: no comparison key by key\n'
                         % ' and '.join(bys))
        return None
    return key_pairs(ea, eb, cpu)


def watch_keys(deltas, dt):
    """The keys of watch's screen: the WATCH_KEY_TOP with the most samples
    in the interval (the other histogram among them), none without."""
    return [(k, h, h.count / dt if dt > 0 else 0.0) for k, h in deltas
            if h.count][:WATCH_KEY_TOP]


def watch_keys_text(deltas, dt, unit, width):
    """watch's lines of the keys with the highest rate in the interval."""
    rows = [['key', 'samples', 'rate/s', 'p50', 'p99', 'max']]
    for k, h, rate in watch_keys(deltas, dt):
        rows.append([k.name, str(h.count), '%.1f' % rate] + [
            fmt_t(h.quantile(q)[0], unit) for q in (fractions.Fraction(1, 2),
                                                    fractions.Fraction(99, 100))] +
            [fmt_t(h.max()['value'], unit)])
    if len(rows) == 1:
        return ['keys: no samples in the interval']
    return ['keys, the highest rate first (top %d):' % WATCH_KEY_TOP,
            fit_table(rows, 'lrrrrr', width, drop=(3,))]


def watch_keys_json(deltas, dt):
    return [dict(key=k.name, rate=rate, **({'other': True} if k.other else {}),
                 **summary(h, KEY_PERCENTILES)) for k, h, rate in watch_keys(deltas, dt)]
