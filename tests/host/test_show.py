# SPDX-License-Identifier: GPL-2.0
"""kstats show: percentiles against the exact percentiles of the raw
samples, within their stated bound (at most one slot width); counts and
means; JSON; --cpu; the text report; bits inference."""
import fractions
import json
import os
import shutil

import pytest

from conftest import NONEMPTY, Samples, nearest_rank, run
from kstats import model

QS = [('p50', '0.5'), ('p90', '0.9'), ('p99', '0.99'), ('p99.9', '0.999')]


def show_json(capture, name, *more):
    return json.loads(run('show', '--dir', capture, name, '--json', *more).stdout)


def check_estimate(est, exact, bits):
    """est is within its bound of the exact value, the bound is below the
    slot width, and the exact value is in the stated slot range."""
    width = model.slot_width(est['slot'], bits)
    assert est['bound'] == width - 1
    assert est['lo'] <= exact <= est['hi'], (est, exact)
    assert abs(est['value'] - exact) <= est['bound'], (est, exact)
    assert abs(est['value'] - exact) < width


def check_summary(d, values, bits):
    assert d['count'] == len(values)
    if not values:
        assert d['mean'] is None
        return
    for key, q in QS:
        check_estimate(d['percentiles'][key], nearest_rank(values, fractions.Fraction(q)), bits)
    check_estimate(d['min'], values[0], bits)
    check_estimate(d['max'], values[-1], bits)
    exact = sum(values) / len(values)
    # The true mean lies in [mean, mean + mean_bound).
    assert d['mean'] - 1e-9 * exact <= exact <= d['mean'] + d['mean_bound'] + 1e-9 * exact


@pytest.mark.parametrize('name', NONEMPTY)
def test_percentiles_within_one_slot(capture, name):
    raw = Samples(name)
    d = show_json(capture, name)
    assert d['bits'] == raw.bits and d['bits_from'] == '_control'
    check_summary(d, raw.values(), raw.bits)
    # The per-CPU breakdown, against each CPU's raw samples.
    cpus = sorted(set(c for c, _ in raw.samples))
    assert sorted(d['per_cpu']) == [str(c) for c in cpus]
    for c in cpus:
        check_summary(d['per_cpu'][str(c)], raw.values(c), raw.bits)


@pytest.mark.parametrize('name', ['lat_base', 'small_b0', 'wide_b5', 'cpu1_b3'])
@pytest.mark.parametrize('cpu', [0, 1])
def test_cpu_filter(capture, name, cpu):
    raw = Samples(name)
    d = show_json(capture, name, '--cpu', cpu)
    assert d['cpu'] == cpu
    assert 'per_cpu' not in d
    check_summary(d, raw.values(cpu), raw.bits)
    assert sum(s['count'] for s in d['slots']) == len(raw.values(cpu))
    text = run('show', '--dir', capture, name, '--cpu', cpu).stdout
    assert 'CPU %d' % cpu in text
    assert 'per CPU' not in text
    if not raw.values(cpu):
        assert 'no samples' in text


def test_json_document(capture):
    d = show_json(capture, 'lat_base')
    for key in ('name', 'path', 'bits', 'bits_from', 'cpus_possible', 'count', 'sum', 'mean',
                'mean_bound', 'stddev', 'min', 'max', 'percentiles', 'per_cpu', 'slots'):
        assert key in d, key
    assert d['name'] == 'lat_base' and d['cpus_possible'] == 2
    assert set(d['percentiles']) == {'p50', 'p90', 'p99', 'p99.9'}
    slots = d['slots']
    assert [s['slot'] for s in slots] == sorted(s['slot'] for s in slots)
    assert sum(s['count'] for s in slots) == d['count']
    assert slots[-1]['cdf'] == 1.0
    for s in slots:
        assert s['lo'] <= s['avg'] <= s['hi']
    # Several names give a list; other percentiles on request.
    many = json.loads(run('show', '--dir', capture, 'lat_base', 'small_b0', '--json',
                          '-p', '25,75,99.99').stdout)
    assert [x['name'] for x in many] == ['lat_base', 'small_b0']
    assert set(many[0]['percentiles']) == {'p25', 'p75', 'p99.99'}


