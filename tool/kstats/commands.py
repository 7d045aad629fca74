# SPDX-License-Identifier: GPL-2.0
"""One function per subcommand (cmd_NAME(args) -> exit status): each reads through capture,
computes through model and stats, and prints through render, plot or export."""

import json
import math
import os
import signal
import stat
import subprocess
import sys
import time

from .capture import (
    CALIBRATION_KEYS, CONTROL, STDIN, Source, check_cpu, load_in_dir, open_entry,
    parse_calibrations, parse_control, parse_header, read_text, ssh_host)
from .errors import Error
from .export import EXPORT_BITS, export_every, export_once
from .live import (
    control_names, control_path, device, is_live, listing_path, require_live, write_command)
from .keyview import (
    diff_keys, diff_keys_json, diff_keys_text, folded_lines, key_entry, key_table, keys_json,
    watch_keys_json, watch_keys_text)
from .model import bias_of, key_deltas, timeless
from .outlierview import has_outliers, outlier_lines, outliers_json
from .plot import (
    find_gnuplot, gnuplot_png, heatmap_grid, heatmap_json, heatmap_script, plot_entries,
    plot_once, plot_script)
from .recording import (
    Recorded, beside_files, record_loop, record_output, recording_hists, save_header,
    write_atomic)
from .render import (
    UNIT_NS, calibration_table, diff_json, diff_text, entry_json, entry_unit, entry_warning,
    scale_times, show_text, table, typed_info, watch_json, watch_text)
from .stats import compare
from .userfunc import resolve


def cmd_list(args):
    src = Source(args.dir)
    ctl = src.control()
    rows = []
    if ctl is None:
        ctl = [{'name': n} for n in src.names()]
    for d in ctl:
        r = dict((k, v) for k, v in d.items() if not k.startswith('_'))
        if not args.no_count:
            path = os.path.join(args.dir, d['name'])
            if ssh_host() or os.path.isfile(path):
                try:
                    e = load_in_dir(d['name'], path, d, args.bits, CONTROL)
                    r['samples'] = str(e.total.count)
                except Error as err:
                    sys.stderr.write('kstats: warning: %s\n' % err)
                    r['samples'] = '?'
            else:
                r['samples'] = 'no file'
        rows.append(r)
    if args.json:
        docs = [typed_info(r) for r in rows]
        for d in docs:
            if not isinstance(d.get('samples', 0), int):
                d['samples'] = None     # unreadable, or no file
        print(json.dumps(docs, indent=2))
        return 0
    if not rows:
        print('no entries in %s' % args.dir)
        return 0
    keys = []
    for r in rows:
        for k in r:
            if k not in keys:
                keys.append(k)
    print(table([keys] + [[r.get(k, '-') for k in keys] for r in rows]))
    return 0


def warn(text):
    sys.stdout.flush()
    sys.stderr.write('kstats: warning: %s\n' % text)


def keyed(e, option=None):
    """Whether e has per-key histograms to show; an option that needs
    them (--key) is an error without them, and a keyed entry whose
    _keys file is missing gets a warning."""
    if e.keys is not None:
        return True
    if e.by is not None:
        warn('%s is keyed (by %s), but %s has no _keys/%s: its keys were not saved'
             % (e.name, e.by, os.path.dirname(e.path) or '.', os.path.basename(e.path)))
    if option:
        raise Error('%s: %s has no per-key histograms (traced without "by KEY")'
                    % (option, e.name))
    return False


def show_one(e, args, docs):
    """Append show's text (None) or JSON object of e to docs."""
    percentiles = args.percentiles
    has_keys = keyed(e, '--key' if args.key is not None else None)
    whole = e if has_outliers(e) else None     # its outliers, the key's among them
    if args.key is not None:
        e = key_entry(e, args.key)
    h = e.cpu_hist(args.cpu)
    if args.json:
        d = entry_json(e, h, args, percentiles)
        if has_keys and args.key is None:
            d.update(keys_json(e, args, percentiles))
        if whole:
            d['outliers'] = scale_times(outliers_json(whole, args),
                                        UNIT_NS.get(entry_unit(e, args) or 'ns', 1))
        docs.append(d)
        return
    if len(docs):
        print()
    lines = show_text(e, h, args, percentiles)
    if has_keys and args.key is None:
        lines += [''] + key_table(e, args)
    if whole:
        lines += [''] + outlier_lines(whole, args)
    print('\n'.join(lines))
    docs.append(None)


