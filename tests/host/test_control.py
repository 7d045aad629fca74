# SPDX-License-Identifier: GPL-2.0
"""kstats list (both _control forms), trace, remove, start/stop/reset, and
save (a file with a header, or a capture directory)."""
import errno
import json
import os
import shutil
import stat

import pytest

from conftest import live_env, FIXTURES, run

# _control lines as issue 3 (run-time attachment) writes them, beside the
# kernel-origin form.
NEW_CONTROL = """name lat_base origin kernel bits 4 state running
name vfs_read origin control mechanism fprobe targets vfs_read bits 4 state running missed 0
name pcpu:__do_softirq origin control mechanism kretprobe targets __do_softirq bits 4 state stopped missed 3 skipped 2
name syscall origin control mechanism pair key task targets __tracepoint_sys_enter,__tracepoint_sys_exit bits 3 state running missed 0 dropped 0 unpaired 1
"""


def test_list_fixture(capture):
    out = run('list', '--dir', capture).stdout.splitlines()
    head = out[0].split()
    # Live captures list the exact extremes of entries with samples too,
    # and what each entry takes of max_memory.
    assert head in (['name', 'origin', 'bits', 'state', 'samples'],
                    ['name', 'origin', 'bits', 'state', 'min', 'max', 'memory', 'samples'])
    rows = {l.split()[0]: l.split() for l in out[1:]}
    assert rows['lat_base'][:4] == ['lat_base', 'kernel', '4', 'running']
    assert rows['lat_base'][-1] == '5000'
    assert rows['stopped_b1'][3] == 'stopped' and rows['empty_b4'][-1] == '0'
    assert len(rows) == 9
    d = json.loads(run('list', '--dir', capture, '--json').stdout)
    # A live capture's exact extremes: numbers, in the order of the values.
    ext = {k: d[0].pop(k) for k in ('min', 'max', 'memory') if k in d[0]}
    assert d[0] == {'name': 'cpu1_b3', 'origin': 'kernel', 'bits': 3, 'state': 'running',
                    'samples': 800}
    assert not ext or (type(ext['min']) is int and 0 <= ext['min'] <= ext['max']), ext
    # Its counters on every possible CPU (2 in the guests): 496 slots of
    # 16 bytes and 16 of extremes each at bits 3.
    assert not ext or ext['memory'] == 2 * (496 * 16 + 16), ext


def test_list_key_value_pairs(tmp_path):
    (tmp_path / '_control').write_text(NEW_CONTROL)
    shutil.copy(os.path.join(FIXTURES, 'helper', 'lat_base'), str(tmp_path / 'lat_base'))
    out = run('list', '--dir', tmp_path).stdout
    lines = out.splitlines()
    head = lines[0].split()
    for key in ('name', 'origin', 'bits', 'state', 'mechanism', 'targets', 'missed', 'key',
                'skipped', 'dropped', 'unpaired', 'samples'):
        assert key in head, key
    assert 'fprobe' in lines[2] and 'pcpu:__do_softirq' in lines[3]
    assert '__tracepoint_sys_enter,__tracepoint_sys_exit' in lines[4]
    d = json.loads(run('list', '--dir', tmp_path, '--json', '--no-count').stdout)
    assert d[1] == {'name': 'vfs_read', 'origin': 'control', 'mechanism': 'fprobe',
                    'targets': 'vfs_read', 'bits': 4, 'state': 'running', 'missed': 0}
    assert d[3]['unpaired'] == 1 and 'samples' not in d[3]
    # Entries of the new form still show; bits come from their line.
    assert json.loads(run('show', '--dir', tmp_path, 'lat_base', '--json').stdout)['count'] == 5000


def test_list_without_control(tmp_path):
    shutil.copy(os.path.join(FIXTURES, 'helper', 'lat_base'), str(tmp_path / 'lat_base'))
    out = run('list', '--dir', tmp_path).stdout.splitlines()
    assert out[0].split() == ['name', 'samples'] and out[1].split() == ['lat_base', '5000']


