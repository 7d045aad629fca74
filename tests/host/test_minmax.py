# SPDX-License-Identifier: GPL-2.0
"""Issue 13, exact min and max: when the _control line lists them
(min N max N), show's summary prints them instead of the estimates from
their slots; --cpu and --subtract-bias keep the estimates."""
from conftest import run, write_capture

# Two samples share the lowest slot [992, 1023] (the estimate: its lower edge), two the top one.
SAMPLES = [(0, 995), (0, 1020), (1, 5000), (1, 5100)]


def test_summary_exact(tmp_path):
    d = write_capture(tmp_path / 'cap', {'lat': (4, SAMPLES)}, ' min 995 max 5100')
    lines = run('show', '--dir', d, 'lat', '--unit', 'ns').stdout.splitlines()
    assert lines[3].split()[:8] == ['count', '4', 'min', '995ns', 'mean', '3028ns',
                                    'max', '5100ns']


def test_summary_estimated(tmp_path):
    d = write_capture(tmp_path / 'old', {'lat': (4, SAMPLES)})
    lines = run('show', '--dir', d, 'lat', '--unit', 'ns').stdout.splitlines()
    assert lines[3].split()[2:4] == ['min', '992ns']
    d = write_capture(tmp_path / 'cap', {'lat': (4, SAMPLES)}, ' min 995 max 5100')
    lines = run('show', '--dir', d, 'lat', '--unit', 'ns', '--cpu', '0').stdout.splitlines()
    assert lines[3].split()[2:4] == ['min', '992ns']
