# SPDX-License-Identifier: GPL-2.0
"""kstats export --openmetrics: promtool accepts it; a strict reading of
the histogram semantics (cumulative le buckets at slot edges, +Inf, _sum,
_count, # EOF); bucket counts equal the raw samples <= le at every slot
edge of the entry; one le layout for every series whatever the entry's
bits; merging to fewer bits gives what the kernel records at those bits."""
import os
import re
import subprocess

import pytest

from conftest import FIXTURES, NONEMPTY, Samples, promtool, run
from kstats import model
from kstats.export import EXPORT_BITS

SAMPLE_RE = re.compile(r'^([a-zA-Z_][a-zA-Z0-9_]*)\{([^}]*)\} (\S+)$')
LABEL_RE = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse(text):
    """Histograms by label set (without le): {labels: {'buckets': [(le,
    n)], 'sum': s, 'count': n}}, checking the format on the way."""
    lines = text.split('\n')
    assert lines[-1] == '' and lines[-2] == '# EOF', 'must end with "# EOF\\n"'
    types = {}
    hists = {}
    gauges = {}
    for line in lines[:-2]:
        if line.startswith('# TYPE '):
            _, _, name, kind = line.split(' ')
            assert name not in types
            types[name] = kind
            continue
        if line.startswith('# HELP '):
            assert line.split(' ')[2] in types, 'HELP after its TYPE'
            continue
        assert not line.startswith('#'), line
        m = SAMPLE_RE.match(line)
        assert m, 'bad sample line %r' % line
        name, labels, value = m.groups()
        labels = dict(LABEL_RE.findall(labels))
        if types.get(name) == 'gauge':
            gauges[tuple(sorted(labels.items()))] = float(value)
            continue
        if types.get(name) == 'counter':
            continue
        family, suffix = name.rsplit('_', 1)
        assert types.get(family) == 'histogram', line
        le = labels.pop('le', None)
        h = hists.setdefault(tuple(sorted(labels.items())), {'buckets': []})
        if suffix == 'bucket':
            assert le is not None and 'sum' not in h and 'count' not in h
            # Slot edges are integers, written N.0 with every digit.
            assert le == '+Inf' or re.match(r'^[0-9]+\.0$', le), le
            h['buckets'].append((float('inf') if le == '+Inf' else int(le[:-2]), int(value)))
        elif suffix == 'sum':
            h['sum'] = float(value)
        else:
            assert suffix == 'count'
            h['count'] = int(value)
    for key, h in hists.items():
        les = [le for le, _ in h['buckets']]
        ns = [n for _, n in h['buckets']]
        assert les == sorted(les) and len(set(les)) == len(les), key
        assert ns == sorted(ns), 'buckets are cumulative: %s' % (key,)
        assert les[-1] == float('inf') and ns[-1] == h['count'], key
    return hists, gauges


def export(capture, *args):
    """Raw values (integer le): the seconds are tested apart. Every bucket
    of the layout (--range all) unless args give a --range."""
    if '--range' not in args:
        args = ('--range', 'all') + args
    return run('export', '--openmetrics', '--raw', '--dir', capture, *args).stdout


@pytest.mark.parametrize('args', [[], ['--per-cpu'], ['--bits', '2'], ['--bits', '0', '--per-cpu'],
                                  ['lat_base', 'wide_b5']],
                         ids=['all', 'per-cpu', 'bits2', 'bits0-per-cpu', 'names'])
