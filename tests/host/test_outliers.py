# SPDX-License-Identifier: GPL-2.0
"""An entry's largest samples (trace ... outliers N): _outliers/NAME
parsed (good, empty, malformed), show's section of them (exact lines,
--stack, --cpu, --key, the terminal's width, ASCII output), show --json's
"outliers", captures that keep _outliers/NAME (save, record), and
kstats latency --outliers (its trace line, its section, refused with
-i). Times print in TZ=UTC."""
import argparse
import json
import os
import shutil
import time

import pytest

from conftest import live_env, run, write_capture, write_keyed
from kstats import latency
from kstats.errors import Error
from kstats.outliers import load_outliers_text, parse_outliers_text
from kstats.render import DEFAULT_PERCENTILES, parse_percentiles

UTC = {'TZ': 'UTC'}

# The entry's samples: 5 of 1024 and outlier 2 on CPU 0, outlier 1 on CPU 1.
SAMPLES = [(0, 1024)] * 5 + [(0, 303521), (1, 421487)]

OUTLIERS = (
    'outlier 1 value 421487 time 1795791657.857415699 mono 1000001 cpu 1 pid 176 tid 176 comm kob\n'
    'outlier 1 stack kstats_helper_work+0x5/0xd0 [kstats_helper]\n'
    'outlier 1 stack helper_run+0x1040/0x1390 [kstats_helper]\n'
    'outlier 1 stack ksys_write+0x6f/0xf0\n'
    'outlier 1 stack __x64_sys_write+0x19/0x30\n'
    'outlier 2 value 303521 time 1795791657.851400310 mono 1000002 cpu 0 pid 175 tid 178 comm my\\040prog\n'
    'outlier 2 stack vfs_write+0xf5/0x450\n'
    'outlier 3 value 1024 time 1795791600.000001999 mono 1000003 cpu 0 pid 1 tid 1 comm x\\303\\251\n')

SECTION = [
    'slowest 3 samples (outliers 3, since the last reset):',
    '#   value  time                        cpu  pid  comm',
    '1   421us  2026-11-27 15:00:57.857415    1  176  kob',
    '    kstats_helper_work+0x5/0xd0 [kstats_helper]',
    '    helper_run+0x1040/0x1390 [kstats_helper]',
    '    ksys_write+0x6f/0xf0',
    '    ... 1 more frame',
    '2   304us  2026-11-27 15:00:57.851400    0  175  my prog',
    '    vfs_write+0xf5/0x450',
    '3  1.02us  2026-11-27 15:00:00.000001    0    1  x\u00e9',
]


def capture(tmp_path, text=OUTLIERS, extra=' outliers 3 outliers_missed 0', samples=SAMPLES):
    d = write_capture(tmp_path / 'cap', {'rd': (2, samples)}, extra)
    os.makedirs(os.path.join(d, '_outliers'))
    if text is not None:
        with open(os.path.join(d, '_outliers', 'rd'), 'w') as f:
            f.write(text)
    return d


def section(out):
    """The lines of the outliers section: from its heading to the end."""
    lines = out.split('\n')
    i = [n for n, x in enumerate(lines) if x.startswith(('slowest ', 'largest '))][-1]
    assert lines[i - 1] == '' and lines[-1] == ''
    return lines[i:-1]


def test_parse_good():
    recs = load_outliers_text(OUTLIERS, '_outliers/rd', None, False)
    assert [(o.rank, o.value, o.sec, o.nsec, o.cpu, o.pid, o.tid, o.comm, o.key_raw, o.key)
            for o in recs] == [
        (1, 421487, 1795791657, 857415699, 1, 176, 176, 'kob', None, None),
        (2, 303521, 1795791657, 851400310, 0, 175, 178, 'my prog', None, None),
        (3, 1024, 1795791600, 1999, 0, 1, 1, 'x\u00e9', None, None)]
    assert recs[0].stack == ['kstats_helper_work+0x5/0xd0 [kstats_helper]',
                             'helper_run+0x1040/0x1390 [kstats_helper]',
                             'ksys_write+0x6f/0xf0', '__x64_sys_write+0x19/0x30']
    assert recs[1].stack == ['vfs_write+0xf5/0x450'] and recs[2].stack == []
    # Keys named as _keys/NAME's: an errno name for retval.
    keyed = load_outliers_text('outlier 1 value 9 time 1.000000000 mono 1000004 cpu 0 pid -1 tid 0 comm '
                               'a key -11\n', 'f', 'retval', False)
    assert (keyed[0].pid, keyed[0].key_raw, keyed[0].key) == (-1, '-11', '-EAGAIN')


