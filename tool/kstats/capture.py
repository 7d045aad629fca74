# SPDX-License-Identifier: GPL-2.0
"""Reading kstats files: live debugfs, saved captures and files, over
ssh; parsing and checking entry files and _control, loading entries and
their keys (_keys/NAME) and outliers (_outliers/NAME). Calls model,
keys, outliers and errors only."""

import os
import re
import shlex
import subprocess
import sys

from .errors import Error, input_error
from .keys import KEYED_FIELDS, KEYS_DIR, key_names, name_kind, parse_keys_text
from .model import (
    Entry, Hist, Key, Line, MAX_BITS, hist_sum, nr_slots, slot_lo, slot_top, slot_width)
from .outliers import OUTLIERS_DIR, load_outliers_text


DEFAULT_DIR = '/sys/kernel/debug/kstats'

CONTROL = '_control'

SAVE_MAGIC = 'kstats-save'

STDIN = '-'

# The remote host of --ssh (cli.main() sets it), or None: local files.
SSH_HOST = None


def ssh_host():
    """The remote host of --ssh, or None: local files."""
    return SSH_HOST


def set_ssh_host(host):
    """Every read from now on through 'ssh HOST' (None: local files)."""
    global SSH_HOST
    SSH_HOST = host


def ssh_command(host, remote):
    """argv that runs the shell command `remote` on host ($KSTATS_SSH
    replaces 'ssh', for other options or for the tests)."""
    return shlex.split(os.environ.get('KSTATS_SSH', 'ssh')) + [host, remote]


def ssh_read(path):
    """A remote file's bytes through one 'ssh HOST cat PATH'."""
    return ssh_run('cat -- %s' % shlex.quote(path), path)


def ssh_run(remote, path):
    """The output of the shell command `remote` on SSH_HOST; an error
    names path."""
    argv = ssh_command(SSH_HOST, remote)
    try:
        r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as err:
        raise Error('%s: %s' % (argv[0], err.strerror))
    if r.returncode != 0:
        why = r.stderr.decode(errors='replace').strip().split('\n')[-1]
        raise Error('%s:%s: %s' % (SSH_HOST, path, why or 'ssh exit %d' % r.returncode))
    return r.stdout


class Missing(Error):
    """A file that is not there (an entry removed while recording)."""


def ssh_read_identified(path):
    """A remote file's identity (inode) and bytes, through one ssh."""
    q = shlex.quote(path)
    data = ssh_run('if [ -e %s ]; then stat -L -c %%i -- %s && cat -- %s; else echo missing; '
                   'fi' % (q, q, q), path)
    ident, _, data = data.partition(b'\n')
    if ident == b'missing':
        raise Missing('%s:%s: no such file' % (SSH_HOST, path))
    return data, ident.decode(errors='replace')


def read_bytes(path, identify=False):
    """(bytes, identity) of one read of a file. With identify, the identity
    is its device and inode from the same open (None otherwise): debugfs
    gives an entry made anew a new inode, which record must tell from a
    reset."""
    ident = None
    try:
        if path == STDIN:
            data = sys.stdin.buffer.read()
        elif SSH_HOST:
            if identify:
                return ssh_read_identified(path)
            data = ssh_read(path)
        else:
            with open(path, 'rb') as f:
                if identify:
                    st = os.fstat(f.fileno())
                    ident = '%d:%d' % (st.st_dev, st.st_ino)
                data = f.read()
    except IsADirectoryError:
        raise Error('%s is a directory, not an entry file' % path)
    except FileNotFoundError:
        raise Missing('%s: no such file' % path)
    except PermissionError:
        hint = ''
        if path.startswith('/sys/kernel/debug'):
            hint = ' (debugfs needs root)'
        raise Error('cannot read %s: permission denied%s' % (path, hint))
    except OSError as e:
        raise Error('cannot read %s: %s' % (path, e.strerror))
    return data, ident


