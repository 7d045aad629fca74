# SPDX-License-Identifier: GPL-2.0
"""Issue 12: no writes into saved captures (3), one-line errors for an
unwritable destination (4), --rows honoured (6), units and the summary
line (7), standard input, --label, --ssh and watch on a pipe (8), flag
checks and the subcommand's usage (10), watch --json."""
import hashlib
import json
import os
import shutil
import stat

import pytest

from conftest import FIXTURES, Samples, live_env, nearest_rank, run, write_capture
from kstats import live, render

HELPER = os.path.join(FIXTURES, 'helper')


def digest(directory):
    """sha256 of every file of a directory, by name."""
    out = {}
    for f in sorted(os.listdir(directory)):
        with open(os.path.join(directory, f), 'rb') as fh:
            out[f] = hashlib.sha256(fh.read()).hexdigest()
    return out


# -- 3: writing commands refuse anything but the live debugfs directory

@pytest.mark.parametrize('argv', [['stop', 'lat_base'], ['start', 'lat_base'],
                                  ['reset', 'lat_base'], ['trace', 'vfs_read'],
                                  ['remove', 'lat_base'], ['calibrate']])
@pytest.mark.parametrize('how', ['--dir', 'KSTATS_DIR'])
def test_writes_refused_on_capture(tmp_path, argv, how):
    cap = str(tmp_path / 'cap')
    shutil.copytree(HELPER, cap)
    before = digest(cap)
    if how == '--dir':
        r = run(argv[0], '--dir', cap, *argv[1:], check=False)
    else:
        r = run(*argv, check=False, env={'KSTATS_DIR': cap})
    assert r.returncode == 1
    assert r.stderr == 'kstats: error: %s is not on debugfs (a saved capture?): %s writes ' \
        'only to the live kstats directory\n' % (cap, argv[0])
    assert r.stdout == ''
    assert digest(cap) == before


def test_writes_need_control(tmp_path):
    """Even where the filesystem check passes, no _control: refused."""
    (tmp_path / 'foo').write_text('x\n')
    r = run('stop', '--dir', tmp_path, 'foo', check=False, env=live_env(tmp_path))
    assert r.returncode == 1 and 'has no _control' in r.stderr
    assert (tmp_path / 'foo').read_text() == 'x\n'


def test_statfs_sees_debugfs_and_not_tmp(tmp_path):
    assert live.statfs_type(str(tmp_path)) != live.DEBUGFS_MAGIC
    if os.path.isdir('/sys/kernel/debug') and os.path.ismount('/sys/kernel/debug'):
        assert live.statfs_type('/sys/kernel/debug') == live.DEBUGFS_MAGIC


def test_writes_refused_over_ssh():
    r = run('--ssh', 'root@host', 'stop', 'x', check=False)
    assert r.returncode == 1 and '--ssh only reads' in r.stderr


# -- 4: an unwritable destination is a one-line error, exit 1

@pytest.mark.parametrize('argv', [
    ['export', '--openmetrics', '--dir', HELPER, '-o', '/nonexistent/dir/x.prom'],
    ['save', '--dir', HELPER, 'lat_base', '/nonexistent/dir/x'],
    ['save', '--dir', HELPER, '--all', '/proc/kstats-nope/x'],
])
def test_unwritable_destination(argv):
    r = run(*argv, check=False)
    assert r.returncode == 1, r.stderr
    assert len(r.stderr.splitlines()) == 1 and r.stderr.startswith('kstats: error: cannot ')
    assert 'internal error' not in r.stderr and '.kstats-' not in r.stderr


# -- 6: --rows is at most

def test_rows_at_most(tmp_path):
    # Values from 1 to 2^60: 61 powers of two, more rows than bits 0 has room.
    samples = [(0, 1 << k) for k in range(61)]
    cap = write_capture(tmp_path / 'c', {'wide': (2, samples)})
    for rows in (12, 5, 1):
        out = run('show', '--dir', cap, 'wide', '--rows', rows).stdout
        hist = [l for l in out.splitlines() if l.startswith('[') and l.endswith('|')]
        assert 1 <= len(hist) <= rows, (rows, hist)
        assert sum(int(l.split(')')[-1].split('|')[0]) for l in hist) == 61
        assert 'several powers of two per row, to fit --rows %d' % rows in out


# -- 7: units