def test_parse_empty():
    assert parse_outliers_text('', 'f') == ([], {})
    assert load_outliers_text('', 'f', 'comm', False) == []


@pytest.mark.parametrize('text,lineno,msg', [
    ('outlier 1 stack f+0x1/0x2\n', 1,
     "a stack line of outlier 1 outside its record (after its 'outlier 1 value ...' line)"),
    ('outlier 1 value 5 time 1.000000000 mono 1000005 cpu 0 pid 1 tid 1\n', 1,
     "expected 'outlier I value V time S.NNNNNNNNN mono NS cpu C pid P tid T comm NAME [key K]' or "
     "'outlier I stack FRAME'"),
    ('outlier 1 value 5 time 1.000000000 mono x cpu 0 pid 1 tid 1 comm a\n', 1,
     "mono 'x' is not a number"),
    ('outlier 1 value 5x time 1.000000000 mono 1000006 cpu 0 pid 1 tid 1 comm a\n', 1,
     "value '5x' is not a number"),
    ('outlier 1 value 5 time 1.5 mono 1000007 cpu 0 pid 1 tid 1 comm a\n', 1,
     "time '1.5' is not seconds.nanoseconds (such as 1764247163.408152339)"),
    ('outlier 1 value 5 time 1.000000000 mono 1000008 cpu x pid 1 tid 1 comm a\n', 1,
     "cpu 'x' is not a number"),
    ('outlier 1 value 5 time 1.000000000 mono 1000009 cpu 0 pid 1 tid 1 comm a\n'
     'outlier 3 value 4 time 1.000000000 mono 1000010 cpu 0 pid 1 tid 1 comm a\n', 2,
     'outlier 3 after outlier 1: ranks count up from 1'),
    ('outlier 1 value 5 time 1.000000000 mono 1000011 cpu 0 pid 1 tid 1 comm a\n'
     'outlier 2 value 6 time 1.000000000 mono 1000012 cpu 0 pid 1 tid 1 comm a\n', 2,
     'value 6 above the value 5 of outlier 1: the file lists the largest first'),
    ('outlier 1 value 5 time 1.000000000 mono 1000013 cpu 0 pid 1 tid 1 comm a\noutlier 1 stack f', 2,
     'the last line has no newline: truncated file?'),
    ('slot 3 CPU 0 count 1 avg 3 p 1.000000\n', 1,
     "expected 'outlier I value V time S.NNNNNNNNN mono NS cpu C pid P tid T comm NAME [key K]' or "
     "'outlier I stack FRAME'"),
])
def test_parse_malformed(text, lineno, msg):
    with pytest.raises(Error) as err:
        parse_outliers_text(text, 'snap/_outliers/rd')
    assert str(err.value) == 'snap/_outliers/rd:%d: %s' % (lineno, msg)


def test_show_section(tmp_path):
    d = capture(tmp_path)
    out = run('show', '--dir', d, 'rd', env=UTC).stdout
    assert section(out) == SECTION
    # After the per-CPU table, the last of show's parts.
    assert out.index('per CPU:') < out.index('slowest 3 samples')
    assert 'outliers 3 outliers_missed 0' in out.split('\n')[2]