def decode_text(data, path):
    try:
        return data.decode('ascii')
    except UnicodeDecodeError as e:
        lineno = data.count(b'\n', 0, e.start) + 1
        raise input_error(path, lineno, 'not a text line (byte 0x%02x)' % data[e.start])


def read_text(path):
    return decode_text(read_bytes(path)[0], path)


LINE_FORMAT = "'slot S CPU C count N avg A p P' or 'slot S CPUS C count N avg A p P'"

COLUMN_NAMES = {2: 'slot', 4: 'CPU', 6: 'count', 8: 'avg', 10: 'p'}

P_RE = re.compile(r'^[01]\.[0-9]{6}$')


def parse_header(line):
    """'# kstats-save key value ...' -> dict, else None."""
    words = line[1:].split()
    if not words or words[0] != SAVE_MAGIC:
        return None
    return words[1:]


def parse_entry_text(text, path, first=1):
    """Parse an entry file: returns (header pairs or None, [Line]); first:
    the line number of its first line (a key's block in _keys/NAME)."""
    rows = []
    header = None
    lines = text.split('\n')
    if text and not text.endswith('\n'):
        raise input_error(path, len(lines), 'the last line has no newline: truncated file?')
    for lineno, line in enumerate(lines[:-1], first):
        if not line.strip():
            continue
        if line.startswith('#'):
            words = parse_header(line)
            if words is not None:
                if len(words) % 2:
                    raise input_error(path, lineno, "'# %s' header: odd number of words, "
                                      'expected key value pairs' % SAVE_MAGIC)
                header = dict(zip(words[0::2], words[1::2]))
            continue
        t = line.split()
        if len(t) != 10:
            raise input_error(path, lineno, 'expected 10 columns (%s), got %d'
                              % (LINE_FORMAT, len(t)))
        for col, word in ((1, 'slot'), (5, 'count'), (7, 'avg'), (9, 'p')):
            if t[col - 1] != word:
                raise input_error(path, lineno, "column %d: expected '%s', got '%s'"
                                  % (col, word, t[col - 1]))
        if t[2] not in ('CPU', 'CPUS'):
            raise input_error(path, lineno, "column 3: expected 'CPU' or 'CPUS', got '%s'" % t[2])
        nums = []
        for col in (2, 4, 6, 8):
            w = t[col - 1]
            if not w.isdigit():
                raise input_error(path, lineno, "column %d (%s): '%s' is not a number"
                                  % (col, COLUMN_NAMES[col], w))
            nums.append(int(w))
        if not P_RE.match(t[9]):
            raise input_error(path, lineno, "column 10 (p): '%s' is not a fraction "
                              'like 0.250000' % t[9])
        p = float(t[9])
        if p > 1:
            raise input_error(path, lineno, "column 10 (p): %s is above 1" % t[9])
        slot, cpu, count, avg = nums
        if count == 0:
            raise input_error(path, lineno, 'count is 0: kstats prints only slots with samples')
        total = t[2] == 'CPUS'
        rows.append(Line(lineno, slot, None if total else cpu, count, avg, p,
                         cpu if total else None))
    return header, rows


