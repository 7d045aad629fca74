# SPDX-License-Identifier: GPL-2.0
"""Issue 22, the tool's edges: three significant digits in any unit;
every bad option value a usage error (exit 2, one error line) and never
an internal error; no traceback on an early Ctrl-C; typed JSON; diff's
warning for a capture given twice and its median interval as it is;
value and counter entries printed as what they are by plot, diff and
watch."""
import json
import os
import re
import signal
import subprocess
import time

import pytest

from conftest import FIXTURES, PYTHON, REPO, TOOL, run, write_capture

HELPER = os.path.join(FIXTURES, 'helper')
CALIBRATED = os.path.join(FIXTURES, 'calibrated')


def test_fixed_unit_three_digits():
    out = run('calibrate', '--no-run', '--dir', CALIBRATED, '--unit', 'us').stdout
    # Rounded to whole ns first: no digit below 1 ns (tool-edges item 4).
    assert out.splitlines()[1].split() == ['clock', '0.025us', '0.031us', '0.025us',
                                           '10000']
    out = run('show', '--dir', HELPER, 'lat_base', '--unit', 'ms').stdout
    assert '0.00ms' not in out
    s = [x for x in out.splitlines() if x.startswith('p50 ')][0]
    assert s.split()[:2] == ['p50', '0.00201ms'], s
    s = [x for x in out.splitlines() if x.startswith('count 5000')][0]
    assert 'min 0.000681ms' in s and 'p99 0.0137ms' in s, s


# Bad values of every option that takes one and checks it, per command.
BAD = [
    (['watch', 'lat_base', '-n', '1'], '-i', ['nan', 'inf', '0', '-1', 'x']),
    (['plot', 'lat_base', '--live', '-n', '1'], '-i', ['nan', 'inf', '0']),
    (['plot', 'lat_base', '--script'], '--size', ['x', '0,5', 'nan,1', '5']),
    (['heatmap', 'rec', '--json'], '--size', ['1,x']),
    (['record', 'lat_base', '-n', '1'], '-i', ['nan', '0']),
    (['diff', 'lat_base', 'lat_shift'], '-c', ['nan', 'inf', '0', '100', 'x']),
    (['diff', 'lat_base', 'lat_shift'], '-p', ['nan', '0', '101', 'x', '']),
    (['show', 'lat_base'], '-p', ['nan', '200']),
    (['watch', 'lat_base', '-n', '1'], '-p', ['x']),
    (['show', 'lat_base'], '--rows', ['0', 'x']),
    (['show', 'lat_base'], '--cpu', ['-1', 'nan']),
    (['show', 'lat_base'], '--hist-bits', ['6', '-1']),
    (['show', 'lat_base'], '--unit', ['h']),
    (['export', '--openmetrics'], '--bucket-bits', ['6', 'x']),
    (['export', '--openmetrics'], '--range', ['x', '2:1']),
    (['export', '--openmetrics'], '--label', ['x', 'le=1']),
    (['export', '--openmetrics'], '--metric', ['a-b']),
    (['export', '--openmetrics'], '--prefix', ['1a']),
    (['export', '--openmetrics', '-o', 'f'], '--every', ['nan', '0']),
    (['watch', 'lat_base'], '-n', ['0', 'x']),
]


@pytest.mark.parametrize('argv,opt,values', BAD, ids=['%s %s' % (a[0], o) for a, o, _ in BAD])
def test_bad_option_values(argv, opt, values):
    for v in values:
        r = run('--dir', HELPER, *argv + ['%s=%s' % (opt, v) if opt.startswith('--')
                                          else opt + v], check=False)
        last = r.stderr.splitlines()[-1]
        assert r.returncode == 2 and r.stdout == '', (argv, opt, v, r.stderr)
        assert last.startswith('kstats %s: error: ' % argv[0]) and opt in last, last
        assert 'internal error' not in r.stderr


def wait_reader(fifo, proc):
    """Open fifo for writing once proc has it open for reading (a
    non-blocking open fails until then)."""
    deadline = time.monotonic() + 60
    while True:
        try:
            return os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.01)


def wait_blocked_in_read(proc):
    """Until proc sleeps in a read of the FIFO. A signal that comes
    between its open() and its read() is handled in C, but Python runs the
    handler only at its next check, after read() returned: it would block
    for ever, as it would for a user who pressed Ctrl-C at that instant
    (a second one ends it). Ctrl-C while it waits for its input is what is
    tested, so the signal is sent once it waits."""
    deadline = time.monotonic() + 60
    while True:
        with open('/proc/%d/wchan' % proc.pid) as f:
            if 'pipe_read' in f.read():
                return
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.01)


@pytest.mark.parametrize('how', ['zipapp', 'module'])
def test_ctrl_c_while_loading(tmp_path, how):
    """Ctrl-C while the tool loads its modules, run as installed (the
    zipapp) or as "python3 -m kstats" from the checkout: the process ends
    as the signal ends it, without a traceback. A stand-in for a module it
    imports blocks on a FIFO, so the signal comes at that point."""
    fifo = str(tmp_path / 'fifo')
    os.mkfifo(fifo)
    (tmp_path / 'argparse.py').write_text('open(%r).read()\n' % fifo)
    path = [str(tmp_path)] + ([os.path.join(REPO, 'tool')] if how == 'module' else [])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path), PYTHONDONTWRITEBYTECODE='1')
    cmd = [PYTHON, TOOL] if how == 'zipapp' else [PYTHON, '-m', 'kstats']
    p = subprocess.Popen(cmd + ['--dir', HELPER, 'diff', 'lat_base', 'lat_shift'],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                         universal_newlines=True)
    fd = wait_reader(fifo, p)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    os.close(fd)
    assert p.returncode == -signal.SIGINT and out == '' and err == '', err