def test_show_stack(tmp_path):
    d = capture(tmp_path)
    rows = [x for x in SECTION if not x.startswith('    ')]
    assert section(run('show', '--dir', d, 'rd', '--stack', '0', env=UTC).stdout) == rows
    assert section(run('show', '--dir', d, 'rd', '--stack', '1', env=UTC).stdout) == [
        rows[0], rows[1], rows[2], '    kstats_helper_work+0x5/0xd0 [kstats_helper]',
        '    ... 3 more frames', rows[3], '    vfs_write+0xf5/0x450', rows[4]]
    every = section(run('show', '--dir', d, 'rd', '--stack', '99', env=UTC).stdout)
    assert every == SECTION[:6] + ['    __x64_sys_write+0x19/0x30'] + SECTION[7:]
    r = run('show', '--dir', d, 'rd', '--stack', '-1', check=False)
    assert r.returncode == 2 and \
        'show: error: --stack must be 0 or more, not -1' in r.stderr


def test_show_cpu_and_unit(tmp_path):
    d = capture(tmp_path)
    out = run('show', '--dir', d, 'rd', '--cpu', '0', '--unit', 'ns', '--stack', '0',
              env=UTC).stdout
    assert section(out) == [
        'slowest 2 samples of CPU 0 (outliers 3, since the last reset):',
        '#     value  time                        cpu  pid  comm',
        '2  303521ns  2026-11-27 15:00:57.851400    0  175  my prog',
        '3    1024ns  2026-11-27 15:00:00.000001    0    1  x\u00e9']
    d = capture(tmp_path / 'cpu0', OUTLIERS.replace('cpu 1 pid 176', 'cpu 0 pid 176'))
    out = run('show', '--dir', d, 'rd', '--cpu', '1', env=UTC).stdout
    assert section(out) == ['slowest samples of CPU 1 (outliers 3, since the last reset): none']


def test_show_subtract_bias(tmp_path):
    """--subtract-bias shifts the outliers as it shifts the max."""
    d = capture(tmp_path)
    with open(os.path.join(d, '_control'), 'w') as f:
        f.write('name rd origin control mechanism fprobe targets rd bits 2 state running '
                'bias_ns 1000 bias_p99_ns 1100 outliers 3 outliers_missed 0\n')
    out = run('show', '--dir', d, 'rd', '--subtract-bias', '--unit', 'ns', '--stack', '0',
              env=UTC).stdout
    assert [x.split()[:2] for x in section(out)[2:]] == [['1', '420487ns'], ['2', '302521ns'],
                                                        ['3', '24ns']]


def test_show_fits_columns(tmp_path):
    text = OUTLIERS.replace('comm kob', 'comm a_task_name_15')
    d = capture(tmp_path, text)
    lines = section(run('show', '--dir', d, 'rd', '--stack', '0',
                        env=dict(UTC, COLUMNS='60')).stdout)
    # Without pid: every line within 60 columns.
    assert lines[1:3] == ['#   value  time                        cpu  comm',
                          '1   421us  2026-11-27 15:00:57.857415    1  a_task_name_15']
    assert max(len(x) for x in lines) <= 60
    wide = section(run('show', '--dir', d, 'rd', '--stack', '0', env=UTC).stdout)
    assert wide[1] == '#   value  time                        cpu  pid  comm'


def test_ascii_output(tmp_path):
    d = capture(tmp_path)
    r = run('show', '--dir', d, 'rd', env=dict(UTC, LC_ALL='C', PYTHONIOENCODING='ascii'))
    assert section(r.stdout) == SECTION[:-1] + [SECTION[-1].replace('\u00e9', '?')]
    r.stdout.encode('ascii')