def check_structure(e):
    """Order, totals and CDFs of a parsed entry, to catch truncated and
    edited files: first the order of the lines, then the ends (every CDF
    ends at 1.000000), then each CDF value against the counts."""
    path = e.path
    last_slot = -1
    pending = {}            # cpu -> count, for the slot being read
    pending_line = None
    last_total = None
    for r in e.rows:
        lineno, slot, cpu, count, avg, p, ncpus = r
        if slot < last_slot:
            raise input_error(path, lineno, 'slot %d after slot %d: slots must ascend'
                              % (slot, last_slot))
        if slot != last_slot:
            if pending and e.has_totals:
                raise input_error(path, pending_line, 'slot %d has no CPUS line after '
                                  'its CPU lines: truncated or edited file?' % last_slot)
            pending = {}
            last_slot = slot
        if cpu is not None:
            if cpu in pending:
                raise input_error(path, lineno, 'CPU %d twice in slot %d' % (cpu, slot))
            if pending and cpu < max(pending):
                raise input_error(path, lineno, 'CPU %d after CPU %d in slot %d'
                                  % (cpu, max(pending), slot))
            pending[cpu] = count
            pending_line = lineno
            continue
        if last_total is not None and last_total[0] == slot:
            raise input_error(path, lineno, 'two CPUS lines for slot %d' % slot)
        if e.has_cpus and not pending:
            raise input_error(path, lineno, 'slot %d: CPUS line without CPU lines '
                              'before it' % slot)
        if pending and sum(pending.values()) != count:
            raise input_error(path, lineno, 'slot %d: CPUS count %d is not the sum '
                              'of its CPU lines (%d)' % (slot, count, sum(pending.values())))
        if e.ncpus is not None and ncpus != e.ncpus:
            raise input_error(path, lineno, 'CPUS %d, but earlier lines say CPUS %d'
                              % (ncpus, e.ncpus))
        e.ncpus = ncpus
        pending = {}
        last_total = (slot, lineno, p)
    if pending and e.has_totals:
        raise input_error(path, pending_line, 'slot %d has no CPUS line after its CPU '
                          'lines: truncated file?' % last_slot)
    # Ends: every CDF reaches 1.000000 on its last line.
    if last_total is not None and last_total[2] != 1.0:
        raise input_error(path, last_total[1], 'the last CPUS line has p %.6f, not '
                          '1.000000: truncated file?' % last_total[2])
    cpu_last = {}
    for r in e.rows:
        if r.cpu is not None:
            cpu_last[r.cpu] = r
    for cpu, r in sorted(cpu_last.items(), key=lambda x: x[1][0]):
        if r.p != 1.0:
            raise input_error(path, r.lineno, 'the last line of CPU %d has p %.6f, not '
                              '1.000000: truncated file?' % (cpu, r.p))
    # Each CDF value against the counts (p is printed truncated).
    totals = {}
    for r in e.rows:
        totals[r.cpu] = totals.get(r.cpu, 0) + r.count
    cum = {}
    for r in e.rows:
        lineno, cpu, count, p = r.lineno, r.cpu, r.count, r.p
        cum[cpu] = cum.get(cpu, 0) + count
        want = cum[cpu] / totals[cpu]
        if abs(p - want) > 1.5e-6:
            raise input_error(path, lineno, '%sp %.6f does not match the counts (%.6f): '
                              'edited file?' % ('' if cpu is None else 'CPU %d: ' % cpu,
                                                p, want))


def fits(rows, bits):
    """First Line whose slot or avg does not fit `bits`, or None."""
    n = nr_slots(bits)
    for r in rows:
        slot, avg = r.slot, r.avg
        if slot >= n or not slot_lo(slot, bits) <= avg <= slot_top(slot, bits):
            return r
    return None


def resolve_bits(e, given, given_from):
    """Set e.bits: from the option, _control or a save header when given
    (and checked), else inferred from slots and averages."""
    if given is not None:
        bad = fits(e.rows, given)
        if bad:
            lineno, slot, avg = bad.lineno, bad.slot, bad.avg
            if slot >= nr_slots(given):
                why = 'slot %d does not exist at bits %d' % (slot, given)
            else:
                why = 'avg %d is outside slot %d ([%d, %d]) at bits %d' % (
                    avg, slot, slot_lo(slot, given), slot_top(slot, given), given)
            raise input_error(e.path, lineno, '%s (bits from %s)' % (why, given_from))
        e.bits, e.bits_from = given, given_from
        return
    if not e.rows:
        e.bits, e.bits_from = MAX_BITS, 'unknown: no samples'
        return
    cands = [b for b in range(MAX_BITS + 1) if fits(e.rows, b) is None]
    if not cands:
        raise Error('%s: no bits 0..%d fits its slots and averages: not a kstats file?'
                    % (e.path, MAX_BITS))
    slots = sorted(set(r.slot for r in e.rows))
    meanings = set(tuple((slot_lo(s, b), slot_width(s, b)) for s in slots) for b in cands)
    if len(meanings) > 1:
        raise Error('%s: cannot tell its bits from its slots and averages (%s fit); '
                    'give --bits N, or keep its _control next to it'
                    % (e.path, ' or '.join(map(str, cands))))
    e.bits = cands[-1]
    e.bits_from = 'inferred' if len(cands) == 1 else \
        'inferred (%s all fit, with the same slot edges)' % ', '.join(map(str, cands))


