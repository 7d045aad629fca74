# SPDX-License-Identifier: GPL-2.0
"""Issue 22, export for a fleet: families by kind with base units
(durations in seconds, values and event counts as recorded), the
_control counts as counters, the bias as a gauge, --label, --prefix, the
old family name through --metric, -o -, entry files, --every."""
import os
import signal
import subprocess
import time

from conftest import FIXTURES, PYTHON, TOOL, entry_text, run

HELPER = os.path.join(FIXTURES, 'helper')


def kinds_capture(tmp_path):
    """A duration, a value and a counter entry with the counts of their
    _control lines (as the kernel lists them, Documentation/kstats.rst)."""
    d = tmp_path / 'cap'
    d.mkdir()
    samples = [(0, 1000), (0, 3000), (1, 5000)]
    for name in ('dur', 'size', 'pf'):
        (d / name).write_text(entry_text(samples, 4))
    (d / '_control').write_text(
        'name dur origin control mechanism pair key task targets a,b hooks kprobe,kprobe '
        'bits 4 state running missed 3 dropped 2 unpaired 0 notask 0 slots 8192 filtered 7 '
        'bias_ns 812 bias_p99_ns 1530 overhead_ns 640\n'
        'name size origin control mechanism fprobe targets vfs_read bits 4 value retval '
        'errors 4 state stopped missed 0 bias_ns - bias_p99_ns - overhead_ns -\n'
        'name pf origin control mechanism fprobe targets f bits 4 counter page-faults '
        'migrated 0 uncounted 0 state running missed 1 bias_ns - bias_p99_ns - '
        'overhead_ns -\n')
    return str(d)


def families(text):
    """{family: type} and the sample lines."""
    types = {}
    for line in text.splitlines():
        if line.startswith('# TYPE '):
            _, _, name, kind = line.split()
            types[name] = kind
    return types, [x for x in text.splitlines() if not x.startswith('#')]


