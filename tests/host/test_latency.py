# SPDX-License-Identifier: GPL-2.0
"""kstats latency on the host: targets and globs, the command line, the
refusals; what it measures is checked in the guests (91-latency.sh)."""
import pytest

from conftest import live_env, run
from kstats import latency, sched
from kstats.errors import Error

FUNCS = ['vfs_read', 'vfs_readv', 'vfs_write', 'ksys_read [kstats_helper]', 'do_sys_open']


@pytest.fixture
def funcs(tmp_path, monkeypatch):
    f = tmp_path / 'available_filter_functions'
    f.write_text(''.join(n + '\n' for n in FUNCS))
    monkeypatch.setattr(latency, 'FILTER_FILES', (str(tmp_path / 'none'), str(f)))


def test_targets(funcs):
    assert latency.expand(['vfs_read']) == [('vfs_read', [])]
    assert latency.expand(['vfs_read via kretprobe bits 3', 'x']) == \
        [('vfs_read', ['via', 'kretprobe', 'bits', '3']), ('x', [])]
    assert latency.expand(['vfs_*']) == [('vfs_read', []), ('vfs_readv', []), ('vfs_write', [])]
    assert latency.expand(['?sys_read bits 2']) == [('ksys_read', ['bits', '2'])]


def test_glob_refusals(funcs):
    with pytest.raises(Error, match="'vfs_\\*' matches 3 functions, more than 2: narrow it"):
        latency.expand(['vfs_*'], limit=2)
    with pytest.raises(Error, match="'nosuch\\*' matches no function"):
        latency.expand(['nosuch*'])
    with pytest.raises(Error, match='an empty target'):
        latency.expand([' '])


def test_glob_without_tracefs(tmp_path, monkeypatch):
    monkeypatch.setattr(latency, 'FILTER_FILES', (str(tmp_path / 'a'), str(tmp_path / 'b')))
    with pytest.raises(Error, match='a glob needs available_filter_functions'):
        latency.expand(['vfs_*'])


def test_cgroup2_mount(tmp_path, monkeypatch):
    mi = tmp_path / 'mountinfo'
    mi.write_text('22 1 0:21 / /sys rw - sysfs sysfs rw\n'
                  '30 22 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n')
    monkeypatch.setattr(latency, 'MOUNTINFO', str(mi))
    assert latency.cgroup2_mount() == '/sys/fs/cgroup'
    mi.write_text('22 1 0:21 / /sys rw - sysfs sysfs rw\n')
    assert latency.cgroup2_mount() is None


def test_command_line(tmp_path):
    (tmp_path / '_control').write_text('')
    env = live_env(tmp_path)
    r = run('latency', '--dir', tmp_path, 'vfs_read', '--', check=False, env=env)
    assert r.returncode == 2 and 'latency: give COMMAND after --' in r.stderr
    r = run('latency', '--dir', tmp_path, 'vfs_read', '-i', '1s', '--', 'true', check=False,
            env=env)
    assert (r.returncode, r.stderr) == (1, 'kstats: error: -i prints while it waits, '
                                        '-- COMMAND prints once COMMAND ends: give one\n')
    r = run('latency', '--dir', tmp_path, 'vfs_read', '--max-targets', '0', check=False,
            env=env)
    assert r.returncode == 2 and '--max-targets must be 1 or more' in r.stderr
    r = run('latency', '--dir', tmp_path, check=False, env=env)
    assert r.returncode == 2


def test_refused_target_leaves_nothing(tmp_path):
    """A write that the kernel refuses (here: /dev/full) ends the run with
    exit 1, and nothing was attached."""
    (tmp_path / '_control').write_text('')
    env = live_env(tmp_path, KSTATS_DEVICE='/dev/full', KSTATS_DMESG='true')
    r = run('latency', '--dir', tmp_path, 'vfs_read', '-d', '1s', check=False, env=env)
    assert r.returncode == 1 and r.stdout == ''
    err = r.stderr.splitlines()
    assert err[0].startswith("kstats: 'trace vfs_read as kl") and \
        err[0].endswith("' refused by /dev/full: ENOSPC (No space left on device)")
    assert err[-1] == 'kstats: error: vfs_read: not traced (above); nothing is left attached'


