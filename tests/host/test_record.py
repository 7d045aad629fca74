# SPDX-License-Identifier: GPL-2.0
"""kstats record and kstats heatmap: exact interval deltas per CPU and
slot, resets and entries made anew, the recording read back by show, diff
and export, the heatmap's JSON cells and gnuplot boxes, and bad input.

The changing "live" entry is served through a stand-in ssh that applies
the next snapshot of a list before each read of the entry: every read
sees exactly the snapshot the test chose, with no timing involved."""
import json
import os
import random
import signal
import stat
import subprocess

import pytest

from conftest import PYTHON, TOOL, entry_text, run
from kstats import model
from kstats.capture import read_bytes
from test_plot import gnuplot, png_size

BITS = 3


def draw(seed, n, lo=600, hi=40000, cpus=2):
    """n (cpu, value) samples, log-uniform in [lo, hi)."""
    rnd = random.Random(seed)
    return [(rnd.randrange(cpus), int(lo * (hi / lo) ** rnd.random())) for _ in range(n)]


def counts(samples, bits=BITS):
    """{(slot, cpu): n} and {(slot, 'CPUS'): n} of raw samples."""
    out = {}
    for cpu, v in samples:
        s = model.slot_of(v, bits)
        out[(s, cpu)] = out.get((s, cpu), 0) + 1
        out[(s, 'CPUS')] = out.get((s, 'CPUS'), 0) + 1
    return out


def file_counts(path):
    """The same, from an entry file."""
    out = {}
    for line in open(path):
        w = line.split()
        out[(int(w[1]), 'CPUS' if w[2] == 'CPUS' else int(w[3]))] = int(w[5])
    return out


class Remote(object):
    """A live directory behind a stand-in ssh. snaps: a list of
    (samples, how, bits) applied one per read of the entry: how is 'same'
    (rewritten in place, same inode), 'anew' (a new file: the entry made
    again) or 'gone' (removed); bits changes _control's line."""

    def __init__(self, tmp_path, snaps, name='lat'):
        self.dir = tmp_path / 'live'
        self.dir.mkdir()
        self.name = name
        sd = tmp_path / 'snaps'
        sd.mkdir()
        for i, (samples, how, bits) in enumerate(snaps):
            d = sd / str(i)
            d.mkdir()
            (d / 'how').write_text(how)
            if how != 'gone':
                (d / name).write_text(entry_text(samples, bits) if samples else '')
                (d / '_control').write_text('name %s origin control bits %d state running\n'
                                            % (name, bits))
        (tmp_path / 'n').write_text('0')
        # The stand-in: before each identified read (stat) of the entry,
        # the next snapshot; then the command runs here.
        self.ssh = tmp_path / 'ssh'
        self.ssh.write_text('''#!/bin/sh
shift
case "$*" in
*"stat -L"*)
	n=$(cat {t}/n); s={t}/snaps/$n
	if [ -d $s ]; then
		echo $((n + 1)) > {t}/n
		case $(cat $s/how) in
		gone) rm -f {live}/{name} ;;
		anew) cp $s/{name} {live}/.new && mv {live}/.new {live}/{name}
		      cp $s/_control {live}/_control ;;
		*) cat $s/{name} > {live}/{name}; cp $s/_control {live}/_control ;;
		esac
	fi ;;
esac
exec sh -c "$*"
'''.format(t=tmp_path, live=self.dir, name=name))
        self.ssh.chmod(self.ssh.stat().st_mode | stat.S_IEXEC)
        first = tmp_path / 'snaps' / '0'
        (self.dir / name).write_text((first / name).read_text())
        (self.dir / '_control').write_text((first / '_control').read_text())

    def record(self, out, n, *more, check=True):
        return run('--ssh', 'root@host', 'record', '--dir', self.dir, self.name, '-i', '0.01',
                   '-n', n, '-o', out, *more, env={'KSTATS_SSH': str(self.ssh)}, check=check)


def index(rec):
    """The interval lines of a recording's _record, as dicts."""
    lines = open(os.path.join(str(rec), '_record')).read().splitlines()
    assert lines[0].startswith('# kstats-record version 1 unit ns interval 0.01 ')
    return [dict(zip(l.split()[0::2], l.split()[1::2])) for l in lines[1:]]