def cmd_show(args):
    docs = []
    if args.folded and (args.json or args.key is not None):
        raise Error('--folded prints every stack key: not with --json or --key')
    for name in args.names:
        e = open_entry(name, args)
        check_cpu(e, args.cpu)
        args.bias = bias_of(e) if args.subtract_bias else None
        warning = entry_warning(e)
        if warning:
            warn(warning)
        if args.folded:
            print('\n'.join(folded_lines(e, args)))
            continue
        show_one(e, args, docs)
    if args.json:
        print(json.dumps(docs[0] if len(docs) == 1 else docs, indent=2))
    return 0


def clear_screen():
    sys.stdout.write('\033[H\033[2J')


def rereadable(arg):
    """Why watch cannot read arg again (a pipe gives one snapshot, then
    nothing, which would look like a reset), or None."""
    if arg == STDIN:
        return 'standard input is read once'
    if '/' in arg or os.path.exists(arg):
        try:
            mode = os.stat(arg).st_mode
        except OSError:
            return None
        if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISSOCK(mode):
            return '%s is a pipe, read once' % arg
    return None


def every_interval(args, step):
    """step(n) for n = 0, 1, ... every --interval, until -n (or Ctrl-C,
    which ends the line)."""
    n = 0
    try:
        while True:
            step(n)
            n += 1
            if args.count is not None and n >= args.count:
                break
            time.sleep(args.interval)
    except KeyboardInterrupt:
        sys.stdout.write('\n')


def cmd_watch(args):
    why = None if ssh_host() else rereadable(args.name)
    if why:
        raise Error('watch rereads its entry every interval, and %s: give an entry, a '
                    'file, or --ssh HOST for a remote one' % why)
    tty = sys.stdout.isatty() and not args.no_clear and not args.json
    last = {'h': None, 't': None, 'unit': args.unit}

    def step(n):
        e = open_entry(args.name, args)
        if n == 0:
            check_cpu(e, args.cpu)
            last['unit'] = entry_unit(e, args)
        now = time.monotonic()
        h = e.cpu_hist(args.cpu)
        d, reset = None, False
        if last['h'] is not None:
            d = h.delta(last['h'])
            if d is None:           # counters went down: since the reset
                d, reset = h, True
        dt = now - last['t'] if last['t'] else 0
        deltas, last['keys'] = key_deltas(e, last.get('keys'), args.cpu)
        if args.json:
            doc = watch_json(e, h, d, dt, args, args.percentiles, reset)
            if e.keys is not None:
                doc['keys'] = None if deltas is None else scale_times(
                    watch_keys_json(deltas, dt), UNIT_NS.get(last['unit'] or 'ns', 1))
            out = json.dumps(doc)
        else:
            lines = watch_text(e, h, d, dt, args, n, last['unit'], reset)
            if deltas is not None:
                lines += watch_keys_text(deltas, dt, last['unit'], args.width)
            if tty:
                clear_screen()
            elif n:
                lines.insert(0, '')
            out = '\n'.join(lines)
        sys.stdout.write(out + '\n')
        sys.stdout.flush()
        last.update(h=h, t=now)
    every_interval(args, step)
    return 0


def cmd_plot(args):
    if args.png:
        png_output(args.png, '--png')
    if args.live and not ssh_host():
        for arg in [args.name] + ([args.other] if args.other else []):
            why = rereadable(arg)
            if why:
                raise Error('plot --live rereads its entries, and %s' % why)
    plots = plot_entries(args)
    e, h = plots[0]
    for pe, ph in plots:
        if not ph.count and not args.live:
            raise Error('%s has no samples to plot' % pe.name)
    if args.script:
        sys.stdout.write(plot_script(plots, args))
        return 0
    gp = find_gnuplot()
    if not args.live:
        plot_once(gp, plots, args)
        if args.png:
            print('%s: distribution and CDF of %s' % (args.png, e.name))
        return 0
    # A window terminal keeps one gnuplot, fed a fresh datablock each
    # time; the dumb terminal and PNG files get one gnuplot run each.
    proc = None
    if args.term and not args.png:
        proc = subprocess.Popen([gp], stdin=subprocess.PIPE)
    tty = sys.stdout.isatty()

    def step(n):
        ps = plot_entries(args) if n else plots
        e, h = ps[0]
        if not all(ph.count for _, ph in ps):
            print('%s: no samples yet' % e.name)
        elif proc:
            proc.stdin.write(plot_script(ps, args, first=(n == 0)).encode())
            proc.stdin.flush()
        else:
            if tty and not args.png:
                clear_screen()
                sys.stdout.flush()
            plot_once(gp, ps, args)
            if args.png:
                print('%s: %s, %d samples' % (args.png, time.strftime('%H:%M:%S'), h.count))
        sys.stdout.flush()
    try:
        every_interval(args, step)
    except BrokenPipeError:
        raise Error('gnuplot exited')
    finally:
        if proc:
            try:
                proc.stdin.close()
            except OSError:
                pass
            proc.wait()
    return 0