def test_json(tmp_path):
    d = capture(tmp_path)
    doc = json.loads(run('show', '--dir', d, 'rd', '--json').stdout)
    assert doc['info']['outliers'] == 3 and doc['info']['outliers_missed'] == 0
    assert doc['outliers'] == [
        {'rank': 1, 'value': 421487, 'time': 1795791657.857415699,
         'time_ns': 1795791657857415699, 'mono_ns': 1000001, 'cpu': 1, 'pid': 176, 'tid': 176, 'comm': 'kob',
         'key': None, 'stack': ['kstats_helper_work+0x5/0xd0 [kstats_helper]',
                                'helper_run+0x1040/0x1390 [kstats_helper]',
                                'ksys_write+0x6f/0xf0', '__x64_sys_write+0x19/0x30']},
        {'rank': 2, 'value': 303521, 'time': 1795791657.85140031,
         'time_ns': 1795791657851400310, 'mono_ns': 1000002, 'cpu': 0, 'pid': 175, 'tid': 178,
         'comm': 'my prog', 'key': None, 'stack': ['vfs_write+0xf5/0x450']},
        {'rank': 3, 'value': 1024, 'time': 1795791600.000002, 'time_ns': 1795791600000001999, 'mono_ns': 1000003,
         'cpu': 0, 'pid': 1, 'tid': 1, 'comm': 'x\u00e9', 'key': None, 'stack': []}]
    # In the unit of every time of the document; --cpu picks as the text does.
    doc = json.loads(run('show', '--dir', d, 'rd', '--json', '--unit', 'us', '--cpu',
                         '1').stdout)
    assert [(o['rank'], o['value']) for o in doc['outliers']] == [(1, 421.487)]
    plain = json.loads(run('show', '--dir', write_capture(tmp_path / 'plain', {
        'rd': (2, SAMPLES)}), 'rd', '--json').stdout)
    assert 'outliers' not in plain


def test_empty_file(tmp_path):
    d = capture(tmp_path, '')
    out = run('show', '--dir', d, 'rd').stdout
    assert section(out) == ['slowest samples (outliers 3, since the last reset): none']
    assert json.loads(run('show', '--dir', d, 'rd', '--json').stdout)['outliers'] == []


def test_value_entry(tmp_path):
    d = capture(tmp_path, OUTLIERS.split('outlier 2')[0],
                ' value arg3 outliers 1 outliers_missed 0')
    assert section(run('show', '--dir', d, 'rd', '--stack', '0', env=UTC).stdout) == [
        'largest 1 sample (outliers 1, since the last reset):',
        '#   value  time                        cpu  pid  comm',
        '1  421487  2026-11-27 15:00:57.857415    1  176  kob']


def test_missing_or_bad_file(tmp_path):
    d = capture(tmp_path, None)
    r = run('show', '--dir', d, 'rd')
    assert 'slowest' not in r.stdout
    assert r.stderr == ('kstats: warning: rd keeps outliers (outliers 3), but %s has no '
                        '_outliers/rd: its outliers were not saved\n' % d)
    with open(os.path.join(d, '_outliers', 'rd'), 'w') as f:
        f.write(OUTLIERS.replace('cpu 0 pid 175', 'cpu 0 pid x'))
    r = run('show', '--dir', d, 'rd', check=False)
    assert (r.returncode, r.stdout) == (1, '')
    assert r.stderr == "kstats: error: %s:6: pid 'x' is not a number\n" % os.path.join(
        d, '_outliers', 'rd')


KEYS = {'bash': [(0, 1024)] * 3, 'my\\040prog': [(1, 421487)], None: [(0, 303521)]}

KEYED = ('outlier 1 value 421487 time 1795791657.857415699 mono 1000014 cpu 1 pid 176 tid 176 comm kob '
         'key my\\040prog\n'
         'outlier 2 value 303521 time 1795791657.851400310 mono 1000015 cpu 0 pid 175 tid 175 comm zsh '
         'key zsh\n')


