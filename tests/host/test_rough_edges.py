# SPDX-License-Identifier: GPL-2.0
"""The tool's rough edges (issue list of branch tool-edges): output that
stdout cannot encode (LC_ALL=C), the terminal's width, warnings of lost
samples and stopped entries, --unit's digits, -p pNN and unresolved
percentiles, export's default, heatmap's and plot's output files,
record's warning on a capture, and the help texts."""
import os

from conftest import FIXTURES, run

HELPER = os.path.join(FIXTURES, 'helper')

# An ASCII standard output: the C locale without Python's UTF-8 mode.
ASCII_ENV = {'LC_ALL': 'C', 'LANG': None, 'PYTHONIOENCODING': None, 'PYTHONUTF8': '0'}


def test_ascii_stdout_falls_back():
    r = run('--dir', HELPER, 'show', 'lat_base', env=ASCII_ENV)
    lines = r.stdout.splitlines()
    assert lines[5] == '         value   +-bound  slot range'
    assert lines[10] == 'p50     2.01us    +-63ns  [1.98us, 2.05us]'
    assert '\u00b1' not in r.stdout and r.stderr == ''
    # The same under an explicit ASCII encoding, and for errors too.
    r = run('--dir', HELPER, 'show', 'lat_base', env={'PYTHONIOENCODING': 'ascii'})
    assert r.stdout.splitlines()[10] == 'p50     2.01us    +-63ns  [1.98us, 2.05us]'
    r = run('--dir', HELPER, 'show', 'n\u00f6', env=ASCII_ENV, check=False)
    assert r.returncode == 1
    assert r.stderr.startswith('kstats: error: '), r.stderr
    assert 'internal error' not in r.stderr


def test_ascii_stdout_utf8_unchanged():
    r = run('--dir', HELPER, 'show', 'lat_base', env={'PYTHONIOENCODING': 'utf-8'})
    assert r.stdout.splitlines()[10] == 'p50     2.01us    \u00b163ns  [1.98us, 2.05us]'


def widths(out):
    return max(len(x) for x in out.splitlines())


def test_show_fits_columns():
    default = run('--dir', HELPER, 'show', 'lat_base').stdout
    assert widths(default) == 96     # no terminal, no COLUMNS: as long as they are
    assert default.splitlines()[3] == (
        'count 5000  min 681ns  mean 2.34us  max 40.5us  p50 2.01us  p90 3.00us  '
        'p99 13.7us  p99.9 31.7us')
    for cols in (60, 80):
        for more in ([], ['--unit', 'ms', '-p', '50,90,99,99.9,99.99'], ['--cpu', '1']):
            out = run('--dir', HELPER, 'show', 'lat_base', *more,
                      env={'COLUMNS': str(cols)}).stdout
            assert widths(out) <= cols, (cols, more, out)
    # Below 60 columns, as for 60.
    assert run('--dir', HELPER, 'show', 'lat_base', env={'COLUMNS': '30'}).stdout == run(
        '--dir', HELPER, 'show', 'lat_base', env={'COLUMNS': '60'}).stdout
    lines = run('--dir', HELPER, 'show', 'lat_base', env={'COLUMNS': '80'}).stdout.splitlines()
    assert lines[3:5] == ['count 5000  min 681ns  mean 2.34us  max 40.5us  p50 2.01us  '
                          'p90 3.00us', '  p99 13.7us  p99.9 31.7us']
    lines = run('--dir', HELPER, 'show', 'lat_base', '--unit', 'ms', '-p', '50,90,99,99.9,99.99',
                env={'COLUMNS': '60'}).stdout.splitlines()
    assert '[0.000640ms, 0.000768ms)    4 |                            |' in lines
    assert '[0.00205ms, 0.00256ms)   1318 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@|' in lines
    # The per-CPU table leaves out share, then the last percentiles.
    i = lines.index('per CPU:')
    assert lines[i + 1].split() == ['cpu', 'count', 'mean', 'p50', 'p90', 'max']


def test_watch_fits_columns():
    out = run('--dir', HELPER, 'watch', 'lat_base', '-n', '2', '-i', '0.05', '--hist',
              '--unit', 'ms', env={'COLUMNS': '60'}).stdout
    assert widths(out) <= 60, out
    assert out.splitlines()[1].split() == ['samples', 'rate/s', 'mean', 'p50', 'max']
    out = run('--dir', HELPER, 'watch', 'lat_base', '-n', '1').stdout
    assert out.splitlines()[1].split() == ['samples', 'rate/s', 'mean', 'p50', 'p90', 'p99',
                                           'p99.9', 'max']
    out = run('--dir', HELPER, 'watch', 'lat_base', '-n', '1', env={'COLUMNS': '80'}).stdout
    assert widths(out) <= 80 and out.splitlines()[1].split()[-2:] == ['p99.9', 'max']