def cmd_save(args):
    src = Source(args.dir, args.bits)
    names = src.names() if args.all else args.names
    dest = args.dest
    if not names:
        raise Error('nothing to save: no entries in %s' % args.dir)
    as_dir = args.all or len(names) > 1 or os.path.isdir(dest) or dest.endswith('/')
    if not as_dir:
        e = src.entry(names[0])
        text = read_text(e.path)
        body = ''.join(line + '\n' for line in text.split('\n')[:-1]
                       if not (line.startswith('#') and parse_header(line) is not None))
        write_atomic(dest, save_header(e, args) + body)
        kept = [('per-key histograms (by %s)' % e.by, e.keys), ('outliers', e.outliers)]
        for what, data in kept:
            if data is not None:
                warn('%s: its %s are kept only in a capture directory (save NAME DIR/)'
                     % (e.name, what))
        print('saved %s (%d samples, bits %d) to %s' % (e.name, e.total.count, e.bits, dest))
        return 0
    # A capture directory laid out like debugfs: _control and entry files,
    # each copied from one read of the source.
    try:
        os.makedirs(dest, exist_ok=True)
    except OSError as err:
        raise Error('cannot create %s: %s' % (dest, err.strerror))
    if os.path.isdir(args.dir) and os.path.samefile(dest, args.dir):
        raise Error('%s is the directory read from' % dest)
    lines = []
    for name in names:
        e = src.entry(name)
        text = read_text(e.path)
        write_atomic(os.path.join(dest, name), text)
        save_beside(e, dest)
        info = src.info(name)
        if info is None:
            info = {'name': name, 'bits': str(e.bits)}
        lines.append(' '.join('%s %s' % (k, v) for k, v in info.items()
                              if not k.startswith('_')))
        print('saved %s (%d samples) to %s' % (name, e.total.count, os.path.join(dest, name)))
    # Lines of entries saved there before stay, unless saved again now.
    old = []
    ctlpath = os.path.join(dest, CONTROL)
    if os.path.isfile(ctlpath):
        old = [' '.join('%s %s' % (k, v) for k, v in d.items() if not k.startswith('_'))
               for d in parse_control(read_text(ctlpath), ctlpath) if d['name'] not in names]
    # The calibration lines too, so that show --subtract-bias and
    # calibrate --no-run read the capture as they read the live files.
    cal = []
    src_ctl = os.path.join(args.dir, CONTROL)
    if ssh_host() or os.path.isfile(src_ctl):
        cal = ['calibration ' + ' '.join('%s %s' % (k, d[k]) for k in CALIBRATION_KEYS)
               for d in parse_calibrations(read_text(src_ctl), src_ctl).values()]
    write_atomic(ctlpath, ''.join(line + '\n' for line in old + lines + cal))
    return 0


def save_beside(e, dest):
    """_keys/NAME of a keyed entry and _outliers/NAME of one with outliers
    into the capture dest (and none left there from an earlier save of an
    entry of that name without them)."""
    for name, text in beside_files(e):
        path = os.path.join(dest, name)
        if text is None:
            if os.path.isfile(path):
                os.unlink(path)
            continue
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
        except OSError as err:
            raise Error('cannot create %s: %s' % (os.path.dirname(path), err.strerror))
        write_atomic(path, text)


DIFF_SEP = '\0--'   # the '--' between diff's sides (argparse drops a plain '--')


def split_runs(args):
    runs = args.runs
    if DIFF_SEP in runs:
        i = runs.index(DIFF_SEP)
        a, b = runs[:i], runs[i + 1:]
    elif len(runs) == 2:
        a, b = runs[:1], runs[1:]
    else:
        raise Error('diff takes A B, or A1 A2 ... -- B1 B2 ... (one capture per run)')
    if not a or not b or DIFF_SEP in b:
        raise Error('diff takes A B, or A1 A2 ... -- B1 B2 ... (one capture per run)')
    return a, b


