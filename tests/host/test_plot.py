# SPDX-License-Identifier: GPL-2.0
"""kstats plot through gnuplot: a PNG that renders and is not empty, the
dumb terminal, --live, --script; and the raw files still work with the
one-line gnuplot recipes of the documentation."""
import os
import shutil
import struct
import subprocess

import pytest

from conftest import NONEMPTY, run


def gnuplot():
    gp = shutil.which('gnuplot')
    if not gp:
        pytest.skip('gnuplot not installed (Debian: gnuplot-nox)')
    return gp


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
    assert png_size(str(out)) == (900, 700)
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
    assert r.stdout.count(str(out)) == 2 and png_size(str(out)) == (900, 700)


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