def test_deltas_exact(tmp_path):
    """Each interval holds exactly the samples added since the previous
    read, per CPU and slot, and the totals."""
    a, b1, b2, b3 = draw(1, 3000), draw(2, 700), draw(3, 0), draw(4, 1500)
    snaps = [(a, 'same', BITS), (a + b1, 'same', BITS), (a + b1 + b2, 'same', BITS),
             (a + b1 + b2 + b3, 'same', BITS)]
    rem = Remote(tmp_path, snaps)
    rec = tmp_path / 'rec'
    out = rem.record(rec, 3).stdout
    assert out.splitlines()[0].startswith('recording lat every 0.01 s for 3 intervals into ')
    assert [l.split()[-1] for l in out.splitlines()[1:4]] == ['700', '0', '1500']
    idx = index(rec)
    assert [(d['interval'], d['dir'], d['delta'], d['count'], d['bits']) for d in idx] == [
        ('1', '0001', 'ok', '700', '3'), ('2', '0002', 'ok', '0', '3'),
        ('3', '0003', 'ok', '1500', '3')]
    assert all(float(d['from']) < float(d['to']) for d in idx)
    assert [idx[i]['to'] == idx[i + 1]['from'] for i in range(2)] == [True, True]
    assert file_counts(str(rec / '0001' / 'lat')) == counts(b1)
    assert open(str(rec / '0002' / 'lat')).read() == ''
    assert file_counts(str(rec / '0003' / 'lat')) == counts(b3)
    # The first and last reads, as read.
    assert file_counts(str(rec / 'start' / 'lat')) == counts(a)
    assert file_counts(str(rec / 'end' / 'lat')) == counts(a + b1 + b2 + b3)
    # The intervals are captures: show, diff and export read them.
    d = json.loads(run('--dir', rec / '0003', 'show', 'lat', '--json').stdout)
    assert d['count'] == 1500 and d['bits'] == 3 and d['bits_from'] == '_control'
    assert {c: v['count'] for c, v in d['per_cpu'].items()} == {
        str(c): sum(1 for x, _ in b3 if x == c) for c in (0, 1)}
    assert d['info']['rec_delta'] == 'ok' and d['info']['rec_interval'] == 3
    r = json.loads(run('diff', rec / '0001' / 'lat', rec / '0003' / 'lat', '--json').stdout)
    assert r['a']['count'] == 700 and r['b']['count'] == 1500
    exp = run('--dir', rec / '0001', 'export', '--openmetrics').stdout
    assert 'kstats_duration_seconds_count{entry="lat"} 700\n' in exp


