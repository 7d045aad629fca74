# SPDX-License-Identifier: GPL-2.0
"""kstats latency: attach, measure, print and clean up in one command, as
funclatency does. The entries get names of their own (kl<PID>_<N>), so
they never meet a user's; every way out removes them. With a COMMAND, a
transient cgroup v2 group holds it and its descendants, and the entries
filter on it ("cgroup ID" of _control). Calls live, capture and
render."""

import copy
import fnmatch
import os
import signal
import sys
import time

from .capture import open_entry
from .errors import Error
from .keyview import folded_lines, key_table
from .live import control_path, require_live, write_command
from .model import Hist
from .outlierview import has_outliers, outlier_lines
from .render import entry_warning, show_text
from .userfunc import resolve

STOP = {signal.SIGINT, signal.SIGTERM}     # the signals that end a run

# A glob expands to at most this many functions: each is a probe.
MAX_GLOB = 50
# The longest command that _control takes, its newline included.
CONTROL_BYTES = 256
FILTER_FILES = ('/sys/kernel/tracing/available_filter_functions',
                '/sys/kernel/debug/tracing/available_filter_functions')
MOUNTINFO = '/proc/self/mountinfo'
FILESYSTEMS = '/proc/filesystems'


def filter_functions():
    """The functions ftrace can trace, one per name (module suffix cut)."""
    for path in FILTER_FILES:
        try:
            with open(path) as f:
                return sorted({line.split()[0] for line in f if line.strip()})
        except OSError:
            continue
    raise Error('a glob needs available_filter_functions, readable in %s' % ' or '.join(
        os.path.dirname(p) for p in FILTER_FILES))


def expand(targets, limit=MAX_GLOB, pid=None):
    """[(FUNC, trace words after FUNC)]: a quoted "FUNC OPTION..." keeps its
    options; a glob (*?[) is matched against available_filter_functions;
    LIB:SYMBOL becomes PATH:SYMBOL (userfunc.py)."""
    out = []
    for t in targets:
        words = t.split()
        if not words:
            raise Error('an empty target')
        if any(c in words[0] for c in '*?['):
            names = [n for n in filter_functions() if fnmatch.fnmatchcase(n, words[0])]
            if not names:
                raise Error("'%s' matches no function of available_filter_functions"
                            % words[0])
            if len(names) > limit:
                raise Error("'%s' matches %d functions, more than %d: narrow it, or give "
                            "--max-targets" % (words[0], len(names), limit))
            out += [(n, words[1:]) for n in names]
        else:
            out.append((resolve(words[0], pid), words[1:]))
    return out


def cgroup2_mount():
    """The mount point of the cgroup v2 hierarchy, or None."""
    try:
        with open(MOUNTINFO) as f:
            for line in f:
                w = line.split()
                if '-' in w and w[w.index('-') + 1] == 'cgroup2':
                    return w[4].replace('\\040', ' ')
    except OSError:
        pass
    return None


def cgroup2_known():
    """Whether the kernel has the cgroup2 filesystem."""
    try:
        with open(FILESYSTEMS) as f:
            return any(line.split()[-1:] == ['cgroup2'] for line in f)
    except OSError:
        return True     # unknown: say what is missing, the mount


class Session(object):
    """The entries and the cgroup of one run; close() undoes them all."""

    def __init__(self, args):
        self.args = args
        self.names = []         # (entry name, what it traces)
        self.cgroup = None
        self.last = {}          # entry name -> Entry at the last print (-i)
        self.stopped = False    # stop() ran: the entries' state is ours

    def make_cgroup(self):
        root = cgroup2_mount()
        if root is None and not cgroup2_known():
            raise Error('-- COMMAND runs in a cgroup v2 group of its own, and this kernel '
                        'has no cgroup v2 (CONFIG_CGROUPS): use -p PID or -c COMM')
        if root is None:
            raise Error('-- COMMAND runs in a cgroup v2 group of its own, and this machine '
                        'has no cgroup2 mount (mount -t cgroup2 none /sys/fs/cgroup)')
        path = os.path.join(root, 'kstats-latency-%d' % os.getpid())
        try:
            os.mkdir(path)
        except OSError as err:
            raise Error('cannot make the cgroup %s: %s' % (path, err.strerror))
        self.cgroup = path
        # The cgroup id is its directory's inode number (kernfs).
        return os.stat(path).st_ino

    def attach(self, targets, cgroup_id):
        args = self.args
        extra = []
        if args.via:
            extra += ['via', args.via]
        if args.pid is not None:
            extra += ['pid', str(args.pid)]
        if args.comm:
            extra += ['comm', args.comm]
        if cgroup_id is not None:
            extra += ['cgroup', str(cgroup_id)]
        if args.by:
            extra += ['by', args.by]
        if getattr(args, 'outliers', None):
            extra += ['outliers', str(args.outliers)]
        ctl = control_path(args)
        for i, (func, opts) in enumerate(targets):
            name = 'kl%d_%d' % (os.getpid(), i)
            line = 'trace %s %s as %s\n' % (func, ' '.join(opts + extra), name)
            if write_command(ctl, line.replace('  ', ' ')):
                raise Error('%s: not traced (above); nothing is left attached' % func)
            self.names.append((name, func))

    def attach_pair(self, label, words):
        """One pair entry: "trace NAME WORDS", shown as label."""
        name = 'kl%d_%d' % (os.getpid(), len(self.names))
        line = 'trace %s %s\n' % (name, words)
        size = len(line.encode())
        if size > CONTROL_BYTES:
            raise Error('%s: its command is %d bytes, past the %d that _control takes: '
                        'fewer options, or a shorter name' % (label, size, CONTROL_BYTES))
        if write_command(control_path(self.args), line):
            raise Error('%s: not traced (above); nothing is left attached' % label)
        self.names.append((name, label))

    def show(self):
        """Each entry's histogram; with -i, of the samples since the last
        print (snapshots subtracted: nothing is reset, nothing is lost)."""
        args = self.args
        first = True
        for name, func in self.names:
            e = open_entry(name, args)
            e.name = func
            if args.interval:
                e = since(e, self.last.get(name))
                self.last[name] = e.whole
            h = e.cpu_hist(None)
            if not first:
                print()
            first = False
            if getattr(args, 'folded', False):
                print('\n'.join(folded_lines(e, args)))
                continue
            lines = show_text(e, h, args, args.percentiles)
            if args.by and e.keys is not None:
                lines += [''] + key_table(e, args)
            if has_outliers(e):
                lines += [''] + outlier_lines(e, args)
            print('\n'.join(lines))
            warning = entry_warning(e, self.stopped)
            if warning:
                sys.stdout.flush()
                sys.stderr.write('kstats: warning: %s\n' % warning)
        sys.stdout.flush()

    def stop(self):
        """Stop the entries before the last print: what it prints is
        what they had when the time was up (a keyed entry's count comes
        from its keys, read once: see capture.keys_as_total())."""
        ctl = control_path(self.args)
        for name, _ in self.names:
            write_command(ctl, 'stop %s\n' % name, show_reason=False)
        self.stopped = True

    def close(self):
        ctl = control_path(self.args)
        while self.names:
            name, func = self.names.pop()
            if write_command(ctl, 'remove %s\n' % name, show_reason=False):
                sys.stderr.write('kstats: %s (%s) could not be removed: remove it with '
                                 '"kstats remove %s"\n' % (name, func, name))
        if self.cgroup:
            try:
                os.rmdir(self.cgroup)
            except OSError as err:
                sys.stderr.write('kstats: cgroup %s not removed (%s): processes that '
                                 'COMMAND left are still in it\n' % (self.cgroup, err.strerror))
            self.cgroup = None


