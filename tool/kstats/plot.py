# SPDX-License-Identifier: GPL-2.0
"""gnuplot: the plot command's script and data, the heatmap of a
recording, running gnuplot."""

import fractions
import math
import os
import shutil
import subprocess
import tempfile

from .capture import check_cpu, open_entry
from .errors import Error
from .model import MAX_BITS, slot_lo, slot_top, timeless
from .render import UNIT_NS, entry_unit


def plot_data(h, div=1):
    """Datablock rows 'lo hi density cdf count' for every slot from the
    first to the last non-empty one (empty ones as 0, so that steps stay
    right), lo and hi in the unit (div ns). density is the count per
    1/2^bits of a power of two, so that slots of different log widths
    compare on the log-x axis (the raw count per slot has a sawtooth at
    every power of two). The log axis shows slot 0 (the value 0) as
    [0.5, 1). Drawn 'with steps', each row's level holds from its lo to
    the next row's lo, which is its own hi: the slot's own interval."""
    counts = {s: c for s, c, _ in h.rows}
    first, last = h.rows[0].slot, h.rows[-1].slot
    # Start the CDF at 0 at the first slot's lower edge.
    start = repr(float(max(slot_lo(first, h.bits), 0.5)) / div)
    out = ['%s %s 0 0 0' % (start, start)]
    cum = 0
    for s in range(first, last + 1):
        c = counts.get(s, 0)
        cum += c
        lo = max(slot_lo(s, h.bits), 0.5)
        hi = slot_top(s, h.bits) + 1
        dens = c / (math.log2(hi / lo) * (1 << h.bits))
        out.append('%s %s %.6g %.9f %d' % (repr(lo / div), repr(hi / div), dens,
                                           cum / h.count, c))
    # Close the last step: level 0 from the last slot's upper edge.
    end = repr((slot_top(last, h.bits) + 1) / div)
    out.append('%s %s 0 1 0' % (end, end))
    return out


def gp_quote(s):
    return '"%s"' % s.replace('\\', '\\\\').replace('"', '\\"')


def plot_script(plots, args, output=None, first=True):
    """The gnuplot script: distribution, CDF and tail (1 - CDF, log-log)
    of one entry, or of two overlaid ([(entry, hist), ...])."""
    e, h = plots[0]
    # Values and event counts are plotted as recorded, named for what they are.
    unit = e.info.get('counter', 'value') if timeless(e) else args.unit or 'ns'
    div = UNIT_NS.get(unit, 1)
    if len(plots) == 1:
        title = '%s: %d samples%s' % (e.name, h.count,
                                      '' if args.cpu is None else ', CPU %d' % args.cpu)
    else:
        title = ' vs '.join('%s (%d)' % (pe.name, ph.count) for pe, ph in plots)
    dumb = not args.png and not args.term
    lines = []
    if first or args.png:
        if args.png:
            lines.append('set terminal %s size %s' % (args.term or 'pngcairo',
                                                      args.size or '900,900'))
            lines.append('set output %s' % gp_quote(output or args.png))
        elif args.term:
            lines.append('set terminal %s' % args.term)
        else:
            w, hgt = shutil.get_terminal_size((100, 40))
            lines.append('set terminal dumb size %s' % (
                args.size or '%d,%d' % (max(w, 60), max(hgt - 1, 45))))
        lines.append('set termoption noenhanced')
    blocks = []
    for i, (pe, ph) in enumerate(plots):
        blocks.append('$kstats%s' % ('' if i == 0 else i + 1))
        lines.append('%s << EOD' % blocks[-1])
        lines.extend(plot_data(ph, div))
        lines.append('EOD')
    lines += ['set logscale x', 'set autoscale xfix', 'unset arrow',
              'unset label', 'unset grid' if dumb else 'set grid',
              'set key top right' if len(plots) > 1 else 'set key off']
    for label, q in (('p50', fractions.Fraction(1, 2)), ('p99', fractions.Fraction(99, 100))):
        if dumb or len(plots) > 1:
            break
        v = max(h.quantile(q)[0], 0.5) / div
        lines.append('set arrow from %r, graph 0 to %r, graph 1 nohead dashtype 2' % (
            float(v), float(v)))
        lines.append('set label "%s" at %r, graph 0.95 left offset 0.5,0' % (label, float(v)))

    def plot(using, style):
        return 'plot ' + ', '.join('%s using %s with %s lw 2 title %s' % (
            b, using, style, gp_quote(pe.name)) for b, (pe, _) in zip(blocks, plots))
    lines += [
        'set multiplot layout 3,1 title %s' % gp_quote(title),
        'set title "distribution"',
        'set ylabel "samples per %soctave"' % ('1/%d ' % (1 << h.bits) if h.bits else ''),
        'set yrange [0:*]',
        # steps: each row's level from its lo (column 1) to the next lo.
        plot('1:3', 'steps'),
        'set title "CDF"',
        'set ylabel "fraction <= value"',
        'set yrange [0:1.05]',
        plot('2:4', 'lines'),
        'set title "tail: fraction above value (log-log)"',
        'set xlabel "%s"' % (unit if timeless(e) else 'value (%s)' % unit),
        'set ylabel "1 - CDF"',
        'set logscale y',
        'set yrange [*:1]',
        plot('2:(1 - $4 > 0 ? 1 - $4 : NaN)', 'lines'),
        'unset logscale y',
        'unset multiplot',
        'unset xlabel',
    ]
    if args.png:
        lines.append('set output')
    return '\n'.join(lines) + '\n'