def test_reset_new_file_missing_and_bits(tmp_path):
    """A count that went down (reset), a file made anew with more samples
    in every slot than before (only its inode tells), an entry gone, one
    back with other bits: never a negative delta, each marked."""
    a, b, c, d = draw(11, 2000), draw(12, 500), draw(13, 300), draw(14, 400)
    e = (c + d) * 2 + draw(15, 50)         # more in every slot than c + d
    f, g = draw(16, 900), draw(17, 250)
    snaps = [(a, 'same', BITS), (a + b, 'same', BITS), (c, 'same', BITS),
             (c + d, 'same', BITS), (e, 'anew', BITS), (None, 'gone', BITS),
             (f, 'anew', 2), (f + g, 'same', 2)]
    rem = Remote(tmp_path, snaps)
    rec = tmp_path / 'rec'
    out = rem.record(rec, 7).stdout
    idx = index(rec)
    assert [(x['delta'], x.get('why'), x['count'], x['bits']) for x in idx] == [
        ('ok', None, '500', '3'), ('reset', 'counts', '300', '3'), ('ok', None, '400', '3'),
        ('reset', 'file', str(len(e)), '3'), ('missing', None, '0', '-'),
        ('reset', 'appeared', '900', '2'), ('ok', None, '250', '2')]
    assert '(reset: counts)' in out and 'lat missing' in out
    for i, want in ((1, b), (2, c), (3, d), (4, e)):
        assert file_counts(str(rec / ('%04d' % i) / 'lat')) == counts(want), i
    assert not os.path.exists(str(rec / '0005' / 'lat'))
    assert open(str(rec / '0005' / '_control')).read() == ''
    assert file_counts(str(rec / '0006' / 'lat')) == counts(f, 2)
    assert file_counts(str(rec / '0007' / 'lat')) == counts(g, 2)
    ctl = open(str(rec / '0006' / '_control')).read()
    assert ctl.startswith('name lat bits 2 origin control state running rec_interval 6 ')
    assert ctl.endswith(' rec_delta reset rec_why appeared\n')

    # The heatmap: every cell exact, at the smallest bits (2) of the
    # intervals, from the first to the last slot with samples.
    h = json.loads(run('heatmap', rec, '--json').stdout)
    assert h['bits'] == 2 and h['unit'] == 'ns' and h['name'] == 'lat'
    assert [x['count'] for x in h['intervals']] == [500, 300, 400, len(e), 0, 900, 250]
    assert [x['delta'] for x in h['intervals']] == ['ok', 'reset', 'ok', 'reset', 'missing',
                                                    'reset', 'ok']
    slots = [x['slot'] for x in h['slots']]
    per = [b, c, d, e, [], f, g]
    used = sorted(set(model.slot_of(v, 2) for s in per for _, v in s))
    assert slots == list(range(used[0], used[-1] + 1))
    for row, samples in zip(h['counts'], per):
        want = [sum(1 for _, v in samples if model.slot_of(v, 2) == s) for s in slots]
        assert row == want
    assert h['slots'][0]['lo'] == model.slot_lo(slots[0], 2)
    assert h['slots'][0]['hi'] == model.slot_top(slots[0], 2)
    # One CPU's cells; microseconds.
    h1 = json.loads(run('heatmap', rec, '--json', '--cpu', '1', '--unit', 'us').stdout)
    assert [sum(r) for r in h1['counts']] == [sum(1 for x, _ in s if x == 1) for s in per]
    assert h1['unit'] == 'us' and h1['slots'][0]['lo'] == h['slots'][0]['lo'] / 1000


def test_heatmap_png_and_script(tmp_path):
    a, b1, b2 = draw(21, 100), draw(22, 600, 1000, 2000), draw(23, 80, 100000, 200000)
    rem = Remote(tmp_path, [(a, 'same', BITS), (a + b1, 'same', BITS),
                            (a + b1 + b2, 'same', BITS)])
    rec = tmp_path / 'rec'
    rem.record(rec, 2)
    idx = index(rec)
    s = run('heatmap', rec, '--script', '--unit', 'us', '--log').stdout
    assert 'set logscale y' in s and 'set logscale cb' in s
    assert ' with boxxyerror fc palette ' in s
    rows = [r.split() for r in s.split('$heatmap << EOD\n')[1].split('EOD\n')[0].splitlines()]
    # Interval 2's cell of the slot of 150000 ns: its time span and the
    # slot's [lo, hi) in us, with its exact count.
    slot = model.slot_of(150000, BITS)
    lo, hi = model.slot_lo(slot, BITS), model.slot_top(slot, BITS) + 1
    cell = [r for r in rows if r[0] == idx[1]['from'] and float(r[2]) == lo / 1000]
    assert len(cell) == 1, rows
    assert cell[0][1] == idx[1]['to'] and float(cell[0][3]) == hi / 1000
    assert int(cell[0][4]) == sum(1 for _, v in b2 if model.slot_of(v, BITS) == slot)
    assert sum(int(r[4]) for r in rows) == 680
    # No cell of interval 1 reaches 100 us; none of interval 2 is below it.
    assert all(float(r[3]) <= 2.5 for r in rows if r[0] == idx[0]['from'])
    assert all(float(r[2]) >= 90 for r in rows if r[0] == idx[1]['from'])
    gnuplot()
    png = tmp_path / 'heat.png'
    r = run('heatmap', rec, '-o', png)
    assert r.stdout == '%s: heatmap of lat, 2 intervals\n' % png
    assert png_size(str(png)) == (1000, 600) and png.stat().st_size > 5000
    assert len(set(png.read_bytes())) > 200
    run('heatmap', rec, '-o', png, '--log', '--size', '640,480')
    assert png_size(str(png)) == (640, 480)
    assert sorted(os.listdir(str(tmp_path))) == sorted(
        ['heat.png', 'live', 'snaps', 'n', 'ssh', 'rec']), 'no temporary file left'