def diff_warnings(ea, eb):
    """Captures given more than once: their runs are one run counted
    twice, which shrinks the variance across runs (df inf)."""
    seen, out = {}, []
    for side, es in (('A', ea), ('B', eb)):
        for e in es:
            key = e.path if e.path == '<stdin>' else os.path.realpath(e.path)
            if key in seen:
                out.append('%s is given twice (%s and %s): one run counted twice, so the '
                           'test is not valid' % (e.path, seen[key], side))
            else:
                seen[key] = side
    return out


def diff_unit(entries, args):
    """The printed unit: --unit, or VALUE_UNIT if the entries hold values
    or counts (no times); the two kinds do not compare."""
    kinds = set(bool(timeless(e)) for e in entries)
    if len(kinds) > 1:
        raise Error('diff compares times with times and values with values: %s' % ', '.join(
            '%s is %s' % (e.name, timeless(e) or 'a time entry') for e in entries))
    return entry_unit(entries[0], args)


def cmd_diff(args):
    conf = args.confidence / 100.0
    names_a, names_b = split_runs(args)
    ea = [open_entry(n, args, prefer_path=True) for n in names_a]
    eb = [open_entry(n, args, prefer_path=True) for n in names_b]
    warnings = diff_warnings(ea, eb)
    for w in warnings:
        sys.stderr.write('kstats: warning: %s\n' % w)
    unit = diff_unit(ea + eb, args)
    ra = [e.cpu_hist(args.cpu) for e in ea]
    rb = [e.cpu_hist(args.cpu) for e in eb]
    for e, h in zip(ea + eb, ra + rb):
        check_cpu(e, args.cpu)
        if h.count < 2:
            raise Error('%s: %d sample%s, too few to compare' % (e.path, h.count,
                                                                 '' if h.count == 1 else 's'))
    c = compare(ra, rb, conf, args.percentiles, args.per_sample)
    pairs = diff_keys(ea, eb, args.cpu)
    if args.json:
        doc = diff_json(c, ea, eb, args.confidence, unit, warnings, args.percentiles)
        if pairs is not None:
            doc['keys'] = diff_keys_json(pairs)
        print(json.dumps(doc, indent=2))
    else:
        print(diff_text(c, ea, eb, unit, conf))
        if pairs is not None:
            print('\n'.join(diff_keys_text(pairs, unit)))
    return 3 if args.fail_if_different and c.different else 0


def cmd_export(args):
    if args.metric and not args.raw and not args.metric.endswith('_seconds'):
        raise Error("--metric '%s': a metric in seconds must end in _seconds (or --raw "
                    'for values as recorded)' % args.metric)
    keys = [k for k, _ in args.labels or []]
    if len(set(keys)) < len(keys):
        raise Error('--label: a key given twice (%s)' % ', '.join(keys))
    if args.out_bits is None:
        args.out_bits = EXPORT_BITS
    if args.every is None:
        export_once(args)
        return 0
    if not args.output or args.output == STDIN:
        raise Error('--every rewrites a file: give -o FILE')
    if STDIN in args.names:
        raise Error('--every rereads its entries, and standard input is read once')
    return export_every(args)


def static_sources(args):
    """The directories that record reads and that are not live debugfs
    (saved captures, whose counts never change); none over --ssh."""
    if ssh_host():
        return []
    dirs = []
    for arg in args.entries:
        d = os.path.dirname(arg) or '.' if '/' in arg else args.dir
        if d not in dirs and os.path.isdir(d) and not is_live(d):
            dirs.append(d)
    return dirs


def cmd_record(args):
    if not ssh_host():
        for arg in args.entries:
            why = rereadable(arg)
            if why:
                raise Error('record rereads its entries every interval, and %s' % why)
    count = args.count
    if count is None and args.duration is not None:
        count = max(int(math.ceil(args.duration / args.interval - 1e-9)), 1)
    recs = [Recorded(arg, args) for arg in args.entries]
    names = [r.name for r in recs]
    if len(set(names)) < len(names):
        raise Error('record: an entry named twice (%s)' % ', '.join(names))
    out = record_output(args)
    static = static_sources(args)
    if static:
        sys.stderr.write('kstats: warning: %s is not on debugfs (a saved capture?): its '
                         'entries do not change, every interval after the first is empty\n'
                         % static[0])
    stop = []
    handlers = {}

    def on_signal(signum, frame):
        stop.append(signum)
    for sig in (signal.SIGINT, signal.SIGTERM):
        handlers[sig] = signal.signal(sig, on_signal)
    try:
        return record_loop(args, recs, out, count, stop)
    finally:
        for sig, h in handlers.items():
            signal.signal(sig, h)


