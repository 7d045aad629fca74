# SPDX-License-Identifier: GPL-2.0
"""Issue 22, what a Unix tool brings: make install-tool installs the
command, its man page kstats(1) made from the manual by rst2man, its bash
completion generated from the parser, and the systemd service and timer
of the continuous export; each is checked working."""
import os
import re
import shlex
import shutil
import subprocess

import pytest

from conftest import FIXTURES, REPO
from kstats import cli
from kstats import VERSION

HELPER = os.path.join(FIXTURES, 'helper')


@pytest.fixture(scope='module')
def prefix(tmp_path_factory):
    pfx = str(tmp_path_factory.mktemp('install') / 'usr')
    r = subprocess.run(['make', '-s', '-C', REPO, 'install-tool', 'PREFIX=' + pfx],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    assert r.returncode == 0, r.stdout
    return pfx


def test_installed_files(prefix):
    got = sorted(os.path.relpath(os.path.join(d, f), prefix)
                 for d, _, fs in os.walk(prefix) for f in fs)
    assert got == ['bin/kstats', 'lib/systemd/system/kstats-export.service',
                   'lib/systemd/system/kstats-export.timer',
                   'share/bash-completion/completions/kstats', 'share/man/man1/kstats.1']
    assert os.access(os.path.join(prefix, 'bin/kstats'), os.X_OK)


def test_man_page(prefix):
    page = os.path.join(prefix, 'share/man/man1/kstats.1')
    text = open(page).read()
    assert '.TH "KSTATS" 1 "" "%s" "kstats"' % VERSION in text
    r = subprocess.run(['man', '--warnings', '-l', page], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True,
                       env=dict(os.environ, MANWIDTH='80', MAN_KEEP_FORMATTING='0'))
    assert r.returncode == 0 and r.stderr == '', r.stderr
    out = re.sub('.\b', '', r.stdout)      # no overstrike (bold)
    assert out.splitlines()[0].split() == ['KSTATS(1)', 'kstats', 'KSTATS(1)']
    heads = re.findall(r'^([A-Z][A-Z ]+)$', out, re.M)
    man = ['NAME', 'SYNOPSIS', 'DESCRIPTION', 'COMMANDS', 'OPTIONS', 'CONTROL COMMANDS',
           'EXAMPLES', 'FILES', 'ENVIRONMENT', 'EXIT STATUS', 'SEE ALSO']
    assert [h for h in heads if h in man] == man, heads
    assert 'FLEET EXPORT' in heads, heads
    assert not [h for h in heads if 'TEST' in h or 'GUEST' in h], heads
    # Every command of the parser has its section.
    for cmd in cli.build_parser().subparsers:
        assert 'kstats %s' % cmd in out, cmd


def complete(prefix, words, cwd):
    """COMPREPLY of the installed completion for the words (the last one
    being completed)."""
    script = os.path.join(prefix, 'share/bash-completion/completions/kstats')
    cmd = 'source %s; COMP_WORDS=(%s); COMP_CWORD=%d; _kstats; printf "%%s\\n" ' \
        '"${COMPREPLY[@]}"' % (shlex.quote(script), ' '.join(shlex.quote(w) for w in words),
                               len(words) - 1)
    r = subprocess.run(['bash', '--norc', '-c', cmd], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, cwd=cwd,
                       env={'PATH': os.environ['PATH']})
    assert r.returncode == 0 and r.stderr == '', r.stderr
    return sorted(x for x in r.stdout.split('\n') if x)


def test_bash_completion(prefix, tmp_path):
    cwd = str(tmp_path)
    assert complete(prefix, ['kstats', 'sh'], cwd) == ['show']
    assert complete(prefix, ['kstats', 'export', '--ra'], cwd) == ['--range', '--raw']
    assert complete(prefix, ['kstats', 'show', '--unit', 'm'], cwd) == ['ms']
    assert complete(prefix, ['kstats', '--dir', HELPER, 'show', 'lat_b'], cwd) == [
        'lat_base', 'lat_base_b2']
    (tmp_path / 'lat_x.txt').write_text('')
    assert complete(prefix, ['kstats', '--dir', HELPER, 'diff', 'lat_'], cwd) == [
        'lat_base', 'lat_base_b2', 'lat_same', 'lat_shift', 'lat_x.txt']
    assert complete(prefix, ['kstats', 'export', '-o', 'lat'], cwd) == ['lat_x.txt']
    assert complete(prefix, ['kstats', '--v'], cwd) == ['--version']
    # Each command's options are its parser's.
    parser = cli.build_parser()
    for name, sub in parser.subparsers.items():
        want = sorted(o for a in sub._actions for o in a.option_strings)
        assert complete(prefix, ['kstats', name, '-'], cwd) == want, name


def test_systemd_units(prefix, tmp_path):
    unitdir = os.path.join(prefix, 'lib/systemd/system')
    service = open(os.path.join(unitdir, 'kstats-export.service')).read()
    line = [x for x in service.splitlines() if x.startswith('ExecStart=')][0]
    argv = shlex.split(line[len('ExecStart='):])
    assert argv[0] == os.path.join(prefix, 'bin/kstats')
    # The service's command, run with the variables systemd would set.
    out = tmp_path / 'kstats.prom'
    env = {'$KSTATS_EXPORT_ARGS': ['--dir', HELPER, '--label', 'host=h1'],
           '${KSTATS_EXPORT_FILE}': [str(out)]}
    argv = [w for a in argv for w in env.get(a, [a])]
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    assert r.returncode == 0 and r.stdout == '' and r.stderr == '', r.stderr
    text = out.read_text()
    assert 'kstats_duration_seconds_count{entry="lat_base",host="h1"} 5000' in text
    timer = open(os.path.join(unitdir, 'kstats-export.timer')).read()
    assert 'OnUnitActiveSec=15s' in timer and 'WantedBy=timers.target' in timer
    analyze = shutil.which('systemd-analyze')
    if analyze:
        r = subprocess.run([analyze, 'verify', '--man=no', 'kstats-export.service',
                            'kstats-export.timer'], cwd=unitdir, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True)
        assert r.returncode == 0 and r.stdout == '', r.stdout