def test_record_capture_dir(capture, tmp_path):
    """--dir CAPTURE: nothing changes, every interval empty; --duration
    sets the number of intervals."""
    rec = tmp_path / 'rec'
    out = run('--dir', capture, 'record', 'lat_base', 'small_b0', '-i', '50ms', '-d',
              '0.12', '-o', tmp_path / 'rec3').stdout
    # 0.12 / 0.05 rounds up to 3 intervals.
    assert ' for 3 intervals into ' in out.splitlines()[0]
    assert len(open(str(tmp_path / 'rec3' / '_record')).read().splitlines()) == 1 + 2 * 3
    run('--dir', capture, 'record', 'lat_base', 'small_b0', '-i', '50ms', '-d', '0.1',
        '-o', rec)
    idx = [l.split() for l in open(str(rec / '_record')).read().splitlines()[1:]]
    assert [(l[5], l[15]) for l in idx] == [('lat_base', '0'), ('small_b0', '0')] * 2
    assert open(str(rec / 'start' / 'lat_base')).read() == \
        open(os.path.join(capture, 'lat_base')).read()
    r = run('heatmap', rec, '--json', check=False)
    assert r.returncode == 1 and r.stderr == (
        'kstats: error: %s records lat_base, small_b0: name the entry\n' % rec)
    h = json.loads(run('heatmap', rec, 'small_b0', '--json').stdout)
    assert h['counts'] == [[], []] and h['slots'] == []
    r = run('heatmap', rec, 'small_b0', '-o', tmp_path / 'x.png', check=False)
    assert r.returncode == 1 and 'no samples in any interval' in r.stderr


def test_record_dated_default(capture, tmp_path):
    r = subprocess.run([PYTHON, TOOL, '--dir', capture, 'record', 'lat_base', '-n', '1',
                        '-i', '0.01'], cwd=str(tmp_path), stdout=subprocess.PIPE,
                       universal_newlines=True)
    assert r.returncode == 0
    made = os.listdir(str(tmp_path))
    assert len(made) == 1 and made[0].startswith('kstats-record-')


