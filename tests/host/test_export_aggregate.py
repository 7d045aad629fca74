# SPDX-License-Identifier: GPL-2.0
"""Issue 12 item 1: sums of exported series give the right quantile in
Prometheus. The manual's recipes (export --per-cpu, then sum without
(cpu); several hosts summed by le) are evaluated by promtool test rules,
and histogram_quantile() of the sum must lie in the slot of the exact
nearest-rank quantile of all the samples (linear interpolation inside
one bucket: between the previous slot's edge and this slot's)."""
import fractions
import json
import subprocess

import pytest

from conftest import nearest_rank, promtool, run, write_capture
from kstats import model

BITS = 4


def series(text, extra_labels=''):
    """promtool input_series from an export: every _bucket line."""
    out = []
    for line in text.splitlines():
        if '_bucket{' not in line:
            continue
        name_labels, value = line.rsplit(' ', 1)
        name, labels = name_labels.split('{', 1)
        out.append({'series': '%s{%s%s' % (name, extra_labels, labels),
                    'values': '%s %s' % (value, value)})
    return out


def slot_window(values, q):
    """(lo, hi) in seconds where a bucket-interpolated quantile of the
    exact q quantile's slot can lie."""
    exact = nearest_rank(sorted(values), fractions.Fraction(q))
    s = model.slot_of(exact, BITS)
    lo = model.slot_lo(s, BITS) - 1 if s else 0
    return exact, lo / 1e9, model.slot_top(s, BITS) / 1e9


def promtool_check(tmp_path, inputs, expr, labels):
    """1 if expr gives 1 for labels at 1m, by promtool test rules."""
    test = {'rule_files': [], 'evaluation_interval': '1m',
            'tests': [{'interval': '1m', 'input_series': inputs,
                       'promql_expr_test': [{'expr': expr, 'eval_time': '1m',
                                             'exp_samples': [{'labels': labels,
                                                              'value': 1}]}]}]}
    f = tmp_path / 'test.yml'
    f.write_text(json.dumps(test, indent=1))     # JSON is YAML
    r = subprocess.run([promtool(), 'test', 'rules', str(f)], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    return r


def within(q, agg, lo, hi):
    hq = 'histogram_quantile(%s, %s)' % (q, agg)
    return '(%s >= bool %r) * (%s <= bool %r)' % (hq, lo, hq, hi)


@pytest.mark.parametrize('q', ['0.5', '0.9', '0.99'])
def test_sum_without_cpu(tmp_path, q):
    # The case: CPU 0 holds 100..999, CPU 1 2000..4999.
    samples = [(0, v) for v in range(100, 1000)] + [(1, v) for v in range(2000, 5000)]
    cap = write_capture(tmp_path / 'cap', {'agg': (BITS, samples)})
    text = run('export', '--openmetrics', '--per-cpu', '--bucket-bits', BITS, '--dir', cap).stdout
    exact, lo, hi = slot_window([v for _, v in samples], q)
    expr = within(q, 'sum without (cpu) (kstats_duration_seconds_bucket)', lo, hi)
    r = promtool_check(tmp_path, series(text), expr, '{entry="agg"}')
    assert r.returncode == 0, 'exact %d ns, want [%g, %g] s\n%s' % (exact, lo, hi, r.stdout)
    # The check can fail: a window that excludes the exact slot does.
    bad = within(q, 'sum without (cpu) (kstats_duration_seconds_bucket)', hi * 1.5, hi * 2)
    assert promtool_check(tmp_path, series(text), bad, '{entry="agg"}').returncode != 0


@pytest.mark.parametrize('q', ['0.5', '0.9'])
def test_sum_by_le_over_hosts(tmp_path, q):
    a = [(0, v) for v in range(1500, 2600, 3)]
    b = [(0, v) for v in range(1000, 3000, 7)] + [(1, v) for v in range(40, 90)]
    inputs = []
    for host, samples in (('a', a), ('b', b)):
        cap = write_capture(tmp_path / host, {'lat': (BITS, samples)})
        text = run('export', '--openmetrics', '--bucket-bits', BITS, '--dir', cap).stdout
        inputs += series(text, 'host="%s",' % host)
    exact, lo, hi = slot_window([v for _, v in a + b], q)
    expr = within(q, 'sum by (le) (kstats_duration_seconds_bucket)', lo, hi)
    r = promtool_check(tmp_path, inputs, expr, '{}')
    assert r.returncode == 0, 'exact %d ns, want [%g, %g] s\n%s' % (exact, lo, hi, r.stdout)