def fake_dmesg(tmp_path, new_line):
    """A dmesg that prints one more line at each call."""
    script = tmp_path / 'dmesg'
    count = tmp_path / 'calls'
    script.write_text('#!/bin/sh\n'
                      'n=$(cat %s 2>/dev/null || echo 0); echo $((n + 1)) > %s\n'
                      'echo "[    1.000000] boot"\n'
                      '[ "$n" -ge 1 ] && echo "[    2.000000] %s"\n'
                      'exit 0\n' % (count, count, new_line))
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


def test_trace_and_remove_write_control(tmp_path):
    ctl = tmp_path / '_control'
    ctl.write_text('')
    env = live_env(tmp_path)
    r = run('trace', '--dir', tmp_path, 'vfs_read', 'bits', '4', env=env)
    assert ctl.read_text() == 'trace vfs_read bits 4\n'
    assert r.stdout.startswith('ok: trace vfs_read bits 4')
    run('--dir', tmp_path, 'trace', 'lat', 'start', '__tracepoint_sys_enter', 'end',
        '__tracepoint_sys_exit', 'key', 'task', env=env)
    assert ctl.read_text() == \
        'trace lat start __tracepoint_sys_enter end __tracepoint_sys_exit key task\n'
    ctl.write_text('')
    r = run('remove', '--dir', tmp_path, 'vfs_read', env=env)
    assert ctl.read_text() == 'remove vfs_read\n' and 'removed vfs_read' in r.stdout


def test_refused_with_errno_and_kernel_reason(tmp_path):
    os.symlink('/dev/full', str(tmp_path / '_control'))
    why = "kstats: _control: 'trace nosuch' refused: no such symbol"
    r = run('trace', '--dir', tmp_path, 'nosuch', check=False,
            env=live_env(tmp_path, KSTATS_DMESG=fake_dmesg(tmp_path, why)))
    assert r.returncode == 1
    err = r.stderr.splitlines()
    assert err[0] == "kstats: 'trace nosuch' refused by %s: ENOSPC (No space left on device)" \
        % (tmp_path / '_control')
    assert err[1] == 'kstats: kernel: [    2.000000] ' + why


def test_refused_kernel_log_unreadable(tmp_path):
    os.symlink('/dev/full', str(tmp_path / '_control'))
    r = run('remove', '--dir', tmp_path, 'x', check=False,
            env=live_env(tmp_path, KSTATS_DMESG='false'))
    assert r.returncode == 1
    assert 'ENOSPC (No space left on device)' in r.stderr
    assert 'kernel log is not readable here' in r.stderr
    r = run('remove', '--dir', tmp_path, 'x', check=False,
            env=live_env(tmp_path, KSTATS_DMESG='true'))
    assert 'no new kstats line in the kernel log' in r.stderr


@pytest.mark.parametrize('cmd', ['start', 'stop', 'reset'])
def test_entry_commands(tmp_path, cmd):
    (tmp_path / 'foo').write_text('')
    (tmp_path / '_control').write_text('name foo origin kernel bits 4 state running\n')
    run(cmd, '--dir', tmp_path, 'foo', env=live_env(tmp_path))
    assert (tmp_path / 'foo').read_text() == cmd + '\n'
    r = run(cmd, '--dir', tmp_path, 'bar', check=False, env=live_env(tmp_path))
    assert r.returncode == 1 and 'no entry bar' in r.stderr


def test_save_file_and_diff(capture, tmp_path):
    out = tmp_path / 'before.txt'
    r = run('save', '--dir', capture, 'lat_base', out)
    assert 'saved lat_base (5000 samples, bits 4)' in r.stdout
    lines = out.read_text().splitlines(True)
    assert lines[0].startswith('# kstats-save name lat_base bits 4 cpus 2 ')
    assert ''.join(lines[1:]) == open(os.path.join(capture, 'lat_base')).read()
    # The saved file alone: bits from its header, the same numbers.
    a = json.loads(run('show', out, '--json').stdout)
    b = json.loads(run('show', '--dir', capture, 'lat_base', '--json').stdout)
    assert a['bits_from'] == 'the save header'
    assert a['percentiles'] == b['percentiles'] and a['per_cpu'] == b['per_cpu']
    d = json.loads(run('diff', '--dir', capture, out, 'lat_base', '--json').stdout)
    assert d['mean']['difference'] == 0 and not d['median']['different']
    # gnuplot and grep still read it: the header is a comment.
    assert lines[0].startswith('#')


