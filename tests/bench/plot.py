#!/usr/bin/env python3
"""gnuplot PNGs of bench.json (written by report.py):
  bench-overhead.png  extra instructions per dd iteration of each
                      configuration, per kernel (bars)
  bench-empty.png     runtime of an empty function under each mechanism,
                      percentiles p10..p99.9 (one line per mechanism)
Each title names the environment: kernels, QEMU version, TCG, host CPU.

Usage: plot.py BUILDDIR
"""
import json
import subprocess
import sys
from pathlib import Path

build = Path(sys.argv[1])
rep = json.loads((build / 'bench.json').read_text())
targets = list(rep)
meta = rep[targets[0]]['meta']
env = (f"{meta.get('qemu', 'QEMU ?').split(' (')[0]}, TCG thread=single, "
       f"host CPU {meta.get('host_cpu', '?')}; "
       + ', '.join(f"{t} {rep[t]['meta'].get('kernel')}" for t in targets))
env = env.replace('_', '\\\\_').replace('"', "'")

SHOW = ['floor-direct', 'floor-ftrace', 'floor-tracepoint', 'floor-kprobe',
        'floor-fprobe-entry', 'floor-kretprobe', 'floor-fprobe',
        'kstats-direct-stopped', 'kstats-direct', 'kstats-direct-mono',
        'kstats-gap', 'kstats-pcpu', 'kstats-tp-pair-cpu',
        'kstats-entry-pair-cpu', 'kstats-trace-mono', 'kstats-counter',
        'kstats-trace-stopped', 'kstats-trace', 'kstats-entry-pair-task',
        'kstats-tp-pair-task', 'ftrace-kprobe-hist', 'ftrace-fprobe-hist',
        'ftrace-kretprobe-hist', 'ftrace-syscall-hist', 'bpftrace-kfunc',
        'bpftrace-kretprobe', 'perf-ftrace-latency', 'ftrace-synth-vfs-read',
        'ftrace-synth-syscall']
rows = []
for c in SHOW:
    vals = []
    for t in targets:
        cf = rep[t]['configs']
        v, b = cf.get(c), cf.get('untraced')
        vals.append(f"{v['insn'] - b['insn']:.0f}" if v and b else '?')
    if any(x != '?' for x in vals):
        rows.append(c + ' ' + ' '.join(vals))
(build / 'overhead.dat').write_text('\n'.join(rows) + '\n')

gp = f'''set terminal pngcairo size 1400,700 font ",10"
'''
# A subset of the configurations may leave nothing to draw in a plot.
if rows:
    gp += f'''set output "{build}/bench-overhead.png"
set title "Extra instructions per dd iteration (1-byte read + write) over untraced\\n{env}"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xtics rotate by -40 noenhanced
set ylabel "extra guest instructions per iteration"
set grid ytics
set key top left
set rmargin 8
set datafile missing "?"
plot ''' + ', '.join(f'"{build}/overhead.dat" using {i + 2}:xtic(1) title "{t}"'
                         for i, t in enumerate(targets)) + '\n'

pcts = ['p10', 'p50', 'p90', 'p99', 'p99.9']
plots = []
for t in targets:
    for m, v in rep[t]['empty'].items():
        f = build / f'empty-{t}-{m}.dat'
        f.write_text(''.join(f'{i} {v.get(p, 0)}\n' for i, p in enumerate(pcts)))
        plots.append(f'"{f}" using 1:2:xtic(1) with linespoints title "{t} {m}"')
if plots:
    gp += f'''
set output "{build}/bench-empty.png"
set title "Runtime of an empty function per call (TSC around the call) under each mechanism\\n{env}"
set style data linespoints
set logscale y
set ylabel "ns (emulated TSC)"
set xtics ({', '.join(f'"{p}" {i}' for i, p in enumerate(pcts))}) norotate
set key outside right
plot ''' + ', '.join(p.replace(':xtic(1)', '') for p in plots) + '\n'
(build / 'plots.gp').write_text(gp)
subprocess.run(['gnuplot', str(build / 'plots.gp')], check=True)
print(f'plots: {build}/bench-overhead.png {build}/bench-empty.png')