def load_entry(name, path, bits=None, bits_from=None, info=None, text=None, first=1):
    """Read and check one entry file; bits from the caller (option or
    _control) or the file's save header, else inferred. first: the line
    number of text's first line in path."""
    if text is None:
        text = read_text(path)
    header, rows = parse_entry_text(text, path, first)
    e = Entry(name, path)
    e.rows = rows
    e.info = dict(info or {})
    if header:
        for k, v in header.items():
            e.info.setdefault(k, v)
        if bits is None and 'bits' in header:
            bits, bits_from = header_bits(header['bits'], path), 'the save header'
    e.has_totals = any(r.cpu is None for r in rows)
    e.has_cpus = any(r.cpu is not None for r in rows)
    resolve_bits(e, bits, bits_from)
    check_structure(e)
    if e.has_totals:
        e.total = Hist(e.bits, [(r.slot, r.count, r.avg) for r in rows if r.cpu is None])
    per = {}
    for r in rows:
        if r.cpu is not None:
            per.setdefault(r.cpu, []).append((r.slot, r.count, r.avg))
    e.cpus = {c: Hist(e.bits, v) for c, v in per.items()}
    if not e.has_totals:
        e.total = hist_sum(e.bits, e.cpus.values())
    if e.ncpus is None and e.cpus:
        e.ncpus = max(e.cpus) + 1
    return e


def header_bits(word, path):
    if not word.isdigit() or int(word) > MAX_BITS:
        raise Error('%s: save header: bits %r is not 0..%d' % (path, word, MAX_BITS))
    return int(word)


CALIBRATION_KEYS = ('mechanism', 'bias_ns', 'bias_p99_ns', 'cost_ns', 'samples')


def parse_calibration(words, path, lineno):
    """'calibration mechanism M bias_ns P50 bias_p99_ns P99 cost_ns C
    samples N' -> dict (numbers as ints)."""
    w = words[1:]
    if len(w) != 2 * len(CALIBRATION_KEYS) or tuple(w[0::2]) != CALIBRATION_KEYS:
        raise input_error(path, lineno, "expected 'calibration %s'" % ' '.join(
            '%s %s' % (k, 'M' if k == 'mechanism' else 'N') for k in CALIBRATION_KEYS))
    d = {'mechanism': w[1]}
    for k, v in zip(w[2::2], w[3::2]):
        if not v.isdigit():
            raise input_error(path, lineno, "calibration %s '%s' is not a number" % (k, v))
        d[k] = int(v)
    return d


def parse_calibrations(text, path):
    """The 'calibration ...' lines of a _control text, by mechanism."""
    out = {}
    for lineno, line in enumerate(text.split('\n'), 1):
        words = line.split()
        if words and words[0] == 'calibration':
            d = parse_calibration(words, path, lineno)
            out[d['mechanism']] = d
    return out


