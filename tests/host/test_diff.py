# SPDX-License-Identifier: GPL-2.0
"""kstats diff: finds the known 10% shift of lat_shift, and no difference
between two samples of one distribution (lat_base, lat_same), nor between
the same samples at two resolutions (lat_base, lat_base_b2)."""
import fractions
import json

import pytest

from conftest import Samples, nearest_rank, run
from kstats import stats

HALF = fractions.Fraction(1, 2)


def diff_json(capture, a, b, *more):
    return json.loads(run('diff', '--dir', capture, a, b, '--json', *more).stdout)


def raw_stats(name, cpu=None):
    v = Samples(name).values(cpu)
    return sum(v) / len(v), nearest_rank(v, HALF)


@pytest.mark.parametrize('cpu', [None, 0, 1])
def test_finds_known_shift(capture, cpu):
    more = [] if cpu is None else ['--cpu', str(cpu)]
    d = diff_json(capture, 'lat_base', 'lat_shift', *more)
    assert d['mean']['different']
    # The median test's interval holds the binning's error too: on the
    # whole entry it finds the shift; on one CPU's ~2500 samples at 6%
    # slots it may not, but its interval holds the true difference.
    assert d['median']['different'] or cpu is not None
    assert d['mean']['difference'] > 0 and d['median']['difference'] > 0
    # The estimates are those of the raw samples, to the binning error.
    ma, meda = raw_stats('lat_base', cpu)
    mb, medb = raw_stats('lat_shift', cpu)
    assert abs(d['mean']['difference'] - (mb - ma)) < 1
    bounds = d['a']['percentiles']['p50']['bound'] + d['b']['percentiles']['p50']['bound']
    assert abs(d['median']['difference'] - (medb - meda)) <= bounds
    lo, hi = d['median']['interval']
    assert lo <= medb - meda <= hi
    # The populations differ by 10%: both intervals hold it.
    for key in ('mean', 'median'):
        r = d[key]
        assert abs(r['percent'] - 10) <= r['percent_ci'], (key, r)


@pytest.mark.parametrize('cpu', [None, 0, 1])
def test_no_difference_within_one_distribution(capture, cpu):
    more = [] if cpu is None else ['--cpu', str(cpu)]
    d = diff_json(capture, 'lat_base', 'lat_same', *more)
    assert not d['mean']['different'] and not d['median']['different']
    d = diff_json(capture, 'lat_base', 'lat_base_b2', *more)
    assert not d['mean']['different'] and not d['median']['different']


def test_text_like_ministat(capture):
    out = run('diff', '--dir', capture, 'lat_base', 'lat_shift').stdout
    assert out.count('Difference at 97.5% confidence') == 2
    assert "Welch's t" in out and 'order statistics' in out
    assert 'N' in out and 'Median' in out and 'Stddev' in out
    assert out.splitlines()[0].startswith('x lat_base')
    out = run('diff', '--dir', capture, 'lat_base', 'lat_same').stdout
    assert out.count('No difference proven at 97.5% confidence') == 2
    out = run('diff', '--dir', capture, '-c', '99.5', 'lat_base', 'lat_same').stdout
    assert out.count('No difference proven at 99.8% confidence') == 2


def test_identical_snapshots(capture):
    d = diff_json(capture, 'lat_base', 'lat_base')
    assert d['mean']['difference'] == 0 and d['median']['difference'] == 0
    assert not d['mean']['different'] and not d['median']['different']


def test_diff_files_and_names(capture, tmp_path):
    # Paths to entry files (bits from the _control beside them), and NAME
    # in --dir, mix.
    import os
    a = os.path.join(capture, 'lat_base')
    d = json.loads(run('diff', a, os.path.join(capture, 'lat_shift'), '--json').stdout)
    assert d['mean']['different']
    d2 = json.loads(run('diff', '--dir', capture, a, 'lat_shift', '--json').stdout)
    assert d2['mean'] == d['mean']


def test_too_few_samples(capture):
    r = run('diff', '--dir', capture, 'lat_base', 'empty_b4', check=False)
    assert r.returncode == 1 and 'too few to compare' in r.stderr


@pytest.mark.parametrize('p,df,want', [
    (0.975, 1, 12.7062047), (0.975, 10, 2.2281389), (0.995, 30, 2.7499957),
    (0.975, float('inf'), 1.9599640), (0.95, 5, 2.0150484)])
def test_t_quantiles(p, df, want):
    assert abs(stats.t_quantile(p, df) - want) < 1e-6