@pytest.mark.parametrize('cmd', ['diff', 'heatmap'])
def test_ctrl_c_while_reading(tmp_path, cmd):
    """Ctrl-C while diff or heatmap waits for its input: exit 130, a new
    line, no traceback."""
    fifo = str(tmp_path / 'fifo')
    os.mkfifo(fifo)
    if cmd == 'diff':
        argv = ['diff', fifo, os.path.join(HELPER, 'lat_base')]
    else:
        os.rename(fifo, str(tmp_path / '_record'))
        fifo = str(tmp_path / '_record')
        argv = ['heatmap', str(tmp_path), '--json']
    p = subprocess.Popen([PYTHON, TOOL] + argv, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, universal_newlines=True)
    fd = wait_reader(fifo, p)
    wait_blocked_in_read(p)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    os.close(fd)
    assert p.returncode == 130 and out == '' and err == '\n', err


def test_typed_json(tmp_path):
    d = json.loads(run('show', '--dir', CALIBRATED, 'vfs_read', '--json').stdout)
    assert d['info'] == {'name': 'vfs_read', 'origin': 'control', 'mechanism': 'fprobe',
                         'targets': 'vfs_read', 'bits': 4, 'state': 'running', 'missed': 0,
                         'bias_ns': 812, 'bias_p99_ns': 1530, 'overhead_ns': 640}
    d = json.loads(run('list', '--dir', CALIBRATED, '--json').stdout)
    assert d[1]['bias_ns'] is None and d[1]['missed'] == 0 and d[1]['samples'] > 0


def test_diff_given_twice_and_median_interval():
    lb, ls = (os.path.join(HELPER, n) for n in ('lat_base', 'lat_shift'))
    r = run('diff', lb, lb, '--', ls, ls)
    assert r.stderr == ('kstats: warning: %s is given twice (A and A): one run counted '
                        'twice, so the test is not valid\n'
                        'kstats: warning: %s is given twice (B and B): one run counted '
                        'twice, so the test is not valid\n' % (lb, ls))
    d = json.loads(run('diff', lb, '--', lb, '--json').stdout)
    assert d['warnings'] == ['%s is given twice (A and B): one run counted twice, so the '
                             'test is not valid' % lb]
    assert json.loads(run('diff', lb, ls, '--json').stdout)['warnings'] == []
    out = run('diff', lb, ls).stdout.splitlines()
    i = out.index('Median: Difference at 97.5% confidence')
    d = json.loads(run('diff', lb, ls, '--json').stdout)['median']
    lo, hi = d['interval']
    assert out[i + 1].split() == ['198ns', 'in', '[%dns,' % lo, '%dns]' % hi]
    base = d['difference'] * 100 / d['percent']     # the median of A
    assert out[i + 2].strip() == '9.827% in [{:.3f}%, {:.3f}%]'.format(
        100 * lo / base, 100 * hi / base)


VALUE_LINE = ('name rd origin control mechanism fprobe targets vfs_read bits 4 value arg3 '
              'state running missed 0\n')
COUNTER_LINE = ('name pf origin control mechanism fprobe targets f bits 4 counter '
                'page-faults state running missed 0\n')


def kinds(tmp_path):
    d = write_capture(tmp_path / 'cap', {
        'rd': (4, [(0, 100 + 3 * i) for i in range(200)]),
        'rd2': (4, [(0, 130 + 3 * i) for i in range(200)]),
        'pf': (4, [(0, i % 7) for i in range(50)])})
    with open(d + '/_control', 'w') as f:
        f.write(VALUE_LINE + VALUE_LINE.replace('name rd ', 'name rd2 ') + COUNTER_LINE)
    return d


def test_values_are_no_times(tmp_path):
    d = kinds(tmp_path)
    script = run('--dir', d, 'plot', 'rd', '--script').stdout
    assert 'set xlabel "value"' in script and '(ns)' not in script
    script = run('--dir', d, 'plot', 'pf', '--script').stdout
    assert 'set xlabel "page-faults"' in script
    out = run('--dir', d, 'diff', 'rd', 'rd2').stdout
    assert not re.search(r'\d(ns|us|ms)\b', out), out
    assert json.loads(run('--dir', d, 'diff', 'rd', 'rd2', '--json').stdout)['unit'] == 'value'
    out = run('--dir', d, 'watch', 'rd', '-n', '1', '--no-clear').stdout
    assert not re.search(r'\d(ns|us|ms)\b', out), out
    w = json.loads(run('--dir', d, 'watch', 'pf', '-n', '1', '--json').stdout)
    assert w['unit'] == 'page-faults'
    r = run('--dir', d, 'diff', 'rd', os.path.join(HELPER, 'lat_base'), check=False)
    assert r.returncode == 1 and 'diff compares times with times' in r.stderr
