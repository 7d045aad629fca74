# SPDX-License-Identifier: GPL-2.0
"""The tool's rough edges (issue list of branch tool-edges): output that
stdout cannot encode (LC_ALL=C), the terminal's width, warnings of lost
samples and stopped entries, --unit's digits, -p pNN and unresolved
percentiles, export's default, heatmap's and plot's output files,
record's warning on a capture, and the help texts."""
import json
import os

from conftest import FIXTURES, run, write_capture

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


def lossy_capture(tmp_path, extra):
    samples = [(i % 2, 1000 + i) for i in range(5000)]
    return write_capture(tmp_path / 'cap', {'e': (4, samples)}, extra)


def test_warning_lost_samples(tmp_path):
    cap = lossy_capture(tmp_path, ' missed 51 dropped 3 unpaired 60 expired 0')
    r = run('--dir', cap, 'show', 'e')
    assert r.stderr == ('kstats: warning: e: missed 51 (1.02% of count 5000), '
                        'unpaired 60 (1.2% of count 5000)\n')
    assert r.stdout.splitlines()[0] == 'e  (%s/e)' % cap
    r = run('--dir', cap, 'show', 'e', '--json')
    assert r.stderr.startswith('kstats: warning: e: missed 51 ')
    out = run('--dir', cap, 'watch', 'e', '-n', '1').stdout.splitlines()
    assert out[1] == ('warning: e: missed 51 (1.02% of count 5000), unpaired 60 (1.2% of '
                      'count 5000)')
    assert out[2].split()[0] == 'samples'


def test_no_warning_at_one_percent(tmp_path):
    cap = lossy_capture(tmp_path, ' missed 50 dropped 50 unpaired 0')
    r = run('--dir', cap, 'show', 'e')
    assert r.stderr == ''
    out = run('--dir', cap, 'watch', 'e', '-n', '1').stdout.splitlines()
    assert out[1].split()[0] == 'samples'
    assert json.loads(run('--dir', cap, 'watch', 'e', '-n', '1', '--json').stdout)[
        'warning'] is None


def test_warning_stopped():
    r = run('--dir', HELPER, 'show', 'stopped_b1')
    assert r.stderr == ('kstats: warning: stopped_b1: state stopped (no new samples are '
                        'counted)\n')
    r = run('--dir', HELPER, 'watch', 'stopped_b1', '-n', '1', '--json')
    assert '"warning": "stopped_b1: state stopped (no new samples are counted)"' in r.stdout


def test_unit_digits():
    out = run('--dir', HELPER, 'show', 'lat_base', '--unit', 'ns').stdout.splitlines()
    assert out[3] == ('count 5000  min 681ns  mean 2342ns  max 40478ns  p50 2012ns  '
                      'p90 2996ns  p99 13716ns  p99.9 31666ns')
    assert out[7] == 'mean     2342ns     +1ns'
    assert out[10] == 'p50      2012ns    \u00b163ns  [1984ns, 2047ns]'
    out = run('--dir', HELPER, 'show', 'lat_base', '--unit', 'ms').stdout.splitlines()
    assert out[7] == 'mean     0.00234ms  +0.000001ms'
    assert out[9] == 'min     0.000681ms  \u00b10.000031ms  [0.000672ms, 0.000703ms]'
    assert out[12] == 'p99       0.0137ms  \u00b10.000511ms  [0.0133ms, 0.0138ms]'
    out = run('--dir', HELPER, 'show', 'lat_base', '--unit', 'us').stdout.splitlines()
    assert out[7] == 'mean     2.34us  +0.001us'
    from kstats import render
    assert render.fmt_t(2341.5, 'ns') == '2342ns'
    assert render.fmt_t(1, 'ms') == '0.000001ms' and render.fmt_t(25, 'us') == '0.025us'
    assert render.fmt_t(7441, 'ms') == '0.00744ms' and render.fmt_t(0.4, 'us') == '0us'
    assert render.fmt_t(2341.5) == '2.34us' and render.fmt_t(4.5) == '4.5ns'


