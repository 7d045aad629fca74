# SPDX-License-Identifier: GPL-2.0
"""Issue 9 section 2, the tool: kstats calibrate (live only; --no-run
prints the table of a capture) and show --subtract-bias, against
tests/fixtures/calibrated/ (made by hand in the kernel's format, from the
samples of tests/fixtures/gen-calibrated.py)."""
import fractions
import importlib.util
import json
import os
import shutil

import pytest

from conftest import FIXTURES, live_env, nearest_rank, run, write_capture

CAL = os.path.join(FIXTURES, 'calibrated')
B, Q = 812, 1530        # vfs_read's bias_ns and bias_p99_ns (fprobe)
QS = [('p50', '0.5'), ('p90', '0.9'), ('p99', '0.99'), ('p99.9', '0.999')]


def gen():
    spec = importlib.util.spec_from_file_location(
        'gen_calibrated', os.path.join(FIXTURES, 'gen-calibrated.py'))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def raw(name):
    return sorted(v for _, v in gen().samples(name))


TABLE = '''\
mechanism  bias p50  bias p99    cost  samples
clock          25ns      31ns    25ns    10000
manual         41ns      60ns    48ns    10000
kretprobe    1.21us    2.38us  1.35us    10000
fprobe        812ns    1.53us   890ns    10000
bias: what an empty call measures as (p50, p99); cost: what the probe adds to the traced call, as its caller sees it
'''


def test_calibrate_table_of_capture():
    assert run('calibrate', '--no-run', '--dir', CAL).stdout == TABLE
    ns = run('calibrate', '--no-run', '--dir', CAL, '--unit', 'ns').stdout.splitlines()
    assert ns[3].split() == ['kretprobe', '1210ns', '2380ns', '1350ns', '10000']
    d = json.loads(run('calibrate', '--no-run', '--dir', CAL, '--json').stdout)
    assert d[3] == {'mechanism': 'fprobe', 'bias_ns': 812, 'bias_p99_ns': 1530,
                    'cost_ns': 890, 'samples': 10000}
    r = run('calibrate', '--no-run', '--dir', os.path.join(FIXTURES, 'helper'), check=False)
    assert r.returncode == 1 and 'has no calibration lines' in r.stderr


def test_calibrate_refused_on_capture(tmp_path):
    cap = str(tmp_path / 'cap')
    shutil.copytree(CAL, cap)
    before = open(os.path.join(cap, '_control'), 'rb').read()
    r = run('calibrate', '--dir', cap, check=False)
    assert r.returncode == 1 and r.stdout == ''
    assert r.stderr == 'kstats: error: %s is not on debugfs (a saved capture?): calibrate ' \
        'writes only to the live kstats directory\n' % cap
    assert open(os.path.join(cap, '_control'), 'rb').read() == before


def test_calibrate_writes_then_reads(tmp_path):
    """On the live directory: 'calibrate' written; the lines read back."""
    ctl = tmp_path / '_control'
    ctl.write_text('')
    r = run('calibrate', '--dir', tmp_path, check=False, env=live_env(tmp_path))
    # A regular file just keeps what was written: no calibration lines.
    assert ctl.read_text() == 'calibrate\n'
    assert r.returncode == 1 and 'has no calibration lines' in r.stderr


def test_calibrate_refused_by_kernel(tmp_path):
    os.symlink('/dev/full', str(tmp_path / '_control'))
    r = run('calibrate', '--dir', tmp_path, check=False,
            env=live_env(tmp_path, KSTATS_DMESG='true'))
    assert r.returncode == 1
    assert "'calibrate' refused by %s: ENOSPC" % (tmp_path / '_control') in r.stderr


@pytest.mark.parametrize('line', [
    'calibration mechanism fprobe bias_ns x bias_p99_ns 1 cost_ns 1 samples 1',
    'calibration mechanism fprobe bias_ns 1 bias_p99_ns 1 cost_ns 1',
    'calibration mechanism fprobe bias_ns 1 cost_ns 1 bias_p99_ns 1 samples 1'])
def test_bad_calibration_line(tmp_path, line):
    cap = str(tmp_path / 'cap')
    shutil.copytree(CAL, cap)
    with open(os.path.join(cap, '_control'), 'a') as f:
        f.write(line + '\n')
    for argv in (['calibrate', '--no-run'], ['show', 'vfs_read'], ['list']):
        r = run(argv[0], '--dir', cap, *argv[1:], check=False)
        assert r.returncode == 1 and r.stderr.startswith('kstats: error: %s/_control:8: '
                                                         % cap), r.stderr


