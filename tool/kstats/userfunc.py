# SPDX-License-Identifier: GPL-2.0
"""LIB:SYMBOL targets of kstats latency and kstats trace: a function of a
shared library named as BCC's tools name it (c:malloc is malloc of libc,
pthread:pthread_mutex_lock of libpthread), turned into the PATH:SYMBOL
that _control takes. LIB is looked up in the maps of the process given
with -p, then in the dynamic linker's cache (ldconfig -p), then in the
usual library directories (a root file system without a cache). A PATH:SYMBOL
(an absolute path) and every kernel target pass as they are."""

import os
import platform
import re
import subprocess

from .errors import Error

LIB_TARGET = re.compile(r'^([A-Za-z0-9_+.-]+):([A-Za-z_][A-Za-z0-9_.$]*)$')
# Kernel targets with a colon: the mode of trace pcpu:FUNC.
KERNEL_PREFIXES = ('pcpu',)
# ldconfig -p's tag of this machine's libraries.
ARCH_TAGS = {'x86_64': 'x86-64', 'aarch64': 'AArch64'}


def lib_matches(lib, path):
    """Whether the file PATH is library LIB: libLIB.so[.N], libLIB-V.so, or
    LIB itself (libc.so.6)."""
    base = os.path.basename(path)
    return (base == lib or base.startswith('lib%s.so' % lib) or
            re.match(r'lib%s-[0-9.]+\.so' % re.escape(lib), base) is not None)


def from_maps(lib, maps):
    """The first file of a process's maps (the text of /proc/PID/maps)
    that is LIB, or None."""
    for line in maps.splitlines():
        w = line.split(None, 5)
        if len(w) == 6 and w[5].startswith('/') and lib_matches(lib, w[5]):
            return w[5]
    return None


def from_cache(lib, cache, machine=None):
    """The library LIB of ldconfig -p's output, this machine's first."""
    tag = ARCH_TAGS.get(machine or platform.machine())
    found = []
    for line in cache.splitlines():
        m = re.match(r'\s*(\S+) \(([^)]*)\) => (/\S+)$', line)
        if m and lib_matches(lib, m.group(1)):
            found.append((tag is None or tag not in m.group(2), m.group(3)))
    return min(found)[1] if found else None


def lib_dirs(machine=None):
    """Where libraries are when the linker has no cache (a minimal
    root file system): the multiarch directories, then the others."""
    m = machine or platform.machine()
    return ['/lib/%s-linux-gnu' % m, '/usr/lib/%s-linux-gnu' % m,
            '/lib64', '/usr/lib64', '/lib', '/usr/lib']


def from_dirs(lib, dirs):
    """The first file of DIRS (each listed in order) that is LIB."""
    for d in dirs:
        try:
            names = sorted(os.listdir(d))
        except OSError:
            continue
        for n in names:
            path = os.path.join(d, n)
            if lib_matches(lib, n) and os.path.isfile(path):
                return path
    return None


def ld_cache():
    for ldconfig in ('/sbin/ldconfig', '/usr/sbin/ldconfig', 'ldconfig'):
        try:
            return subprocess.run([ldconfig, '-p'], stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, check=False,
                                  universal_newlines=True).stdout
        except OSError:
            continue
    return ''


def resolve(target, pid=None):
    """TARGET as _control takes it: LIB:SYMBOL as PATH:SYMBOL."""
    m = LIB_TARGET.match(target)
    if not m or m.group(1) in KERNEL_PREFIXES:
        return target
    lib, sym = m.groups()
    path = None
    if pid is not None:
        try:
            with open('/proc/%d/maps' % pid) as f:
                path = from_maps(lib, f.read())
        except OSError as err:
            raise Error('%s: cannot read the maps of process %d: %s'
                        % (target, pid, err.strerror))
    path = path or from_cache(lib, ld_cache()) or from_dirs(lib, lib_dirs())
    if path is None:
        raise Error("%s: no library lib%s in %sthe dynamic linker's cache (ldconfig -p) "
                    'or %s; give its path: PATH:%s'
                    % (target, lib, 'process %d, ' % pid if pid else '',
                       ' '.join(lib_dirs()), sym))
    return '%s:%s' % (os.path.realpath(path), sym)