def test_percentile_forms_and_unresolved():
    a = run('--dir', HELPER, 'show', 'lat_base', '-p', 'p99,99.9', '--json').stdout
    b = run('--dir', HELPER, 'show', 'lat_base', '-p', '99,p99.9', '--json').stdout
    assert a == b and set(json.loads(a)['percentiles']) == {'p99', 'p99.9'}
    assert json.loads(a)['unresolved'] == []
    out = run('--dir', HELPER, 'show', 'lat_base', '-p', 'p50,99.9,99.999').stdout.splitlines()
    assert out[3] == ('count 5000  min 681ns  mean 2.34us  max 40.5us  p50 2.01us  '
                      'p99.9 31.7us  p99.999* 40.5us')
    assert 'p99.999*  40.5us  \u00b12.05us  [38.9us, 41.0us]' in out
    assert 'p99.9     31.7us  \u00b11.02us  [30.7us, 31.7us]' in out
    note = ('* too few samples for the percentile: it reads as the max (samples needed: '
            'p99.999 100000)')
    assert out.count(note) == 2       # under the table and under the per-CPU table
    assert out[-4].split() == ['cpu', 'count', 'share', 'mean', 'p50', 'p99.9', 'p99.999',
                               'max']
    assert out[-3].split()[-2:] == ['40.5us*', '40.5us']
    d = json.loads(run('--dir', HELPER, 'show', 'lat_base', '-p', '99.999',
                       '--json').stdout)
    assert d['unresolved'] == ['p99.999']
    out = run('--dir', HELPER, 'watch', 'lat_base', '-n', '1', '-p', 'p50,p99.99').stdout
    assert out.splitlines()[3].split()[-2:] == ['40.5us*', '40.5us']
    assert out.splitlines()[4] == ('* too few samples for the percentile: it reads as the '
                                   'max (samples needed: p99.99 10000)')
    # Without the mark where the count suffices.
    out = run('--dir', HELPER, 'show', 'lat_base').stdout
    assert '*' not in out


def buckets(text, entry):
    return [line for line in text.splitlines()
            if line.startswith('kstats_') and '_bucket{entry="%s"' % entry in line]


def test_export_default(tmp_path):
    from kstats import model
    from kstats.export import EXPORT_BITS, EXPORT_RANGE
    assert EXPORT_RANGE == (100, 1000000000) and EXPORT_BITS == 2
    r = run('--dir', HELPER, 'export', 'lat_base')
    assert r.stdout.splitlines()[0] == '# TYPE kstats_duration_seconds histogram'
    b = buckets(r.stdout, 'lat_base')
    assert len(b) == 95                     # 94 edges and +Inf
    assert b[0] == 'kstats_duration_seconds_bucket{entry="lat_base",le="1.11e-07"} 0'
    assert b[-2] == 'kstats_duration_seconds_bucket{entry="lat_base",le="1.073741823"} 5000'
    assert b[-1] == 'kstats_duration_seconds_bucket{entry="lat_base",le="+Inf"} 5000'
    # The same layout for every duration entry, whatever its bits.
    text = run('--dir', HELPER, 'export').stdout
    les = [[x.split('le=')[1].split('}')[0] for x in buckets(text, n)]
           for n in ('lat_base', 'small_b0', 'wide_b5', 'lat_base_b2')]
    assert all(x == les[0] for x in les)
    want = [model.slot_top(s, 2) for s in range(model.slot_of(100, 2),
                                                model.slot_of(10 ** 9, 2) + 1)]
    raw = run('--dir', HELPER, 'export', '--raw', 'lat_base').stdout
    assert [x.split('le="')[1].split('"')[0] for x in buckets(raw, 'lat_base')] == [
        '%d.0' % t for t in want] + ['+Inf']
    # --range and --bucket-bits change it; --range all: every bucket.
    assert len(buckets(run('--dir', HELPER, 'export', '--range', 'all', 'lat_base').stdout,
                       'lat_base')) == 252
    assert len(buckets(run('--dir', HELPER, 'export', '--range', '1us:10s',
                           'lat_base').stdout, 'lat_base')) == 95
    assert len(buckets(run('--dir', HELPER, 'export', '--bucket-bits', '1', 'lat_base').stdout,
                       'lat_base')) == 48
    # Values keep every bucket by default.
    cap = write_capture(tmp_path / 'v', {'sz': (2, [(0, 4096), (1, 10)])}, ' value arg3')
    assert len(buckets(run('--dir', cap, 'export').stdout, 'sz')) == 252


