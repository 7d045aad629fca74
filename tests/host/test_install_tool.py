# SPDX-License-Identifier: GPL-2.0
"""Issue 22, what a Unix tool brings: make install-tool installs the
command, its man page kstats(1) made from the manual by rst2man, its bash
and zsh completions generated from the parser, and the systemd service
and timer of the continuous export; each is checked working. Issue 29:
without rst2man, one warning and the rest installs; make uninstall takes
it all away again; the completions take --dir=DIR and complete trace's
kernel functions."""
import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest

from conftest import FIXTURES, REPO, program
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
                   'share/bash-completion/completions/kstats', 'share/man/man1/kstats.1',
                   'share/zsh/site-functions/_kstats']
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


def complete(prefix, words, cwd, env=None):
    """COMPREPLY of the installed completion for the words (the last one
    being completed); env: more environment."""
    script = os.path.join(prefix, 'share/bash-completion/completions/kstats')
    cmd = 'source %s; COMP_WORDS=(%s); COMP_CWORD=%d; _kstats; printf "%%s\\n" ' \
        '"${COMPREPLY[@]}"' % (shlex.quote(script), ' '.join(shlex.quote(w) for w in words),
                               len(words) - 1)
    r = subprocess.run(['bash', '--norc', '-c', cmd], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, cwd=cwd,
                       env=dict(env or {}, PATH=os.environ['PATH']))
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
    r = subprocess.run([program('systemd-analyze', 'systemd'), 'verify', '--man=no',
                        'kstats-export.service', 'kstats-export.timer'], cwd=unitdir,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    assert r.returncode == 0 and r.stdout == '', r.stdout


INSTALLED = ['usr/bin/kstats', 'usr/lib/systemd/system/kstats-export.service',
             'usr/lib/systemd/system/kstats-export.timer',
             'usr/share/bash-completion/completions/kstats',
             'usr/share/zsh/site-functions/_kstats']


def files(root):
    return sorted(os.path.relpath(os.path.join(d, f), root)
                  for d, _, fs in os.walk(root) for f in fs)


def path_without_rst2man(bindir):
    """A PATH of one directory: links to every command of PATH but
    rst2man and rst2man.py, and python3 to this interpreter."""
    os.mkdir(bindir)
    os.symlink(os.path.realpath(shutil.which('python3')), os.path.join(bindir, 'python3'))
    for d in os.environ['PATH'].split(os.pathsep):
        if not os.path.isdir(d):
            continue
        for name in os.listdir(d):
            exe = os.path.join(d, name)
            link = os.path.join(bindir, name)
            if name.startswith('rst2man') or os.path.lexists(link):
                continue
            if os.path.isfile(exe) and os.access(exe, os.X_OK):
                os.symlink(exe, link)
    return bindir


def test_install_without_rst2man(tmp_path):
    bindir = path_without_rst2man(str(tmp_path / 'bin'))
    root = str(tmp_path / 'root')
    env = dict(os.environ, PATH=bindir)
    env.pop('RST2MAN', None)
    r = subprocess.run(['make', '-s', '-C', REPO, 'install-tool', 'DESTDIR=' + root,
                        'PREFIX=/usr'], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stderr.splitlines() == [
        'warning: rst2man not found (Debian: apt-get install python3-docutils): '
        'the man page kstats(1) is not installed'], r.stderr
    assert files(root) == INSTALLED
    # mkman.sh itself still fails, saying why.
    r = subprocess.run([os.path.join(REPO, 'scripts/mkman.sh')], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, env=env)
    assert r.returncode != 0 and 'rst2man not found' in r.stderr


def test_install_modules_before_tool():
    """make install: the modules do not wait for the tool (its man page)."""
    r = subprocess.run(['make', '-n', '-p', '-C', REPO, 'install', 'KDIR=/nonexistent',
                        'KRELEASE=0.0-test'], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, universal_newlines=True)
    rules = dict(x.split(':', 1) for x in r.stdout.splitlines()
                 if re.match(r'^(install|install-modules|install-tool):', x))
    assert rules['install'].split() == ['install-modules', 'install-tool']
    assert rules['install-modules'].split() == []
    # A plain build makes kstats.ko and kstats_tramp.ko alone; the test
    # modules are Kbuild's KSTATS_TEST_MODULES=1 (make test-modules).
    kbuild = open(os.path.join(REPO, 'Kbuild')).read()
    assert 'ifeq ($(KSTATS_TEST_MODULES),1)' in kbuild


def test_uninstall(tmp_path):
    """make uninstall removes what install put there (the modules of
    make install, not DKMS's), honouring DESTDIR and PREFIX."""
    root = str(tmp_path / 'root')
    make = ['make', '-s', '-C', REPO, 'DESTDIR=' + root, 'PREFIX=/usr', 'KRELEASE=0.0-test']
    r = subprocess.run(make + ['install-tool'], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    assert r.returncode == 0, r.stdout
    moddir = os.path.join(root, 'lib/modules/0.0-test')
    for f in ('updates/kstats.ko.xz', 'updates/kstats_tramp.ko.xz', 'extra/kstats.ko',
              'updates/dkms/kstats.ko', 'kernel/other.ko'):
        os.makedirs(os.path.dirname(os.path.join(moddir, f)), exist_ok=True)
        open(os.path.join(moddir, f), 'w').close()
    assert len(files(root)) == len(INSTALLED) + 5 + 1      # + the man page
    # depmod on the staged tree: a stand-in that records its arguments.
    bindir = tmp_path / 'bin'
    bindir.mkdir()
    (bindir / 'depmod').write_text('#!/bin/sh\necho "$@" >%s/depmod.args\n' % tmp_path)
    (bindir / 'depmod').chmod(0o755)
    r = subprocess.run(make + ['uninstall'], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True,
                       env=dict(os.environ, PATH='%s:%s' % (bindir, os.environ['PATH'])))
    assert r.returncode == 0, r.stdout
    assert files(root) == ['lib/modules/0.0-test/kernel/other.ko',
                           'lib/modules/0.0-test/updates/dkms/kstats.ko']
    assert (tmp_path / 'depmod.args').read_text().split() == ['-b', root, '-a', '0.0-test']
    # Twice: nothing left to do is no error.
    r = subprocess.run(make + ['uninstall-tool'], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    assert r.returncode == 0, r.stdout


TRACEFS = 'vfs_read\nvfs_readv\nvfs_write\nksys_read [kstats_helper]\nvfs_read\n'


def test_completion_output():
    for shell in ('bash', 'zsh'):
        text = cli_output(['completion', shell])
        assert text.splitlines()[:2] == ['#compdef kstats', '# source <(kstats completion zsh)'] \
            if shell == 'zsh' else text.splitlines()[0] == '# source <(kstats completion bash)'
        r = subprocess.run([program(shell), '-n'], input=text, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True)
        assert r.returncode == 0 and r.stderr == '', r.stderr
    usage = cli_output(['completion', '-h'])
    assert 'source <(kstats completion bash)' in usage
    assert 'source <(kstats completion zsh)' in usage


def cli_output(args):
    r = subprocess.run([sys.executable, '-m', 'kstats'] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True,
                       env=dict(os.environ, PYTHONPATH=os.path.join(REPO, 'tool')))
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_bash_completion_dir_and_functions(prefix, tmp_path):
    cwd = str(tmp_path)
    # --dir DIR, --dir=DIR as one word, and as bash splits it at "=".
    for words in (['--dir', HELPER], ['--dir=' + HELPER], ['--dir', '=', HELPER]):
        assert complete(prefix, ['kstats'] + words + ['show', 'lat_b'], cwd) == [
            'lat_base', 'lat_base_b2'], words
    # The DIR of --dir=DIR, a file name.
    (tmp_path / 'cap1').mkdir()
    assert complete(prefix, ['kstats', '--dir', '=', 'ca'], cwd) == ['cap1']
    assert complete(prefix, ['kstats', '--dir', '=', ''], cwd) == ['cap1']
    assert complete(prefix, ['kstats', '--dir=ca'], cwd) == ['--dir=cap1']
    assert complete(prefix, ['kstats', 'show', '--unit', '=', 'm'], cwd) == ['ms']
    # trace: kernel functions from tracefs (the first readable directory).
    tfs = tmp_path / 'tracefs'
    tfs.mkdir()
    (tfs / 'available_filter_functions').write_text(TRACEFS)
    env = {'KSTATS_TRACEFS': '%s/none %s' % (tmp_path, tfs)}
    assert complete(prefix, ['kstats', 'trace', 'vfs_r'], cwd, env) == ['vfs_read',
                                                                         'vfs_readv']
    assert complete(prefix, ['kstats', 'trace', 'ks'], cwd, env) == ['ksys_read']
    assert complete(prefix, ['kstats', 'trace', '--dir=' + HELPER, 'vfs_w'], cwd,
                    env) == ['vfs_write']
    assert complete(prefix, ['kstats', 'trace', 'lat', 'start', 'vfs_w'], cwd,
                    env) == ['vfs_write']
    assert complete(prefix, ['kstats', 'trace', 'vfs_read', 'vfs_'], cwd, env) == []
    # No tracefs readable: nothing, and no error.
    assert complete(prefix, ['kstats', 'trace', 'vfs_r'], cwd,
                    {'KSTATS_TRACEFS': str(tmp_path / 'none')}) == []


# zsh: the installed _kstats with the completion system's builtins as
# stand-ins that print what they get (compadd filters by PREFIX itself).
ZSH_DRIVER = r'''
compadd() { [[ $1 == -- ]] && shift; local w; for w; do [[ $w == $PREFIX* ]] && print -r -- $w; done; }
_files() { print -r -- "_files:$PREFIX"; }
compset() { [[ $1 == -P ]] && PREFIX=${PREFIX#*=}; }
compdef() { print -r -- "compdef $*" >&2; }
source %s
words=(%s)
CURRENT=${#words}
PREFIX=${words[CURRENT]}
_kstats
true
'''


def test_zsh_completion(prefix, tmp_path):
    program('zsh')
    script = os.path.join(prefix, 'share/zsh/site-functions/_kstats')
    tfs = tmp_path / 'tracefs'
    tfs.mkdir()
    (tfs / 'available_filter_functions').write_text(TRACEFS)

    def zcomplete(words):
        cmd = ZSH_DRIVER % (shlex.quote(script), ' '.join(shlex.quote(w) for w in words))
        r = subprocess.run(['zsh', '-f', '-c', cmd], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True,
                           cwd=str(tmp_path), env={'PATH': os.environ['PATH'],
                                                   'KSTATS_TRACEFS': str(tfs)})
        assert r.returncode == 0 and r.stderr == 'compdef _kstats kstats\n', r.stderr
        return sorted(r.stdout.split())

    assert zcomplete(['kstats', 'sh']) == ['show']
    assert zcomplete(['kstats', 'export', '--ra']) == ['--range', '--raw']
    assert zcomplete(['kstats', 'show', '--unit', 'm']) == ['ms']
    for words in (['--dir', HELPER], ['--dir=' + HELPER]):
        assert zcomplete(['kstats'] + words + ['show', 'lat_b']) == [
            '_files:lat_b', 'lat_base', 'lat_base_b2'], words
    assert zcomplete(['kstats', '--dir=ca']) == ['_files:ca']
    assert zcomplete(['kstats', '-o', 'x']) == ['_files:x']
    assert zcomplete(['kstats', 'trace', 'vfs_r']) == ['vfs_read', 'vfs_readv']
    assert zcomplete(['kstats', 'trace', 'x', 'gap', 'vfs_w']) == ['vfs_write']
    parser = cli.build_parser()
    for name, sub in parser.subparsers.items():
        want = sorted(o for a in sub._actions for o in a.option_strings)
        assert zcomplete(['kstats', name, '-']) == want, name
