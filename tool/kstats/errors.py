# SPDX-License-Identifier: GPL-2.0
"""The error that kstats reports as one line, without a traceback."""

class Error(Exception):
    """A failure to report as one line, without a traceback."""


def input_error(path, lineno, msg):
    """An error in an input file, named by path and line (0: no line)."""
    if lineno:
        return Error('%s:%d: %s' % (path, lineno, msg))
    return Error('%s: %s' % (path, msg))