def test_capture_refused(tmp_path):
    (tmp_path / '_control').write_text('')
    r = run('latency', '--dir', tmp_path, 'vfs_read', check=False)
    assert r.returncode == 1
    assert r.stderr == 'kstats: error: %s is not on debugfs (a saved capture?): latency ' \
        'writes only to the live kstats directory\n' % tmp_path


def test_interval_is_a_difference():
    """-i prints the samples since the last print: two reads subtracted,
    per CPU too; the exact min and max (since the start) are left out."""
    from kstats.model import Entry, Hist
    old, new = Entry('f', 'p'), Entry('f', 'p')
    for e in (old, new):
        e.bits = 2
        e.info = {'state': 'running', 'min': '5', 'max': '900'}
    old.total = Hist(2, [(10, 3, 100.0)])
    old.cpus = {0: Hist(2, [(10, 3, 100.0)])}
    new.total = Hist(2, [(10, 5, 100.0), (20, 2, 800.0)])
    new.cpus = {0: Hist(2, [(10, 3, 100.0)]), 1: Hist(2, [(10, 2, 100.0), (20, 2, 800.0)])}
    first = latency.since(old, None)
    assert first.whole is old and first.total is old.total
    d = latency.since(new, old)
    assert d.whole is new and d.info == {'state': 'running'}
    assert [(r.slot, r.count) for r in d.total.rows] == [(10, 2), (20, 2)]
    assert list(d.cpus) == [1] and [(r.slot, r.count) for r in d.cpus[1].rows] == \
        [(10, 2), (20, 2)]


def test_interval_show(tmp_path, capsys):
    """Two prints of -i: the second holds the samples since the first,
    those of CPU 1 only (CPU 0 has none in it: no row)."""
    import argparse
    from kstats.render import DEFAULT_PERCENTILES, parse_percentiles
    (tmp_path / '_control').write_text('name e0 origin control mechanism fprobe targets f '
                                       'bits 2 state running\n')
    e0 = tmp_path / 'e0'
    e0.write_text('slot 20  CPU  0    count        3 avg       70 p 1.000000\n'
                  'slot 20  CPUS 2    count        3 avg       70 p 1.000000\n')
    args = argparse.Namespace(dir=str(tmp_path), bits=None, cpu=None, hist_bits=None,
                              bias=None, rows=40, unit=None, width=None, interval=1.0, by=None,
                              percentiles=parse_percentiles(DEFAULT_PERCENTILES))
    s = latency.Session(args)
    s.names = [('e0', 'f')]
    s.show()
    e0.write_text('slot 20  CPU  0    count        3 avg       70 p 1.000000\n'
                  'slot 20  CPU  1    count        2 avg       71 p 0.500000\n'
                  'slot 20  CPUS 2    count        5 avg       70 p 0.714285\n'
                  'slot 24  CPU  1    count        2 avg      140 p 1.000000\n'
                  'slot 24  CPUS 2    count        2 avg      140 p 1.000000\n')
    capsys.readouterr()
    s.show()
    out = capsys.readouterr().out.splitlines()
    assert [x.split()[1] for x in out if x.startswith('count ') and ' min ' in x] == ['4']
    rows = out[out.index('per CPU:') + 2:]
    assert [r.split()[:2] for r in rows if r.split() and r.split()[0].isdigit()] == [['1', '4']]


def test_by_not_with_interval(tmp_path):
    (tmp_path / '_control').write_text('')
    r = run('latency', '--dir', tmp_path, 'vfs_read', '--by', 'comm', '-i', '1s', '-d', '2s',
            check=False, env=live_env(tmp_path))
    assert (r.returncode, r.stderr) == (
        1, 'kstats: error: --by prints the table of keys once, at the end: not with -i\n')


