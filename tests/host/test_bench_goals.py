"""tests/bench/report.py: the targets section reads the right rows and
says met or NOT met against each limit, n/a for rows a run lacks."""
import importlib.util
from pathlib import Path

spec = importlib.util.spec_from_file_location(
    'report', Path(__file__).resolve().parents[1] / 'bench' / 'report.py')
report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(report)

BASE = 1000.0
EXTRA = {
    'kstats-trace': 190, 'kstats-kretprobe-stopped': 10, 'floor-kprobe': 150,
    'kstats-direct-stopped': 41, 'kstats-entry-pair-cpu': 200,
    'kstats-entry-pair-task': 320, 'kstats-tp-pair-cpu': 100,
    'kstats-tp-pair-task': 150, 'kstats-kretprobe': 500,
    'floor-kretprobe': 400, 'kstats-direct': 150, 'floor-direct': 1,
    'floor-ftrace': 40, 'kstats-kprobe-pair-cpu': 420,
    'floor-tracepoint': 30, 'kstats-by-comm': 250, 'kstats-by-pid': 251,
    'kstats-outliers': 205,
}


def run():
    cf = {'untraced': {'insn': BASE}}
    cf.update({c: {'insn': BASE + e} for c, e in EXTRA.items()})
    rep = {'t': {'configs': cf}}
    lines = report.goals(rep, ['t'])
    return rep['t']['goals'], lines


def test_values_and_verdicts():
    g, _ = run()
    want = {
        'trace vfs_read, default mechanism: total <= +200': (190, 200, True),
        'stopped kretprobe entry <= the kprobe (entry) floor': (10, 150, True),
        'stopped direct entry <= +40': (41, 40, False),
        'key task <= 1.5 x key cpu (entry pair)': (1.6, 1.5, False),
        'key task <= 1.5 x key cpu (tracepoint pair)': (1.5, 1.5, True),
        'own addition over the floor <= 100, via kretprobe': (100, 100, True),
        'own addition over the floor <= 100, via direct': (149, 100, False),
        'own addition per pair endpoint <= 60, entry pair key cpu': (60, 60, True),
        'own addition per pair endpoint <= 60, kprobe pair key cpu': (60, 60, True),
        'own addition per pair endpoint <= 60, tracepoint pair key cpu': (20, 60, True),
        'by comm <= trace vfs_read + 60': (60, 60, True),
        'by pid <= trace vfs_read + 60': (61, 60, False),
        'outliers 10 <= trace vfs_read + 15': (15, 15, True),
    }
    for what, (v, lim, met) in want.items():
        assert g[what] == {'value': v, 'limit': lim, 'met': met}, what


def test_missing_rows_are_not_applicable():
    g, lines = run()
    assert 'stopped fprobe entry <= the fprobe entry floor' not in g
    assert any('stopped fprobe entry' in ln and 'n/a' in ln for ln in lines)
    assert any('via fprobe' in ln and 'n/a' in ln for ln in lines)
    assert sum('NOT met' in ln for ln in lines) == 4
