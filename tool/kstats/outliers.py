# SPDX-License-Identifier: GPL-2.0
"""The largest samples of an entry (trace ... outliers N): the records
of an _outliers/NAME file, each with its time, CPU, task, key and kernel
stack. Calls keys (the comm's escapes, the key's name) and errors only;
capture reads the files, outlierview prints them."""

import re
from typing import Dict, List, NamedTuple, Optional

from .errors import input_error
from .keys import cgroup_text, key_names, saved_lines, unescape


OUTLIERS_DIR = '_outliers'

# The record line: 'outlier I value V time S.N mono NS cpu C pid P tid T comm NAME [key K]'.
RECORD_WORDS = ('value', 'time', 'mono', 'cpu', 'pid', 'tid', 'comm')
RECORD_FORMAT = "'outlier I value V time S.NNNNNNNNN mono NS cpu C pid P tid T comm NAME [key K]'"
STACK_FORMAT = "'outlier I stack FRAME'"

TIME_RE = re.compile(r'^([0-9]+)\.([0-9]{9})$')
INT_RE = re.compile(r'^-?[0-9]+$')


class Outlier(NamedTuple):
    """One kept sample: its rank (1: the largest), value, CLOCK_REALTIME
    (seconds and nanoseconds), CLOCK_MONOTONIC (ns), CPU, task (comm
    unescaped), key (None: the
    entry has no keys; key_raw as the kernel wrote it, key its printed
    name) and kernel stack, innermost first."""
    rank: int
    value: int
    sec: int
    nsec: int
    mono: int
    cpu: int
    pid: int
    tid: int
    comm: str
    key_raw: Optional[str]
    key: Optional[str]
    stack: List[str]


def record_line(words, path, lineno):
    """The fields of a record line (after 'outlier I'), as a dict of words."""
    w = words[2:]
    if len(w) not in (14, 16) or tuple(w[0:14:2]) != RECORD_WORDS or (
            len(w) == 16 and w[14] != 'key'):
        raise input_error(path, lineno, 'expected %s or %s' % (RECORD_FORMAT, STACK_FORMAT))
    d = dict(zip(w[0::2], w[1::2]))
    if not d['value'].isdigit():
        raise input_error(path, lineno, "value '%s' is not a number" % d['value'])
    if not TIME_RE.match(d['time']):
        raise input_error(path, lineno, "time '%s' is not seconds.nanoseconds (such as "
                          "1764247163.408152339)" % d['time'])
    if not d['mono'].isdigit():
        raise input_error(path, lineno, "mono '%s' is not a number" % d['mono'])
    if not d['cpu'].isdigit():
        raise input_error(path, lineno, "cpu '%s' is not a number" % d['cpu'])
    for k in ('pid', 'tid'):
        if not INT_RE.match(d[k]):
            raise input_error(path, lineno, "%s '%s' is not a number" % (k, d[k]))
    return d


def parse_outliers_text(text: str, path: str):
    """_outliers/NAME -> ([(rank, fields dict, [frames])], {cgroup id: path}
    of a saved file's '# cgroup ID PATH' lines). Ranks count up from 1,
    values go down, each stack line follows its record."""
    numbered, cgroups = saved_lines(text, path)
    out = []
    for lineno, line in numbered:
        if not line.strip() or line.startswith('#'):
            continue
        words = line.split()
        if len(words) < 3 or words[0] != 'outlier' or not words[1].isdigit():
            raise input_error(path, lineno, 'expected %s or %s' % (RECORD_FORMAT, STACK_FORMAT))
        rank = int(words[1])
        if words[2] == 'stack':
            if not out or rank != out[-1][0]:
                raise input_error(path, lineno, 'a stack line of outlier %d outside its '
                                  "record (after its 'outlier %d value ...' line)"
                                  % (rank, rank))
            if len(words) < 4:
                raise input_error(path, lineno, 'a stack line without its frame')
            out[-1][2].append(line.split(None, 3)[3].strip())
            continue
        d = record_line(words, path, lineno)
        if rank != len(out) + 1:
            raise input_error(path, lineno, 'outlier %d after %s: ranks count up from 1'
                              % (rank, 'outlier %d' % out[-1][0] if out else 'none'))
        if out and int(d['value']) > int(out[-1][1]['value']):
            raise input_error(path, lineno, 'value %s above the value %s of outlier %d: '
                              'the file lists the largest first' % (
                                  d['value'], out[-1][1]['value'], out[-1][0]))
        out.append((rank, d, []))
    return out, cgroups


def load_outliers_text(text: str, path: str, by: Optional[str],
                       local: bool) -> List[Outlier]:
    """The Outliers of an _outliers/NAME text: comms unescaped, keys
    named as the keys of _keys/NAME are (keys.key_names)."""
    recs, cgroups = parse_outliers_text(text, path)
    raws = [d.get('key') for _, d, _ in recs]
    keyed = sorted(set(r for r in raws if r is not None))
    names = dict(zip(keyed, key_names(by or '', keyed, cgroups, local))) if keyed else {}
    out = []
    for (rank, d, stack), raw in zip(recs, raws):
        sec, nsec = TIME_RE.match(d['time']).groups()
        out.append(Outlier(rank, int(d['value']), int(sec), int(nsec), int(d['mono']),
                           int(d['cpu']),
                           int(d['pid']), int(d['tid']), unescape(d['comm']), raw,
                           None if raw is None else names[raw], stack))
    return out


def cgroup_lines(outliers: List[Outlier]) -> str:
    """The '# cgroup ID PATH' lines that keep the paths of the outliers'
    cgroup keys in a capture, as for _keys/NAME."""
    seen: Dict[str, str] = {}
    for o in outliers:
        if o.key_raw is not None:
            seen.setdefault(o.key_raw, o.key)
    return cgroup_text(seen.items())
