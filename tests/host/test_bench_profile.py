"""tests/bench/profile.py: each run's marker section, blocks named by the
function they start in, per iteration, less the baseline's."""
import importlib.util
import subprocess
import sys
from pathlib import Path

PROFILE = Path(__file__).resolve().parents[1] / 'bench' / 'profile.py'
spec = importlib.util.spec_from_file_location('profile_py', PROFILE)
profile = importlib.util.module_from_spec(spec)
spec.loader.exec_module(profile)

RESULTS = """\
# kernel 6.12
run pp-off 1 10 100
run pp-off 1 20 200
run pp-offcpu 1 10 100
ksym ffffffff81000000 T _text
ksym ffffffff81000100 T __schedule
ksym ffffffff81000900 t unwind_next_frame
ksym ffffffffc0000000 t kstats_tp_end_start\t[kstats]
"""
# Marker k ends run k // 2 if k is odd; the even ones end the gaps.
PROF = """\
mark 0
ffffffff81000100 50 99
mark 1
ffffffff81000100 10 10
ffffffff81000120 5 10
mark 2
ffffffff81000100 1 7
mark 3
ffffffff81000100 10 20
ffffffff81000120 5 20
mark 4
mark 5
ffffffff81000100 10 10
ffffffff81000120 5 12
ffffffff81000904 30 10
ffffffffc0000010 7 20
"""


def write(tmp_path):
    (tmp_path / 'results.txt').write_text(RESULTS)
    (tmp_path / 'profile.txt').write_text(PROF)
    return str(tmp_path)


def test_sections_and_names(tmp_path):
    runs, syms = profile.read_results(write(tmp_path) + '/results.txt')
    assert runs == [('pp-off', 10), ('pp-off', 20), ('pp-offcpu', 10)]
    assert syms[-1] == (0xffffffffc0000000, 'kstats_tp_end_start [kstats]')
    sections = profile.read_profile(str(tmp_path) + '/profile.txt')
    assert sections[5][-1] == (0xffffffffc0000010, 7, 20)
    names = [n for _, n in syms]
    addrs = [a for a, _ in syms]
    insns, calls = profile.by_function(sections[1], addrs, names)
    assert insns == {'__schedule': 150}
    assert calls == {'__schedule': 10}


def test_difference_per_iteration(tmp_path):
    out = subprocess.run([sys.executable, str(PROFILE), write(tmp_path)],
                         capture_output=True, text=True, check=True).stdout
    # pp-off: (150 + 300) / 30 = 15 per iteration in __schedule; pp-offcpu:
    # __schedule (100 + 60) / 10 = 16, unwind_next_frame 30, kstats' 14.
    assert out.splitlines() == [
        'pp-offcpu: +45.0 kernel instructions per iteration over pp-off',
        '      +30.0  unwind_next_frame',
        '      +14.0  kstats_tp_end_start [kstats]',
        '       +1.0  __schedule  (1.00 calls)',
        '',
    ]
