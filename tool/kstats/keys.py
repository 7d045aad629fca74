# SPDX-License-Identifier: GPL-2.0
"""Per-key histograms (trace ... by KEY): the blocks of a _keys/NAME
file, the names of the keys (a comm unescaped, a cgroup id as its path
under the cgroup v2 root, a negative return value as its errno name).
Calls errors only; capture makes the blocks into Entries."""

import errno
import os
import re
from typing import Dict, List, NamedTuple, Optional

from .errors import input_error


KEYS_DIR = '_keys'

KEY_BY = ('comm', 'pid', 'tid', 'cpu', 'cgroup', 'retval', 'syscall', 'stack')

# Where syscall numbers get their names: the machine's own uapi headers
# (linux-libc-dev); KSTATS_UNISTD: another file (the host tests' own).
UNISTD_FILES = ('/usr/include/x86_64-linux-gnu/asm/unistd_64.h', '/usr/include/asm/unistd_64.h',
                '/usr/include/aarch64-linux-gnu/asm/unistd.h', '/usr/include/asm-generic/unistd.h')
UNISTD_RE = re.compile(r'^#define __NR_(\w+)\s+(\d+)\s*$')

# The _control fields of a keyed entry: the entry's, not each key's.
KEYED_FIELDS = ('keys', 'keys_max', 'keys_dropped', 'bytes')

OTHER = 'other'

# Where cgroup ids are looked up (KSTATS_CGROUP_ROOT: the host tests' tree).
CGROUP_ROOT = '/sys/fs/cgroup'

# The line of a saved _keys/NAME that keeps a cgroup id's path, as the
# saving machine had it: '# cgroup ID PATH'.
CGROUP_LINE = '# cgroup '

ESCAPE_RE = re.compile(r'\\([0-7]{3})')


class Block(NamedTuple):
    """One key's lines in _keys/NAME: raw None for the other histogram;
    first the line number of its first slot line; body its slot lines
    without the 'key K ' prefix (other lines of the block blank, so that
    line numbers hold)."""
    raw: Optional[str]
    lineno: int
    lo: str
    hi: str
    first: int
    body: str


def unescape(raw: str) -> str:
    """A comm as the kernel escaped it (\\ooo for every byte outside
    0x21-0x7e, and the backslash): bytes outside ASCII as surrogate
    escapes, which the output writes back as they were."""
    data = ESCAPE_RE.sub(lambda m: chr(int(m.group(1), 8)), raw).encode('latin-1')
    return data.decode('utf-8', 'surrogateescape')


def split_line(line: str, path: str, lineno: int):
    """(raw key or None for other, the rest of the line)."""
    words = line.split(None, 2)
    if words[0] == OTHER and len(words) > 1:
        return None, line.split(None, 1)[1]
    if words[0] == 'key' and len(words) == 3:
        return words[1], words[2]
    raise input_error(path, lineno, "expected 'key K min N max N', 'key K slot ...', "
                      "'other min N max N' or 'other slot ...'")


def summary_words(rest: str, path: str, lineno: int):
    """(min, max) of a block's first line: 'min N max N'."""
    w = rest.split()
    if len(w) != 4 or w[0] != 'min' or w[2] != 'max' or not (w[1].isdigit() and
                                                               w[3].isdigit()):
        raise input_error(path, lineno, "expected 'min N max N' after the key, got '%s'"
                          % rest)
    return w[1], w[3]


def saved_lines(text: str, path: str):
    """The lines of a _keys/NAME or _outliers/NAME text as (number, line),
    and {cgroup id: path} of the '# cgroup ID PATH' lines that a saved one
    begins with (kept among the lines, as comments). A text without its
    final newline was cut short: an error."""
    lines = text.split('\n')
    if text and not text.endswith('\n'):
        raise input_error(path, len(lines), 'the last line has no newline: truncated file?')
    cgroups = {}
    for line in lines[:-1]:
        if line.startswith(CGROUP_LINE):
            cid, _, where = line[len(CGROUP_LINE):].partition(' ')
            cgroups[cid] = where
    return list(enumerate(lines[:-1], 1)), cgroups


