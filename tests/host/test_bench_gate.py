"""tests/bench/gate.py: one PASS or FAIL line per row of the budgets for
the targets given; a row over budget, a row not measured, and every row
of a boot that left no interrupt out of its counts fail."""
import json
import subprocess
import sys
from pathlib import Path

GATE = Path(__file__).resolve().parents[1] / 'bench' / 'gate.py'
BUDGETS = '''# TARGET CONFIGURATION BUDGET MEASURED GOAL
x86   kstats-direct    160  150/151  155
x86   kstats-outliers  170  168      -
x86   kstats-fprobe    600  590      -
arm   kstats-direct    220  211      167
'''


def gate(tmp_path, report, *targets):
    (tmp_path / 'budgets.conf').write_text(BUDGETS)
    (tmp_path / 'bench.json').write_text(json.dumps(report))
    out = subprocess.run([sys.executable, str(GATE), str(tmp_path / 'budgets.conf'),
                          str(tmp_path), *targets], capture_output=True, text=True,
                         check=True).stdout
    return out.splitlines()


def configs(**extra):
    cf = {'untraced': {'insn': 1000.0}}
    cf.update({k.replace('_', '-'): {'insn': 1000.0 + v} for k, v in extra.items()})
    return cf


def test_rows_against_budgets(tmp_path):
    rep = {'x86': {'configs': configs(kstats_direct=156.4, kstats_outliers=171),
                   'irq': {'entries': 1520, 'left_out': 2313410}}}
    assert gate(tmp_path, rep, 'x86') == [
        'PASS x86 cost of kstats-direct: +156 instructions per call, budget 160 '
        '(measured 150/151; goal 155 not met)',
        'FAIL x86 cost of kstats-outliers: +171 instructions per call, budget 170 '
        '(measured 168; no goal)',
        f'FAIL x86 cost of kstats-fprobe: not measured ({tmp_path}/bench.json)',
    ]


def test_x86_needs_interrupts_left_out(tmp_path):
    rep = {'x86': {'configs': configs(kstats_direct=150, kstats_outliers=160,
                                      kstats_fprobe=590)}}
    assert all(ln.startswith('FAIL') and 'no interrupt left out' in ln
               for ln in gate(tmp_path, rep, 'x86'))


def test_arm64_needs_interrupts_left_out(tmp_path):
    rep = {'arm': {'configs': configs(kstats_direct=211),
                   'meta': {'arch': 'arm64 (virt, -cpu max)'}}}
    assert gate(tmp_path, rep, 'arm') == [
        'FAIL arm cost of kstats-direct: no interrupt left out of the counts '
        f'({tmp_path}/bench.json)']
    rep['arm']['irq'] = {'entries': 0, 'left_out': 0}
    assert gate(tmp_path, rep, 'arm')[0].startswith('FAIL')
    rep['arm']['irq'] = {'entries': 30841, 'left_out': 121138513}
    assert gate(tmp_path, rep, 'arm') == [
        'PASS arm cost of kstats-direct: +211 instructions per call, budget 220 '
        '(measured 211; goal 167 not met)']


def test_no_row_for_the_target(tmp_path):
    out = gate(tmp_path, {}, 'none')
    assert len(out) == 1 and out[0].startswith('FAIL cost gate: no row of ')


def test_pingpong_rows_against_pp_off(tmp_path):
    """A pp-* row counts per round trip over pp-off, not over untraced;
    without pp-off it was not measured."""
    (tmp_path / 'budgets.conf').write_text(
        'x86   pp-offcpu   4500  4100  3700\n')
    (tmp_path / 'bench.json').write_text(json.dumps({'x86': {
        'configs': {'untraced': {'insn': 1000.0}, 'pp-off': {'insn': 11000.0},
                    'pp-offcpu': {'insn': 15100.4}},
        'irq': {'entries': 1520, 'left_out': 2313410}}}))
    run = [sys.executable, str(GATE), str(tmp_path / 'budgets.conf'), str(tmp_path), 'x86']
    out = subprocess.run(run, capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == [
        'PASS x86 cost of pp-offcpu: +4100 instructions per round trip, budget 4500 '
        '(measured 4100; goal 3700 not met)']
    rep = json.loads((tmp_path / 'bench.json').read_text())
    del rep['x86']['configs']['pp-off']
    (tmp_path / 'bench.json').write_text(json.dumps(rep))
    out = subprocess.run(run, capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == [
        f'FAIL x86 cost of pp-offcpu: not measured ({tmp_path}/bench.json)']