def test_help_texts():
    out = run('--help').stdout
    assert out.splitlines()[-1] == ('The manual: man kstats. "kstats COMMAND -h" for a '
                                    "command's options.")
    assert 'Documentation/kstats-tool.rst' not in out
    lines = run('trace', '-h').stdout.splitlines()
    assert '  ARGS        the words of the trace command: FUNC [OPTION...] (below)' in lines
    i = lines.index('ARGS, as _control takes them after "trace":')
    assert lines[i + 1:i + 14] == [
        '  FUNC [bits N] [via kretprobe|fprobe|direct] [as NAME] [clock mono|tsc]',
        '       [value argN|retval [type u8|u16|u32|u64|s8|s16|s32|s64]]',
        '       [counter EVENT] [FILTER...]',
        '  pcpu:FUNC [bits N] [as NAME] [clock local|mono|tsc] [counter EVENT] [FILTER...]',
        '  NAME start X end Y [bits N] [key cpu|task|argN [type T]] [slots N] [expire N]',
        '       [clock local|mono|tsc] [counter EVENT] [FILTER...]',
        '  NAME gap X [bits N] [clock local|mono|tsc] [FILTER...]',
        'FILTER: pid N | tid N | comm NAME | cpu N | cgroup PATH|ID',
        'all but the gap: [by comm|pid|tid|cpu|cgroup [keys N]]; FUNC and pcpu:FUNC:',
        '[by retval [type T]] [by stack] (where FUNC returns to); FUNC (time) and pairs:',
        '[by argN [type T]] (at FUNC\'s entry, at X); a key task pair ending at',
        '__tracepoint_sys_exit: [by syscall]',
        'X, Y: SYMBOL, SYMBOL+OFFSET or __tracepoint_NAME']
    assert lines[-1] == 'The details: man kstats, and Documentation/kstats.rst ("trace FUNC").'


def test_output_files_and_record_warning(tmp_path):
    import subprocess
    import time
    from conftest import PYTHON, TOOL
    cap = write_capture(tmp_path / 'live', {'e': (2, [(0, 1000)] * 10)})
    env = dict(os.environ, KSTATS_TEST_LIVE_DIR=cap)
    env.pop('COLUMNS', None)
    p = subprocess.Popen([PYTHON, TOOL, '--dir', cap, 'record', 'e', '-n', '1', '-i', '1',
                          '-o', str(tmp_path / 'rec')], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, universal_newlines=True, env=env)
    while not os.path.isdir(str(tmp_path / 'rec' / 'start')):
        time.sleep(0.02)
    write_capture(tmp_path / 'live', {'e': (2, [(0, 1000)] * 30)})
    out, err = p.communicate(timeout=30)
    assert p.returncode == 0 and err == ''      # live: no warning
    r = run('heatmap', 'rec', cwd=str(tmp_path))
    assert r.stdout == 'rec-e.png: heatmap of e, 1 intervals\n'
    assert open(str(tmp_path / 'rec-e.png'), 'rb').read(8) == b'\x89PNG\r\n\x1a\n'
    # A capture: one warning line.
    r = run('--dir', HELPER, 'record', 'lat_base', '-n', '1', '-i', '0.01', '-o',
            tmp_path / 'rec2')
    assert r.stderr == ('kstats: warning: %s is not on debugfs (a saved capture?): its '
                        'entries do not change, every interval after the first is empty\n'
                        % HELPER)
    # plot --png and heatmap -o refuse a name of another format.
    r = run('--dir', HELPER, 'plot', 'lat_base', '--png', tmp_path / 'x.svg', check=False)
    assert r.returncode == 1 and r.stderr == (
        "kstats: error: --png %s: --png writes PNG only, and %s names 'svg': give a "
        'FILE.png\n' % (tmp_path / 'x.svg', tmp_path / 'x.svg'))
    assert not os.path.exists(str(tmp_path / 'x.svg'))
    r = run('heatmap', tmp_path / 'rec', '-o', tmp_path / 'h', check=False)
    assert r.returncode == 1 and r.stderr == (
        'kstats: error: -o %s: -o writes PNG only, and %s names no format: give a '
        'FILE.png\n' % (tmp_path / 'h', tmp_path / 'h'))
