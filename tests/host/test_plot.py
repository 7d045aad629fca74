# SPDX-License-Identifier: GPL-2.0
"""kstats plot through gnuplot: a PNG that renders and is not empty, the
dumb terminal, --live, --script; and the raw files still work with the
one-line gnuplot recipes of the documentation."""
import math
import os
import struct
import subprocess

import pytest

from conftest import NONEMPTY, Samples, program, run


def gnuplot():
    return program('gnuplot', 'gnuplot-nox')


def png_size(path):
    with open(path, 'rb') as f:
        head = f.read(24)
    assert head[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
    assert head[12:16] == b'IHDR'
    return struct.unpack('>II', head[16:24])


@pytest.mark.parametrize('name', ['lat_base', 'small_b0', 'wide_b5'])
def test_png_renders(capture, tmp_path, name):
    gnuplot()
    out = tmp_path / (name + '.png')
    r = run('plot', '--dir', capture, name, '--png', out)
    assert str(out) in r.stdout
    assert out.stat().st_size > 10000
    assert png_size(str(out)) == (900, 900)
    # The picture is drawn, not blank: many distinct byte values.
    assert len(set(out.read_bytes())) > 200
    assert os.listdir(str(tmp_path)) == [name + '.png'], 'no temporary file left'
    run('plot', '--dir', capture, name, '--png', out, '--size', '640,480', '--cpu', '1')
    assert png_size(str(out)) == (640, 480)


def test_dumb_terminal(capture):
    gnuplot()
    out = run('plot', '--dir', capture, 'lat_base', '--size', '100,40').stdout
    lines = out.splitlines()
    assert 30 <= len(lines) <= 41 and max(len(l) for l in lines) <= 100
    for word in ('lat_base: 5000 samples', 'distribution', 'CDF', '1000', '10000'):
        assert word in out
    assert out.count('*') > 50


def test_live(capture):
    gnuplot()
    r = run('plot', '--dir', capture, 'lat_base', '--live', '-n', '3', '-i', '0.05',
            '--size', '80,30')
    assert r.stdout.count('lat_base: 5000 samples') == 3


def test_live_png(capture, tmp_path):
    gnuplot()
    out = tmp_path / 'live.png'
    r = run('plot', '--dir', capture, 'lat_base', '--live', '-n', '2', '-i', '0.05',
            '--png', out)
    assert r.stdout.count(str(out)) == 2 and png_size(str(out)) == (900, 900)


def test_script(capture):
    s = run('plot', '--dir', capture, 'small_b0', '--script').stdout
    assert '$kstats << EOD' in s and 'set logscale x' in s and 'set multiplot' in s
    rows = s.split('$kstats << EOD\n')[1].split('EOD\n')[0].splitlines()
    # Slot 0 (the value 0) shows at 0.5 on the log axis; the last row ends it.
    assert rows[0].split()[0] == '0.5'
    assert sum(int(r.split()[4]) for r in rows) == 1600
    assert rows[-1].split()[2:4] == ['0', '1']


def test_empty_entry(capture):
    r = run('plot', '--dir', capture, 'empty_b4', check=False)
    assert r.returncode == 1 and 'no samples' in r.stderr


@pytest.mark.parametrize('recipe', [
    'plot "<grep CPUS {f}" u 8:6 w l',            # distribution
    'plot "<grep CPUS {f}" u 8:10 w l',           # CDF
    'plot "<grep -E \'CPU +1 \' {f}" u 8:6 w l',  # one CPU
    'plot "{f}" u 8:6 w l',                       # every line
])
@pytest.mark.parametrize('name', NONEMPTY)
def test_raw_file_recipes(capture, recipe, name):
    """The documented one-liners read the raw files as they are."""
    gp = gnuplot()
    cmd = 'set terminal dumb size 80,25; set logscale x; ' + recipe.format(
        f=os.path.join(capture, name))
    if name in ('small_b0', 'wide_b5'):
        # avg 0 has no place on a log axis: gnuplot skips it, with a warning.
        cmd = cmd.replace('set logscale x; ', 'set logscale x; set xrange [0.5:*]; ')
    r = subprocess.run([gp, '-e', cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count('*') > 3, r.stdout
    assert 'rror' not in r.stderr, r.stderr


def script_rows(script, block='$kstats'):
    return [[float(w) for w in r.split()]
            for r in script.split(block + ' << EOD\n')[1].split('EOD\n')[0].splitlines()]


def level_over(rows, x):
    """The level gnuplot's 'with steps' draws just right of x: steps draw
    (x1, y1) to (x2, y1), then up or down to (x2, y2), so the level over
    [x_i, x_i+1) is y_i, the level of the last row with x_i <= x."""
    level = None
    for r in rows:
        if r[0] <= x:
            level = r[2]
    return level


def test_distribution_drawn_over_its_own_slot(capture):
    """Issue 12 item 2: small_b0's slot [4, 8) is drawn over [4, 8), not
    [2, 4): the script plots lower edges 'with steps' (fsteps would draw
    the next row's level over each interval)."""
    s = run('plot', '--dir', capture, 'small_b0', '--script').stdout
    plot_lines = [l for l in s.splitlines() if l.startswith('plot $kstats using 1:3')]
    assert len(plot_lines) == 1 and ' with steps ' in plot_lines[0], plot_lines
    rows = script_rows(s)
    raw = Samples('small_b0').values()
    for lo, hi in ((2, 4), (4, 8), (8, 16)):
        n = sum(1 for v in raw if lo <= v < hi)
        # density: count per octave at bits 0 (one slot per octave).
        want = n / math.log2(hi / lo)
        for x in (lo, (lo + hi) / 2, hi - 0.01):
            assert abs(level_over(rows, x) - want) <= 1e-5 * want, (lo, hi, x)
    # Past the last slot the level is 0.
    assert level_over(rows, rows[-1][0] + 1) == 0


def test_tail_panel(capture):
    """The tail: 1 - CDF at each slot's upper edge, on log-log axes."""
    s = run('plot', '--dir', capture, 'lat_base', '--script').stdout
    assert 'plot $kstats using 2:(1 - $4 > 0 ? 1 - $4 : NaN) with lines' in s
    assert s.index('set logscale y') > s.index('plot $kstats using 2:4')
    raw = Samples('lat_base').values()
    for r in script_rows(s)[1:-1]:
        above = sum(1 for v in raw if v >= r[1]) / len(raw)
        assert abs((1 - r[3]) - above) < 1e-6, r


def test_overlay_two_captures(capture, tmp_path):
    a, b = os.path.join(capture, 'lat_base'), os.path.join(capture, 'lat_shift')
    s = run('plot', a, b, '--script').stdout
    assert '$kstats2 << EOD' in s
    assert 'plot $kstats using 1:3 with steps lw 2 title "lat_base", $kstats2 using 1:3 ' \
        'with steps lw 2 title "lat_shift"' in s
    assert sum(r[4] for r in script_rows(s, '$kstats2')) == 5000
    gnuplot()
    out = tmp_path / 'overlay.png'
    run('plot', a, b, '--png', out)
    assert png_size(str(out)) == (900, 900) and os.path.getsize(str(out)) > 10000


def test_units_on_the_axis(capture):
    s = run('plot', '--dir', capture, 'lat_base', '--script', '--unit', 'us').stdout
    assert 'set xlabel "value (us)"' in s
    ns = script_rows(run('plot', '--dir', capture, 'lat_base', '--script').stdout)
    us = script_rows(s)
    assert all(abs(a[0] / 1000 - b[0]) < 1e-9 * a[0] for a, b in zip(ns, us))


def test_live_dumb_terminal(capture):
    """plot --live redraws in the terminal, as the talk's recipe does."""
    gnuplot()
    r = run('plot', '--dir', capture, 'lat_base', '--live', '-n', '2', '-i', '0.1',
            '--size', '80,45')
    assert r.stdout.count('lat_base: 5000 samples') == 2
    assert r.stdout.count('tail: fraction above value') == 2
