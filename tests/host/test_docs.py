# SPDX-License-Identifier: GPL-2.0
"""Issue 22, the manuals: README opens with what kstats does and the quick
start, timings further down; the tool manual opens with its command table,
which names every command of the parser, before any input-file detail."""
import os
import re

from conftest import REPO
from kstats import cli

README = open(os.path.join(REPO, 'README.md')).read()
MANUAL = open(os.path.join(REPO, 'Documentation', 'kstats-tool.rst')).read()


def test_readme_order():
    heads = re.findall(r'^## (.*)$', README, re.M)
    assert heads[0] == 'Quick start: the tool on a real machine', heads
    quick = README.index('## Quick start')
    assert README.index('make check') > quick and README.index('999 s') > quick
    assert 'kstats_duration_seconds_bucket' in README[quick:README.index('## ', quick + 3)]


def test_manual_command_table():
    heads = re.findall(r'^(.+)\n=+$', MANUAL, re.M)[1:]     # after the title
    assert heads[:3] == ['Commands at a glance', 'Where it reads', 'Commands'], heads
    assert heads.index('Input files') > heads.index('Commands')
    table = MANUAL[MANUAL.index('Commands at a glance'):MANUAL.index('Where it reads')]
    listed = re.findall(r'^    kstats ([a-z]+)', table, re.M)
    assert sorted(listed) == sorted(cli.build_parser().subparsers), listed


def test_no_change_history():
    for text in (README, MANUAL):
        for phrase in ('as before', 'earlier runs', 'measured before the', 'no longer'):
            assert phrase not in text, phrase
