# SPDX-License-Identifier: GPL-2.0
"""Shared helpers of the host tests of the kstats command.

The tests import the package tool/kstats (pytest.ini puts tool/ on
sys.path) and run the command as it is installed: the zipapp that
scripts/mkzipapp.sh builds, once per run (KSTATS_TOOL: an existing one).

The captures are directories laid out like /sys/kernel/debug/kstats,
recorded in QEMU guests by tests/capture.sh from the raw sample lists of
tests/fixtures/samples/: tests/fixtures/ keeps one run, and make check
records a fresh one (KSTATS_LIVE_CAPTURE=DIR, holding DIR/helper/).
"""
import atexit
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

from kstats import model

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(REPO, 'tests', 'fixtures')
SAMPLES = os.path.join(FIXTURES, 'samples')
U64_MAX = (1 << 64) - 1
# The interpreter that runs the tool (KSTATS_TEST_PYTHON: another version).
PYTHON = os.environ.get('KSTATS_TEST_PYTHON') or sys.executable


def program(name, package=None):
    """The path of program NAME; a test that needs it fails without it,
    naming it and the Debian package that scripts/setup.sh installs."""
    path = shutil.which(name)
    if not path:
        pytest.fail('%s not installed: scripts/setup.sh installs %s' % (name, package or name))
    return path


def promtool():
    """Prometheus' promtool, which checks metrics and rule files."""
    return program('promtool', 'prometheus')


def captures():
    """(id, helper capture directory) pairs: the kept fixture, and the
    live capture of this make check run if there is one."""
    out = [('fixture', os.path.join(FIXTURES, 'helper'))]
    live = os.environ.get('KSTATS_LIVE_CAPTURE')
    if live:
        out.append(('live', os.path.join(live, 'helper')))
    return out


CAPTURES = captures()
CAPTURE_IDS = [c[0] for c in CAPTURES]
CAPTURE_DIRS = [c[1] for c in CAPTURES]


# No __pycache__ in tool/kstats.
sys.dont_write_bytecode = True


def build_tool():
    """The zipapp, built into a directory removed at exit."""
    tmp = tempfile.mkdtemp(prefix='kstats-tool.')
    atexit.register(shutil.rmtree, tmp, True)
    out = os.path.join(tmp, 'kstats')
    subprocess.run([os.path.join(REPO, 'scripts', 'mkzipapp.sh'), out], check=True)
    return out


TOOL = os.environ.get('KSTATS_TOOL') or build_tool()


