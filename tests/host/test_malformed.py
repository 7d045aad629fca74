# SPDX-License-Identifier: GPL-2.0
"""Malformed input files: every command reports the file and the line in
one clear message and exits 1, never with a traceback."""
import os
import shutil

import pytest

from conftest import FIXTURES, run

GOOD = os.path.join(FIXTURES, 'helper', 'lat_base')


def good_lines():
    with open(GOOD) as f:
        return f.read().splitlines(True)


def replace(n, new):
    """The good file with line n (1-based) replaced."""
    lines = good_lines()
    lines[n - 1] = new
    return ''.join(lines)


def column(line, n, word):
    """line with its column n (1-based) replaced."""
    w = line.split()
    w[n - 1] = word
    return ' '.join(w) + '\n'


def edit_first_slot():
    """Ten more samples in the first slot of CPU 0 and of the totals: the
    CDFs no longer match."""
    lines = good_lines()
    for i in (0, 2):
        w = lines[i].split()
        w[5] = str(int(w[5]) + 10)
        lines[i] = ' '.join(w) + '\n'
    return ''.join(lines)


# (id, file content, expected line number or None, words of the message)
CASES = [
    ('bad-line', lambda: replace(3, 'this is not a kstats line\n'), 3, ['expected 10 columns']),
    ('wrong-column-count', lambda: replace(5, good_lines()[4].replace(' p 0.', ' 0.')), 5,
     ['expected 10 columns', 'got 9']),
    ('extra-column', lambda: replace(2, good_lines()[1].rstrip('\n') + ' 7\n'), 2,
     ['expected 10 columns', 'got 11']),
    ('non-numeric-count', lambda: replace(4, column(good_lines()[3], 6, '1x')), 4,
     ['column 6 (count)', "'1x' is not a number"]),
    ('negative-avg', lambda: replace(4, column(good_lines()[3], 8, '-1')), 4,
     ['column 8 (avg)', "'-1' is not a number"]),
    ('non-numeric-slot', lambda: replace(4, column(good_lines()[3], 2, 'five')), 4,
     ['column 2 (slot)', 'is not a number']),
    ('bad-keyword', lambda: replace(6, good_lines()[5].replace(' avg ', ' mean ')), 6,
     ["column 7: expected 'avg'"]),
    ('bad-p', lambda: replace(6, good_lines()[5].replace(' p 0.', ' p 7.')), 6,
     ['column 10 (p)']),
    ('truncated-mid-line', lambda: ''.join(good_lines())[:-20], len(good_lines()),
     ['no newline', 'truncated']),
    ('truncated-at-line', lambda: ''.join(good_lines()[:-3]), len(good_lines()) - 3,
     ['truncated']),
    ('cut-cpu-lines', lambda: ''.join(good_lines()[:-1]), len(good_lines()) - 1,
     ['no CPUS line', 'truncated']),
    ('slots-out-of-order', lambda: ''.join(good_lines()[3:6] + good_lines()[0:3]
                                           + good_lines()[6:]), 4, ['slots must ascend']),
    ('sum-mismatch', lambda: replace(3, good_lines()[2].replace('count        ', 'count       9')),
     3, ['not the sum of its CPU lines']),
    ('edited-count', lambda: edit_first_slot(), 1, ['does not match the counts', 'edited']),
    ('avg-outside-slot', lambda: replace(3, good_lines()[2].replace(' avg      ', ' avg    99')),
     3, ['outside slot', 'bits from']),
    ('binary', lambda: '\x00\x01\x02garbage\n', None, ['not a kstats file', 'byte']),
]


def write_case(tmp_path, text, control=True):
    d = tmp_path / 'cap'
    d.mkdir()
    if control:
        shutil.copy(os.path.join(FIXTURES, 'helper', '_control'), str(d / '_control'))
    (d / 'lat_base').write_bytes(text.encode('latin-1'))
    return d


COMMANDS = [
    ['show', 'lat_base'], ['show', 'lat_base', '--json'], ['diff', 'lat_base', 'lat_base'],
    ['export', '--openmetrics', 'lat_base'], ['plot', 'lat_base', '--script'],
    ['watch', 'lat_base', '-n', '1'], ['save', 'lat_base', 'OUT'],
]


@pytest.mark.parametrize('case', CASES, ids=[c[0] for c in CASES])
def test_clear_error(tmp_path, case):
    _, make, lineno, words = case
    text = make()
    d = write_case(tmp_path, text)
    path = str(d / 'lat_base')
    for cmd in COMMANDS:
        cmd = [str(tmp_path / 'out.txt') if w == 'OUT' else w for w in cmd]
        r = run('--dir', d, *cmd, check=False)
        assert r.returncode == 1, (cmd, r.stdout)
        msg = r.stderr.strip()
        assert msg.count('\n') == 0, msg
        assert 'Traceback' not in msg
        want = 'kstats: error: %s' % path
        if lineno:
            want += ':%d: ' % lineno
        assert msg.startswith(want), (cmd, msg)
        if case[0] != 'binary':
            for w in words:
                assert w in msg, (cmd, msg)
    assert not (tmp_path / 'out.txt').exists()


def test_binary_file(tmp_path):
    d = write_case(tmp_path, 'slot 5 CPU 0 count 1 avg 5 p 1.000000\n\xff\n')
    r = run('--dir', d, 'show', 'lat_base', check=False)
    assert r.returncode == 1 and ':2: not a text line (byte 0xff)' in r.stderr


def test_not_kstats_data(tmp_path):
    d = write_case(tmp_path, 'slot 5   CPU  0    count        1 avg      999 p 1.000000\n',
                   control=False)
    r = run('--dir', d, 'show', 'lat_base', check=False)
    assert r.returncode == 1 and 'no bits 0..5 fits' in r.stderr


@pytest.mark.parametrize('line,words', [
    ('name a origin kernel bits 4 state\n', ['odd number of words']),
    ('origin kernel bits 4\n', ["no 'name' key"]),
    ('name a bits 9\n', ["bits '9' is not 0..5"]),
    ('name a name b\n', ["key 'name' twice"]),
])
def test_bad_control(tmp_path, line, words):
    d = tmp_path / 'cap'
    d.mkdir()
    (d / '_control').write_text('name lat_base origin kernel bits 4 state running\n' + line)
    shutil.copy(GOOD, str(d / 'lat_base'))
    for cmd in (['list'], ['show', 'lat_base'], ['export', '--openmetrics']):
        r = run('--dir', d, *cmd, check=False)
        assert r.returncode == 1
        assert r.stderr.startswith('kstats: error: %s:2: ' % (d / '_control')), r.stderr
        for w in words:
            assert w in r.stderr


def test_bad_usage():
    r = run('show', check=False)
    assert r.returncode == 2 and 'usage' in r.stderr
    r = run('--bits', '9', 'show', 'x', check=False)
    assert r.returncode == 2 and '--bits' in r.stderr


def test_unreadable(tmp_path):
    d = tmp_path / 'cap'
    d.mkdir()
    (d / 'lat_base').mkdir()
    r = run('show', str(d / 'lat_base'), check=False)
    assert r.returncode == 1 and 'is a directory' in r.stderr