def parse_control(text, path):
    """_control: one entry per line, whitespace-separated key/value pairs
    starting with 'name'. Any keys are accepted, so that newer kernels'
    lines (origin, mechanism, targets, missed, bias_ns, ...) read too.
    'calibration ...' lines (after `echo calibrate`) are not entries:
    parse_calibrations() reads them."""
    out = []
    for lineno, line in enumerate(text.split('\n'), 1):
        if not line.strip() or line.startswith('#'):
            continue
        words = line.split()
        if words[0] == 'calibration':
            parse_calibration(words, path, lineno)
            continue
        if len(words) % 2:
            raise input_error(path, lineno, 'odd number of words (%d): expected key value '
                              'pairs such as "name foo origin kernel bits 4 state running"'
                              % len(words))
        d = {}
        for k, v in zip(words[0::2], words[1::2]):
            if k in d:
                raise input_error(path, lineno, "key '%s' twice" % k)
            d[k] = v
        if 'name' not in d:
            raise input_error(path, lineno, "no 'name' key")
        if 'bits' in d and (not d['bits'].isdigit() or int(d['bits']) > MAX_BITS):
            raise input_error(path, lineno, "bits '%s' is not 0..%d" % (d['bits'], MAX_BITS))
        d['_line'] = lineno
        out.append(d)
    return out


class Source(object):
    """A kstats directory: live debugfs or a saved capture laid out alike."""

    def __init__(self, directory, bits=None):
        self.dir = directory
        self.bits = bits
        self._control = None
        self._control_read = False

    def check_dir(self):
        if SSH_HOST:
            return      # the remote reads say what is missing
        if not os.path.isdir(self.dir):
            hint = ''
            if os.path.abspath(self.dir) == DEFAULT_DIR:
                hint = (' (is kstats.ko loaded, debugfs mounted, and are you root? '
                        '--dir DIR reads a saved capture)')
            raise Error('no kstats directory %s%s' % (self.dir, hint))

    def control(self):
        """Parsed _control lines, or None if the directory has none."""
        if not self._control_read:
            self._control_read = True
            self.check_dir()
            path = os.path.join(self.dir, CONTROL)
            if SSH_HOST or os.path.exists(path):
                self._control = parse_control(read_text(path), path)
        return self._control

    def names(self):
        ctl = self.control()
        if ctl is not None:
            return [d['name'] for d in ctl]
        try:
            return sorted(f for f in os.listdir(self.dir)
                          if not f.startswith('_') and not f.startswith('.')
                          and os.path.isfile(os.path.join(self.dir, f)))
        except OSError as err:
            raise Error('cannot list %s: %s' % (self.dir, err.strerror))

    def info(self, name):
        for d in self.control() or []:
            if d['name'] == name:
                return d
        return None

    def entry(self, name):
        self.check_dir()
        path = os.path.join(self.dir, name)
        if SSH_HOST:
            if '/' in name or name.startswith('_') or self.info(name) is None:
                raise Error('no entry %s in %s:%s (entries: %s)' % (
                    name, SSH_HOST, self.dir, ', '.join(self.names()) or 'none'))
            return load_beside(load_in_dir(name, path, self.info(name), self.bits, CONTROL))
        if '/' in name or not os.path.isfile(path):
            names = self.names()
            raise Error('no entry %s in %s (entries: %s)'
                        % (name, self.dir, ', '.join(names) if names else 'none'))
        return load_beside(load_in_dir(name, path, self.info(name), self.bits, CONTROL))


def load_in_dir(name, path, info, bits, where, text=None):
    if bits is not None:
        return load_entry(name, path, bits, '--bits', info, text)
    if info and 'bits' in info:
        return load_entry(name, path, int(info['bits']), where, info, text)
    return load_entry(name, path, None, None, info, text)


def keys_path(path, where=KEYS_DIR):
    """_keys/NAME (or where/NAME) beside the entry file path."""
    return os.path.join(os.path.dirname(path), where, os.path.basename(path))


def key_info(e, b):
    """A key's info: the entry's, less the fields of all keys, with the
    key's own exact min and max."""
    info = {k: v for k, v in e.info.items() if k not in KEYED_FIELDS + ('min', 'max')}
    info.update(min=b.lo, max=b.hi)
    return info


