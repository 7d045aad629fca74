# SPDX-License-Identifier: GPL-2.0
"""LIB:SYMBOL of kstats latency and trace (tool/kstats/userfunc.py): the
library from a process's maps or from ldconfig -p, the kernel's targets
left alone."""

import pytest

from kstats import userfunc
from kstats.errors import Error

CACHE = """1234 libs found in cache `/etc/ld.so.cache'
	libpthread.so.0 (libc6,x86-64, OS ABI: Linux 3.2.0) => /lib/x86_64-linux-gnu/libpthread.so.0
	libc.so.6 (libc6,AArch64) => /lib/aarch64-linux-gnu/libc.so.6
	libc.so.6 (libc6,x86-64) => /lib/x86_64-linux-gnu/libc.so.6
	libcrypt.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libcrypt.so.1
	libssl.so.3 (libc6,x86-64) => /lib/x86_64-linux-gnu/libssl.so.3
"""

MAPS = """55d0c0a00000-55d0c0a01000 r--p 00000000 fe:01 1 /usr/bin/app
7f0000000000-7f0000020000 r-xp 00000000 fe:01 2 /opt/app/lib/libc-2.31.so
7f0000100000-7f0000120000 r-xp 00000000 fe:01 3 /opt/app/lib/libssl.so.1.1
7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]
"""


def test_cache_picks_this_machine():
    assert userfunc.from_cache('c', CACHE, 'x86_64') == '/lib/x86_64-linux-gnu/libc.so.6'
    assert userfunc.from_cache('c', CACHE, 'aarch64') == '/lib/aarch64-linux-gnu/libc.so.6'
    # libc is not libcrypt.
    assert userfunc.from_cache('crypt', CACHE, 'x86_64') == '/lib/x86_64-linux-gnu/libcrypt.so.1'
    assert userfunc.from_cache('pthread', CACHE, 'x86_64') == \
        '/lib/x86_64-linux-gnu/libpthread.so.0'
    assert userfunc.from_cache('nosuch', CACHE, 'x86_64') is None


def test_maps_versioned_and_sonames():
    assert userfunc.from_maps('c', MAPS) == '/opt/app/lib/libc-2.31.so'
    assert userfunc.from_maps('ssl', MAPS) == '/opt/app/lib/libssl.so.1.1'
    assert userfunc.from_maps('z', MAPS) is None


def test_dirs_without_a_cache(tmp_path):
    d = tmp_path / 'x86_64-linux-gnu'
    d.mkdir()
    for n in ('libcrypt.so.1', 'libc.so.6', 'libz.so.1'):
        (d / n).write_bytes(b'')
    assert userfunc.from_dirs('c', [str(tmp_path / 'none'), str(d)]) == str(d / 'libc.so.6')
    assert userfunc.from_dirs('z', [str(d)]) == str(d / 'libz.so.1')
    assert userfunc.from_dirs('ssl', [str(d)]) is None


def test_resolve(monkeypatch, tmp_path):
    lib = tmp_path / 'libc.so.6'
    lib.write_bytes(b'')
    monkeypatch.setattr(userfunc, 'ld_cache', lambda: '\tlibc.so.6 (libc6,x86-64) => %s\n' % lib)
    monkeypatch.setattr(userfunc.platform, 'machine', lambda: 'x86_64')
    assert userfunc.resolve('c:malloc') == '%s:malloc' % lib
    # Kernel targets, and paths, pass as they are.
    for t in ('vfs_read', 'pcpu:vfs_read', '/usr/bin/ls:main', '/lib/x.so:0x10', 'foo.isra.0'):
        assert userfunc.resolve(t) == t
    monkeypatch.setattr(userfunc, 'lib_dirs', lambda: [str(tmp_path)])
    with pytest.raises(Error, match="no library libnosuch"):
        userfunc.resolve('nosuch:f')