def test_keyed(tmp_path):
    d = write_keyed(tmp_path / 'k', 'rd', 2, 'comm', KEYS,
                    extra=' outliers 2 outliers_missed 0')
    os.makedirs(os.path.join(d, '_outliers'))
    with open(os.path.join(d, '_outliers', 'rd'), 'w') as f:
        f.write(KEYED)
    out = run('show', '--dir', d, 'rd', env=UTC).stdout
    rows = ['1  421us  2026-11-27 15:00:57.857415    1  176  kob   my prog',
            '2  304us  2026-11-27 15:00:57.851400    0  175  zsh   zsh']
    assert section(out) == ['slowest 2 samples (outliers 2, since the last reset):',
                            '#  value  time                        cpu  pid  comm  key'] + rows
    # After the key table.
    assert out.index('per key') < out.index('slowest 2 samples')
    one = run('show', '--dir', d, 'rd', '--key', 'my prog', env=UTC).stdout
    assert section(one)[0] == 'slowest 1 sample of key my prog (outliers 2, since the last ' \
        'reset):' and section(one)[2:] == rows[:1]
    # other: the samples of keys without a histogram of their own (zsh).
    other = run('show', '--dir', d, 'rd', '--key', 'other', env=UTC).stdout
    assert section(other)[2:] == rows[1:]
    none = run('show', '--dir', d, 'rd', '--key', 'bash').stdout
    assert section(none) == ['slowest samples of key bash (outliers 2, since the last '
                             'reset): none']
    doc = json.loads(run('show', '--dir', d, 'rd', '--json').stdout)
    assert [o['key'] for o in doc['outliers']] == ['my prog', 'zsh']


def test_cgroup_keys_saved(tmp_path):
    root = tmp_path / 'cgroup'
    (root / 'user.slice').mkdir(parents=True)
    ino = str(os.stat(str(root / 'user.slice')).st_ino)
    d = write_keyed(tmp_path / 'k', 'rd', 2, 'cgroup', {ino: [(0, 4)], None: [(0, 8)]},
                    extra=' outliers 1 outliers_missed 0')
    os.makedirs(os.path.join(d, '_outliers'))
    with open(os.path.join(d, '_outliers', 'rd'), 'w') as f:
        f.write('outlier 1 value 8 time 1.000000000 mono 1000016 cpu 0 pid 5 tid 5 comm a key %s\n' % ino)
    env = {'KSTATS_CGROUP_ROOT': str(root)}
    j = json.loads(run('show', '--dir', d, 'rd', '--json', env=env).stdout)
    assert j['outliers'][0]['key'] == '/user.slice'
    dest = str(tmp_path / 'saved')
    run('save', '--dir', d, '--all', dest, env=env)
    assert open(os.path.join(dest, '_outliers', 'rd')).read() == \
        '# cgroup %s /user.slice\n' % ino + open(os.path.join(d, '_outliers', 'rd')).read()
    shutil.rmtree(str(root))
    j = json.loads(run('show', '--dir', dest, 'rd', '--json', env=env).stdout)
    assert j['outliers'][0]['key'] == '/user.slice'


def test_capture_keeps_outliers(tmp_path):
    d = capture(tmp_path)
    dest = str(tmp_path / 'saved')
    run('save', '--dir', d, '--all', dest)
    assert open(os.path.join(dest, '_outliers', 'rd')).read() == OUTLIERS
    for args in (['rd'], ['rd', '--json'], ['rd', '--stack', '9']):
        live = run('show', '--dir', d, *args, env=UTC).stdout
        saved = run('show', '--dir', dest, *args, env=UTC).stdout
        assert saved == live.replace(d, dest), args
    # Saved again without outliers: none left from before.
    os.unlink(os.path.join(d, '_outliers', 'rd'))
    with open(os.path.join(d, '_control'), 'w') as f:
        f.write('name rd origin kernel bits 2 state running\n')
    run('save', '--dir', d, 'rd', dest + '/')
    assert not os.path.exists(os.path.join(dest, '_outliers', 'rd'))
    # A single file keeps the histogram only, and says so.
    d = capture(tmp_path / 'again')
    r = run('save', '--dir', d, 'rd', tmp_path / 'one.txt')
    assert r.stderr == 'kstats: warning: rd: its outliers are kept only in a capture ' \
        'directory (save NAME DIR/)\n'
    # record: its start and end captures keep them.
    rec = str(tmp_path / 'rec')
    run('record', '--dir', d, 'rd', '-n', '1', '-i', '0.05', '-o', rec)
    for part in ('start', 'end'):
        assert open(os.path.join(rec, part, '_outliers', 'rd')).read() == OUTLIERS
        out = run('show', '--dir', os.path.join(rec, part), 'rd', env=UTC).stdout
        assert section(out) == SECTION