def test_subtract_bias_json():
    d = json.loads(run('show', '--dir', CAL, 'vfs_read', '--json').stdout)
    s = json.loads(run('show', '--dir', CAL, 'vfs_read', '--json', '--subtract-bias').stdout)
    assert s['bias_subtracted'] == {'bias_ns': B, 'bias_p99_ns': Q, 'spread_ns': Q - B,
                                    'mechanism': 'fprobe'}
    values = raw('vfs_read')
    for key, q in QS:
        a, b = d['percentiles'][key], s['percentiles'][key]
        assert b['value'] == max(a['value'] - B, 0)
        assert b['bound'] == a['bound'] + (Q - B)
        assert b['lo'] == max(a['lo'] - B - (Q - B), 0) and b['hi'] == a['hi'] - B + (Q - B)
        # The exact percentile minus the bias is inside the shifted range.
        exact = nearest_rank(values, fractions.Fraction(q)) - B
        assert b['lo'] <= exact <= b['hi'] and abs(b['value'] - exact) <= b['bound']
    assert s['mean'] == pytest.approx(d['mean'] - B)
    assert s['mean_bound'] == pytest.approx(d['mean_bound'] + Q - B)
    assert s['stddev'] == d['stddev'] and s['count'] == d['count'] == 2000
    assert s['min']['value'] == max(d['min']['value'] - B, 0)
    assert s['max']['value'] == d['max']['value'] - B
    assert [x['lo'] for x in s['slots']] == [max(x['lo'] - B, 0) for x in d['slots']]
    assert s['per_cpu']['0']['percentiles']['p50']['value'] == \
        max(d['per_cpu']['0']['percentiles']['p50']['value'] - B, 0)


def test_subtract_bias_text():
    out = run('show', '--dir', CAL, 'vfs_read', '--subtract-bias', '--unit', 'ns').stdout
    lines = out.splitlines()
    assert lines[3] == ('bias subtracted: values shifted down by 812ns (bias_ns of fprobe: the '
                        'p50 of an empty call; clamped at 0), bounds widened by the bias spread '
                        '718ns (bias_p99_ns 1530 - bias_ns 812)')
    us = run('show', '--dir', CAL, 'vfs_read', '--subtract-bias', '--unit', 'us').stdout
    assert us.splitlines()[3].startswith('bias subtracted: values shifted down by 0.812us (')
    assert 'by the bias spread 0.718us (bias_p99_ns 1530 - bias_ns 812)' in us
    plain = run('show', '--dir', CAL, 'vfs_read', '--unit', 'ns').stdout.splitlines()
    assert not [l for l in plain if l.startswith('bias subtracted')]
    # The histogram's first range moves down by the bias.
    h0 = [l for l in plain if l.startswith('[')][0]
    s0 = [l for l in lines if l.startswith('[')][0]
    lo = int(h0[1:].split('ns')[0])
    assert s0.startswith('[%dns, ' % (lo - B))
    assert h0.split(')')[1].split('|')[0].strip() == s0.split(')')[1].split('|')[0].strip()


@pytest.mark.parametrize('name,msg', [
    ('nocal', 'nocal: its mechanism kretprobe is not calibrated yet (bias_ns -): run kstats '
              'calibrate first'),
    ('hook', 'hook is a kernel entry (a kstats_record() hook, no probe): it has no probe '
             'bias to subtract'),
])
def test_subtract_bias_refused(name, msg):
    for more in ([], ['--json']):
        r = run('show', '--dir', CAL, name, '--subtract-bias', *more, check=False)
        assert r.returncode == 1 and r.stdout == ''
        assert r.stderr == 'kstats: error: %s\n' % msg


def test_subtract_bias_without_bias_key(tmp_path):
    cap = write_capture(tmp_path / 'c', {'old': (4, [(0, 1000), (0, 2000)])},
                        ' mechanism fprobe')
    ctl = os.path.join(cap, '_control')
    text = open(ctl).read().replace('origin kernel', 'origin control')
    open(ctl, 'w').write(text)
    r = run('show', '--dir', cap, 'old', '--subtract-bias', check=False)
    assert r.returncode == 1 and 'has no bias_ns in its _control line' in r.stderr


def test_subtract_bias_on_saved_captures(tmp_path):
    want = json.loads(run('show', '--dir', CAL, 'vfs_read', '--json', '--subtract-bias').stdout)
    dest = tmp_path / 'snap'
    run('save', '--dir', CAL, '--all', dest)
    # The capture keeps the calibration lines and the entries' bias.
    assert open(str(dest / '_control')).read() == open(os.path.join(CAL, '_control')).read()
    got = json.loads(run('show', '--dir', dest, 'vfs_read', '--json', '--subtract-bias').stdout)
    assert got['percentiles'] == want['percentiles']
    assert run('calibrate', '--no-run', '--dir', dest).stdout == TABLE
    # A single saved file carries them in its header.
    one = tmp_path / 'vfs_read.txt'
    run('save', '--dir', CAL, 'vfs_read', one)
    got = json.loads(run('show', one, '--json', '--subtract-bias').stdout)
    assert got['percentiles'] == want['percentiles'] and got['bits_from'] == 'the save header'