def test_units_in_show(capture):
    out = run('show', '--dir', capture, 'lat_base').stdout.splitlines()
    # The summary line, like perf ftrace latency's.
    assert out[3].startswith('count 5000  min ')
    words = out[3].split()
    assert words[0::2] == ['count', 'min', 'mean', 'max', 'p50', 'p90', 'p99', 'p99.9']
    assert all(w.endswith(('ns', 'us', 'ms')) for w in words[3::2])
    hist = [l for l in out if l.startswith('[')]
    assert all('us' in l.split(')')[0] or 'ns' in l.split(')')[0] for l in hist)
    # --unit ns: whole numbers, the percentiles of the JSON.
    d = json.loads(run('show', '--dir', capture, 'lat_base', '--json').stdout)
    ns = run('show', '--dir', capture, 'lat_base', '--unit', 'ns').stdout
    p99 = [l for l in ns.splitlines() if l.startswith('p99 ')][0].split()
    assert int(p99[1][:-2]) == round(d['percentiles']['p99']['value'])
    assert p99[2] == '±%dns' % d['percentiles']['p99']['bound']


def test_units_in_json(capture):
    ns = json.loads(run('show', '--dir', capture, 'lat_base', '--json').stdout)
    us = json.loads(run('show', '--dir', capture, 'lat_base', '--json', '--unit', 'us').stdout)
    assert ns['unit'] == 'ns' and us['unit'] == 'us'
    assert abs(us['mean'] * 1000 - ns['mean']) < 1e-6 * ns['mean']
    assert us['percentiles']['p50']['value'] * 1000 == pytest.approx(
        ns['percentiles']['p50']['value'])
    assert us['slots'][0]['lo'] * 1000 == pytest.approx(ns['slots'][0]['lo'])
    assert us['count'] == ns['count'] and us['slots'][0]['slot'] == ns['slots'][0]['slot']


def test_range_labels():
    assert render.fmt_range(1048576, 1572864) == '[1.05ms, 1.57ms)'
    assert render.fmt_range(512, 768) == '[512ns, 768ns)'
    assert render.fmt_range(5, 6) == '[5ns]'
    assert render.fmt_t(7441) == '7.44us' and render.fmt_t(125088) == '125us'
    assert render.fmt_t(7441, 'ns') == '7441ns' and render.fmt_t(600, 'us') == '0.600us'


def test_units_in_watch_and_diff(capture):
    out = run('watch', '--dir', capture, 'lat_base', '-n', '1', '--unit', 'us').stdout
    total = [l for l in out.splitlines() if l.startswith('total')][0].split()
    assert all(w.endswith('us') for w in total[3:])
    out = run('diff', '--dir', capture, 'lat_base', 'lat_same', '--unit', 'ns').stdout
    row = [l.split() for l in out.splitlines() if l.startswith('x ') and '|' not in l][1]
    assert row[:3] == ['x', '1', '5000'] and all(w.endswith('ns') for w in row[3:])


# -- 8: standard input, --label, --ssh, watch on a pipe

def test_show_stdin(capture):
    text = open(os.path.join(capture, 'lat_base')).read()
    want = json.loads(run('show', '--dir', capture, 'lat_base', '--json').stdout)
    d = json.loads(run('show', '-', '--json', '--bits', '4', input=text).stdout)
    assert d['name'] == 'stdin' and d['path'] == '<stdin>'
    assert d['percentiles'] == want['percentiles'] and d['count'] == 5000
    d = json.loads(run('show', '-', '--json', '--label', 'vfs_read', input=text).stdout)
    assert d['name'] == 'vfs_read'
    out = run('show', '-', '--label', 'vfs_read', input=text).stdout
    assert out.startswith('vfs_read  (<stdin>)')
    r = run('show', '--dir', capture, 'lat_base', '--label', 'x', check=False)
    assert r.returncode == 2 and r.stderr.startswith('usage: kstats show')


def fake_ssh(tmp_path):
    """An ssh that logs its arguments and runs the command here."""
    log = tmp_path / 'ssh.log'
    script = tmp_path / 'ssh'
    script.write_text('#!/bin/sh\nhost=$1; shift\necho "$host $*" >> %s\nexec sh -c "$*"\n'
                      % log)
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script), log


def test_ssh_reads_remote(capture, tmp_path):
    ssh, log = fake_ssh(tmp_path)
    want = json.loads(run('show', '--dir', capture, 'lat_base', '--json').stdout)
    d = json.loads(run('--ssh', 'root@host', 'show', '--dir', capture, 'lat_base', '--json',
                       env={'KSTATS_SSH': ssh}).stdout)
    assert d['percentiles'] == want['percentiles'] and d['bits_from'] == '_control'
    # One ssh ... cat per file read: _control, then the entry.
    assert log.read_text().splitlines() == [
        'root@host cat -- %s/_control' % capture, 'root@host cat -- %s/lat_base' % capture]
    listed = run('--ssh', 'root@host', 'list', '--dir', capture, env={'KSTATS_SSH': ssh}).stdout
    assert listed == run('list', '--dir', capture).stdout
    r = run('--ssh', 'root@host', 'show', '--dir', capture, 'nope', check=False,
            env={'KSTATS_SSH': ssh})
    assert r.returncode == 1 and 'no entry nope in root@host:' in r.stderr
    out = run('--ssh', 'root@host', 'watch', '--dir', capture, 'lat_base', '-n', '2', '-i',
              '0.05', env={'KSTATS_SSH': ssh}).stdout
    assert 'reset' not in out and out.count('kstats watch lat_base') == 2
    r = run('--ssh', 'h', 'show', '--dir', '/nonexistent', 'x', check=False,
            env={'KSTATS_SSH': ssh})
    assert r.returncode == 1 and r.stderr.startswith('kstats: error: h:/nonexistent/_control:')


