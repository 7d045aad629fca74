# SPDX-License-Identifier: GPL-2.0
"""Writing captures and recordings: save files, atomic writes, the
recording format (kstats record) and its reading back. Calls capture
and model."""

import os
import socket
import sys
import tempfile
import time

from .capture import (
    CONTROL, Missing, SAVE_MAGIC, check_cpu, decode_text, load_beside, load_entry, open_entry,
    read_bytes, read_text, ssh_host)
from .keys import KEYS_DIR, cgroup_lines
from .errors import Error, input_error
from .model import Hist, MAX_BITS, slot_lo, slot_top
from .outliers import OUTLIERS_DIR, cgroup_lines as outlier_cgroup_lines


def save_header(e, args):
    pairs = [('name', e.name), ('bits', str(e.bits)), ('cpus', str(e.ncpus or 0)),
             ('time', time.strftime('%Y-%m-%dT%H:%M:%S%z')),
             ('host', socket.gethostname() or '-'), ('from', os.path.abspath(e.path))]
    for k, v in e.info.items():
        if k not in dict(pairs) and not k.startswith('_') and k not in ('time', 'host', 'from'):
            pairs.append((k, v))
    return '# %s %s\n' % (SAVE_MAGIC, ' '.join('%s %s' % (k, v.replace(' ', '_'))
                                              for k, v in pairs))


def saved_keys_text(e):
    """The _keys/NAME of a capture: as read, and for keys by cgroup the
    paths of their ids first ('# cgroup ID PATH'), as this machine has
    them, so that the capture reads the same elsewhere."""
    if e.keys_text is None:
        return None
    return (cgroup_lines(e.keys) if e.by == 'cgroup' else '') + e.keys_text


def saved_outliers_text(e):
    """The _outliers/NAME of a capture: as read, and for keys by cgroup
    the paths of their ids first, as saved_keys_text() keeps them."""
    if e.outliers_text is None:
        return None
    return (outlier_cgroup_lines(e.outliers) if e.by == 'cgroup' else '') + e.outliers_text


def beside_files(e):
    """[(name in a capture, text or None)] of the files beside entry e's:
    its _keys/NAME and its _outliers/NAME (None: it has none)."""
    return [(KEYS_DIR + '/' + e.name, saved_keys_text(e)),
            (OUTLIERS_DIR + '/' + e.name, saved_outliers_text(e))]


def capture_files(e, text):
    """[(name in the capture, text)] of entry e: its file, and its
    _keys/NAME and _outliers/NAME where it has them."""
    return [(e.name, text)] + [(n, t) for n, t in beside_files(e) if t is not None]


def write_atomic(path, data):
    d = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise Error('cannot write %s: it is a directory' % path)
    try:
        fd, tmp = tempfile.mkstemp(prefix='.kstats-', dir=d)
    except OSError as err:
        raise Error('cannot write %s: %s' % (path, err.strerror if os.path.isdir(d)
                                              else 'no directory %s' % d))
    try:
        with os.fdopen(fd, 'w') as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException as err:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(err, OSError):
            raise Error('cannot write %s: %s' % (path, err.strerror))
        raise


RECORD_MAGIC = 'kstats-record'

RECORD_VERSION = '1'

RECORD_INDEX = '_record'