def test_promtool_accepts(capture, args):
    text = export(capture, *args)
    r = subprocess.run([promtool(), 'check', 'metrics'], input=text, universal_newlines=True,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert r.returncode == 0 and r.stdout.strip() == '', r.stdout
    parse(text)


def test_promtool_accepts_real_timings():
    text = export(os.path.join(FIXTURES, 'example'), '--per-cpu')
    r = subprocess.run([promtool(), 'check', 'metrics'], input=text, universal_newlines=True,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert r.returncode == 0 and r.stdout.strip() == '', r.stdout


@pytest.mark.parametrize('bits', [None, 0, 1, 2, 3, 4, 5])
def test_buckets_count_raw_samples(capture, bits):
    """Exact at every edge that is a slot edge of the entry's own bits;
    inside one of its slots (an entry of fewer bits than the layout) the
    count lies between those of the slot's edges."""
    args = [] if bits is None else ['--bits', str(bits)]
    layout = EXPORT_BITS if bits is None else bits
    hists, _ = parse(export(capture, *args))
    for name in NONEMPTY:
        raw = Samples(name).values()
        own = Samples(name).bits
        h = hists[(('entry', name),)]
        assert h['count'] == len(raw)
        for le, n in h['buckets'][:-1]:
            s = model.slot_of(le, own)
            lo, top = model.slot_lo(s, own), model.slot_top(s, own)
            if le == top:
                # le is the largest value of a slot: exact for integer samples.
                assert n == sum(1 for v in raw if v <= le), (name, le)
            else:
                assert own < layout
                assert sum(1 for v in raw if v < lo) <= n <= sum(1 for v in raw if v <= top)
        assert abs(h['sum'] - sum(raw)) <= 1e-6 * sum(raw) + len(raw), name


def test_per_cpu_labels(capture):
    hists, _ = parse(export(capture, '--per-cpu'))
    for name in NONEMPTY:
        s = Samples(name)
        for cpu in (0, 1):
            key = (('cpu', str(cpu)), ('entry', name))
            n = len(s.values(cpu))
            if n:
                assert hists[key]['count'] == n
            else:
                assert key not in hists


def test_merge_equals_kernel_at_fewer_bits(capture):
    """lat_base (bits 4) merged to bits 2 is lat_base_b2, which the kernel
    recorded from the same samples at bits 2."""
    hists, _ = parse(export(capture, '--bits', '2'))
    a = hists[(('entry', 'lat_base'),)]
    b = hists[(('entry', 'lat_base_b2'),)]
    assert a['buckets'] == b['buckets'] and a['count'] == b['count']
    full, _ = parse(export(capture, 'lat_base', '--bits', '4'))
    assert len(full[(('entry', 'lat_base'),)]['buckets']) > len(a['buckets'])


def test_empty_and_state(capture):
    hists, gauges = parse(export(capture))
    empty = hists[(('entry', 'empty_b4'),)]
    assert empty['count'] == 0 and empty['sum'] == 0.0
    assert set(n for _, n in empty['buckets']) == {0}
    assert gauges[(('entry', 'stopped_b1'),)] == 0
    assert gauges[(('entry', 'lat_base'),)] == 1


@pytest.mark.parametrize('args', [[], ['--per-cpu'], ['--bucket-bits', '4'],
                                  ['--range', '100:1ms']],
                         ids=['default', 'per-cpu', 'bits4', 'range'])
def test_fixed_layout(capture, args):
    """One bucket layout per family, whatever the entries' bits (0 to 5
    here) and samples: every slot edge of the layout's bits, the same le
    list for every entry and CPU."""
    hists, _ = parse(export(capture, *args))
    bits = 4 if '--bucket-bits' in args else EXPORT_BITS
    slots = range(model.nr_slots(bits) - 1)
    if '--range' in args:
        slots = range(model.slot_of(100, bits), model.slot_of(10 ** 6, bits) + 1)
    want = [model.slot_top(s, bits) for s in slots] + [float('inf')]
    assert len(hists) >= 9
    for key, h in hists.items():
        assert [le for le, _ in h['buckets']] == want, key


def test_range_folds(capture):
    """--range keeps the edges from LO's slot to HI's: samples below fold
    into the first bucket, those above into +Inf, counts stay exact."""
    hists, _ = parse(export(capture, '--range', '1us:8us', 'lat_base'))
    raw = Samples('lat_base').values()
    h = hists[(('entry', 'lat_base'),)]
    les = [le for le, _ in h['buckets']]
    assert les[0] == model.slot_top(model.slot_of(1000, 2), 2) == 1023
    assert les[-2] == model.slot_top(model.slot_of(8000, 2), 2) == 8191
    assert len(les) == 4 * 3 + 1 + 1
    for le, n in h['buckets']:
        assert n == sum(1 for v in raw if v <= le), le
    for bad in ('5:5', '1us', 'x:1', '10:1', '1:2:3', '-1:5'):
        r = run('export', '--openmetrics', '--raw', '--dir', capture, '--range=' + bad,
                check=False)
        assert r.returncode == 2 and r.stderr.startswith('usage: kstats export'), r.stderr
        assert r.stderr.splitlines()[-1].startswith(
            "kstats export: error: argument --range: '%s' is not LO:HI" % bad)


def test_seconds_and_unit(capture):
    text = run('export', '--openmetrics', '--dir', capture, 'lat_base').stdout
    lines = text.splitlines()
    assert lines[:2] == ['# TYPE kstats_duration_seconds histogram',
                         '# UNIT kstats_duration_seconds seconds']
    r = subprocess.run([promtool(), 'check', 'metrics'], input=text, universal_newlines=True,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert r.returncode == 0 and r.stdout.strip() == '', r.stdout
    raw = Samples('lat_base').values()
    buckets = [l for l in lines if l.startswith('kstats_duration_seconds_bucket')]
    for line in buckets[:-1]:
        le = float(line.split('le="')[1].split('"')[0])
        # le in seconds: the slot's largest value in ns / 1e9.
        assert int(line.split()[-1]) == sum(1 for v in raw if v <= round(le * 1e9)), line
    total = [l for l in lines if l.startswith('kstats_duration_seconds_sum')][0]
    assert abs(float(total.split()[-1]) - sum(raw) / 1e9) <= 1e-6 * sum(raw) / 1e9 + 1e-9 * 5000
    r = run('export', '--openmetrics', '--dir', capture, '--metric', 'foo', check=False)
    assert r.returncode == 1 and '_seconds' in r.stderr


def test_output_file(capture, tmp_path):
    out = tmp_path / 'kstats.prom'
    r = run('export', '--openmetrics', '--raw', '--dir', capture, '-o', out, '--metric',
            'node_kstats')
    assert r.stdout == ''
    text = out.read_text()
    assert text.startswith('# TYPE node_kstats histogram') and text.endswith('# EOF\n')
    assert not [f for f in os.listdir(str(tmp_path)) if f != 'kstats.prom']


def test_bad_options(capture):
    # OpenMetrics is the default format (tool-edges item 6).
    assert run('export', '--dir', capture).stdout == run('export', '--openmetrics', '--dir',
                                                         capture).stdout
    r = run('export', '--openmetrics', '--dir', capture, '--bits', '7', check=False)
    assert r.returncode == 2 and '--bucket-bits must be 0..5' in r.stderr
    assert r.stderr.startswith('usage: kstats export')
    r = run('export', '--openmetrics', '--dir', capture, '--metric', 'a-b', check=False)
    assert r.returncode == 2 and "argument --metric: 'a-b' is not a metric name" in r.stderr