def run_then(action, *args):
    """The tool's stdout with args (it must exit 0), action() called once
    its first line is out: a watch's files changed after its first
    screen, which it writes at once after its first read, and before its
    second, however slowly it starts on a loaded host."""
    p = subprocess.Popen([PYTHON, TOOL] + [str(a) for a in args], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, universal_newlines=True, env=tool_env())
    try:
        out = p.stdout.readline()
        action()
        # Not communicate(): it reads the pipes' descriptors, past what
        # readline() left in the stream's buffer.
        out += p.stdout.read()
        err = p.stderr.read()
        p.wait(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 0 and 'Traceback' not in err, err
    return out


def tool_env(env=None):
    """The tool's environment: the tests', without KSTATS_DIR and COLUMNS
    (output as to a pipe, whatever the shell that runs the tests), with
    env's (env={'NAME': None} unsets NAME)."""
    e = dict(os.environ)
    e.pop('KSTATS_DIR', None)
    e.pop('COLUMNS', None)
    e.update(env or {})
    for k in [k for k, v in e.items() if v is None]:
        del e[k]
    return e


def run(*args, check=True, env=None, timeout=60, input=None, cwd=None):
    """Run the tool; with check, it must exit 0 and print no traceback."""
    r = subprocess.run([PYTHON, TOOL] + [str(a) for a in args],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                       env=tool_env(env), timeout=timeout, input=input, cwd=cwd)
    assert 'Traceback' not in r.stderr, r.stderr
    if check:
        assert r.returncode == 0, 'kstats %s: exit %d\n%s' % (
            ' '.join(map(str, args)), r.returncode, r.stderr)
    return r


def live_env(directory, **more):
    """Environment in which the tool takes `directory` for the live debugfs
    kstats directory (the statfs check passes; _control still needed)."""
    env = {'KSTATS_TEST_LIVE_DIR': str(directory),
           # No control device, whatever the host has (tests give one).
           'KSTATS_DEVICE': os.path.join(str(directory), 'no-such-device')}
    env.update(more)
    return env


class Samples(object):
    """A raw sample list: bits, flag and (cpu, value) pairs."""

    def __init__(self, name):
        self.name = name
        self.flag = ''
        self.samples = []
        with open(os.path.join(SAMPLES, name + '.txt')) as f:
            for line in f:
                w = line.split()
                if line.startswith('# entry '):
                    self.bits = int(w[4])
                    self.flag = w[5] if len(w) > 5 else ''
                elif w and not line.startswith('#'):
                    self.samples.append((int(w[0]), int(w[1])))

    def values(self, cpu=None):
        return sorted(v for c, v in self.samples if cpu is None or c == cpu)


def sample_names():
    return sorted(f[:-4] for f in os.listdir(SAMPLES) if f.endswith('.txt'))


SAMPLE_NAMES = sample_names()
NONEMPTY = [n for n in SAMPLE_NAMES if Samples(n).samples]


def nearest_rank(values, q):
    """Exact nearest-rank quantile of sorted values (q a Fraction)."""
    import math
    k = max(math.ceil(q * len(values)), 1)
    return values[k - 1]


@pytest.fixture(params=CAPTURE_DIRS, ids=CAPTURE_IDS)
def capture(request):
    return request.param


def entry_text(samples, bits, ncpus=None):
    """An entry file as the kernel prints it, from (cpu, value) pairs: per
    slot, one CPU line per CPU with samples, then the CPUS line (ncpus
    possible CPUs, default the highest CPU + 1); avg the truncated slot
    mean; p the CDF truncated to 6 decimals."""
    slots = {}
    for cpu, v in samples:
        slots.setdefault(model.slot_of(v, bits), {}).setdefault(cpu, []).append(v)
    ncpus = ncpus or max(c for c, _ in samples) + 1
    total = len(samples)
    per_cpu_total = {}
    for cpu, _ in samples:
        per_cpu_total[cpu] = per_cpu_total.get(cpu, 0) + 1
    cum, cum_cpu, out = 0, {}, []
    for s in sorted(slots):
        allv = []
        for cpu in sorted(slots[s]):
            vs = slots[s][cpu]
            allv += vs
            cum_cpu[cpu] = cum_cpu.get(cpu, 0) + len(vs)
            p = cum_cpu[cpu] * 1000000 // per_cpu_total[cpu] / 1e6
            out.append('slot %-3d CPU  %-4d count %8d avg %8d p %.6f\n'
                       % (s, cpu, len(vs), sum(vs) // len(vs), p))
        cum += len(allv)
        out.append('slot %-3d CPUS %-4d count %8d avg %8d p %.6f\n'
                   % (s, ncpus, len(allv), sum(allv) // len(allv), cum * 1000000 // total / 1e6))
    return ''.join(out)


def write_capture(directory, entries, control_extra=''):
    """A capture directory: {name: (bits, [(cpu, value)])}, kernel origin
    unless control_extra (appended to each _control line) says otherwise."""
    os.makedirs(str(directory), exist_ok=True)
    lines = []
    for name, (bits, samples) in entries.items():
        with open(os.path.join(str(directory), name), 'w') as f:
            f.write(entry_text(samples, bits))
        lines.append('name %s origin kernel bits %d state running%s\n'
                     % (name, bits, control_extra))
    with open(os.path.join(str(directory), '_control'), 'w') as f:
        f.write(''.join(lines))
    return str(directory)


def keys_text(keys, bits, ncpus):
    """_keys/NAME as the kernel prints it: {K: [(cpu, value)]} (K None:
    the other histogram), each key's min and max line, then its entry
    lines prefixed by 'key K ' ('other ')."""
    out = []
    for k, samples in keys.items():
        prefix = 'other ' if k is None else 'key %s ' % k
        vals = [v for _, v in samples]
        out.append('%smin %d max %d\n' % (prefix, min(vals), max(vals)))
        out += [prefix + line + '\n' for line in entry_text(samples, bits, ncpus).splitlines()]
    return ''.join(out)


def write_keyed(directory, name, bits, by, keys, keys_max=32, dropped=None, ncpus=2,
                extra=''):
    """A keyed entry (by KEY) in the capture directory: its merged file, its
    _keys/NAME and its _control line (appended); dropped: the samples of
    the other histogram unless given."""
    d = str(directory)
    os.makedirs(os.path.join(d, '_keys'), exist_ok=True)
    allv = [s for v in keys.values() for s in v]
    with open(os.path.join(d, name), 'w') as f:
        f.write(entry_text(allv, bits, ncpus))
    with open(os.path.join(d, '_keys', name), 'w') as f:
        f.write(keys_text(keys, bits, ncpus))
    if dropped is None:
        dropped = len(keys.get(None, []))
    vals = [v for _, v in allv]
    with open(os.path.join(d, '_control'), 'a') as f:
        f.write('name %s origin kernel bits %d state running min %d max %d%s by %s keys %d '
                'keys_max %d keys_dropped %d bytes 1003520\n'
                % (name, bits, min(vals), max(vals), extra, by,
                   len([k for k in keys if k is not None]), keys_max, dropped))
    return d
