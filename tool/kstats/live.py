# SPDX-License-Identifier: GPL-2.0
"""Writing to the live _control and entry files: the checks that the
directory is the live debugfs one, the kernel's reason for a refusal.
Calls capture."""

import errno
import os
import shlex
import subprocess
import sys

from .capture import CONTROL, Source, parse_control, read_text, ssh_host
from .errors import Error


DEBUGFS_MAGIC = 0x64626720      # statfs f_type of debugfs (linux/magic.h)

# The control device: the commands of _control, also under kernel lockdown,
# where debugfs refuses every write. KSTATS_DEVICE: the host tests' stand-in.
DEVICE = '/dev/kstats'
LOCKDOWN = '/sys/kernel/security/lockdown'


def device():
    """The control device if this kstats.ko has one, else None."""
    dev = os.environ.get('KSTATS_DEVICE', DEVICE)
    return dev if os.path.exists(dev) else None


def lockdown_level():
    """The kernel's lockdown level ('none', 'integrity', ...), or None."""
    try:
        with open(os.environ.get('KSTATS_LOCKDOWN', LOCKDOWN)) as f:
            text = f.read()
    except OSError:
        return None
    i, j = text.find('['), text.find(']')
    return text[i + 1:j] if 0 <= i < j else None


def dmesg_lines():
    """The kernel log as lines, or (None, why) if it cannot be read."""
    cmd = shlex.split(os.environ.get('KSTATS_DMESG', 'dmesg'))
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as err:
        return None, '%s: %s' % (cmd[0], err.strerror)
    if r.returncode != 0:
        return None, r.stderr.decode(errors='replace').strip() or 'exit %d' % r.returncode
    return r.stdout.decode(errors='replace').split('\n'), None


def kernel_reason(before):
    """The kstats line the kernel logged after `before` (a dmesg_lines()
    result), or a sentence saying why there is none."""
    after, why = dmesg_lines()
    if after is None:
        return None, 'the kernel log is not readable here (%s); run dmesg as root ' \
            'for the reason' % why
    old = [line for line in (before[0] or []) if line.strip()]
    new = after
    if old and old[-1] in after:
        # The lines after the last one seen before the write.
        i = len(after) - 1 - after[::-1].index(old[-1])
        new = after[i + 1:]
    hits = [line for line in new if 'kstats' in line]
    if not hits:
        return None, 'no new kstats line in the kernel log (its messages are rate-limited)'
    return hits[-1].strip(), None


def write_command(path, line, show_reason=True):
    before = dmesg_lines() if show_reason else (None, None)
    try:
        fd = os.open(path, os.O_WRONLY)
        try:
            os.write(fd, line.encode())
        finally:
            os.close(fd)
    except OSError as err:
        code = errno.errorcode.get(err.errno, 'errno %d' % err.errno)
        sys.stderr.write("kstats: '%s' refused by %s: %s (%s)\n"
                         % (line.strip(), path, code, os.strerror(err.errno)))
        level = lockdown_level() if err.errno == errno.EPERM else None
        if level not in (None, 'none') and not path.startswith('/dev/'):
            sys.stderr.write('kstats: the kernel is locked down (%s): debugfs refuses every '
                             'write; load a kstats.ko that has %s, which takes the commands\n'
                             % (level, DEVICE))
        elif show_reason:
            reason, why = kernel_reason(before)
            if reason:
                sys.stderr.write('kstats: kernel: %s\n' % reason)
            else:
                sys.stderr.write('kstats: %s\n' % why)
        return 1
    return 0


def statfs_type(path):
    """The filesystem magic of path: statfs() through ctypes, else the
    type that /proc/self/mountinfo gives its mount (Python has no statfs,
    and the test guests' Python has no ctypes). None if unknown."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        buf = ctypes.create_string_buffer(256)     # struct statfs, f_type first
        if libc.statfs(os.fsencode(path), buf) == 0:
            return ctypes.c_long.from_buffer(buf).value & 0xffffffff
    except (ImportError, OSError, AttributeError):
        pass
    try:
        with open('/proc/self/mountinfo') as f:
            mounts = [line.split() for line in f]
    except OSError:
        return None
    real = os.path.realpath(path)
    best, fstype = -1, None
    for m in mounts:
        point = m[4].replace('\\040', ' ')
        inside = real == point or real.startswith(point.rstrip('/') + '/')
        if inside and len(point) > best and '-' in m:
            best, fstype = len(point), m[m.index('-') + 1]
    return {'debugfs': DEBUGFS_MAGIC}.get(fstype, 0 if fstype else None)


def is_live(directory):
    """Whether directory is on debugfs (or the host tests' stand-in,
    KSTATS_TEST_LIVE_DIR): live entries, not a saved capture."""
    fake = os.environ.get('KSTATS_TEST_LIVE_DIR')
    if fake and os.path.realpath(fake) == os.path.realpath(directory):
        return True
    return statfs_type(directory) == DEBUGFS_MAGIC


def require_live(args, what):
    """Refuse to write anywhere but the live debugfs kstats directory: a
    saved capture has the same layout, and a write there destroys data."""
    if ssh_host():
        raise Error('%s writes, and --ssh only reads: run it on the machine '
                    '(ssh %s kstats %s ...)' % (what, ssh_host(), what))
    src = Source(args.dir)
    src.check_dir()
    # KSTATS_TEST_LIVE_DIR: the host tests' stand-in for debugfs (one exact
    # directory; its _control is still required).
    if not is_live(args.dir):
        raise Error('%s is not on debugfs (a saved capture?): %s writes only to the live '
                    'kstats directory' % (args.dir, what))
    if not os.path.exists(os.path.join(args.dir, CONTROL)):
        raise Error('%s has no %s: not the kstats directory, %s refused'
                    % (args.dir, CONTROL, what))


def control_path(args):
    """Where commands go: the control device where kstats.ko has one (it
    works under lockdown too), else _control."""
    require_live(args, args.command)
    return device() or os.path.join(args.dir, CONTROL)


def listing_path(args):
    """The _control listing, readable under lockdown too."""
    return os.path.join(args.dir, CONTROL)


def control_names(path):
    """The entry names in _control, or None if it cannot be read."""
    if not os.path.isfile(path):
        return None
    try:
        return set(d['name'] for d in parse_control(read_text(path), path))
    except Error:
        return None