def test_empty_entry(capture):
    d = show_json(capture, 'empty_b4')
    assert d['count'] == 0 and d['percentiles']['p50'] is None and d['slots'] == []
    assert 'no samples' in run('show', '--dir', capture, 'empty_b4').stdout


def test_text_report(capture):
    out = run('show', '--dir', capture, 'lat_base').stdout
    lines = out.splitlines()
    assert lines[0].startswith('lat_base')
    assert 'bits 4 (_control)' in lines[1]
    for word in ('count', 'mean', 'min', 'p50', 'p90', 'p99', 'p99.9', 'max', '±'):
        assert word in out
    hist = [l for l in lines if l.startswith('[') and l.endswith('|')]
    assert 10 <= len(hist) <= 40
    # bpftrace-like rows: [lo, hi) count |@@@|, the largest row full.
    assert max(l.count('@') for l in hist) == 52
    assert sum(int(l.split(')')[-1].split('|')[0]) for l in hist if ')' in l) == 5000
    assert 'per CPU:' in out
    # Finer or coarser on request.
    fine = run('show', '--dir', capture, 'lat_base', '--hist-bits', '4', '--rows', '999').stdout
    assert 'one slot per row' in fine


def test_bits_inferred_without_control(tmp_path, capture):
    for name in NONEMPTY:
        shutil.copy(os.path.join(capture, name), str(tmp_path / name))
        want = show_json(capture, name)
        got = json.loads(run('show', str(tmp_path / name), '--json').stdout)
        assert got['bits'] == want['bits'], name
        assert got['bits_from'].startswith('inferred'), name
        assert got['percentiles'] == want['percentiles'], name


def test_bits_ambiguous_needs_option(tmp_path):
    # Slot 2 holding the value 2 fits bits 0 ([2, 3]) and bits 1 ([2]).
    (tmp_path / 'x').write_text('slot 2   CPU  0    count        1 avg        2 p 1.000000\n'
                                'slot 2   CPUS 1    count        1 avg        2 p 1.000000\n')
    r = run('show', str(tmp_path / 'x'), check=False)
    assert r.returncode == 1
    assert 'cannot tell its bits' in r.stderr and '--bits' in r.stderr
    d = json.loads(run('--bits', '1', 'show', str(tmp_path / 'x'), '--json').stdout)
    assert d['bits'] == 1 and d['max']['bound'] == 0
    d = json.loads(run('show', '--bits', '0', str(tmp_path / 'x'), '--json').stdout)
    assert d['bits'] == 0 and d['max']['hi'] == 3


def test_grep_cpus_file(tmp_path, capture):
    """A file of only the CPUS lines (grep CPUS) reads as totals."""
    lines = open(os.path.join(capture, 'lat_base')).read().splitlines(True)
    (tmp_path / 'lat_base').write_text(''.join(l for l in lines if 'CPUS' in l))
    d = json.loads(run('--bits', '4', 'show', str(tmp_path / 'lat_base'), '--json').stdout)
    assert d['percentiles'] == show_json(capture, 'lat_base')['percentiles']
    r = run('--bits', '4', 'show', str(tmp_path / 'lat_base'), '--cpu', '0', check=False)
    assert r.returncode == 1 and 'no per-CPU lines' in r.stderr


def test_real_timings():
    """The example module's real timings (no raw samples): sane numbers."""
    d = json.loads(run('show', '--dir', os.path.join(os.path.dirname(__file__), '..',
                                                     'fixtures', 'example'),
                       'example_memset', '--json').stdout)
    assert d['count'] == 20000
    ps = [d['min']['value']] + [d['percentiles'][k]['value'] for k, _ in QS] + [d['max']['value']]
    assert ps == sorted(ps)
    assert sum(c['count'] for c in d['per_cpu'].values()) == 20000


def test_unknown_entry(capture):
    r = run('show', '--dir', capture, 'nope', check=False)
    assert r.returncode == 1
    assert 'no entry nope' in r.stderr and 'lat_base' in r.stderr
    r = run('show', '--dir', '/nonexistent/kstats', 'x', check=False)
    assert r.returncode == 1 and 'no kstats directory' in r.stderr