def _signalled_run(tmp_path, monkeypatch, hook, interval, written=None):
    """cmd_latency on a stand-in directory whose writes are recorded (a
    trace makes the entry file); `hook` sends SIGTERM at a chosen point.
    What the run wrote to _control, and the counts it printed."""
    import argparse
    import signal
    from kstats.render import DEFAULT_PERCENTILES, parse_percentiles
    (tmp_path / '_control').write_text('')
    monkeypatch.setenv('KSTATS_TEST_LIVE_DIR', str(tmp_path))
    monkeypatch.setenv('KSTATS_DEVICE', str(tmp_path / 'no-such-device'))
    written = [] if written is None else written

    def write(path, line, show_reason=True):
        written.append(line.strip())
        w = line.split()
        if w[0] == 'trace':
            (tmp_path / '_control').write_text('name %s origin control mechanism fprobe '
                                               'targets f bits 2 state running\n' % w[-1])
            (tmp_path / w[-1]).write_text(
                'slot 20  CPU  0    count        3 avg       70 p 1.000000\n'
                'slot 20  CPUS 1    count        3 avg       70 p 1.000000\n')
            hook('write')
        return 0
    monkeypatch.setattr(latency, 'write_command', write)
    args = argparse.Namespace(dir=str(tmp_path), bits=None, cpu=None, hist_bits=None,
                              bias=None, rows=40, unit=None, width=None, interval=interval,
                              by=None, targets=['vfs_read'], max_targets=50, via=None,
                              pid=None, comm=None, run=None, duration=5.0, command='latency',
                              percentiles=parse_percentiles(DEFAULT_PERCENTILES))
    old = signal.getsignal(signal.SIGTERM)
    signal.signal(signal.SIGTERM, signal.default_int_handler)   # as before the fix
    try:
        assert latency.cmd_latency(args) == 0
    except KeyboardInterrupt:
        pytest.fail('the signal cut the run short')
    finally:
        signal.signal(signal.SIGTERM, old)
    return written


def test_sigterm_right_after_trace(tmp_path, monkeypatch, capsys):
    """SIGTERM as the trace write returns (the entry exists): the run
    still prints it and removes it (it was left attached, unprinted)."""
    import os
    import signal
    w = _signalled_run(tmp_path, monkeypatch,
                       lambda at: os.kill(os.getpid(), signal.SIGTERM), None)
    name = w[0].split()[-1]
    assert w[0].startswith('trace vfs_read as kl') and \
        w[1:] == ['stop ' + name, 'remove ' + name]
    out = capsys.readouterr().out.splitlines()
    assert [x.split()[1] for x in out if x.startswith('count ') and ' min ' in x] == ['3']


def test_stopped_before_the_last_read(tmp_path, monkeypatch, capsys):
    """The entries are stopped before the last print reads them: the
    entry's file and its keys then hold the same samples, and the keys add
    up to the count above them (a live entry grew between the two reads:
    count 361195 over dd 378355 in a user's run)."""
    read_after, written = [], []
    open_entry = latency.open_entry

    def hooked(name, args):
        read_after.append(list(written))
        return open_entry(name, args)
    monkeypatch.setattr(latency, 'open_entry', hooked)
    _signalled_run(tmp_path, monkeypatch, lambda at: None, None, written)
    name = written[0].split()[-1]
    assert read_after == [['trace vfs_read as ' + name, 'stop ' + name]]


def test_sigterm_in_an_interval_print(tmp_path, monkeypatch, capsys):
    """SIGTERM while -i prints: the interval is printed whole, and the
    prints add up to the entry's count (its 3 were lost: the snapshot was
    taken, its print cut)."""
    import os
    import signal
    show_text = latency.show_text
    calls = []

    def hooked(*a):
        calls.append(1)
        if len(calls) == 1:
            os.kill(os.getpid(), signal.SIGTERM)
        return show_text(*a)
    monkeypatch.setattr(latency, 'show_text', hooked)
    w = _signalled_run(tmp_path, monkeypatch, lambda at: None, 0.01)
    name = w[0].split()[-1]
    assert w[1:] == ['stop ' + name, 'remove ' + name] and len(calls) == 2
    out = capsys.readouterr().out.splitlines()
    assert [x.split()[1] for x in out if x.startswith('count ') and ' min ' in x] == ['3']
    assert out.count('no samples') == 1     # the last part: none since


@pytest.mark.parametrize('argv,which', [(['runqlat'], 'runqlat'), (['cpudist'], 'oncpu'),
                                        (['cpudist', '--offcpu'], 'offcpu')])
