# SPDX-License-Identifier: GPL-2.0
"""Issue 13, counters instead of time, the tool: an entry made by "trace
... counter EVENT" holds counts of EVENT, not times: show prints plain
numbers, JSON gives the event as unit, and --unit and --subtract-bias are
refused."""
import json
import re

from conftest import run, write_capture

# page faults per call of a traced function, on two CPUs
SAMPLES = [(0, 0)] * 4 + [(0, 5)] * 3 + [(1, 100)] * 1
LINE = ('name pf origin control mechanism fprobe targets kstats_helper_fault bits 4 '
        'counter page-faults migrated 2 uncounted 0 state running missed 0 '
        'bias_ns - bias_p99_ns - overhead_ns - min 0 max 100\n')


def capture(tmp_path):
    d = write_capture(tmp_path / 'cap', {'pf': (4, SAMPLES)})
    with open(d + '/_control', 'w') as f:
        f.write(LINE)
    return d


def test_show_prints_plain_counts(tmp_path):
    out = run('show', '--dir', capture(tmp_path), 'pf').stdout
    assert not re.search(r'\d(ns|us|ms|s)\b', out)
    assert 'counter page-faults migrated 2' in out
    assert out.splitlines()[3].split()[:8] == ['count', '8', 'min', '0', 'mean', '14.4',
                                            'max', '100']
    assert '[5]        3 |' in out


def test_json_unit_is_the_event(tmp_path):
    d = json.loads(run('show', '--dir', capture(tmp_path), 'pf', '--json').stdout)
    assert d['unit'] == 'page-faults'
    assert d['info']['counter'] == 'page-faults' and d['info']['migrated'] == 2
    assert [(s['lo'], s['count']) for s in d['slots']] == [(0, 4), (5, 3), (100, 1)]


def test_unit_and_bias_refused(tmp_path):
    cap = capture(tmp_path)
    r = run('show', '--dir', cap, 'pf', '--unit', 'us', check=False)
    assert r.returncode == 1
    assert r.stderr == ('kstats: error: pf is a counter entry (counter page-faults): '
                        '--unit is for times\n')
    r = run('show', '--dir', cap, 'pf', '--subtract-bias', check=False)
    assert r.returncode == 1
    assert r.stderr == ('kstats: error: pf is a counter entry (counter page-faults): it '
                        'holds no time and has no probe bias\n')
