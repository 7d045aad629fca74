# SPDX-License-Identifier: GPL-2.0
"""The running kernel's enums, from its BTF (/sys/kernel/btf/vmlinux):
a block request's cmd_flags named as that kernel names its operation and
flag bits (kstats biolatency -F), which move between kernels. Calls
nothing of the package."""

import struct

BTF_PATH = '/sys/kernel/btf/vmlinux'
BTF_MAGIC = 0xeb9f
KIND_ENUM, KIND_ENUM64 = 6, 19
# Bytes after a type's 12-byte header, by kind: fixed ones (int, array,
# var, decl_tag), and those per member (struct, union, enum, func_proto,
# datasec, enum64); the other kinds have none.
FIXED = {1: 4, 3: 12, 14: 4, 17: 4}
PER_MEMBER = {4: 12, 5: 12, 6: 8, 13: 8, 15: 12, 19: 12}


def enums(data, names):
    """{NAME: {ENUMERATOR: VALUE}} of the enums of BTF data (bytes) that
    names names; ValueError if data is no little-endian BTF."""
    if len(data) < 24 or struct.unpack_from('<H', data)[0] != BTF_MAGIC:
        raise ValueError('not little-endian BTF')
    hdr_len, type_off, type_len, str_off, str_len = struct.unpack_from('<5I', data, 4)
    types, strs = hdr_len + type_off, hdr_len + str_off
    if types + type_len > len(data) or strs + str_len > len(data):
        raise ValueError('BTF sections past its end')

    def string(off):
        end = data.find(b'\0', strs + off, strs + str_len)
        if off >= str_len or end < 0:
            raise ValueError('a BTF name past its strings')
        return data[strs + off:end].decode('ascii', 'replace')

    wanted = {}
    for name in names:
        at = data.find(b'\0' + name.encode() + b'\0', strs, strs + str_len)
        if at >= 0:
            wanted[at + 1 - strs] = name
    out, pos, end = {}, types, types + type_len
    while pos + 12 <= end and len(out) < len(wanted):
        name_off, info = struct.unpack_from('<II', data, pos)
        kind, vlen = (info >> 24) & 0x1f, info & 0xffff
        pos += 12
        if kind in (KIND_ENUM, KIND_ENUM64) and name_off in wanted:
            size = PER_MEMBER[kind]
            if pos + vlen * size > end:
                raise ValueError('a BTF enum past its types')
            vals = {}
            for i in range(vlen):
                if kind == KIND_ENUM:
                    noff, val = struct.unpack_from('<Ii', data, pos + i * size)
                else:
                    noff, lo, hi = struct.unpack_from('<III', data, pos + i * size)
                    val = lo | hi << 32
                vals[string(noff)] = val
            out[wanted[name_off]] = vals
        pos += FIXED.get(kind, 0) + vlen * PER_MEMBER.get(kind, 0)
    return out


def cmd_flags_namer(path=BTF_PATH):
    """A function that names a request's cmd_flags ('READ|SYNC', with the
    bits that the kernel does not name in hex), from the kernel's enum
    req_op and enum req_flag_bits; None where its BTF lacks them."""
    try:
        with open(path, 'rb') as f:
            e = enums(f.read(), ('req_op', 'req_flag_bits'))
    except (OSError, ValueError):
        return None
    if 'req_op' not in e or 'req_flag_bits' not in e:
        return None
    ops = {v: k[len('REQ_OP_'):] for k, v in e['req_op'].items() if k.startswith('REQ_OP_')}
    bits = {v: k[len('__REQ_'):] for k, v in e['req_flag_bits'].items()
            if k.startswith('__REQ_') and k != '__REQ_NR_BITS'}
    if not bits:
        return None
    op_mask = (1 << min(bits)) - 1     # the flags begin past the operation
    named = op_mask | sum(1 << b for b in bits)
    order = sorted(bits)

    def name(value):
        words = [ops.get(value & op_mask, 'op%d' % (value & op_mask))]
        words += [bits[b] for b in order if value >> b & 1]
        rest = value & ~named
        return '|'.join(words + (['0x%x' % rest] if rest else []))
    return name
