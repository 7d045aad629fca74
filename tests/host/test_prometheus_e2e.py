# SPDX-License-Identifier: GPL-2.0
"""Issue 22: the fleet recipe end to end, with Debian's prometheus and
prometheus-node-exporter started here on 127.0.0.1 (never as services)
and stopped by PID. Two "hosts", each a node_exporter whose textfile
collector reads the export of a real guest capture with entries of bits
0 to 5; lat_base is traced at bits 4 on host a and at bits 2 on host b
(the same samples). Prometheus scrapes both every second; then
histogram_quantile() of p50, p90 and p99 per entry, across the entries of
a host, across hosts and over everything must lie in the window that the
manual gives as the layout's error: inside the slot, at bits min(layout,
bits of the entries summed), of the exact nearest-rank quantile of the
raw samples (tests/fixtures/samples). example_memset (real timings) has
no raw list: its reference is the slot that its counts give, which is
exact at its bits; vfs_read (tests/fixtures/calibrated) neither. Host b
also has a value and a counter entry with the counts of their _control
lines, which must reach Prometheus in their own families.
node_textfile_scrape_error must be 0 on both."""
import fractions
import json
import os
import shutil
import socket
import subprocess
import time
import urllib.parse
import urllib.request

import pytest

from conftest import FIXTURES, Samples, entry_text, nearest_rank, program, run
from kstats import export, model, stats
from kstats.capture import Source

HELPER = os.path.join(FIXTURES, 'helper')
EXAMPLE = os.path.join(FIXTURES, 'example')
CALIBRATED = os.path.join(FIXTURES, 'calibrated')
QS = ('0.5', '0.9', '0.99')
FAMILY = 'kstats_duration_seconds'
# Host b: entries of the helper capture (lat_base as recorded at bits 2)
# and the example module's real timings.
HOST_B = {'lat_base': (HELPER, 'lat_base_b2'), 'lat_shift': (HELPER, 'lat_shift'),
          'cpu1_b3': (HELPER, 'cpu1_b3'), 'small_b0': (HELPER, 'small_b0'),
          'example_memset': (EXAMPLE, 'example_memset'), 'vfs_read': (CALIBRATED, 'vfs_read')}
# And a value and a counter entry, with the counts of their _control lines.
KINDS = {'rd': ('value retval errors 4 filtered 7', [(0, 100 + 3 * i) for i in range(200)]),
         'pf': ('counter page-faults missed 2 dropped 1', [(1, i % 7) for i in range(50)])}