def load_keys(e):
    """e.keys from _keys/NAME beside e's file when its _control line says
    'by KEY' (a capture saved without it: e.keys stays None)."""
    e.by = e.info.get('by')
    if e.by is None:
        return e
    path = keys_path(e.path)
    try:
        e.keys_text = read_text(path)
    except Missing:
        return e
    blocks, cgroups = parse_keys_text(e.keys_text, path)
    names = key_names(name_kind(e.info), [b.raw for b in blocks], cgroups, not SSH_HOST)
    e.keys = []
    for b, name in zip(blocks, names):
        ke = load_entry(e.name, path, e.bits, e.bits_from, key_info(e, b), b.body, b.first)
        ke.info['key'] = name
        ke.ncpus = ke.ncpus if ke.ncpus is not None else e.ncpus
        e.keys.append(Key(name, b.raw or 'other', b.raw is None, ke))
    return keys_as_total(e)


def keys_as_total(e):
    """A keyed entry's histograms as the sum of its keys' (other
    included), which is what its file adds up: the file and _keys/NAME are
    read at two moments, and samples landing between the two reads (a live
    entry, or a call that had passed its test when a stop came) would make
    the key table add up to more than the entry's count. The entry's own
    slots, which hold only the samples of a reset's few microseconds, are
    left out with them."""
    e.total = hist_sum(e.bits, [k.entry.total for k in e.keys])
    cpus = sorted({c for k in e.keys for c in k.entry.cpus})
    e.cpus = {c: hist_sum(e.bits, [k.entry.cpus[c] for k in e.keys if c in k.entry.cpus])
              for c in cpus}
    return e


def load_outliers(e):
    """e.outliers from _outliers/NAME beside e's file when its _control
    line says 'outliers N' (a capture saved without it: e.outliers stays
    None)."""
    if 'outliers' not in e.info:
        return e
    path = keys_path(e.path, OUTLIERS_DIR)
    try:
        e.outliers_text = read_text(path)
    except Missing:
        return e
    e.outliers = load_outliers_text(e.outliers_text, path, name_kind(e.info), not SSH_HOST)
    return e


def load_beside(e):
    """e with the files beside its own: its keys and its outliers."""
    return load_outliers(load_keys(e))


def load_path(path, bits=None):
    """An entry file named by path: bits from --bits, its save header, the
    _control beside it, or inference."""
    name = os.path.basename(path)
    text = read_text(path)
    info = None
    ctl = os.path.join(os.path.dirname(path) or '.', CONTROL)
    # A save header wins over a _control beside the file.
    saved = any(line.startswith('#') and parse_header(line) is not None
                for line in text.split('\n'))
    if not saved and os.path.isfile(ctl) and name != CONTROL:
        for d in parse_control(read_text(ctl), ctl):
            if d['name'] == name:
                info = d
    return load_beside(load_in_dir(name, path, info, bits, ctl, text))


def open_entry(arg, args, prefer_path=False):
    """NAME in --dir, or a path to an entry file: one with a '/', an
    existing file when prefer_path, or an existing file that --dir lacks."""
    src = Source(args.dir, args.bits)
    if arg == STDIN:
        text = read_text(STDIN)
        label = getattr(args, 'label', None) or 'stdin'
        return load_entry(label, '<stdin>', args.bits, '--bits' if args.bits is not None
                          else None, None, text)
    if SSH_HOST:
        return src.entry(arg)
    if '/' in arg:
        if not os.path.exists(arg):
            raise Error('%s: no such file' % arg)
        return load_path(arg, args.bits)
    if os.path.isfile(arg) and (prefer_path or
                                not os.path.isfile(os.path.join(args.dir, arg))):
        return load_path(arg, args.bits)
    return src.entry(arg)


def check_cpu(e, cpu):
    """--cpu N of an entry with a known number of possible CPUs."""
    if cpu is not None and e.ncpus is not None and cpu >= e.ncpus:
        raise Error('--cpu %d: %s has %d possible CPUs (0 to %d)'
                    % (cpu, e.name, e.ncpus, e.ncpus - 1))