def test_sched_lines(tmp_path, argv, which):
    """runqlat and cpudist write their pair (one line, within _control's
    256 bytes with the longest entry name) and, refused, leave nothing."""
    label, words = sched.SCHED_PAIRS[which]
    assert len('trace kl4194304_0 %s\n' % words) <= 256
    (tmp_path / '_control').write_text('')
    env = live_env(tmp_path, KSTATS_DEVICE='/dev/full', KSTATS_DMESG='true')
    r = run(*argv, '--dir', tmp_path, '-d', '1s', check=False, env=env)
    assert r.returncode == 1 and r.stdout == ''
    err = r.stderr.splitlines()
    assert err[0].startswith("kstats: 'trace kl") and \
        err[0].endswith(" %s' refused by /dev/full: ENOSPC (No space left on device)" % words)
    assert err[-1] == 'kstats: error: %s: not traced (above); nothing is left attached' % label


def test_sched_pairs_are_their_mirror():
    """cpudist --offcpu is cpudist with prev and next swapped."""
    on, off = sched.SCHED_PAIRS['oncpu'][1], sched.SCHED_PAIRS['offcpu'][1]
    assert off == on.replace('arg3', 'argX').replace('arg2', 'arg3').replace('argX', 'arg2')


def test_sched_pid(tmp_path):
    """-p PID: each side that left pid 0 out now takes only PID's threads."""
    (tmp_path / '_control').write_text('')
    env = live_env(tmp_path, KSTATS_DEVICE='/dev/full', KSTATS_DMESG='true')
    r = run('cpudist', '--offcpu', '-p', '42', '--dir', tmp_path, '-d', '1s', check=False,
            env=env)
    assert r.returncode == 1 and r.stderr.startswith(
        "kstats: 'trace kl%d_0 start __tracepoint_sched_switch key arg2->pid if arg2->tgid "
        "== 42 end __tracepoint_sched_switch key arg3->pid if arg3->tgid == 42' refused"
        % int(r.stderr.split('kl')[1].split('_')[0]))
    r = run('runqlat', '-p', '7', '--dir', tmp_path, '-d', '1s', check=False, env=env)
    assert 'if arg4 == 0 end __tracepoint_sched_switch key arg3->pid if arg3->tgid == 7' \
        in r.stderr
    r = run('runqlat', '-p', '-1', '--dir', tmp_path, check=False, env=env)
    assert r.returncode == 2 and '-p PID must be 0 or more' in r.stderr


def _refused_line(tmp_path, *argv, command=()):
    """The pair line that the command wrote, refused by /dev/full, and
    its exit status."""
    (tmp_path / '_control').write_text('')
    env = live_env(tmp_path, KSTATS_DEVICE='/dev/full', KSTATS_DMESG='true')
    r = run(*argv, '--dir', tmp_path, *(('--',) + tuple(command) if command else ('-d', '1s')),
            check=False, env=env)
    first = r.stderr.splitlines()[0]
    assert first.startswith("kstats: 'trace kl") and ' refused by /dev/full' in first, r.stderr
    return r.returncode, first.split("'")[1].split(' ', 2)[2]


@pytest.mark.parametrize('argv,tail', [
    (['runqlat', '--by', 'comm'], 'if arg3->pid != 0 by arg3->comm'),
    (['cpudist', '--by', 'pid'], 'if arg2->pid != 0 by arg2->tgid'),
    (['cpudist', '--offcpu', '--by', 'tid'], 'if arg3->pid != 0 by arg3->pid'),
    (['runqlat', '--outliers', '3'], 'if arg3->pid != 0 outliers 3'),
    (['runqlat', '--by', 'comm', '--keys', '200'], 'by arg3->comm keys 200'),
])
def test_sched_by(tmp_path, argv, tail):
    """--by reads the task that waited or ran at the end; the line fits."""
    rc, words = _refused_line(tmp_path, *argv)
    assert rc == 1 and words.endswith(tail) and len('trace kl4194304_0 %s\n' % words) <= 256


