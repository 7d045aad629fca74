# SPDX-License-Identifier: GPL-2.0
"""Issue 13, inter-arrival gaps, the tool: an entry made by "trace NAME gap
X" holds times (between hits of X on a CPU), shown as any time entry; its
_control fields pass through, and --subtract-bias is refused, since a gap
has no probe bias."""
import json

from conftest import run, write_capture

# gaps of a 4 ms tick on two CPUs, and one of 40 ms
SAMPLES = [(0, 4000000)] * 6 + [(1, 4000000)] * 3 + [(1, 40000000)]
LINE = ('name ticks origin control mechanism gap targets hrtimer_interrupt hooks ftrace '
        'bits 4 clock mono state running missed 0 bias_ns - bias_p99_ns - '
        'overhead_ns 812 min 4000000 max 40000000\n')


def capture(tmp_path):
    d = write_capture(tmp_path / 'cap', {'ticks': (4, SAMPLES)})
    with open(d + '/_control', 'w') as f:
        f.write(LINE)
    return d


def test_show_in_time_units(tmp_path):
    out = run('show', '--dir', capture(tmp_path), 'ticks', '--unit', 'ms').stdout
    assert 'mechanism gap' in out and 'hooks ftrace' in out
    assert 'count 10' in ' '.join(out.split())


def test_json_is_time(tmp_path):
    d = json.loads(run('show', '--dir', capture(tmp_path), 'ticks', '--json').stdout)
    assert d['unit'] == 'ns'
    assert d['info']['mechanism'] == 'gap' and d['info']['targets'] == 'hrtimer_interrupt'
    assert [(s['lo'], s['count']) for s in d['slots']] == [(3932160, 9), (39845888, 1)]


def test_subtract_bias_refused(tmp_path):
    r = run('show', '--dir', capture(tmp_path), 'ticks', '--subtract-bias', check=False)
    assert r.returncode == 1
    assert r.stderr == ('kstats: error: ticks is a gap entry (the time between hits of '
                        'hrtimer_interrupt): the probe adds no bias to it\n')
