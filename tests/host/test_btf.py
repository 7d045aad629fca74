# SPDX-License-Identifier: GPL-2.0
"""kstats biolatency -F's names of cmd_flags, from a kernel's BTF: a
BTF blob made here, with the kinds that come before the enums in a
vmlinux, and the enum64 kind."""
import struct

import pytest

from kstats import btf
from kstats.keyview import key_label


def blob(op_enum=True, flag_kind=btf.KIND_ENUM):
    strs = b'\0int\0s\0a\0req_op\0REQ_OP_READ\0REQ_OP_WRITE\0REQ_OP_FLUSH\0' \
        b'req_flag_bits\0__REQ_FAILFAST_DEV\0__REQ_SYNC\0__REQ_NR_BITS\0other\0'

    def off(name):
        return strs.index(b'\0' + name + b'\0') + 1

    def head(name, kind, vlen, size):
        return struct.pack('<III', off(name) if name else 0, kind << 24 | vlen, size)
    t = head(b'int', 1, 0, 4) + struct.pack('<I', 32)                 # int, 4 bytes after
    t += head(b's', 4, 1, 8) + struct.pack('<III', off(b'a'), 1, 0)   # struct, a member
    t += head(b'other', btf.KIND_ENUM, 1, 4) + struct.pack('<Ii', off(b'REQ_OP_READ'), 7)
    if op_enum:
        t += head(b'req_op', btf.KIND_ENUM, 3, 4) + b''.join(
            struct.pack('<Ii', off(n), v) for n, v in
            ((b'REQ_OP_READ', 0), (b'REQ_OP_WRITE', 1), (b'REQ_OP_FLUSH', 2)))
    vals = ((b'__REQ_FAILFAST_DEV', 8), (b'__REQ_SYNC', 11), (b'__REQ_NR_BITS', 12))
    if flag_kind == btf.KIND_ENUM:
        t += head(b'req_flag_bits', flag_kind, 3, 4) + b''.join(
            struct.pack('<Ii', off(n), v) for n, v in vals)
    else:
        t += head(b'req_flag_bits', flag_kind, 3, 8) + b''.join(
            struct.pack('<III', off(n), v, 0) for n, v in vals)
    hdr = struct.pack('<HBBIIIII', btf.BTF_MAGIC, 1, 0, 24, 0, len(t), len(t), len(strs))
    return hdr + t + strs


@pytest.mark.parametrize('kind', [btf.KIND_ENUM, btf.KIND_ENUM64])
def test_cmd_flags_named(tmp_path, kind):
    (tmp_path / 'vmlinux').write_bytes(blob(flag_kind=kind))
    name = btf.cmd_flags_namer(str(tmp_path / 'vmlinux'))
    assert [name(v) for v in (0, 1, 0x801, 0x901, 2, 0x10000, 5)] == [
        'READ', 'WRITE', 'WRITE|SYNC', 'WRITE|FAILFAST_DEV|SYNC', 'FLUSH', 'READ|0x10000', 'op5']


def test_enums_only_those_named():
    assert btf.enums(blob(), ('req_op',)) == {
        'req_op': {'REQ_OP_READ': 0, 'REQ_OP_WRITE': 1, 'REQ_OP_FLUSH': 2}}
    assert btf.enums(blob(), ('no_such_enum',)) == {}


@pytest.mark.parametrize('data', [b'', b'\x9f\xeb' + bytes(30), blob()[:60], blob()[:-20]],
                         ids=['empty', 'big-endian', 'types-cut', 'strings-cut'])
def test_not_btf(tmp_path, data):
    """No BTF, a big-endian one, or one cut short: no names, no error."""
    (tmp_path / 'vmlinux').write_bytes(data)
    assert btf.cmd_flags_namer(str(tmp_path / 'vmlinux')) is None


def test_without_an_enum(tmp_path):
    (tmp_path / 'vmlinux').write_bytes(blob(op_enum=False))
    assert btf.cmd_flags_namer(str(tmp_path / 'vmlinux')) is None
    assert btf.cmd_flags_namer(str(tmp_path / 'missing')) is None


def test_key_label():
    class Args:
        key_names = staticmethod(lambda v: 'READ|SYNC' if v == 2048 else 'X')
    assert key_label('2048', Args()) == 'READ|SYNC (2048)'
    assert key_label('other', Args()) == 'other'
    assert key_label('2048', object()) == '2048'
