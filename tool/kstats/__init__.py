# SPDX-License-Identifier: GPL-2.0
"""kstats: read, summarise, watch, plot, compare and export the histograms
that the kstats kernel module exports in debugfs.

Python 3.6 or later, standard library only. The manual is
Documentation/kstats-tool.rst; "kstats COMMAND --help" gives each command's
options. This file imports nothing: "python3 -m kstats" runs it before
__main__.py can make an early Ctrl-C quiet.
"""

VERSION = '0.1'