@pytest.fixture
def utc():
    old = os.environ.get('TZ')
    os.environ['TZ'] = 'UTC'
    time.tzset()
    yield
    if old is None:
        del os.environ['TZ']
    else:
        os.environ['TZ'] = old
    time.tzset()


def latency_args(tmp_path, **more):
    args = argparse.Namespace(
        dir=str(tmp_path), bits=None, cpu=None, hist_bits=None, bias=None, rows=40, unit=None,
        width=None, interval=None, by=None, targets=['vfs_read'], max_targets=50, via=None,
        pid=None, comm=None, run=None, duration=0.05, command='latency', outliers=3, stack=1,
        percentiles=parse_percentiles(DEFAULT_PERCENTILES))
    for k, v in more.items():
        setattr(args, k, v)
    return args


def test_latency_outliers(tmp_path, monkeypatch, capsys, utc):
    """--outliers N: 'outliers N' on each target's trace line, and each
    histogram's outliers printed under it at the end."""
    (tmp_path / '_control').write_text('')
    monkeypatch.setenv('KSTATS_TEST_LIVE_DIR', str(tmp_path))
    monkeypatch.setenv('KSTATS_DEVICE', str(tmp_path / 'no-such-device'))
    written = []

    def write(path, line, show_reason=True):
        written.append(line)
        w = line.split()
        if w[0] == 'trace':
            (tmp_path / '_control').write_text(
                'name %s origin control mechanism fprobe targets %s bits 2 state running '
                'outliers 3 outliers_missed 0\n' % (w[-1], w[1]))
            (tmp_path / w[-1]).write_text(
                'slot 20  CPU  0    count        3 avg       70 p 1.000000\n'
                'slot 20  CPUS 1    count        3 avg       70 p 1.000000\n')
            (tmp_path / '_outliers').mkdir()
            (tmp_path / '_outliers' / w[-1]).write_text(
                'outlier 1 value 71 time 1795791657.857415699 mono 1000017 cpu 0 pid 176 tid 176 comm kob\n'
                'outlier 1 stack vfs_read+0x5/0xd0\noutlier 1 stack ksys_read+0x6f/0xf0\n')
        return 0
    monkeypatch.setattr(latency, 'write_command', write)
    assert latency.cmd_latency(latency_args(tmp_path, targets=['vfs_read bits 2'])) == 0
    name = 'kl%d_0' % os.getpid()
    assert written == ['trace vfs_read bits 2 outliers 3 as %s\n' % name, 'stop %s\n' % name,
                       'remove %s\n' % name]
    out = capsys.readouterr().out
    assert out.startswith('vfs_read  (%s)\n' % (tmp_path / name))
    assert section(out) == ['slowest 1 sample (outliers 3, since the last reset):',
                            '#  value  time                        cpu  pid  comm',
                            '1   71ns  2026-11-27 15:00:57.857415    0  176  kob',
                            '    vfs_read+0x5/0xd0', '    ... 1 more frame']
    # Without --outliers: the trace line as it was.
    written.clear()
    shutil.rmtree(str(tmp_path / '_outliers'))
    assert latency.cmd_latency(latency_args(tmp_path, outliers=None)) == 0
    assert written[0] == 'trace vfs_read as %s\n' % name


def test_latency_outliers_not_with_interval(tmp_path):
    (tmp_path / '_control').write_text('')
    r = run('latency', '--dir', tmp_path, 'vfs_read', '--outliers', '3', '-i', '1s', '-d',
            '2s', check=False, env=live_env(tmp_path))
    assert (r.returncode, r.stderr) == (
        1, 'kstats: error: --outliers prints the slowest samples once, at the end: not with '
        '-i\n')
    r = run('latency', '--dir', tmp_path, 'vfs_read', '--outliers', '0', check=False,
            env=live_env(tmp_path))
    assert r.returncode == 2 and 'latency: error: --outliers must be 1 or more, not 0' in \
        r.stderr