def png_output(path, option):
    """path, checked to name a PNG (what gnuplot_png writes)."""
    ext = os.path.splitext(path)[1]
    if ext.lower() != '.png':
        raise Error('%s %s: %s writes PNG only, and %s names %s: give a FILE.png' % (
            option, path, option, path, "'%s'" % ext[1:] if ext else 'no format'))
    return path


def cmd_heatmap(args):
    if args.output:
        png_output(args.output, '-o')
    header, name, series = recording_hists(args.recording, args.name, args)
    if not (args.output or args.json or args.script):
        # The default: RECORDING-ENTRY.png in the current directory.
        args.output = '%s-%s.png' % (os.path.basename(os.path.normpath(args.recording)), name)
    grid = heatmap_grid(series, args.hist_bits)
    if args.json:
        print(json.dumps(heatmap_json(args.recording, header, name, series, grid, args),
                         indent=2))
    if not (args.output or args.script):
        return 0
    if not grid[1]:
        raise Error('%s: no samples in any interval of %s to draw' % (args.recording, name))
    if args.script:
        sys.stdout.write(heatmap_script(args.recording, header, name, series, grid, args,
                                        args.output or 'heatmap.png'))
        return 0
    gnuplot_png(find_gnuplot(), lambda out: heatmap_script(
        args.recording, header, name, series, grid, args, out), args.output)
    if not args.json:
        print('%s: heatmap of %s, %d intervals' % (args.output, name, len(series)))
    return 0


def cmd_trace(args):
    cmd = control_path(args)
    path = listing_path(args)
    line = 'trace %s\n' % ' '.join([resolve(w) for w in args.words[:1]] + args.words[1:])
    before = control_names(path)
    rc = write_command(cmd, line)
    if rc == 0:
        print('ok: %s' % line.strip())
        try:
            # The new entry's line: the one whose name was not there before.
            for d in parse_control(read_text(path), path):
                if before is not None and d['name'] not in before:
                    print(' '.join('%s %s' % (k, v) for k, v in d.items()
                                   if not k.startswith('_')))
        except Error:
            pass
    return rc


def cmd_remove(args):
    rc = 0
    for name in args.names:
        r = write_command(control_path(args), 'remove %s\n' % name)
        if r == 0:
            print('removed %s' % name)
        rc = rc or r
    return rc


def cmd_entry_command(args):
    """start, stop or reset: "start NAME" into the control device where
    there is one (debugfs refuses writes under lockdown), else "start"
    into the entry's file."""
    require_live(args, args.command)
    dev = device()
    rc = 0
    for name in args.names:
        path = os.path.join(args.dir, name)
        if '/' in name or not os.path.exists(path):
            Source(args.dir).check_dir()
            raise Error('no entry %s in %s' % (name, args.dir))
        if dev:
            rc = write_command(dev, '%s %s\n' % (args.command, name)) or rc
        else:
            rc = write_command(path, '%s\n' % args.command) or rc
    return rc


def cmd_calibrate(args):
    """Run the kernel's calibration (live only), or print the last one."""
    if args.no_run:
        Source(args.dir).check_dir()
        path = os.path.join(args.dir, CONTROL)
    else:
        cmd = control_path(args)
        path = listing_path(args)
        sys.stderr.write('kstats: calibrating every mechanism of this kernel '
                         '(a few seconds)\n')
        rc = write_command(cmd, 'calibrate\n')
        if rc:
            return rc
    cal = parse_calibrations(read_text(path), path)
    if not cal:
        raise Error('%s has no calibration lines%s' % (
            path, ': run kstats calibrate on the live system first' if args.no_run else ''))
    if args.json:
        print(json.dumps(list(cal.values()), indent=2))
        return 0
    print(calibration_table(cal, args.unit))
    print('bias: what an empty call measures as (p50, p99); cost: what the probe adds '
          'to the traced call, as its caller sees it')
    return 0