def test_save_capture_directory(capture, tmp_path):
    dest = tmp_path / 'snap'
    run('save', '--dir', capture, '--all', dest)
    assert sorted(os.listdir(str(dest))) == sorted(os.listdir(capture))
    for f in os.listdir(capture):
        assert (dest / f).read_text() == open(os.path.join(capture, f)).read(), f
    a = run('export', '--openmetrics', '--dir', dest).stdout
    assert a == run('export', '--openmetrics', '--dir', capture).stdout
    # Several names into a directory; a later save adds to its _control.
    two = tmp_path / 'two'
    run('save', '--dir', capture, 'lat_base', 'small_b0', two)
    run('save', '--dir', capture, 'wide_b5', str(two) + '/')
    assert sorted(os.listdir(str(two))) == ['_control', 'lat_base', 'small_b0', 'wide_b5']
    names = [l.split()[1] for l in (two / '_control').read_text().splitlines()]
    assert names == ['lat_base', 'small_b0', 'wide_b5']
    r = run('save', '--dir', capture, '--all', capture, check=False)
    assert r.returncode == 1 and 'the directory read from' in r.stderr


def test_device_takes_the_commands(tmp_path):
    """Where kstats.ko has /dev/kstats (it works under lockdown), every
    command goes there, and start/stop/reset as "start NAME"."""
    dev = tmp_path / 'dev'
    dev.write_text('')
    (tmp_path / 'foo').write_text('')
    ctl = tmp_path / '_control'
    ctl.write_text('name foo origin kernel bits 4 state running\n')
    env = live_env(tmp_path, KSTATS_DEVICE=str(dev))
    r = run('trace', '--dir', tmp_path, 'vfs_read', 'value', 'arg3', 'type', 'u64', env=env)
    assert r.stdout.startswith('ok: trace vfs_read value arg3 type u64')
    assert dev.read_text() == 'trace vfs_read value arg3 type u64\n'
    for cmd in ('start', 'stop', 'reset'):
        dev.write_text('')
        run(cmd, '--dir', tmp_path, 'foo', env=env)
        assert dev.read_text() == '%s foo\n' % cmd
    dev.write_text('')
    run('remove', '--dir', tmp_path, 'foo', env=env)
    assert dev.read_text() == 'remove foo\n'
    assert (tmp_path / 'foo').read_text() == ''
    assert ctl.read_text() == 'name foo origin kernel bits 4 state running\n'


@pytest.mark.parametrize('level', ['integrity', 'confidentiality', 'none'])
def test_lockdown_named(tmp_path, monkeypatch, capsys, level):
    """debugfs refuses a write with EPERM under lockdown: one line says so
    and names the device that takes the commands."""
    from kstats import live
    lock = tmp_path / 'lockdown'
    marks = {'none': '[none] integrity confidentiality',
             'integrity': 'none [integrity] confidentiality',
             'confidentiality': 'none integrity [confidentiality]'}
    lock.write_text(marks[level] + '\n')
    monkeypatch.setenv('KSTATS_LOCKDOWN', str(lock))
    monkeypatch.setenv('KSTATS_DMESG', 'true')

    def refuse(path, flags):
        raise OSError(errno.EPERM, os.strerror(errno.EPERM))
    monkeypatch.setattr(live.os, 'open', refuse)
    ctl = str(tmp_path / '_control')
    assert live.write_command(ctl, 'trace vfs_read\n') == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "kstats: 'trace vfs_read' refused by %s: EPERM (Operation not permitted)" % ctl
    if level == 'none':
        assert err[1:] == ['kstats: no new kstats line in the kernel log '
                           '(its messages are rate-limited)']
    else:
        assert err[1:] == ['kstats: the kernel is locked down (%s): debugfs refuses every '
                           'write; load a kstats.ko that has /dev/kstats, which takes the '
                           'commands' % level]
