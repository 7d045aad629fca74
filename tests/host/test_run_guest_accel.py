# SPDX-License-Identifier: GPL-2.0
"""scripts/run-guest.sh's choice of accelerator: KVM (-cpu host) where the
host has hardware virtualisation and a writable /dev/kvm, but TCG with
the asked model for a boot that names one (KSTATS_GUEST_CPU: the call
depth boot's Skylake-Client, which KVM's host CPU is not).

The script runs as check.sh runs it, on the debug target, in a user and
mount namespace where /proc/cpuinfo has vmx and /dev/kvm is a writable
file, so that the KVM branch is taken on a host without KVM too; QEMU is
a stub on PATH, and the test reads the command line that the script
records in LOGDIR/qemu.cmd."""
import os
import shlex
import subprocess

from conftest import REPO, program

RUN_GUEST = REPO + '/scripts/run-guest.sh'

# In the namespace: /proc/cpuinfo with vmx, /dev a tmpfs with a writable
# kvm file, the host's null, and fd.
FAKE_HOST = r'''
set -e
t=$1
shift
mount --bind "$t/cpuinfo" /proc/cpuinfo
mkdir "$t/olddev"
mount --rbind /dev "$t/olddev"
mount -t tmpfs none /dev
touch /dev/null /dev/kvm
mount --bind "$t/olddev/null" /dev/null
ln -s /proc/self/fd /dev/fd
exec "$@"
'''


def qemu_args(tmp_path, cpu=None):
    """The QEMU arguments of a debug-target boot on a faked KVM host."""
    (tmp_path / 'cpuinfo').write_text(
        'processor\t: 0\nflags\t\t: fpu tsc msr pae cx8 apic vmx\n\n')
    (tmp_path / 'bin').mkdir()
    stub = tmp_path / 'bin' / 'qemu-system-x86_64'
    stub.write_text('#!/bin/sh\nexit 0\n')
    stub.chmod(0o755)
    (tmp_path / 'initramfs').write_bytes(b'')
    env = {k: v for k, v in os.environ.items()
           if k not in ('KSTATS_GUEST_CPU', 'KSTATS_HOST_CPU',
                        'KSTATS_TCG_OPTS', 'KSTATS_APPEND')}
    env['PATH'] = '%s:%s' % (tmp_path / 'bin', env.get('PATH', '/usr/bin:/bin'))
    env['KSTATS_GUEST_TIMEOUT'] = '30'
    if cpu:
        env['KSTATS_GUEST_CPU'] = cpu
    # The stub prints nothing: run-guest.sh says the guest did not finish.
    res = subprocess.run(
        [program('unshare', 'util-linux'), '-rm', 'sh', '-c', FAKE_HOST, 'sh',
         str(tmp_path), 'bash', RUN_GUEST, 'debug', str(tmp_path / 'initramfs'),
         str(tmp_path / 'log')],
        env=env, capture_output=True, text=True, timeout=60)
    assert 'did not finish' in res.stderr, res.stderr
    cmd = shlex.split((tmp_path / 'log' / 'qemu.cmd').read_text())
    assert os.path.basename(cmd[0]) == 'qemu-system-x86_64', cmd
    return cmd


def option(cmd, name):
    assert cmd.count(name) == 1, cmd
    return cmd[cmd.index(name) + 1]


def test_kvm_host_takes_kvm(tmp_path):
    """The fake host does have KVM: a boot without a CPU model takes it."""
    cmd = qemu_args(tmp_path)
    assert (option(cmd, '-accel'), option(cmd, '-cpu')) == ('kvm', 'host')


def test_cpu_model_takes_tcg(tmp_path):
    """KSTATS_GUEST_CPU on the same host: TCG, with that model."""
    cmd = qemu_args(tmp_path, 'Skylake-Client')
    assert (option(cmd, '-accel'), option(cmd, '-cpu')) == \
        ('tcg,thread=single', 'Skylake-Client')