def find_gnuplot():
    gp = shutil.which('gnuplot')
    if not gp:
        raise Error('gnuplot not found (Debian: apt-get install gnuplot-nox); '
                    '--script prints the gnuplot script instead')
    return gp


def plot_hist(e, args):
    h = e.cpu_hist(args.cpu)
    return h.merged(min(max(args.hist_bits, 0), h.bits)) if args.hist_bits is not None else h


def plot_entries(args):
    """[(entry, hist)] of NAME and the optional NAME2."""
    out = []
    for name in [args.name] + ([args.other] if args.other else []):
        e = open_entry(name, args, prefer_path=bool(args.other))
        check_cpu(e, args.cpu)
        entry_unit(e, args)
        out.append((e, plot_hist(e, args)))
    if len(out) > 1 and bool(timeless(out[0][0])) != bool(timeless(out[1][0])):
        raise Error('plot overlays times on times and values on values: %s is %s, %s is %s'
                    % (out[0][0].name, timeless(out[0][0]) or 'a time entry',
                       out[1][0].name, timeless(out[1][0]) or 'a time entry'))
    return out


def plot_once(gp, plots, args):
    """One gnuplot run, to the terminal or to a PNG."""
    if args.png:
        gnuplot_png(gp, lambda out: plot_script(plots, args, out), args.png)
    else:
        run_gnuplot(gp, plot_script(plots, args))


def run_gnuplot(gp, script, out=None):
    r = subprocess.run([gp], input=script.encode(), stderr=subprocess.PIPE)
    err = r.stderr.decode(errors='replace').strip()
    if r.returncode != 0 or (out and not os.path.getsize(out)):
        raise Error('gnuplot failed: %s' % (err or 'exit %d' % r.returncode))


def gnuplot_png(gp, make_script, dest):
    """gnuplot writes make_script(TMP)'s PNG beside dest, renamed to dest
    when complete."""
    d = os.path.dirname(os.path.abspath(dest))
    try:
        fd, out = tempfile.mkstemp(prefix='.kstats-', suffix='.png', dir=d)
    except OSError as err:
        raise Error('cannot write in %s: %s' % (d, err.strerror))
    os.close(fd)
    try:
        run_gnuplot(gp, make_script(out), out)
        os.chmod(out, 0o644)
        os.replace(out, dest)
        out = None
    finally:
        if out and os.path.exists(out):
            os.unlink(out)


