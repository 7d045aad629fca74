# SPDX-License-Identifier: GPL-2.0
"""kstats watch: totals and the rate since the previous refresh, a count
option for scripts and tests, and a clean exit on Ctrl-C."""
import os
import shutil
import signal
import subprocess
import time


from conftest import FIXTURES, PYTHON, TOOL, program, run, run_then
from kstats import model
from kstats.capture import load_path

GOOD = os.path.join(FIXTURES, 'helper', 'lat_base')


def doubled(text):
    """The same entry with every count doubled (the CDFs do not change)."""
    out = []
    for line in text.splitlines():
        w = line.split()
        w[5] = str(2 * int(w[5]))
        out.append(' '.join(w))
    return '\n'.join(out) + '\n'


def test_count_and_totals(capture):
    r = run('watch', '--dir', capture, 'lat_base', '-n', '3', '-i', '0.05')
    out = r.stdout
    assert out.count('kstats watch lat_base') == 3
    assert out.count('total') == 3 and 'rate/s' in out and 'p99.9' in out
    rows = [l.split() for l in out.splitlines() if l.startswith('total')]
    assert all(row[1] == '5000' for row in rows)
    # Nothing changes in a saved capture: 0 samples in each interval.
    last = [l.split() for l in out.splitlines() if l.startswith('last ') and 's ' in l]
    assert [row[3] for row in last] == ['0', '0']


def test_rate_since_previous_refresh(tmp_path):
    d = tmp_path / 'cap'
    d.mkdir()
    shutil.copy(os.path.join(FIXTURES, 'helper', '_control'), str(d / '_control'))
    shutil.copy(GOOD, str(d / 'lat_base'))
    more = doubled(open(GOOD).read())

    def grow():
        (d / 'lat_base.new').write_text(more)
        os.replace(str(d / 'lat_base.new'), str(d / 'lat_base'))
    out = run_then(grow, 'watch', '--dir', d, 'lat_base', '-n', '2', '-i', '1.2', '--hist')
    rows = [l.split() for l in out.splitlines() if l.startswith('last ') and 's ' in l]
    assert len(rows) == 1
    # "last 1.20 s  5000  <rate>": 5000 new samples in the interval (at
    # least 1.2 s, as long as it took).
    assert rows[0][3] == '5000'
    assert 0 < float(rows[0][4]) <= 5000 / 1.2 + 1
    assert [l.split()[1] for l in out.splitlines() if l.startswith('total')] == \
        ['5000', '10000']
    assert 'last interval:' in out


def test_reset_detected():
    e = load_path(GOOD)
    empty = model.Hist(e.bits, [])
    assert e.total.delta(empty).count == 5000
    assert empty.delta(e.total) is None          # counts went down: reset
    d = e.total.delta(e.total)
    assert d.count == 0


def interrupted(args, after=1.0):
    """Run the tool with `args`, send it SIGINT `after` seconds later, and
    return its exit status, stdout and stderr."""
    # A shell that starts jobs in the background without job control (as
    # "make check &" does) leaves SIGINT ignored in them, and Python then
    # installs no KeyboardInterrupt handler: give the tool the default.
    p = subprocess.Popen([PYTHON, TOOL] + args, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, universal_newlines=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT,
                                                          signal.SIG_DFL))
    try:
        time.sleep(after)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=10)
    finally:
        if p.poll() is None:
            p.kill()
    return p.returncode, out, err


def test_ctrl_c_exits_cleanly(capture):
    rc, out, err = interrupted(['watch', '--dir', capture, 'lat_base', '-i', '0.2'])
    assert rc == 0, err
    assert 'Traceback' not in err and err == ''
    assert out.count('kstats watch lat_base') >= 2


def test_ctrl_c_live_plot(capture):
    program('gnuplot', 'gnuplot-nox')
    rc, out, err = interrupted(['plot', '--dir', capture, 'lat_base', '--live',
                                '-i', '0.2', '--size', '80,30'])
    assert rc == 0 and 'Traceback' not in err
    assert 'lat_base: 5000 samples' in out


def test_missing_entry(capture):
    r = run('watch', '--dir', capture, 'nope', '-n', '1', check=False)
    assert r.returncode == 1 and 'no entry nope' in r.stderr
