# SPDX-License-Identifier: GPL-2.0
"""Slot math of the tool against Documentation/kstats.rst, and against the
kernel: the captured files hold exactly the slots and counts that the raw
samples imply."""
import fractions
import os

import pytest

from conftest import CAPTURE_DIRS, CAPTURE_IDS, NONEMPTY, U64_MAX, Samples
from kstats import model
from kstats.capture import load_path, parse_control


@pytest.mark.parametrize('bits', range(6))
def test_slot_edges_tile_the_u64_range(bits):
    n = model.nr_slots(bits)
    assert n == (65 - bits) << bits
    nxt = 0
    for s in range(n):
        lo, top = model.slot_lo(s, bits), model.slot_top(s, bits)
        assert lo == nxt, 'slot %d starts where slot %d ends' % (s, s - 1)
        assert model.slot_of(lo, bits) == s
        assert model.slot_of(top, bits) == s
        if s >> bits > 1:
            # Above the linear region, at most 2^-bits of the lower edge.
            assert model.slot_width(s, bits) * (1 << bits) <= lo
        nxt = top + 1
    assert nxt - 1 == U64_MAX
    assert model.slot_of(U64_MAX, bits) == n - 1


def test_documented_examples():
    # Documentation/kstats.rst, frac_bits 3: 5 -> slot 5, 100 -> 36, 1000 -> 63.
    assert [model.slot_of(v, 3) for v in (5, 100, 1000)] == [5, 36, 63]
    # The formula: lo = ((1 << bits) | (slot & mask)) << (bucket - 1).
    assert model.slot_lo(36, 3) == 96 and model.slot_width(36, 3) == 8


@pytest.mark.parametrize('capture', CAPTURE_DIRS, ids=CAPTURE_IDS)
@pytest.mark.parametrize('name', NONEMPTY)
def test_kernel_slots_match_raw_samples(capture, name):
    """Every (slot, CPU) count of the capture is what slot_of() of the raw
    samples gives, and every avg is the kernel's mean of them."""
    raw = Samples(name)
    e = load_path(os.path.join(capture, name))
    assert e.bits == raw.bits
    want = {}
    for cpu, v in raw.samples:
        key = (model.slot_of(v, raw.bits), cpu)
        want.setdefault(key, []).append(v)
    got = {(r[1], r[2]): (r[3], r[4]) for r in e.rows if r[2] is not None}
    assert sorted(got) == sorted(want)
    for key, vals in want.items():
        count, avg = got[key]
        assert count == len(vals)
        exact = fractions.Fraction(sum(vals), len(vals))
        # avg truncates, and drops low bits above 2^(21 + bits).
        assert exact - model.mean_error(key[0], raw.bits) < avg <= exact


LIVE = [c for c in CAPTURE_IDS if c != 'fixture']


@pytest.mark.skipif(not LIVE, reason='no live capture (make check records one)')
def test_live_capture_matches_fixture():
    """The capture that make check records now equals the kept one, entry
    file for entry file: same samples, same CPUs, same kernel output."""
    fixture, live = CAPTURE_DIRS[0], CAPTURE_DIRS[1]
    names = sorted(os.listdir(fixture))
    assert sorted(os.listdir(live)) == names
    for name in names:
        if name == '_control':
            continue
        with open(os.path.join(fixture, name)) as a, open(os.path.join(live, name)) as b:
            assert a.read() == b.read(), name
    ctl = [parse_control(open(os.path.join(d, '_control')).read(), d)
           for d in (fixture, live)]
    keep = ('name', 'bits', 'state')
    assert [[x[k] for k in keep] for x in ctl[0]] == [[x[k] for k in keep] for x in ctl[1]]