def parse_keys_text(text: str, path: str):
    """_keys/NAME -> ([Block], {cgroup id: path} of a saved file)."""
    numbered, cgroups = saved_lines(text, path)
    blocks, seen = [], set()
    cur = None          # [raw, lineno, lo, hi, first, [body lines]]
    for lineno, line in numbered:
        if not line.strip() or line.startswith('#'):
            if cur is not None:
                cur[5].append('')
            continue
        raw, rest = split_line(line, path, lineno)
        if rest.startswith('min'):
            if raw in seen:
                raise input_error(path, lineno, 'key %s twice' % (raw or OTHER))
            seen.add(raw)
            if cur is not None:
                blocks.append(Block(cur[0], cur[1], cur[2], cur[3], cur[4], '\n'.join(
                    cur[5] + [''])))
            lo, hi = summary_words(rest, path, lineno)
            cur = [raw, lineno, lo, hi, lineno + 1, []]
            continue
        if cur is None or cur[0] != raw:
            raise input_error(path, lineno, "a slot line of key %s outside its block (after "
                              "its 'min N max N' line)" % (raw or OTHER))
        cur[5].append(rest)
    if cur is not None:
        blocks.append(Block(cur[0], cur[1], cur[2], cur[3], cur[4], '\n'.join(cur[5] + [''])))
    return blocks, cgroups


def cgroup_root() -> str:
    return os.environ.get('KSTATS_CGROUP_ROOT') or CGROUP_ROOT


def cgroup_paths(root: str) -> Dict[str, str]:
    """{inode number: path relative to root, '/'-rooted} of every
    directory under root (a cgroup v2 id is its directory's inode)."""
    out = {}

    def walk(path, rel):
        try:
            out.setdefault(str(os.stat(path).st_ino), rel or '/')
            with os.scandir(path) as it:
                subdirs = [d.name for d in it if d.is_dir(follow_symlinks=False)]
        except OSError:
            return
        for name in sorted(subdirs):
            walk(os.path.join(path, name), rel + '/' + name)
    walk(root, '')
    return out


def retval_name(raw: str) -> str:
    """A return value as the kernel's errno name where it is one (-11:
    '-EAGAIN'), else the number."""
    if raw.startswith('-') and raw[1:].isdigit():
        name = errno.errorcode.get(int(raw[1:]))
        if name:
            return '-' + name
    return raw


def syscall_names() -> Dict[str, str]:
    """Syscall number (as text) -> name, from the first uapi unistd
    header found for this machine; {} without one."""
    env = os.environ.get('KSTATS_UNISTD')
    for path in ([env] if env else UNISTD_FILES):
        try:
            with open(path) as f:
                lines = f.read().split('\n')
        except OSError:
            continue
        names = {}
        for line in lines:
            m = UNISTD_RE.match(line)
            if m:
                names.setdefault(m.group(2), m.group(1))
        return names
    return {}


def name_kind(info: Dict[str, str]) -> Optional[str]:
    """The by of a _control line as key_names() takes it: a char array
    (by argN->MEMBER type string) is written as a comm is."""
    return 'comm' if info.get('type') == 'string' else info.get('by')


def key_names(by: str, raws: List[Optional[str]], saved: Dict[str, str],
              local: bool) -> List[str]:
    """The printed name of each key: 'other', a comm unescaped, a cgroup
    id's path (from a saved file's '# cgroup' lines, else from the local
    cgroup tree when local; the number if not found), a negative return
    value's errno name, a syscall's name (the number if unknown), a stack
    as the kernel wrote it (its frames, outermost first, joined by ';'),
    else the number."""
    paths = {}
    if by == 'cgroup':
        paths = saved if saved else (cgroup_paths(cgroup_root()) if local else {})
    elif by == 'syscall':
        paths = syscall_names()
    out = []
    for raw in raws:
        if raw is None:
            out.append(OTHER)
        elif by == 'comm':
            out.append(unescape(raw))
        elif by == 'retval':
            out.append(retval_name(raw))
        else:
            out.append(paths.get(raw, raw))
    return out


def cgroup_text(pairs) -> str:
    """'# cgroup ID PATH' lines of (id, path) pairs, which keep a capture's
    cgroup paths beside its _keys/NAME or _outliers/NAME."""
    return ''.join('%s%s %s\n' % (CGROUP_LINE, raw, name) for raw, name in pairs)


def cgroup_lines(keys) -> str:
    """The cgroup lines of a capture's cgroup keys (keys: model.Key)."""
    return cgroup_text((k.raw, k.name) for k in keys if not k.other)
