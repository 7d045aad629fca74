#!/usr/bin/env python3
"""The cost gate of make check: each row of tests/bench/budgets.conf for
the targets given, against BUILD/bench.json (scripts/bench.sh). Prints
one PASS or FAIL line per row: the extra instructions per dd iteration
over untraced (for a ping-pong row, pp-*, per round trip over pp-off),
counted in one boot, against the row's budget, and
whether the row meets its goal ("-": none). A row that the bench did not
measure fails, and so does every row of an arm64 target whose boot did
not leave its interrupts out of the counts (the plugin's noirq=1 saw no
interrupt entry).

Usage: gate.py BUDGETS BUILD TARGET...
"""
import json
import pathlib
import sys


def rows(path, targets):
    for n, line in enumerate(pathlib.Path(path).read_text().splitlines(), 1):
        line = line.split('#', 1)[0].split()
        if not line:
            continue
        if len(line) != 5:
            sys.exit(f'{path}:{n}: want TARGET CONFIG BUDGET MEASURED GOAL')
        target, config, budget, measured, goal = line
        if target in targets:
            yield (target, config, float(budget), measured,
                   None if goal == '-' else float(goal))


def main():
    budgets, build, targets = sys.argv[1], sys.argv[2], sys.argv[3:]
    report = json.loads((pathlib.Path(build) / 'bench.json').read_text())
    n = 0
    for target, config, budget, measured, goal in rows(budgets, targets):
        n += 1
        what = f'{target} cost of {config}'
        g = report.get(target, {})
        cf = g.get('configs', {})
        base = 'pp-off' if config.startswith('pp-') else 'untraced'
        if config not in cf or base not in cf:
            print(f'FAIL {what}: not measured ({build}/bench.json)')
            continue
        if not g.get('irq', {}).get('entries'):
            print(f'FAIL {what}: no interrupt left out of the counts '
                  f'({build}/bench.json)')
            continue
        extra = cf[config]['insn'] - cf[base]['insn']
        if goal is None:
            note = 'no goal'
        else:
            note = f'goal {goal:g} ' + ('met' if extra <= goal else 'not met')
        per = 'round trip' if base == 'pp-off' else 'call'
        line = (f'{what}: {extra:+.0f} instructions per {per}, budget '
                f'{budget:g} (measured {measured}; {note})')
        print(('PASS ' if extra <= budget else 'FAIL ') + line)
    if not n:
        print(f'FAIL cost gate: no row of {budgets} for {" ".join(targets)}')


if __name__ == '__main__':
    main()
