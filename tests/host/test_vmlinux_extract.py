# SPDX-License-Identifier: GPL-2.0
"""scripts/vmlinux-extract.py: the ELF image out of a bzImage, as "make
demo" and the guests boot it, on synthetic images with known contents and
on the Debian kernels installed on the host."""
import glob
import lzma
import struct
import subprocess

import pytest

from conftest import PYTHON, REPO, program

TOOL = REPO + '/scripts/vmlinux-extract.py'
ELF = b'\x7fELF' + bytes(range(256)) * 64


def bzimage(payload, setup_sects=3, version=0x20f, offset=0x40):
    """A minimal bzImage: boot sector and setup, then the protected-mode
    code with @payload at @offset, the size trailer inside the payload."""
    # The boot protocol reads a setup_sects of 0 as 4.
    pm_start = ((setup_sects or 4) + 1) * 512
    image = bytearray(pm_start + offset) + payload + bytes(100)
    image[0x1f1] = setup_sects
    image[0x202:0x206] = b'HdrS'
    struct.pack_into('<H', image, 0x206, version)
    struct.pack_into('<II', image, 0x248, offset, len(payload))
    return bytes(image)


def with_size(stream, size=len(ELF)):
    return stream + struct.pack('<I', size)


def run(tmp_path, image):
    path = tmp_path / 'vmlinuz'
    path.write_bytes(image)
    return subprocess.run([PYTHON, TOOL, str(path)], capture_output=True)


def test_xz_payload(tmp_path):
    xz = lzma.compress(ELF, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC32)
    res = run(tmp_path, bzimage(with_size(xz)))
    assert res.returncode == 0, res.stderr
    assert res.stdout == ELF


def test_zstd_payload(tmp_path):
    program('zstd')
    zst = subprocess.run(['zstd', '-q', '-c'], input=ELF, check=True,
                         capture_output=True).stdout
    res = run(tmp_path, bzimage(with_size(zst), setup_sects=0))
    assert res.returncode == 0, res.stderr
    assert res.stdout == ELF


@pytest.mark.parametrize('image,why', [
    (b'not a kernel' * 100, 'not a bzImage (no HdrS header)'),
    (bzimage(with_size(b'x'), version=0x207),
     'boot protocol 0x207 has no payload fields'),
    (bzimage(with_size(b'\x1f\x8b' + bytes(30))),
     'unknown compression (magic 1f8b0000)'),
    (bzimage(with_size(lzma.compress(ELF, format=lzma.FORMAT_XZ),
                       size=len(ELF) + 1)),
     f'the payload is not an ELF image of {len(ELF) + 1} bytes'),
    (bzimage(with_size(lzma.compress(b'no elf' * 9, format=lzma.FORMAT_XZ),
                       size=54)),
     'the payload is not an ELF image of 54 bytes'),
])
def test_bad_images(tmp_path, image, why):
    res = run(tmp_path, image)
    assert res.returncode == 1
    assert res.stdout == b''
    assert res.stderr.decode() == f'{tmp_path}/vmlinuz: {why}\n'


def test_truncated_image(tmp_path):
    xz = lzma.compress(ELF, format=lzma.FORMAT_XZ)
    res = run(tmp_path, bzimage(with_size(xz))[:3 * 512])
    assert res.returncode == 1
    assert res.stderr.decode() == f'{tmp_path}/vmlinuz: payload outside the image\n'


def test_corrupt_stream(tmp_path):
    xz = bytearray(lzma.compress(ELF, format=lzma.FORMAT_XZ))
    xz[len(xz) // 2] ^= 0xff
    res = run(tmp_path, bzimage(with_size(bytes(xz))))
    assert res.returncode == 1
    assert res.stderr.decode().startswith(f'{tmp_path}/vmlinuz: ')
    assert res.stderr.decode().count('\n') == 1


@pytest.mark.parametrize('vmlinuz', sorted(glob.glob('/boot/vmlinuz-*')))
def test_installed_kernels(tmp_path, vmlinuz):
    out = tmp_path / 'vmlinux'
    with open(out, 'wb') as f:
        res = subprocess.run([PYTHON, TOOL, vmlinuz], stdout=f,
                             stderr=subprocess.PIPE)
    assert res.returncode == 0, res.stderr
    with open(vmlinuz, 'rb') as f:
        image = f.read()
    offset, length = struct.unpack_from('<II', image, 0x248)
    start = (image[0x1f1] + 1) * 512 + offset
    size = struct.unpack_from('<I', image, start + length - 4)[0]
    data = out.read_bytes()
    assert len(data) == size
    # An x86-64 executable ELF: 64-bit class, little endian, EM_X86_64.
    assert data[:6] == b'\x7fELF\x02\x01'
    assert struct.unpack_from('<H', data, 18)[0] == 62
