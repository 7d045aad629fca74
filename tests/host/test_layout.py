# SPDX-License-Identifier: GPL-2.0
"""The package tool/kstats as Documentation/testing.rst ("The tool's
code") lays it out: modules by concern, none over 600 lines, each
importing only from the layers below it; "python3 -m kstats" from the
checkout; histogram rows as a named type."""
import ast
import os
import subprocess

from conftest import PYTHON, REPO
from kstats import VERSION, model

PKG = os.path.join(REPO, 'tool', 'kstats')
# Layer of each module: a module may import from lower layers only, and
# plot and export from render (the output layer's units).
LAYER = {'errors': 0, 'fit': 0, 'btf': 1, 'userfunc': 1, 'model': 1, 'keys': 1, 'outliers': 2, 'stats': 3, 'capture': 3,
         'live': 4, 'recording': 4, 'render': 5, 'plot': 6, 'export': 6, 'keyview': 6,
         'outlierview': 6, 'commands': 7, 'completion': 7, 'latency': 7, 'sched': 8, 'cli': 9,
         '__main__': 10}


def modules():
    return sorted(f[:-3] for f in os.listdir(PKG) if f.endswith('.py') and f != '__init__.py')


def imports(name):
    """The package modules that module `name` imports."""
    with open(os.path.join(PKG, name + '.py')) as f:
        tree = ast.parse(f.read())
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom):
            if n.level == 1 and n.module:
                out.add(n.module)
            elif n.module and n.module.startswith('kstats.'):
                out.add(n.module.split('.', 1)[1])
    return out


def test_every_module_has_a_layer():
    assert modules() == sorted(LAYER)


def test_modules_at_most_600_lines():
    for m in modules() + ['__init__']:
        with open(os.path.join(PKG, m + '.py')) as f:
            n = len(f.read().splitlines())
        assert n <= 600, '%s.py: %d lines' % (m, n)


def test_imports_point_down():
    for m in modules():
        for dep in imports(m):
            ok = LAYER[dep] < LAYER[m] or (m in ('plot', 'export') and dep == 'render')
            assert ok, '%s imports %s' % (m, dep)


def test_init_imports_nothing():
    """python3 -m kstats imports __init__.py before __main__.py can make
    an early Ctrl-C quiet."""
    with open(os.path.join(PKG, '__init__.py')) as f:
        tree = ast.parse(f.read())
    assert not [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]


def test_python_m_kstats():
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, 'tool'), PYTHONDONTWRITEBYTECODE='1')
    r = subprocess.run([PYTHON, '-m', 'kstats', '--version'], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, env=env)
    assert (r.returncode, r.stdout, r.stderr) == (0, 'kstats %s\n' % VERSION, '')


def test_rows_are_named():
    h = model.Hist(2, [(5, 3, 5.0), (9, 0, 0), (12, 2, 18.5)])
    assert h.rows == [model.Row(5, 3, 5.0), model.Row(12, 2, 18.5)]
    assert [(r.slot, r.count, r.avg) for r in h.rows] == [(5, 3, 5.0), (12, 2, 18.5)]
    assert all(isinstance(r, model.Row) for r in h.merged(1).rows)