def delta_file_text(total, cpus, ncpus, has_totals, has_cpus):
    """An entry file in the kernel's line format (kstats_fs.c) from Hists:
    per slot its CPU lines, then its CPUS line; avg an integer inside the
    slot; p the CDF truncated to 6 decimals, as the kernel prints it."""
    def cdf(cum, n):
        p = cum * 1000000 // n
        return '%d.%06d' % (p // 1000000, p % 1000000)

    def avg_in(s, a, bits):
        return min(max(int(a), slot_lo(s, bits)), slot_top(s, bits))
    per = {}        # slot -> [(cpu, count, avg)]
    cum_cpu = {}
    if has_cpus:
        for cpu in sorted(cpus):
            h = cpus[cpu]
            for s, c, a in h.rows:
                cum_cpu[cpu] = cum_cpu.get(cpu, 0) + c
                per.setdefault(s, []).append(
                    'slot %-3d CPU  %-4d count %8d avg %8d p %s\n'
                    % (s, cpu, c, avg_in(s, a, h.bits), cdf(cum_cpu[cpu], h.count)))
    tot = {}
    if has_totals:
        cum = 0
        for s, c, a in total.rows:
            cum += c
            tot[s] = 'slot %-3d CPUS %-4d count %8d avg %8d p %s\n' % (
                s, ncpus, c, avg_in(s, a, total.bits), cdf(cum, total.count))
    return ''.join(''.join(per.get(s, [])) + tot.get(s, '') for s in sorted(set(per) | set(tot)))


def entry_delta(prev, cur):
    """The samples `cur` has beyond `prev` (two reads of one entry):
    (total, {cpu: Hist}, why) with why None, or, when some count went down
    (a reset) or the bits changed, everything `cur` holds and the reason."""
    if prev.bits != cur.bits:
        return cur.total, cur.cpus, 'bits'
    total = cur.total.delta(prev.total)
    cpus = {}
    for cpu in set(cur.cpus) | set(prev.cpus):
        d = cur.cpus.get(cpu, Hist(cur.bits, [])).delta(prev.cpus.get(cpu, Hist(cur.bits, [])))
        if d is None:
            total = None
            break
        if d.count:
            cpus[cpu] = d
    if total is None:
        return cur.total, cur.cpus, 'counts'
    return total, cpus, None


class Recorded(object):
    """One entry being recorded: where it is read, its bits and _control
    keys, the file's identity and the last read."""

    def __init__(self, arg, args):
        self.arg = arg
        self.args = args
        self.ident = None
        self.last = None
        self.text = None
        self.files = []
        self.refresh()

    def refresh(self):
        """Name, path, bits and keys, from _control (again after the entry
        was made anew, whose bits may differ)."""
        e = open_entry(self.arg, self.args)
        self.name, self.path, self.info = e.name, e.path, e.info
        fixed = not e.bits_from.startswith(('inferred', 'unknown'))
        self.bits = (e.bits, e.bits_from) if fixed else (None, None)

    def read(self):
        """(Entry, why): the next read, why 'file' if the file is another
        than at the last read (the entry was made anew: its counts restart),
        or (None, 'missing')."""
        anew = False
        try:
            data, ident = read_bytes(self.path, identify=True)
            anew = self.ident is not None and ident != self.ident
            if anew:
                self.refresh()
        except Missing:
            return None, 'missing'
        except Error:
            if not anew:
                raise
            return None, 'missing'
        text = decode_text(data, self.path)
        e = load_entry(self.name, self.path, self.bits[0], self.bits[1], self.info, text)
        self.ident, self.text = ident, text
        self.files = capture_files(load_beside(e), text)
        return e, ('file' if anew else None)


def control_line(pairs):
    return ' '.join('%s %s' % (k, str(v).replace(' ', '_')) for k, v in pairs) + '\n'


def entry_control(e, extra=()):
    """A _control line for a recorded entry: its own keys, bits included."""
    pairs = [('name', e.name), ('bits', e.bits)]
    pairs += [(k, v) for k, v in e.info.items()
              if k not in ('name', 'bits') and not k.startswith('_')]
    return control_line(pairs + list(extra))


def write_capture(dest, files, control):
    """A capture directory written whole under a temporary name, then
    renamed: a recording never holds half an interval."""
    tmp = os.path.join(os.path.dirname(dest), '.tmp-' + os.path.basename(dest))
    try:
        os.mkdir(tmp)
        for name, text in files:
            if '/' in name:
                os.makedirs(os.path.join(tmp, os.path.dirname(name)), exist_ok=True)
            with open(os.path.join(tmp, name), 'w') as f:
                f.write(text)
        with open(os.path.join(tmp, CONTROL), 'w') as f:
            f.write(''.join(control))
        os.rename(tmp, dest)
    except OSError as err:
        raise Error('cannot write %s: %s' % (dest, err.strerror))


def record_output(args):
    out = args.output or time.strftime('kstats-record-%Y%m%d-%H%M%S')
    if os.path.exists(out) and (not os.path.isdir(out) or os.listdir(out)):
        raise Error('%s exists and is not an empty directory: record writes a new '
                    'recording' % out)
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as err:
        raise Error('cannot create %s: %s' % (out, err.strerror))
    return out


def timed_read(rec, t0):
    before = time.monotonic()
    e, why = rec.read()
    return e, why, (before + time.monotonic()) / 2 - t0


def record_loop(args, recs, out, count, stop):
    """Read every entry, then again every interval; each interval's deltas
    go to a capture directory NNNN and a line per entry to _record."""
    t0 = time.monotonic()
    epoch = time.time()
    first = []
    for r in recs:
        e, why, t = timed_read(r, t0)
        if e is None:
            raise Error('%s: no such file' % r.path)
        r.last, r.last_t = e, t
        first.append(e)
    write_capture(os.path.join(out, 'start'), [f for r in recs for f in r.files],
                  [entry_control(e) for e in first])
    index = os.path.join(out, RECORD_INDEX)
    head = [('version', RECORD_VERSION), ('unit', 'ns'), ('interval', '%g' % args.interval),
            ('time', time.strftime('%Y-%m-%dT%H:%M:%S%z', time.localtime(epoch))),
            ('epoch', '%.6f' % epoch), ('host', ssh_host() or socket.gethostname() or '-'),
            ('dir', args.dir), ('entries', ','.join(r.name for r in recs))]
    with open(index, 'w') as f:
        f.write('# %s %s' % (RECORD_MAGIC, control_line(head)))
    print('recording %s every %g s%s into %s' % (
        ', '.join(r.name for r in recs), args.interval,
        ' for %d intervals' % count if count else ', Ctrl-C to stop', out))
    sys.stdout.flush()
    n = 0
    while count is None or n < count:
        target = t0 + (n + 1) * args.interval
        while not stop and time.monotonic() < target:
            time.sleep(min(0.05, max(target - time.monotonic(), 0)))
        signalled = bool(stop)
        n += 1
        record_interval(args, recs, out, n, t0)
        if stop:
            # A signal during that read: it may have begun before calls
            # that ended before the signal; one more read, all after it.
            if not signalled and (count is None or n < count):
                n += 1
                record_interval(args, recs, out, n, t0)
            break
    ends = [r for r in recs if r.last is not None]
    write_capture(os.path.join(out, 'end'), [f for r in ends for f in r.files],
                  [entry_control(r.last) for r in ends])
    print('recorded %d interval%s into %s%s' % (n, '' if n == 1 else 's', out,
                                              ' (stopped by a signal)' if stop else ''))
    return 0


def record_interval(args, recs, out, n, t0):
    """Read each entry, write interval n's deltas and its _record lines."""
    files, control, lines, words = [], [], [], []
    d = '%04d' % n
    for r in recs:
        e, why, t = timed_read(r, t0)
        base = [('interval', n), ('dir', d), ('name', r.name), ('from', '%.6f' % r.last_t),
                ('to', '%.6f' % t)]
        if e is None:
            lines.append(control_line(base + [('bits', '-'), ('delta', 'missing'),
                                              ('count', 0)]))
            words.append('%s missing' % r.name)
            r.last, r.last_t = None, t
            continue
        if r.last is None:
            why = 'appeared'
        if why:
            total, cpus = e.total, e.cpus
        else:
            total, cpus, why = entry_delta(r.last, e)
        state = [('delta', 'reset' if why else 'ok')] + ([('why', why)] if why else [])
        files.append((r.name, delta_file_text(total, cpus, e.ncpus or 1, e.has_totals,
                                              e.has_cpus)))
        control.append(entry_control(e, [('rec_' + k, v) for k, v in base[:1] + base[3:]] +
                                     [('rec_' + k, v) for k, v in state]))
        lines.append(control_line(base + [('bits', e.bits)] + state + [
            ('count', total.count), ('cpus', e.ncpus if e.ncpus is not None else '-')]))
        words.append('%s %d%s' % (r.name, total.count, ' (reset: %s)' % why if why else ''))
        r.last, r.last_t = e, t
    write_capture(os.path.join(out, d), files, control)
    with open(os.path.join(out, RECORD_INDEX), 'a') as f:
        f.write(''.join(lines))
    print('%s  %s-%s s  %s' % (d, lines[0].split()[7], lines[0].split()[9], '  '.join(words)))
    sys.stdout.flush()


def parse_pairs(line, path, lineno):
    words = line.split()
    if len(words) % 2:
        raise input_error(path, lineno, 'odd number of words (%d): expected key value pairs'
                          % len(words))
    return dict(zip(words[0::2], words[1::2]))


INTERVAL_KEYS = ('interval', 'dir', 'name', 'from', 'to', 'bits', 'delta', 'count')


def load_recording(path):
    """A recording's _record: (header pairs, interval lines as dicts)."""
    index = os.path.join(path, RECORD_INDEX)
    try:
        text = read_text(index)
    except Missing:
        raise Error('%s is not a recording of kstats record (no %s)' % (path, RECORD_INDEX))
    lines = text.split('\n')
    head = lines[0].split(None, 2) if lines else []
    if len(head) < 2 or head[:2] != ['#', RECORD_MAGIC]:
        raise input_error(index, 1, "expected '# %s version %s ...'" % (RECORD_MAGIC,
                                                                       RECORD_VERSION))
    header = parse_pairs(head[2] if len(head) > 2 else '', index, 1)
    if header.get('version') != RECORD_VERSION:
        raise input_error(index, 1, 'version %s, this tool reads version %s'
                          % (header.get('version'), RECORD_VERSION))
    rows = []
    for lineno, line in enumerate(lines[1:], 2):
        if not line.strip() or line.startswith('#'):
            continue
        d = parse_pairs(line, index, lineno)
        missing = [k for k in INTERVAL_KEYS if k not in d]
        if missing:
            raise input_error(index, lineno, 'no %s' % ', '.join(missing))
        try:
            d['interval'], d['count'] = int(d['interval']), int(d['count'])
            d['from'], d['to'] = float(d['from']), float(d['to'])
        except ValueError:
            raise input_error(index, lineno, 'interval, count, from and to must be numbers')
        if d['delta'] not in ('ok', 'reset', 'missing'):
            raise input_error(index, lineno, "delta '%s' is not ok, reset or missing"
                              % d['delta'])
        if d['delta'] != 'missing' and not (d['bits'].isdigit() and
                                            int(d['bits']) <= MAX_BITS):
            raise input_error(index, lineno, "bits '%s' is not 0..%d" % (d['bits'], MAX_BITS))
        d['_line'] = lineno
        rows.append(d)
    return header, rows


def recording_hists(path, name, args):
    """[(interval line, Hist or None)] of one entry of a recording, each
    interval's delta file read and checked like any entry file."""
    header, rows = load_recording(path)
    names = [n for n in header.get('entries', '').split(',') if n]
    if name is None:
        if len(names) != 1:
            raise Error('%s records %s: name the entry' % (path, ', '.join(names) or 'nothing'))
        name = names[0]
    if name not in names:
        raise Error('%s has no entry %s (entries: %s)' % (path, name, ', '.join(names)))
    out = []
    for d in rows:
        if d['name'] != name:
            continue
        if d['delta'] == 'missing':
            out.append((d, None))
            continue
        f = os.path.join(path, d['dir'], name)
        e = load_entry(name, f, int(d['bits']), RECORD_INDEX, None, read_text(f))
        if d.get('cpus', '-').isdigit():
            e.ncpus = int(d['cpus'])    # of the read: a delta may lack CPUS lines
        check_cpu(e, args.cpu)
        h = e.cpu_hist(args.cpu)
        if h.count != d['count'] and args.cpu is None:
            raise input_error(os.path.join(path, RECORD_INDEX), d['_line'],
                              'count %d, but %s holds %d' % (d['count'], f, h.count))
        out.append((d, h))
    if not out:
        raise Error('%s has no interval of %s yet' % (path, name))
    return header, name, out