def since(e, old):
    """Entry e with the samples since `old` (e as read before) only; its
    exact min and max, kept since the start, are left out."""
    d = copy.copy(e)
    d.whole = e
    if old is None:
        return d
    d.info = {k: v for k, v in e.info.items() if k not in ('min', 'max')}
    d.total = e.total.delta(old.total) or e.total
    d.cpus = {}
    for c, h in e.cpus.items():
        dh = h.delta(old.cpus.get(c, Hist(e.bits, []))) or h
        if dh.count:    # a CPU without samples in the interval is no row
            d.cpus[c] = dh
    return d


def exec_command(argv, cgroup=None):
    """In the forked child: into cgroup if given, signals as COMMAND
    expects them, exec argv; 127 if that fails."""
    try:
        if cgroup:
            with open(os.path.join(cgroup, 'cgroup.procs'), 'w') as f:
                f.write('0\n')
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP)
        os.execvp(argv[0], argv)
    except OSError as err:
        sys.stderr.write('kstats: %s: %s\n' % (argv[0], err.strerror))
    os._exit(127)


def wait_command(pid):
    """COMMAND's exit status, as a shell gives it. Ctrl-C reaches COMMAND
    too (blocked here): this waits for it to end."""
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


def run_command(argv, cgroup):
    """Run argv in cgroup; its exit status as a shell gives it."""
    pid = os.fork()
    if pid == 0:
        exec_command(argv, cgroup)
    return wait_command(pid)


def wait(args, session):
    """Until the duration ends, Ctrl-C or SIGTERM; every interval, the
    histograms since the last one."""
    end = time.monotonic() + args.duration if args.duration else None
    while True:
        step = args.interval or 3600.0
        if end is not None:
            step = min(step, end - time.monotonic())
        if step > 0 and signal.sigtimedwait(STOP, step):
            sys.stderr.write('\n')
            return
        if end is not None and time.monotonic() >= end - 1e-3:
            return
        if args.interval:
            session.show()
            print()


def measure(args, session, attach, run=None):
    """attach(), then wait (or run COMMAND: in a cgroup of its own, or by
    run() if given), stop, print; every way out removes what it attached.
    COMMAND's exit status, or 0."""
    rc = 0
    # Ctrl-C and SIGTERM (a timeout, a service stop) end the wait and
    # nothing else: blocked, they cannot cut a write to _control from the
    # name it made, nor a print from the snapshot it subtracts.
    old = signal.pthread_sigmask(signal.SIG_BLOCK, STOP)
    try:
        cgroup_id = session.make_cgroup() if args.run and not run else None
        attach(cgroup_id)
        if args.run:
            rc = run() if run else run_command(args.run, session.cgroup)
        else:
            if not args.duration:
                sys.stderr.write('kstats: tracing %s; Ctrl-C to end\n' % ', '.join(
                    f for _, f in session.names))
            wait(args, session)
        session.stop()
        session.show()
    finally:
        session.close()
        while signal.sigtimedwait(STOP, 0):
            pass            # asked for the end, which this is
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
    return rc


def cmd_latency(args):
    require_live(args, 'latency')
    if args.interval is not None and args.run:
        raise Error('-i prints while it waits, -- COMMAND prints once COMMAND ends: give one')
    if args.interval is not None and args.by:
        raise Error('--by prints the table of keys once, at the end: not with -i')
    if args.interval is not None and getattr(args, 'outliers', None):
        raise Error('--outliers prints the slowest samples once, at the end: not with -i')
    targets = expand(args.targets, args.max_targets, args.pid)
    session = Session(args)
    return measure(args, session, lambda cg: session.attach(targets, cg))
