# SPDX-License-Identifier: GPL-2.0
"""Text that fits: aligned tables, and lines wrapped or columns left out
to fit a terminal's width (None: no limit)."""

import textwrap


def table(rows, align=None):
    """Left-align the first column, right-align the others."""
    rows = [[str(c) for c in r] for r in rows]
    if not rows:
        return ''
    n = max(len(r) for r in rows)
    rows = [r + [''] * (n - len(r)) for r in rows]
    width = [max(len(r[i]) for r in rows) for i in range(n)]
    out = []
    for r in rows:
        cells = []
        for i, c in enumerate(r):
            left = (align or 'l' + 'r' * (n - 1))[i] == 'l'
            cells.append(c.ljust(width[i]) if left else c.rjust(width[i]))
        out.append('  '.join(cells).rstrip())
    return '\n'.join(out)


def too_wide(text, width):
    """Whether a line (or lines) of text is wider than width (None: no limit)."""
    return bool(width) and max(len(x) for x in text.split('\n')) > width


def wrap(text, width, indent='  '):
    """text as lines of at most width columns (None: one line), broken
    at spaces, the lines after the first indented."""
    if not too_wide(text, width):
        return [text]
    return textwrap.wrap(text, width, subsequent_indent=indent, break_on_hyphens=False)


def join_fit(parts, width, sep='  ', indent='  '):
    """parts joined by sep, in lines of at most width columns (None: one
    line), each part kept whole on one line."""
    lines = [parts[0]]
    for x in parts[1:]:
        if width and len(lines[-1]) + len(sep) + len(x) > width:
            lines.append(indent + x)
        else:
            lines[-1] += sep + x
    return lines


def fit_table(rows, align, width, drop=()):
    """table(rows, align), leaving out the columns of drop (indices into
    rows, in that order) while its lines are wider than width."""
    keep = list(range(len(rows[0])))
    text = table(rows, align)
    for col in drop:
        if not too_wide(text, width):
            break
        keep.remove(col)
        text = table([[r[i] for i in keep] for r in rows], ''.join(align[i] for i in keep))
    return text
