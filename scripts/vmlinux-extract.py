#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the uncompressed ELF vmlinux inside an x86 bzImage to stdout.

The boot protocol header (2.08 and later) gives the compressed payload's
offset and length within the protected-mode code, which starts after
(setup_sects + 1) sectors of 512 bytes. The payload's own magic says how it
was compressed: Debian's 6.1 uses xz (with the x86 BCJ filter, which
liblzma decodes), 6.12 zstd, which Python's standard library lacks, so the
zstd command does it; other compressions are refused. For both, the
kernel's build appends the uncompressed size as 4 little-endian bytes after
the compressed stream, inside the payload.

Usage: vmlinux-extract.py BZIMAGE > vmlinux
"""
import lzma
import struct
import subprocess
import sys


def payload(image):
    if image[0x202:0x206] != b"HdrS":
        raise ValueError("not a bzImage (no HdrS header)")
    version = struct.unpack_from("<H", image, 0x206)[0]
    if version < 0x208:
        raise ValueError(f"boot protocol {version:#x} has no payload fields")
    setup_sects = image[0x1F1] or 4
    offset, length = struct.unpack_from("<II", image, 0x248)
    start = (setup_sects + 1) * 512 + offset
    if length <= 4 or start + length > len(image):
        raise ValueError("payload outside the image")
    data = image[start:start + length]
    return data[:-4], struct.unpack_from("<I", data, length - 4)[0]


def decompress(data):
    if data.startswith(b"\xfd7zXZ\x00"):
        return lzma.decompress(data, format=lzma.FORMAT_XZ)
    if data.startswith(b"\x28\xb5\x2f\xfd"):
        return subprocess.run(["zstd", "-dcq"], input=data, check=True,
                              stdout=subprocess.PIPE).stdout
    raise ValueError(f"unknown compression (magic {data[:4].hex()})")


def main():
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} BZIMAGE > vmlinux")
    try:
        with open(sys.argv[1], "rb") as f:
            data, size = payload(f.read())
        elf = decompress(data)
    except (OSError, ValueError, lzma.LZMAError,
            subprocess.CalledProcessError) as e:
        sys.exit(f"{sys.argv[1]}: {e}")
    if len(elf) != size or not elf.startswith(b"\x7fELF"):
        sys.exit(f"{sys.argv[1]}: the payload is not an ELF image of "
                 f"{size} bytes")
    sys.stdout.buffer.write(elf)


if __name__ == "__main__":
    main()