def test_families_by_kind(tmp_path):
    cap = kinds_capture(tmp_path)
    text = run('export', '--openmetrics', '--dir', cap).stdout
    types, lines = families(text)
    assert types == {'kstats_duration_seconds': 'histogram', 'kstats_value': 'histogram',
                     'kstats_page_faults': 'histogram', 'kstats_missed_total': 'counter',
                     'kstats_dropped_total': 'counter', 'kstats_filtered_total': 'counter',
                     'kstats_errors_total': 'counter', 'kstats_running': 'gauge',
                     'kstats_bias_seconds': 'gauge', 'kstats_bias_p99_seconds': 'gauge'}
    assert '# UNIT kstats_duration_seconds seconds' in text
    assert '# UNIT kstats_value' not in text and '# UNIT kstats_page_faults' not in text
    # Durations in seconds, values and counts as recorded: 9000 in all.
    assert 'kstats_duration_seconds_sum{entry="dur"} 9e-06' in lines
    assert 'kstats_value_sum{entry="size"} 9000.0' in lines
    assert 'kstats_page_faults_sum{entry="pf"} 9000.0' in lines
    assert 'kstats_value_bucket{entry="size",le="4095.0"} 2' in lines
    assert 'kstats_duration_seconds_bucket{entry="dur",le="4.095e-06"} 2' in lines
    counts = [x for x in lines if '_total{' in x]
    assert counts == ['kstats_missed_total{entry="dur"} 3', 'kstats_missed_total{entry="size"} 0',
                      'kstats_missed_total{entry="pf"} 1', 'kstats_dropped_total{entry="dur"} 2',
                      'kstats_filtered_total{entry="dur"} 7',
                      'kstats_errors_total{entry="size"} 4']
    assert [x for x in lines if x.startswith('kstats_bias')] == [
        'kstats_bias_seconds{entry="dur"} 8.12e-07',
        'kstats_bias_p99_seconds{entry="dur"} 1.53e-06']
    assert 'kstats_running{entry="size"} 0' in lines
    r = subprocess.run(['promtool', 'check', 'metrics'], input=text, universal_newlines=True,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert r.returncode == 0 and r.stdout == '', r.stdout


def test_labels_prefix_and_old_name(tmp_path):
    cap = kinds_capture(tmp_path)
    text = run('export', '--openmetrics', '--dir', cap, '--label', 'host=web1', '--label',
               'cluster=a"b', '--prefix', 'node_kstats', '--metric', 'kstats_seconds',
               'dur').stdout
    types, lines = families(text)
    assert sorted(types) == ['kstats_seconds', 'node_kstats_bias_p99_seconds',
                             'node_kstats_bias_seconds',
                             'node_kstats_dropped_total', 'node_kstats_filtered_total',
                             'node_kstats_missed_total', 'node_kstats_running']
    assert 'kstats_seconds_count{entry="dur",host="web1",cluster="a\\"b"} 3' in lines
    assert 'node_kstats_missed_total{entry="dur",host="web1",cluster="a\\"b"} 3' in lines
    assert all('host="web1"' in x for x in lines)
    for bad, why in (('host', 'is not KEY=VALUE'), ('1x=a', 'is not KEY=VALUE'),
                     ('__x=a', 'is not KEY=VALUE'), ('le=1', "label 'le' is the exporter's"),
                     ('entry=x', "label 'entry' is the exporter's")):
        r = run('export', '--openmetrics', '--dir', cap, '--label', bad, check=False)
        assert r.returncode == 2, bad
        assert r.stderr.splitlines()[-1].startswith(
            'kstats export: error: argument --label: ') and why in r.stderr, r.stderr
    r = run('export', '--openmetrics', '--dir', cap, '--label', 'a=1', '--label', 'a=2',
            check=False)
    assert r.returncode == 1 and r.stderr == 'kstats: error: --label: a key given twice (a, a)\n'
    r = run('export', '--openmetrics', '--dir', cap, '--prefix', 'a-b', check=False)
    assert r.returncode == 2 and "argument --prefix: 'a-b' is not a metric name" in r.stderr


def test_output_dash_is_stdout(tmp_path):
    os.chdir(str(tmp_path))
    r = run('export', '--openmetrics', '--dir', HELPER, 'lat_base', '-o', '-')
    assert r.stdout == run('export', '--openmetrics', '--dir', HELPER, 'lat_base').stdout
    assert r.stdout.endswith('# EOF\n') and os.listdir(str(tmp_path)) == []


def test_export_saved_file(tmp_path):
    """export FILE, as the manual says NAME commands take a path: a file
    of save NAME FILE, with its header's bits."""
    f = tmp_path / 'lat.txt'
    run('--dir', HELPER, 'save', 'lat_base', f)
    a = run('export', '--openmetrics', str(f)).stdout
    b = run('export', '--openmetrics', '--dir', HELPER, 'lat_base').stdout
    assert a.replace('entry="lat.txt"', 'entry="lat_base"') == b
    assert 'kstats_duration_seconds_count{entry="lat.txt"} 5000' in a


def test_every_rewrites_atomically(tmp_path):
    """--every rewrites -o FILE each interval (a new inode: rename), and
    SIGTERM ends it with status 0, leaving no temporary file."""
    out = tmp_path / 'kstats.prom'
    p = subprocess.Popen([PYTHON, TOOL, 'export', '--openmetrics', '--dir', HELPER,
                          '-o', str(out), '--every', '100ms', 'lat_base'],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         universal_newlines=True)
    try:
        inodes = set()
        deadline = time.monotonic() + 30
        while len(inodes) < 3 and time.monotonic() < deadline:
            if out.exists():
                inodes.add(os.stat(str(out)).st_ino)
                assert out.read_text().endswith('# EOF\n')
            time.sleep(0.02)
        assert len(inodes) >= 3
    finally:
        p.send_signal(signal.SIGTERM)
        so, se = p.communicate(timeout=30)
    assert p.returncode == 0 and so == '' and se == '', se
    assert os.listdir(str(tmp_path)) == ['kstats.prom']
    r = run('export', '--openmetrics', '--dir', HELPER, '--every', '1s', check=False)
    assert r.returncode == 1 and r.stderr == ('kstats: error: --every rewrites a file: '
                                              'give -o FILE\n')
    r = run('export', '--openmetrics', '--dir', HELPER, '--every', 'nan', '-o', 'x',
            check=False)
    assert r.returncode == 2 and "argument --every: 'nan' is not a time" in r.stderr