def heatmap_grid(series, hist_bits):
    """The heatmap: (bits, slots, counts) with slots every slot from the
    first to the last one with samples in any interval, at the smallest
    bits of the intervals (or hist_bits), and counts[i][j] the samples of
    interval i in slot j."""
    bits = min([h.bits for _, h in series if h is not None] + [MAX_BITS])
    if hist_bits is not None:
        bits = min(bits, hist_bits)
    merged = [h.merged(bits) if h is not None else None for _, h in series]
    used = [s for h in merged if h is not None for s, _, _ in h.rows]
    slots = list(range(min(used), max(used) + 1)) if used else []
    counts = []
    for h in merged:
        c = dict((s, n) for s, n, _ in h.rows) if h is not None else {}
        counts.append([c.get(s, 0) for s in slots])
    return bits, slots, counts


def number_or_none(word):
    try:
        v = float(word)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def heatmap_json(path, header, name, series, grid, args):
    bits, slots, counts = grid
    div = UNIT_NS[args.unit or 'ns']
    return {'recording': path, 'name': name, 'cpu': args.cpu, 'unit': args.unit or 'ns',
            'time_unit': 's', 'start': header.get('time'),
            'interval': number_or_none(header.get('interval')), 'bits': bits,
            'intervals': [{'interval': d['interval'], 'from': d['from'], 'to': d['to'],
                           'delta': d['delta'], 'count': sum(row)}
                          for (d, _), row in zip(series, counts)],
            'slots': [{'slot': s, 'lo': slot_lo(s, bits) / div, 'hi': slot_top(s, bits) / div}
                      for s in slots],
            'counts': counts}


def heatmap_rows(series, grid, div):
    """Datablock rows 'from to lo hi count' of the cells with samples:
    the interval's time span (s), the slot's edges [lo, hi) in the unit
    (the value 0 at [0.5, 1), as plot draws it on a log axis)."""
    bits, slots, counts = grid
    out = []
    for (d, _), row in zip(series, counts):
        for s, c in zip(slots, row):
            if c:
                out.append('%.6f %.6f %r %r %d' % (d['from'], d['to'],
                                                   max(slot_lo(s, bits), 0.5) / div,
                                                   (slot_top(s, bits) + 1) / div, c))
    return out


def heatmap_script(path, header, name, series, grid, args, output):
    unit = args.unit or 'ns'
    rows = heatmap_rows(series, grid, UNIT_NS[unit])
    bits = grid[0]
    lines = ['set terminal %s size %s' % (args.term or 'pngcairo', args.size or '1000,600'),
             'set output %s' % gp_quote(output), 'set termoption noenhanced',
             '$heatmap << EOD'] + rows + ['EOD']
    t1 = max(d['to'] for d, _ in series)
    total = sum(sum(r) for r in grid[2])
    lines += [
        'set title %s' % gp_quote('%s%s: %d samples in %d intervals of %s s, from %s' % (
            name, '' if args.cpu is None else ' CPU %d' % args.cpu, total, len(series),
            header.get('interval', '?'), header.get('time', '?'))),
        'set xlabel "time since the start (s)"',
        'set ylabel "value (%s), slots of bits %d"' % (unit, bits),
        'set cblabel "samples per interval"',
        'set xrange [%r:%r]' % (min(d['from'] for d, _ in series), t1),
        'set logscale y', 'set grid front',
        'set style fill solid 1.0 noborder',
        'set palette defined (0 "#ffffb2", 1 "#fecc5c", 2 "#fd8d3c", 3 "#f03b20", '
        '4 "#bd0026")',
    ]
    if args.log:
        lines.append('set logscale cb')
        lines.append('set cbrange [1:*]')
    else:
        lines.append('set cbrange [0:*]')
    for d, _ in series:
        if d['delta'] != 'ok':
            lines.append('set arrow from %r, graph 0 to %r, graph 1 nohead dashtype 2 lc '
                         '"blue"' % (d['from'], d['from']))
            lines.append('set label %s at %r, graph 0.97 left offset 0.3,0 tc "blue"' % (
                gp_quote(d['delta']), d['from']))
    # Each cell a box over its interval's time span and its slot's [lo, hi).
    lines.append('plot $heatmap using (($1 + $2) / 2):(sqrt($3 * $4)):1:2:3:4:5 '
                 'with boxxyerror fc palette notitle')
    lines.append('set output')
    return '\n'.join(lines) + '\n'