def test_sigterm_ends_cleanly(capture, tmp_path):
    """Without -n or --duration it records until SIGINT or SIGTERM, then
    reads once more: that last interval and end/ are written, exit 0."""
    rec = tmp_path / 'rec'
    p = subprocess.Popen([PYTHON, TOOL, '--dir', capture, 'record', 'lat_base', '-i', '10',
                          '-o', str(rec)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         universal_newlines=True)
    try:
        assert 'Ctrl-C to stop' in p.stdout.readline()
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    # A capture is no live directory: record says so (tool-edges item 7).
    assert p.returncode == 0 and err == (
        'kstats: warning: %s is not on debugfs (a saved capture?): its entries do not '
        'change, every interval after the first is empty\n' % capture)
    assert out.endswith('recorded 1 interval into %s (stopped by a signal)\n' % rec)
    assert len(open(str(rec / '_record')).read().splitlines()) == 2
    assert os.path.isfile(str(rec / 'end' / 'lat_base'))


def test_identity_of_local_files(tmp_path):
    f = tmp_path / 'e'
    f.write_text('x\n')
    _, i1 = read_bytes(str(f), identify=True)
    f.write_text('y\n')
    _, i2 = read_bytes(str(f), identify=True)
    (tmp_path / 'n').write_text('z\n')
    os.replace(str(tmp_path / 'n'), str(f))
    _, i3 = read_bytes(str(f), identify=True)
    assert i1 == i2 and i3 != i1


@pytest.mark.parametrize('argv,rc,msg', [
    (['record', 'lat_base', '-i', '0'], 2, "argument -i/--interval: '0' is not a time above 0"),
    (['record', 'lat_base', '-i', '1x'], 2, "'1x' is not a time above 0"),
    (['record', 'lat_base', '-d', 'soon'], 2, "argument -d/--duration: 'soon' is not a time"),
    (['record', 'lat_base', '-d', '1s', '-n', '3'], 2, '--duration and -n both say when'),
    (['record', 'lat_base', '-n', '0'], 2, '-n must be 1 or more'),
    (['record', 'nope', '-n', '1'], 1, 'no entry nope in '),
    (['record', '-', '-n', '1'], 1, 'record rereads its entries every interval, and '
     'standard input is read once'),
    (['heatmap'], 2, 'the following arguments are required: RECORDING'),
    (['heatmap', '{capture}', '--json'], 1, 'is not a recording of kstats record (no _record)'),
    # Without -o: rec-lat_base.png (tool-edges item 7), of nothing here.
    (['heatmap', '{rec}'], 1, 'no samples in any interval of lat_base to draw'),
    (['heatmap', '{rec}', 'nope', '--json'], 1, 'has no entry nope (entries: lat_base)'),
    (['heatmap', '{rec}', '--json', '--hist-bits', '9'], 2, '--hist-bits must be 0..5'),
    (['heatmap', '{rec}', '--json', '--cpu', '7'], 1, '--cpu 7: lat_base has 2 possible CPUs'),
])
def test_bad_input(capture, tmp_path, argv, rc, msg):
    rec = tmp_path / 'rec'
    run('--dir', capture, 'record', 'lat_base', '-n', '1', '-i', '0.01', '-o', rec)
    argv = [a.format(capture=capture, rec=rec) for a in argv]
    r = run('--dir', capture, *argv, check=False)
    assert r.returncode == rc and msg in r.stderr, r.stderr
    if rc == 1:
        assert r.stderr.count('\n') == 1 and r.stderr.startswith('kstats: error: ')
    else:
        assert r.stderr.startswith('usage: kstats ')


def test_output_not_overwritten(capture, tmp_path):
    rec = tmp_path / 'rec'
    rec.mkdir()
    (rec / 'keep').write_text('mine\n')
    r = run('--dir', capture, 'record', 'lat_base', '-n', '1', '-i', '0.01', '-o', rec,
            check=False)
    assert r.returncode == 1 and r.stderr == (
        'kstats: error: %s exists and is not an empty directory: record writes a new '
        'recording\n' % rec)
    assert os.listdir(str(rec)) == ['keep']


@pytest.mark.parametrize('edit,msg', [
    (lambda t: t.replace('# kstats-record version 1', '# kstats-record version 9'),
     '_record:1: version 9, this tool reads version 1'),
    (lambda t: t.replace(' count 0 cpus', ' count cpus', 1), '_record:2: odd number of words'),
    (lambda t: t.replace(' delta ok', ' delta maybe', 1),
     "_record:2: delta 'maybe' is not ok, reset or missing"),
    (lambda t: t.replace(' count 0 cpus', ' count 7 cpus', 1),
     '_record:2: count 7, but '),
])
def test_malformed_recording(capture, tmp_path, edit, msg):
    rec = tmp_path / 'rec'
    run('--dir', capture, 'record', 'lat_base', '-n', '1', '-i', '0.01', '-o', rec)
    f = rec / '_record'
    f.write_text(edit(f.read_text()))
    r = run('heatmap', rec, '--json', check=False)
    assert r.returncode == 1 and msg in r.stderr and r.stderr.count('\n') == 1, r.stderr


def test_heatmap_over_ssh(tmp_path, capture):
    """--ssh HOST heatmap reads a recording on HOST, one ssh cat per file."""
    rec = tmp_path / 'rec'
    run('--dir', capture, 'record', 'lat_base', '-n', '2', '-i', '0.01', '-o', rec)
    log = tmp_path / 'ssh.log'
    ssh = tmp_path / 'ssh'
    ssh.write_text('#!/bin/sh\nhost=$1; shift\necho "$host $*" >> %s\nexec sh -c "$*"\n' % log)
    ssh.chmod(ssh.stat().st_mode | stat.S_IEXEC)
    want = run('heatmap', rec, '--json').stdout
    got = run('--ssh', 'h', 'heatmap', rec, '--json', env={'KSTATS_SSH': str(ssh)}).stdout
    assert got == want
    assert log.read_text().splitlines() == ['h cat -- %s/%s' % (rec, f) for f in (
        '_record', '0001/lat_base', '0002/lat_base')]
