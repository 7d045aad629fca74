# SPDX-License-Identifier: GPL-2.0
"""Issue 13, value histograms, the tool: an entry made by "trace FUNC
value argN|retval" holds values, not times: show prints plain numbers,
JSON says unit "value", and --unit and --subtract-bias are refused."""
import json
import re

from conftest import run, write_capture

# read sizes of a vfs_read "value arg3" entry, on two CPUs
SAMPLES = [(0, 1)] * 3 + [(0, 4096)] * 5 + [(1, 131072)] * 2
LINE = ('name rd origin control mechanism fprobe targets vfs_read bits 4 value arg3 '
        'state running missed 0 pid 42 filtered 7 bias_ns - bias_p99_ns - overhead_ns -\n')


def capture(tmp_path):
    d = write_capture(tmp_path / 'cap', {'rd': (4, SAMPLES)})
    with open(d + '/_control', 'w') as f:
        f.write(LINE)
    return d


def test_show_prints_plain_numbers(tmp_path):
    out = run('show', '--dir', capture(tmp_path), 'rd').stdout
    assert not re.search(r'\d(ns|us|ms|s)\b', out)
    lines = out.splitlines()
    assert lines[2].split() == LINE.replace(' bits 4', '').split()[2:]
    assert lines[3].split() == ['count', '10', 'min', '1', 'mean', '28263', 'max', '131072',
                                'p50', '4096', 'p90', '131072', 'p99*', '131072', 'p99.9*',
                                '131072']
    assert '[4096, 4352)     5 |' in out


def test_json_unit_value(tmp_path):
    d = json.loads(run('show', '--dir', capture(tmp_path), 'rd', '--json').stdout)
    assert d['unit'] == 'value'
    assert d['info']['value'] == 'arg3' and d['info']['filtered'] == 7
    assert [(s['lo'], s['count']) for s in d['slots']] == [(1, 3), (4096, 5), (131072, 2)]


def test_unit_and_bias_refused(tmp_path):
    cap = capture(tmp_path)
    r = run('show', '--dir', cap, 'rd', '--unit', 'us', check=False)
    assert r.returncode == 1
    assert r.stderr == 'kstats: error: rd is a value entry (value arg3): --unit is for times\n'
    r = run('show', '--dir', cap, 'rd', '--subtract-bias', check=False)
    assert r.returncode == 1
    assert r.stderr == ('kstats: error: rd is a value entry (value arg3): it holds no time '
                        'and has no probe bias\n')