@pytest.mark.parametrize('argv,start,end', [
    (['runqlat'], 'if arg4 == 0 ', 'key arg3->pid if arg3->comm == "%s"'),
    (['cpudist'], 'key arg3->pid if arg3->comm == "%s" ', 'key arg2->pid if arg2->comm == "%s"'),
    (['offcpu'], 'key arg2->pid if arg2->comm == "%s" by stack ',
     'key arg3->pid if arg3->comm == "%s"')])
def test_sched_comm(tmp_path, argv, start, end):
    """-c COMM: the task that waited or ran named COMM, on each side that
    left pid 0 out; the line fits with the longest name and --by (runqlat
    and cpudist) or --keys (offcpu)."""
    comm = 'kworker/0:1-mm_'
    extra = ['--by', 'pid'] if argv[0] != 'offcpu' else ['--keys', '200']
    rc, words = _refused_line(tmp_path, *argv, '-c', comm, *extra)
    first, last = words.split(' end ')
    assert rc == 1 and first.endswith(start.replace('%s', comm).strip()) and \
        last.startswith('__tracepoint_sched_switch ' + end.replace('%s', comm))
    assert len('trace kl4194304_0 %s\n' % words) <= 256


def test_sched_line_too_long(tmp_path):
    """A line past _control's 256 bytes is refused by the tool, with the
    reason, before it is written."""
    (tmp_path / '_control').write_text('')
    env = live_env(tmp_path, KSTATS_DEVICE='/dev/full', KSTATS_DMESG='true')
    r = run('runqlat', '-c', 'kworker/0:1-mm_', '--by', 'comm', '--keys', '200',
            '--outliers', '9', '--dir', tmp_path, check=False, env=env)
    assert r.returncode == 1 and r.stdout == '' and \
        'past the 256 that _control takes: fewer options, or a shorter name' in r.stderr, r.stderr


def test_offcpu_line(tmp_path):
    """kstats offcpu: cpudist --offcpu by the stack at the switch-out."""
    rc, words = _refused_line(tmp_path, 'offcpu')
    assert rc == 1 and words == sched.SCHED_PAIRS['offcpu'][1].replace(
        ' end ', ' by stack end ', 1)


@pytest.mark.parametrize('argv,tail', [
    ([], 'key arg1'), (['-D'], 'key arg1 by arg1->q->disk->disk_name'),
    (['-F'], 'key arg1 by arg1->cmd_flags')])
def test_biolatency_lines(tmp_path, argv, tail):
    rc, words = _refused_line(tmp_path, 'biolatency', *argv)
    assert rc == 1 and words.startswith('start __tracepoint_block_rq_issue key arg1 end '
                                        '__tracepoint_block_rq_complete ') and words.endswith(tail)


@pytest.mark.parametrize('argv,msg', [
    (['biolatency', '-D', '-F'], '-D and -F: one histogram per disk or per flags, not both'),
    (['runqlat', '-c', 'a b'], '-c COMM: 1 to 15 printable characters, no space'),
    (['runqlat', '-c', '0123456789abcdef'], '-c COMM: 1 to 15 printable characters'),
    (['offcpu', '-c', 'x"y'], '-c COMM: 1 to 15 printable characters'),
    (['cpudist', '-c', 'sh', '-p', '1'], '-c COMM and -p PID or -- COMMAND: give one'),
    (['runqlat', '--by', 'comm', '-i', '1s'], 'the table of keys is printed once, at the end'),
    (['offcpu', '-i', '1s'], 'the table of keys is printed once, at the end')])
def test_sched_refusals(tmp_path, argv, msg):
    (tmp_path / '_control').write_text('')
    env = live_env(tmp_path, KSTATS_DEVICE='/dev/full', KSTATS_DMESG='true')
    r = run(*argv, '--dir', tmp_path, check=False, env=env)
    assert r.returncode == 1 and msg in r.stderr and r.stdout == ''


def test_sched_command_held(tmp_path):
    """-- COMMAND: the pair names COMMAND's pid before it runs; refused,
    COMMAND never runs."""
    mark = tmp_path / 'ran'
    rc, words = _refused_line(tmp_path, 'cpudist', command=('touch', str(mark)))
    assert rc == 1 and not mark.exists()
    pid = int(words.split('arg3->tgid == ')[1].split()[0])
    assert words.endswith('if arg2->tgid == %d' % pid) and pid > 0
