"""tests/bench/report.py, experiment 6: each user-function row against its
own boot's uf-off, in instructions and ns per call."""
import importlib.util
from pathlib import Path

spec = importlib.util.spec_from_file_location(
    'report', Path(__file__).resolve().parents[1] / 'bench' / 'report.py')
report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(report)


def row(insn, ns):
    return {'insn': insn, 'ns': ns}


def test_rows_against_their_own_boot():
    cf = {'uf-off': row(10.0, 5.0), 'uf-kstats-stopped': row(2010.0, 9.0),
          'uf-kstats': row(2310.0, 12.0),
          'uf-off@bpf-boot': row(20.0, 6.0),
          'uf-bpftrace@bpf-boot': row(2920.0, 16.0)}
    g = {'configs': cf, 'meta': {}}
    lines = report.exp6(g, 't', {'t': g})
    assert g['ufunc'] == {
        'uf-kstats-stopped': {'insn_diff': 2000.0, 'ns_diff': 4.0},
        'uf-kstats': {'insn_diff': 2300.0, 'ns_diff': 7.0},
        'uf-bpftrace@bpf-boot': {'insn_diff': 2900.0, 'ns_diff': 10.0},
    }
    assert lines[1].startswith('Experiment 6 (t): a user function')
    assert [ln.split()[0] for ln in lines[2:]] == [
        'uf-off', 'uf-kstats-stopped', 'uf-kstats', 'uf-off@bpf-boot',
        'uf-bpftrace@bpf-boot']
    assert '(+2300)' in lines[4] and lines[4].endswith('ns +7')


def test_no_rows_no_section():
    g = {'configs': {'untraced': row(1.0, 1.0)}, 'meta': {}}
    assert report.exp6(g, 't', {'t': g}) == []
