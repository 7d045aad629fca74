# SPDX-License-Identifier: GPL-2.0
"""Issue 22: the recording rule and the alert of the manual
(Documentation/kstats-tool.rst, the block after "(kstats-rules.yml)"),
as printed there, pass promtool check rules, and promtool test rules
evaluates them on the exports of two hosts whose counts grow at a
constant rate: the fleet p99 of each entry lies in the slot of the exact
one, and the alert fires for the entry above 100 us (example_memset, p99
242 us) and not for the other (lat_base, 13.8 us)."""
import fractions
import json
import os
import shutil
import subprocess
import textwrap


from conftest import FIXTURES, REPO, Samples, nearest_rank, promtool, run
from kstats import model

MANUAL = os.path.join(REPO, 'Documentation', 'kstats-tool.rst')
MARK = '(``kstats-rules.yml``)::'


def manual_rules():
    lines = open(MANUAL).read().split('\n')
    i = [n for n, x in enumerate(lines) if x.endswith(MARK)]
    assert len(i) == 1, 'one block marked %s in the manual' % MARK
    block = []
    for x in lines[i[0] + 2:]:
        if x and not x.startswith('    '):
            break
        block.append(x)
    return textwrap.dedent('\n'.join(block)).strip() + '\n'


def series(text, host):
    """promtool input series growing by each bucket's count per minute."""
    out = []
    for line in text.splitlines():
        if line.startswith('#') or '_bucket{' not in line:
            continue
        name_labels, value = line.rsplit(' ', 1)
        name, labels = name_labels.split('{', 1)
        out.append({'series': '%s{host="%s",%s' % (name, host, labels),
                    'values': '0+%sx20' % value})
    return out


def test_rules_of_the_manual(tmp_path):
    rules = tmp_path / 'kstats-rules.yml'
    rules.write_text(manual_rules())
    r = subprocess.run([promtool(), 'check', 'rules', str(rules)], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    assert r.returncode == 0 and 'SUCCESS: 2 rules found' in r.stdout, r.stdout
    helper = os.path.join(FIXTURES, 'helper')
    b = tmp_path / 'b'
    b.mkdir()
    shutil.copy(os.path.join(helper, 'lat_base_b2'), str(b / 'lat_base'))
    (b / '_control').write_text('name lat_base origin kernel bits 2 state running\n')
    inputs = series(run('export', '--openmetrics', '--dir', helper, 'lat_base').stdout, 'a')
    inputs += series(run('export', '--openmetrics', '--dir', os.path.join(FIXTURES, 'example'))
                     .stdout, 'a')
    inputs += series(run('export', '--openmetrics', '--dir', str(b)).stdout, 'b')
    # lat_base of both hosts at bits 2 (host b's): the slot of bits 2.
    exact = nearest_rank(Samples('lat_base').values(), fractions.Fraction(99, 100))
    s = model.slot_of(exact, 2)
    lo, hi = (model.slot_lo(s, 2) - 1) / 1e9, model.slot_top(s, 2) / 1e9
    rec = 'entry:kstats_duration_seconds:p99_rate5m{entry="lat_base"}'
    test = {'rule_files': [str(rules)], 'evaluation_interval': '1m', 'tests': [{
        'interval': '1m', 'input_series': inputs,
        'promql_expr_test': [{
            'expr': '(%s >= bool %r) * (%s <= bool %r)' % (rec, lo, rec, hi),
            'eval_time': '15m', 'exp_samples': [{'labels': '{entry="lat_base"}',
                                                 'value': 1}]}],
        'alert_rule_test': [{
            'eval_time': '20m', 'alertname': 'KstatsP99High',
            'exp_alerts': [{'exp_labels': {'severity': 'warning', 'entry': 'example_memset'},
                            'exp_annotations': {'summary': 'p99 of example_memset above '
                                                '100us across the fleet'}}]},
            {'eval_time': '5m', 'alertname': 'KstatsP99High', 'exp_alerts': []}]}]}
    f = tmp_path / 'test.yml'
    f.write_text(json.dumps(test, indent=1))
    r = subprocess.run([promtool(), 'test', 'rules', str(f)], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    assert r.returncode == 0, 'exact %d ns, window [%g, %g] s\n%s' % (exact, lo, hi, r.stdout)