def binary(name):
    return program(name)


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def host_b_capture(d):
    os.makedirs(d)
    lines = []
    for name, (src, orig) in HOST_B.items():
        shutil.copy(os.path.join(src, orig), os.path.join(d, name))
        info = Source(src).info(orig)
        lines.append(' '.join('%s %s' % (k, name if k == 'name' else v)
                              for k, v in info.items() if not k.startswith('_')))
    for name, (keys, samples) in KINDS.items():
        with open(os.path.join(d, name), 'w') as f:
            f.write(entry_text(samples, 4))
        lines.append('name %s origin control mechanism fprobe targets f bits 4 %s state '
                     'running' % (name, keys))
    with open(os.path.join(d, '_control'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    return d


def get(port, path, **params):
    url = 'http://127.0.0.1:%d%s' % (port, path)
    if params:
        url += '?' + urllib.parse.urlencode(params)
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read().decode()


def query(port, expr):
    d = json.loads(get(port, '/api/v1/query', query=expr))
    assert d['status'] == 'success', d
    return [(r['metric'], float(r['value'][1])) for r in d['data']['result']]


class Stack(object):
    """Two node_exporters and a Prometheus, started and stopped by PID."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.procs = []

    def start(self, argv, log):
        f = open(os.path.join(self.tmp, log), 'w')
        self.procs.append(subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT,
                                           stdin=subprocess.DEVNULL, cwd=self.tmp))
        f.close()

    def stop(self):
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def logs(self):
        out = []
        for f in sorted(os.listdir(self.tmp)):
            if f.endswith('.log'):
                with open(os.path.join(self.tmp, f)) as fh:
                    out.append('== %s\n%s' % (f, fh.read()[-2000:]))
        return '\n'.join(out)


@pytest.fixture(scope='module')
def prom(tmp_path_factory):
    tmp = str(tmp_path_factory.mktemp('prom'))
    caps = {'a': HELPER, 'b': host_b_capture(os.path.join(tmp, 'cap-b'))}
    stack = Stack(tmp)
    ports = {}
    try:
        for host, cap in caps.items():
            d = os.path.join(tmp, 'textfile-' + host)
            os.makedirs(d)
            run('export', '--openmetrics', '--dir', cap, '--label', 'host=' + host,
                '--range', 'all', '-o', os.path.join(d, 'kstats.prom'))
            ports[host] = free_port()
            stack.start([binary('prometheus-node-exporter'),
                         '--web.listen-address=127.0.0.1:%d' % ports[host],
                         '--collector.disable-defaults', '--collector.textfile',
                         '--collector.textfile.directory=' + d], 'node-%s.log' % host)
        cfg = os.path.join(tmp, 'prometheus.yml')
        with open(cfg, 'w') as f:
            json.dump({'global': {'scrape_interval': '1s', 'evaluation_interval': '1s'},
                       'scrape_configs': [{'job_name': 'node', 'static_configs': [
                           {'targets': ['127.0.0.1:%d' % p for p in ports.values()]}]}]}, f)
        port = free_port()
        stack.start([binary('prometheus'), '--config.file=' + cfg,
                     '--storage.tsdb.path=' + os.path.join(tmp, 'data'),
                     '--web.listen-address=127.0.0.1:%d' % port, '--log.level=warn'],
                    'prometheus.log')
        want = len(Source(HELPER).names()) + len(HOST_B)
        deadline = time.monotonic() + 90
        while True:
            try:
                n = query(port, 'count(%s_count)' % FAMILY)
                up = query(port, 'sum(up)')
                if n and n[0][1] == want and up and up[0][1] == 2:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline or any(p.poll() is not None for p in stack.procs):
                pytest.fail('Prometheus did not get both hosts\' series\n' + stack.logs())
            time.sleep(0.5)
        yield port, caps
    finally:
        stack.stop()


def reference(entries, bits):
    """(exact or None, slot at `bits` of the nearest-rank quantile) per q,
    over the samples of entries [(capture, name, file)]: exact from the
    raw lists when all have one, the slot from the counts merged to `bits`
    (exact: slots of fewer bits are unions of finer ones)."""
    raw, hists = [], []
    for cap, name, orig in entries:
        hists.append(Source(cap).entry(orig).total.merged(bits))
        if raw is not None and os.path.exists(os.path.join(FIXTURES, 'samples',
                                                           orig + '.txt')):
            raw += Samples(orig).values()
        else:
            raw = None
    pooled = stats.pooled(hists)
    out = {}
    for q in QS:
        slot = pooled.quantile(fractions.Fraction(q))[1]
        exact = None
        if raw is not None:
            exact = nearest_rank(sorted(raw), fractions.Fraction(q))
            assert model.slot_of(exact, bits) == slot
        out[q] = (exact, slot)
    return out


def groups(caps):
    """{(host or None, entry or None): [(capture, entry, file)]}: the
    series that each aggregation sums."""
    files = {'a': {n: (HELPER, n, n) for n in Source(HELPER).names()},
             'b': {n: (caps['b'], n, orig) for n, (_, orig) in HOST_B.items()}}
    for n, (src, orig) in HOST_B.items():
        files['b'][n] = (src, n, orig)
    out = {}
    for host, ents in files.items():
        for name, f in ents.items():
            for key in ((host, name), (host, None), (None, name), (None, None)):
                out.setdefault(key, []).append(f)
    return out


def entry_bits(f):
    return Source(f[0]).entry(f[2]).bits


# Aggregations: sum by, and the entries left out. Without the entries of
# fewer bits than the layout (small_b0: 0, stopped_b1: 1), whose windows
# are their own wide slots, the window is a slot of the layout's bits.
COARSE = ('small_b0', 'stopped_b1')
AGGS = [('le, host, entry', ()), ('le, host', ()), ('le, entry', ()), ('le', ()),
        ('le, host', COARSE), ('le', COARSE)]


@pytest.mark.parametrize('by,without', AGGS, ids=['per-entry', 'across-entries',
                                                  'across-hosts', 'everything',
                                                  'across-entries-fine', 'everything-fine'])
def test_histogram_quantile(prom, by, without):
    port, caps = prom
    layout = export.EXPORT_BITS
    keys = [k.strip() for k in by.split(',')][1:]
    sel = '{entry!~"%s"}' % '|'.join(without) if without else ''
    report = []
    for q in QS:
        got = query(port, 'histogram_quantile(%s, sum by (%s) (%s_bucket%s))'
                    % (q, by, FAMILY, sel))
        assert got
        for metric, v in got:
            key = (metric.get('host') if 'host' in keys else None,
                   metric.get('entry') if 'entry' in keys else None)
            ents = [f for f in groups(caps)[key] if f[1] not in without]
            if not sum(Source(f[0]).entry(f[2]).total.count for f in ents):
                assert v != v, key      # NaN: no samples
                continue
            bits = min([layout] + [entry_bits(f) for f in ents])
            exact, slot = reference(ents, bits)[q]
            lo, hi = model.slot_lo(slot, bits) - 1 if slot else 0, model.slot_top(slot, bits)
            ns = v * 1e9
            assert lo * (1 - 1e-12) - 1e-6 <= ns <= hi * (1 + 1e-12) + 1e-6, (
                'p%s of %s: %r ns, exact %s, window [%d, %d] (bits %d)'
                % (q, key, ns, exact, lo, hi, bits))
            report.append('%s p%s exact %s got %.1f%s' % (
                key, q, exact, ns, ' (%+.2f%%)' % (100.0 * (ns - exact) / exact)
                if exact else ''))
    print('\n'.join(report))


def test_counts_and_scrape_errors(prom):
    port, caps = prom
    errs = query(port, 'node_textfile_scrape_error')
    assert len(errs) == 2 and all(v == 0 for _, v in errs), errs
    counts = {(m['host'], m['entry']): v for m, v in query(port, '%s_count' % FAMILY)}
    for (host, name), ents in groups(caps).items():
        if host and name:
            assert counts[(host, name)] == Source(ents[0][0]).entry(
                ents[0][2]).total.count
    # One le set for the whole family, whatever the entries' bits: every
    # le is in every series.
    les = query(port, 'count by (le) (%s_bucket)' % FAMILY)
    assert set(v for _, v in les) == {len(counts)}, sorted(set(v for _, v in les))
    assert len(les) == model.nr_slots(export.EXPORT_BITS)


def test_kinds_through_prometheus(prom):
    """Values, event counts, the _control counts and the bias reach
    Prometheus in their families, in their units."""
    port, _ = prom

    def one(expr):
        return {m.get('entry'): v for m, v in query(port, expr)}
    assert one('kstats_value_count') == {'rd': 200}
    total = sum(100 + 3 * i for i in range(200))
    # _sum from the slots' truncated means: below the true sum by < count.
    assert total - 200 < one('kstats_value_sum')['rd'] <= total
    assert one('kstats_page_faults_count') == {'pf': 50}
    assert one('kstats_errors_total') == {'rd': 4}
    assert one('kstats_filtered_total') == {'rd': 7}
    assert one('kstats_missed_total') == {'pf': 2, 'vfs_read': 0}
    assert one('kstats_dropped_total') == {'pf': 1}
    assert one('kstats_bias_seconds') == {'vfs_read': 812e-9}
    assert one('kstats_bias_p99_seconds') == {'vfs_read': 1530e-9}
    v, = query(port, 'histogram_quantile(0.5, sum by (le) (kstats_value_bucket))')
    assert 383 <= v[1] <= 447      # the median, 397, in its slot of bits 2 (384..447)
    assert query(port, 'count(kstats_running)')[0][1] == len(Source(HELPER).names()) \
        + len(HOST_B) + len(KINDS)


def test_issue_sum_over_entries(prom):
    """The issue's query, all the entries of a host summed by le (bits 0
    to 5): within 5% of the exact quantiles of the raw samples. Measured:
    -0.06%, +1.43%, -0.59% (p50, p90, p99); with a layout per bits, the
    same query gave +3.3%, +27.8%, +64.2%."""
    port, caps = prom
    raw = sorted(v for n in Source(HELPER).names() for v in Samples(n).values())
    for q in QS:
        (_, v), = query(port, 'histogram_quantile(%s, sum by (le) (%s_bucket{host="a"}))'
                        % (q, FAMILY))
        exact = nearest_rank(raw, fractions.Fraction(q))
        assert abs(v * 1e9 - exact) <= 0.05 * exact, (q, v * 1e9, exact)