def test_watch_refuses_pipe(capture, tmp_path):
    text = open(os.path.join(capture, 'lat_base')).read()
    r = run('watch', '-', '-n', '2', '-i', '0.05', check=False, input=text)
    assert r.returncode == 1 and 'standard input is read once' in r.stderr
    assert 'reset' not in r.stdout
    fifo = str(tmp_path / 'fifo')
    os.mkfifo(fifo)
    r = run('watch', fifo, '-n', '2', check=False)
    assert r.returncode == 1 and 'is a pipe, read once' in r.stderr
    r = run('plot', '-', '--live', '-n', '2', check=False, input=text)
    assert r.returncode == 1 and 'standard input is read once' in r.stderr


# -- 10: flags

@pytest.mark.parametrize('argv,msg', [
    (['show', 'lat_base', '--rows', '-1'], '--rows must be 1 or more, not -1'),
    (['show', 'lat_base', '--rows', '0'], '--rows must be 1 or more, not 0'),
    (['show', 'lat_base', '--hist-bits', '-1'], '--hist-bits must be 0..5, not -1'),
    (['show', 'lat_base', '--hist-bits', '9'], '--hist-bits must be 0..5, not 9'),
    (['show', 'lat_base', '--cpu', '-1'], '--cpu must be 0 or more, not -1'),
    (['plot', 'lat_base', '--hist-bits', '6'], '--hist-bits must be 0..5, not 6'),
    (['watch', 'lat_base', '--rows', '0'], '--rows must be 1 or more, not 0'),
    (['watch', 'lat_base', '-n', '0'], '-n must be 1 or more, not 0'),
    (['show', 'lat_base', '--bogus'], 'unrecognized arguments: --bogus'),
    (['diff', 'a', 'b', '--nope'], 'unrecognized arguments: --nope'),
])
def test_bad_flag_prints_subcommand_usage(argv, msg):
    r = run(argv[0], '--dir', HELPER, *argv[1:], check=False)
    assert r.returncode == 2
    assert r.stderr.startswith('usage: kstats %s' % argv[0]), r.stderr
    assert r.stderr.endswith('kstats %s: error: %s\n' % (argv[0], msg)), r.stderr


def test_cpu_beyond_possible(capture):
    r = run('show', '--dir', capture, 'lat_base', '--cpu', '2', check=False)
    assert r.returncode == 1
    assert r.stderr == 'kstats: error: --cpu 2: lat_base has 2 possible CPUs (0 to 1)\n'
    out = run('show', '--dir', capture, 'cpu1_b3', '--cpu', '0').stdout
    assert 'no samples on CPU 0 (CPUs with samples: 1)' in out


def test_watch_json(capture):
    out = run('watch', '--dir', capture, 'lat_base', '-n', '3', '-i', '0.05', '--json').stdout
    docs = [json.loads(l) for l in out.splitlines()]
    assert len(docs) == 3
    assert docs[0]['interval'] is None and docs[0]['total']['count'] == 5000
    for d in docs[1:]:
        assert d['interval']['count'] == 0 and d['reset'] is False and d['unit'] == 'ns'
        assert d['interval']['seconds'] > 0
    import fractions
    raw = Samples('lat_base').values()
    p99 = docs[0]['total']['percentiles']['p99']
    assert p99['lo'] <= nearest_rank(raw, fractions.Fraction(99, 100)) <= p99['hi']


def test_mountinfo_fallback_without_ctypes(tmp_path):
    """Where Python has no ctypes (the test guests), the filesystem type
    comes from /proc/self/mountinfo: not debugfs for a plain directory,
    so the refusal holds there too."""
    from conftest import TOOL, PYTHON
    import subprocess
    code = ('import sys; sys.modules["ctypes"] = None\n'
            'sys.path.insert(0, %r)\n'
            'from kstats import live as m\n'
            'print(m.statfs_type(%r), m.statfs_type("/proc") == m.DEBUGFS_MAGIC)\n'
            % (TOOL, str(tmp_path)))
    r = subprocess.run([PYTHON, '-c', code], stdout=subprocess.PIPE, universal_newlines=True)
    assert r.stdout == '0 False\n'
