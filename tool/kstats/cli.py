# SPDX-License-Identifier: GPL-2.0
"""The command line: argparse parsers (one function per command), the
checks argparse cannot make, main() and run() (exit statuses, one-line
errors)."""

import argparse
import codecs
import io
import os
import re
import shutil
import signal
import sys

from . import VERSION
from .capture import DEFAULT_DIR, STDIN, set_ssh_host
from .commands import (
    DIFF_SEP, cmd_calibrate, cmd_diff, cmd_entry_command, cmd_export, cmd_heatmap, cmd_list,
    cmd_plot, cmd_record, cmd_remove, cmd_save, cmd_show, cmd_trace, cmd_watch)
from .completion import SHELLS, completion_script
from .errors import Error
from .export import EXPORT_BITS, EXPORT_KEY_TOP, METRIC_RE, label_arg, range_arg
from .latency import MAX_GLOB, cmd_latency
from .model import KEY_SORTS, MAX_BITS
from .keyview import KEY_TOP
from .outlierview import STACK_FRAMES
from .render import DEFAULT_PERCENTILES, UNITS, parse_percentiles
from .sched import add_sched as sched_parsers

# The commands that take -- COMMAND.
RUN_COMMANDS = ('latency', 'runqlat', 'cpudist', 'offcpu')


TIME_SUFFIXES = (('ns', 1e-9), ('us', 1e-6), ('ms', 1e-3), ('s', 1.0), ('m', 60.0),
                 ('h', 3600.0))

TIME_RE = re.compile(r'^([0-9]+\.?[0-9]*|\.[0-9]+)(ns|us|ms|s|m|h)?$')


def seconds_arg(text):
    """argparse type: a time above 0 such as 1s, 200ms, 0.5 (seconds) or 1m."""
    m = TIME_RE.match(text.strip())
    v = float(m.group(1)) * dict(TIME_SUFFIXES)[m.group(2) or 's'] if m else 0
    if not 0 < v < float('inf'):
        raise argparse.ArgumentTypeError("'%s' is not a time above 0 (such as 1s, 200ms, "
                                         '0.5 or 1m)' % text)
    return v


MIN_WIDTH = 60     # the narrowest output: a narrower terminal gets this


def output_width():
    """The columns that show's and watch's lines fit in: $COLUMNS, else
    the terminal's, at least MIN_WIDTH; None (no limit, lines as long as
    they are) when standard output is no terminal and COLUMNS is unset."""
    cols = shutil.get_terminal_size((0, 0)).columns
    return max(cols, MIN_WIDTH) if cols > 0 else None


def cmd_completion(args):
    sys.stdout.write(completion_script(build_parser(), args.shell))
    return 0


def size_arg(text):
    m = re.match(r'^([0-9]+),([0-9]+)$', text.strip())
    if not m or not int(m.group(1)) or not int(m.group(2)):
        raise argparse.ArgumentTypeError("'%s' is not W,H (two whole numbers above 0, such "
                                         'as 900,600)' % text)
    return '%d,%d' % (int(m.group(1)), int(m.group(2)))


def confidence_arg(text):
    try:
        v = float(text)
    except ValueError:
        v = None
    if v is None or not 0 < v < 100:
        raise argparse.ArgumentTypeError("'%s' is not a percentage above 0 and below 100"
                                         % text)
    return v


def percentiles_arg(text):
    try:
        return parse_percentiles(text)
    except Error as err:
        raise argparse.ArgumentTypeError(str(err))


def metric_arg(text):
    if not METRIC_RE.match(text):
        raise argparse.ArgumentTypeError("'%s' is not a metric name "
                                         '([a-zA-Z_][a-zA-Z0-9_]*)' % text)
    return text


def parent_parsers():
    """The options that several commands share, as argparse parents."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument('--dir', default=argparse.SUPPRESS, metavar='DIR',
                        help='kstats directory: live debugfs (default %s, or $KSTATS_DIR) '
                        'or a saved capture' % DEFAULT_DIR)
    bits = argparse.ArgumentParser(add_help=False)
    bits.add_argument('--bits', type=int, default=argparse.SUPPRESS, metavar='N',
                      help="the entries' frac_bits, when neither _control, a save header "
                      'nor the data tells them')
    cpu = argparse.ArgumentParser(add_help=False)
    cpu.add_argument('--cpu', type=int, metavar='N', help='only the samples of CPU N')
    pct = argparse.ArgumentParser(add_help=False)
    pct.add_argument('-p', '--percentiles', type=percentiles_arg, default=DEFAULT_PERCENTILES,
                     metavar='LIST',
                     help='comma-separated percentiles (default %s)' % DEFAULT_PERCENTILES)
    unit = argparse.ArgumentParser(add_help=False)
    unit.add_argument('--unit', choices=[u for u, _ in UNITS],
                      help='unit of the times printed (default: the fitting one per value; '
                      'JSON: ns)')
    label = argparse.ArgumentParser(add_help=False)
    label.add_argument('--label', metavar='NAME', help="the entry's name when read from "
                       "standard input ('-')")
    stack = argparse.ArgumentParser(add_help=False)
    stack.add_argument('--stack', type=int, default=STACK_FRAMES, metavar='N',
                       help="the outliers of an entry traced with 'outliers N': the first N "
                       'frames of each stack (default %d; 0: none)' % STACK_FRAMES)
    return argparse.Namespace(common=common, bits=bits, cpu=cpu, pct=pct, unit=unit,
                              label=label, stack=stack)


def top_parser():
    """kstats [--dir DIR] [--bits N] [--ssh HOST] COMMAND ..."""
    p = argparse.ArgumentParser(
        prog='kstats',
        description='Summarise, watch, plot, compare and export kstats histograms. '
        'Every command reads the live debugfs directory or a saved capture (--dir).',
        epilog='The manual: man kstats. "kstats COMMAND -h" for a command\'s options.')
    p.add_argument('--version', action='version', version='kstats ' + VERSION)
    p.add_argument('--dir', default=None, metavar='DIR',
                   help='kstats directory (default %s, or $KSTATS_DIR)' % DEFAULT_DIR)
    p.add_argument('--bits', type=int, default=None, metavar='N',
                   help="the entries' frac_bits, when neither _control nor the data tells")
    p.add_argument('--ssh', metavar='[USER@]HOST',
                   help="read HOST's live entries, one 'ssh HOST cat FILE' per read")
    return p


def add_list(sub, par):
    s = sub.add_parser('list', parents=[par.common, par.bits], help='the entries and their state')
    s.add_argument('--json', action='store_true', help='JSON output')
    s.add_argument('--no-count', action='store_true', help='do not read the entries')
    s.set_defaults(func=cmd_list)


def add_show(sub, par):
    s = sub.add_parser('show', parents=[par.common, par.bits, par.cpu, par.pct, par.unit,
                                        par.label, par.stack],
                       help='count, mean, percentiles with error bounds, histogram, per CPU')
    s.add_argument('names', nargs='+', metavar='NAME',
                   help="entry in --dir, a file path, or '-' for standard input")
    s.add_argument('--json', action='store_true', help='JSON output')
    s.add_argument('--subtract-bias', action='store_true',
                   help="shift the distribution down by its mechanism's calibrated bias "
                   "(bias_ns of _control), bounds widened by the bias spread")
    s.add_argument('--rows', type=int, default=40, help='at most this many histogram rows')
    s.add_argument('--hist-bits', type=int, metavar='N',
                   help='histogram resolution (default: the finest that fits --rows)')
    s.add_argument('--key', metavar='K',
                   help="a keyed entry's (by KEY) key K alone, in the same view "
                   "('other': the samples of keys beyond keys_max)")
    s.add_argument('--sort', choices=KEY_SORTS, default='count',
                   help='the order of the key table, largest first (key: by name; '
                   'default count)')
    s.add_argument('--top', type=int, default=KEY_TOP, metavar='N',
                   help='rows of the key table before "other" (default %d)' % KEY_TOP)
    s.add_argument('--folded', action='store_true',
                   help='by stack: "FRAMES TOTAL" per stack, for flame graph tools')
    s.set_defaults(func=cmd_show)


def add_watch(sub, par):
    s = sub.add_parser('watch', parents=[par.common, par.bits, par.cpu, par.pct, par.unit],
                       help='refresh: rate and percentiles since the last refresh, and totals')
    s.add_argument('--json', action='store_true',
                   help='one JSON object per interval, one per line')
    s.add_argument('name', metavar='NAME')
    s.add_argument('-i', '--interval', type=seconds_arg, default=1.0, metavar='TIME',
                   help='time between refreshes: 1s (default), 200ms, 0.5, 1m')
    s.add_argument('-n', '--count', type=int, metavar='N', help='stop after N refreshes')
    s.add_argument('--hist', action='store_true', help="also the last interval's histogram")
    s.add_argument('--rows', type=int, default=20, help='histogram rows')
    s.add_argument('--no-clear', action='store_true', help='do not clear the screen')
    s.set_defaults(func=cmd_watch)


def add_plot(sub, par):
    s = sub.add_parser('plot', parents=[par.common, par.bits, par.cpu, par.unit],
                       help='distribution, CDF and tail on a log-x axis, through gnuplot')
    s.add_argument('name', metavar='NAME')
    s.add_argument('other', nargs='?', metavar='NAME2',
                   help='a second entry or file, overlaid on the same axes')
    s.add_argument('--png', metavar='FILE', help='write a PNG instead of a terminal plot')
    s.add_argument('--live', action='store_true', help='replot every interval')
    s.add_argument('-i', '--interval', type=seconds_arg, default=1.0, metavar='TIME',
                   help='time between refreshes: 1s (default), 200ms, 0.5, 1m')
    s.add_argument('-n', '--count', type=int, metavar='N', help='with --live: N plots')
    s.add_argument('--size', type=size_arg, metavar='W,H', help='dumb: characters; PNG: pixels')
    s.add_argument('--hist-bits', type=int, metavar='N',
                   help='merge the slots to N bits first (smoother, coarser)')
    s.add_argument('--term', metavar='TERM',
                   help='gnuplot terminal (default dumb, or pngcairo with --png)')
    s.add_argument('--script', action='store_true',
                   help='print the gnuplot script (data included) instead of running it')
    s.set_defaults(func=cmd_plot)


def add_save(sub, par):
    s = sub.add_parser('save', parents=[par.common, par.bits],
                       help='copy entries: a file with a header, or a capture directory')
    s.add_argument('--all', action='store_true', help='every entry, into directory DEST')
    s.add_argument('names', nargs='*', metavar='NAME')
    s.add_argument('dest', metavar='DEST',
                   help='a file (one NAME), or a directory (several, --all, or ending in /)')
    s.set_defaults(func=cmd_save)


def add_diff(sub, par):
    s = sub.add_parser('diff', parents=[par.common, par.bits, par.cpu, par.pct, par.unit],
                       help='ministat-style comparison: two snapshots, or several runs '
                       'per side (A1 A2 ... -- B1 B2 ...)')
    s.add_argument('runs', nargs='+', metavar='A|B',
                   help='saved files, entry files or entries in --dir: A B, or '
                   'A1 A2 ... -- B1 B2 ... (one capture per run)')
    s.add_argument('-c', '--confidence', type=confidence_arg, default=95.0, metavar='PERCENT',
                   help='confidence of the verdict, above 0 and below 100 (default 95)')
    s.add_argument('--json', action='store_true', help='JSON output')
    s.add_argument('--per-sample', action='store_true',
                   help='test the pooled samples as independent (ignores run-to-run '
                   'noise; the only test with one capture per side)')
    s.add_argument('--fail-if-different', action='store_true',
                   help='exit status 3 if a test finds a difference (for CI)')
    s.set_defaults(func=cmd_diff)


def add_export(sub, par):
    s = sub.add_parser('export', parents=[par.common], help='OpenMetrics text, for Prometheus')
    s.add_argument('--openmetrics', action='store_true',
                   help='OpenMetrics text format (the default, and the only one so far)')
    s.add_argument('names', nargs='*', metavar='NAME',
                   help='entries in --dir or entry files (default: every entry)')
    s.add_argument('--bucket-bits', '--bits', type=int, dest='out_bits', metavar='N',
                   help='buckets at every slot edge of N bits, for every entry '
                   '(default %d)' % EXPORT_BITS)
    s.add_argument('--range', type=range_arg, metavar='LO:HI',
                   help="only the buckets from LO to HI (such as 1us:10s), or 'all'; the "
                   'rest folds into the end buckets (default: 100ns:1s for durations, '
                   'all for values and counts)')
    s.add_argument('--label', type=label_arg, action='append', dest='labels',
                   metavar='KEY=VALUE', help='a label on every series (repeatable), '
                   'such as host=web1')
    s.add_argument('--raw', action='store_true',
                   help='durations in ns as recorded (no conversion to seconds)')
    s.add_argument('--input-bits', type=int, dest='bits', default=argparse.SUPPRESS,
                   metavar='N', help="the entries' frac_bits, when neither _control nor "
                   'the data tells (also: kstats --bits N export ...)')
    s.add_argument('--per-cpu', action='store_true', help='one histogram per CPU, label cpu')
    s.add_argument('--top', type=int, default=EXPORT_KEY_TOP, metavar='N',
                   help='keyed entries (by KEY): a histogram, label key, for each of the N '
                   'keys with the most samples, the rest as key="other" (default %d)'
                   % EXPORT_KEY_TOP)
    s.add_argument('--metric', type=metric_arg,
                   help='the family of durations (default kstats_duration_seconds; '
                   'kstats_seconds for dashboards made for that name)')
    s.add_argument('--prefix', type=metric_arg, default='kstats',
                   help='prefix of every family name (default kstats)')
    s.add_argument('-o', '--output', metavar='FILE',
                   help="write FILE atomically (for the node_exporter textfile collector); "
                   "'-': standard output")
    s.add_argument('--every', type=seconds_arg, metavar='TIME',
                   help='with -o: export again every TIME (such as 15s), until SIGTERM')
    s.set_defaults(func=cmd_export)


def add_record(sub, par):
    s = sub.add_parser('record', parents=[par.common, par.bits],
                       help='save interval histograms (deltas) every interval: a recording '
                       'directory of captures')
    s.add_argument('entries', nargs='+', metavar='ENTRY', help='entries in --dir, or entry '
                   'files')
    s.add_argument('-i', '--interval', type=seconds_arg, default=1.0, metavar='TIME',
                   help='time between reads: 1s (default), 200ms, 0.5, 1m')
    s.add_argument('-d', '--duration', type=seconds_arg, metavar='TIME',
                   help='record for TIME (duration / interval intervals, rounded up); '
                   'default: until Ctrl-C or SIGTERM')
    s.add_argument('-n', '--count', type=int, metavar='N', help='record N intervals')
    s.add_argument('-o', '--output', metavar='DIR', help='the recording directory, new or '
                   'empty (default kstats-record-DATE-TIME)')
    s.set_defaults(func=cmd_record)


def add_heatmap(sub, par):
    s = sub.add_parser('heatmap', parents=[par.common, par.bits, par.cpu, par.unit],
                       help='time x value heatmap of a recording: PNG through gnuplot, or '
                       'JSON')
    s.add_argument('recording', metavar='RECORDING', help='a directory of kstats record')
    s.add_argument('name', nargs='?', metavar='ENTRY',
                   help='the entry (needed when the recording has several)')
    s.add_argument('-o', '--output', metavar='FILE.png', help='write the heatmap PNG')
    s.add_argument('--json', action='store_true', help='the heatmap as JSON')
    s.add_argument('--log', action='store_true', help='log colour scale (counts)')
    s.add_argument('--hist-bits', type=int, metavar='N',
                   help='merge the slots to N bits (fewer, taller rows)')
    s.add_argument('--size', type=size_arg, metavar='W,H',
                   help='PNG size in pixels (default 1000,600)')
    s.add_argument('--term', metavar='TERM', help='gnuplot terminal (default pngcairo)')
    s.add_argument('--script', action='store_true',
                   help='print the gnuplot script (data included) instead of running it')
    s.set_defaults(func=cmd_heatmap)


# The _control grammar of "trace" (Documentation/kstats.rst), for trace -h.
TRACE_GRAMMAR = '''ARGS, as _control takes them after "trace":
  FUNC [bits N] [via kretprobe|fprobe|direct] [as NAME] [clock mono|tsc]
       [value argN|retval [type u8|u16|u32|u64|s8|s16|s32|s64]]
       [counter EVENT] [FILTER...]
  pcpu:FUNC [bits N] [as NAME] [clock local|mono|tsc] [counter EVENT] [FILTER...]
  NAME start X end Y [bits N] [key cpu|task|argN [type T]] [slots N] [expire N]
       [clock local|mono|tsc] [counter EVENT] [FILTER...]
  NAME gap X [bits N] [clock local|mono|tsc] [FILTER...]
FILTER: pid N | tid N | comm NAME | cpu N | cgroup PATH|ID
all but the gap: [by comm|pid|tid|cpu|cgroup [keys N]]; FUNC and pcpu:FUNC:
[by retval [type T]] [by stack] (where FUNC returns to); FUNC (time) and pairs:
[by argN [type T]] (at FUNC's entry, at X); a key task pair ending at
__tracepoint_sys_exit: [by syscall]
X, Y: SYMBOL, SYMBOL+OFFSET or __tracepoint_NAME
e.g. kstats trace vfs_read bits 4; kstats trace vfs_read value arg3 as read_size;
  kstats trace bio start __tracepoint_block_rq_issue end __tracepoint_block_rq_complete key arg1
The details: man kstats, and Documentation/kstats.rst ("trace FUNC").'''


def add_trace(sub, par):
    s = sub.add_parser('trace', parents=[par.common],
                       help='write "trace ..." to _control (run-time attachment)',
                       epilog=TRACE_GRAMMAR, formatter_class=argparse.RawDescriptionHelpFormatter)
    s.add_argument('words', nargs=argparse.REMAINDER, metavar='ARGS',
                   help='the words of the trace command: FUNC [OPTION...] (below)')
    s.set_defaults(func=cmd_trace)


LATENCY_EPILOG = '''TARGET: a function (vfs_read), a quoted trace specification
("vfs_read via kretprobe bits 3", as "kstats trace" takes it), a glob
('vfs_*', from available_filter_functions, at most --max-targets), or a
user-space function, PATH:SYMBOL or LIB:SYMBOL (c:malloc).
Without -d or -- COMMAND it measures until Ctrl-C. With -- COMMAND it
counts only COMMAND and its descendants (a cgroup v2 group of their own)
and exits with COMMAND's status. Every way out removes the entries.
e.g. kstats latency vfs_read -- dd if=/dev/zero of=/dev/null count=1000
     kstats latency 'vfs_*' -d 10s -c bash
     kstats latency vfs_read --by comm -d 5s
     kstats latency vfs_read --outliers 5 -d 10s'''


def add_latency(sub, par):
    s = sub.add_parser('latency', parents=[par.common, par.unit, par.stack],
                       help='attach, measure, print and remove, as funclatency does',
                       epilog=LATENCY_EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    s.add_argument('targets', nargs='+', metavar='TARGET', help='what to time (below)')
    s.add_argument('-d', '--duration', type=seconds_arg, metavar='TIME',
                   help='measure this long: 10s, 500ms, 1m (default: until Ctrl-C)')
    s.add_argument('-i', '--interval', type=seconds_arg, metavar='TIME',
                   help="print each TIME's histograms (each of the samples since the last)")
    s.add_argument('-p', '--pid', type=int, metavar='PID', help='only process PID')
    s.add_argument('-c', '--comm', metavar='COMM', help='only tasks named COMM')
    s.add_argument('--via', choices=['direct', 'fprobe', 'kretprobe'],
                   help='the mechanism (default: the cheapest the kernel has)')
    s.add_argument('--by', choices=['comm', 'pid', 'tid', 'cpu', 'cgroup', 'retval', 'stack'] +
                   ['arg%d' % n for n in range(1, 7)],
                   help='a histogram per KEY too, and a table of the keys at the end')
    s.add_argument('--sort', choices=['count', 'p50', 'p90', 'p99', 'max', 'key'],
                   help='with --by: the order of the key table (default count)')
    s.add_argument('--top', type=int, metavar='N',
                   help='with --by: the keys with a row of their own (default 20)')
    s.add_argument('--outliers', type=int, metavar='N',
                   help='keep the N slowest samples of each target and print them, with '
                   'their task and stack, at the end')
    s.add_argument('--percentiles', type=percentiles_arg, default=DEFAULT_PERCENTILES,
                   metavar='LIST',
                   help='comma-separated percentiles (default %s)' % DEFAULT_PERCENTILES)
    s.add_argument('--max-targets', type=int, default=MAX_GLOB, metavar='N',
                   help='the most functions a glob may give (default %d)' % MAX_GLOB)
    s.add_argument('--rows', type=int, default=40, help='at most this many histogram rows')
    s.set_defaults(func=cmd_latency, cpu=None, hist_bits=None, bias=None, run=None, count=None)


def add_sched(sub, par):
    def common(s):
        s.add_argument('-d', '--duration', type=seconds_arg, metavar='TIME',
                       help='measure this long: 10s, 500ms, 1m (default: until Ctrl-C)')
        s.add_argument('-i', '--interval', type=seconds_arg, metavar='TIME',
                       help="print each TIME's histogram (of the samples since the last)")
        s.add_argument('--outliers', type=int, metavar='N',
                       help='keep the N slowest samples and print them at the end')
        s.add_argument('--sort', choices=['count', 'p50', 'p90', 'p99', 'max', 'key'],
                       help='the order of the key table (default count)')
        s.add_argument('--top', type=int, metavar='N',
                       help='the keys with a row of their own (default 20)')
        s.add_argument('--percentiles', type=percentiles_arg, default=DEFAULT_PERCENTILES,
                       metavar='LIST',
                       help='comma-separated percentiles (default %s)' % DEFAULT_PERCENTILES)
        s.add_argument('--rows', type=int, default=40, help='at most this many histogram rows')
    sched_parsers(sub, par, common)


def add_calibrate(sub, par):
    s = sub.add_parser('calibrate', parents=[par.common, par.unit],
                       help='measure the bias and cost of every probe mechanism (live only)')
    s.add_argument('--no-run', action='store_true',
                   help='print the last calibration from _control (a capture too)')
    s.add_argument('--json', action='store_true', help='JSON output')
    s.set_defaults(func=cmd_calibrate)


def add_remove(sub, par):
    s = sub.add_parser('remove', parents=[par.common], help='write "remove NAME" to _control')
    s.add_argument('names', nargs='+', metavar='NAME')
    s.set_defaults(func=cmd_remove)


def add_entry_commands(sub, par):
    for c in ('start', 'stop', 'reset'):
        s = sub.add_parser(c, parents=[par.common], help='write "%s" to entries' % c)
        s.add_argument('names', nargs='+', metavar='NAME')
        s.set_defaults(func=cmd_entry_command)


COMPLETION_HELP = '''To use it in the running shell:
  source <(kstats completion bash)
  source <(kstats completion zsh)     (after compinit)
or once for all (make install does it): as
  PREFIX/share/bash-completion/completions/kstats and
  PREFIX/share/zsh/site-functions/_kstats (a directory of $fpath).
It completes commands, options, their choices, file names, entry names
(from _control of --dir DIR, --dir=DIR, $KSTATS_DIR or the live directory)
and, after trace, kernel functions (tracefs's available_filter_functions,
where readable).'''


def add_completion(sub, par):
    s = sub.add_parser('completion', help='print the bash or zsh completion script',
                       epilog=COMPLETION_HELP,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    s.add_argument('shell', choices=list(SHELLS), metavar='SHELL', help='bash or zsh')
    s.set_defaults(func=cmd_completion)


# In the order of "kstats --help".
COMMAND_PARSERS = (add_list, add_show, add_watch, add_plot, add_save, add_diff, add_export,
                   add_record, add_heatmap, add_trace, add_latency, add_sched, add_calibrate,
                   add_remove, add_entry_commands, add_completion)


def build_parser():
    """The parser of kstats and its commands; .subparsers: by name."""
    p = top_parser()
    sub = p.add_subparsers(dest='command', metavar='COMMAND')
    par = parent_parsers()
    for add in COMMAND_PARSERS:
        add(sub, par)
    p.subparsers = sub.choices
    return p


def check_args(args, sub):
    """Values that argparse's types do not check: a bad one prints the
    subcommand's usage, exit 2."""
    if getattr(args, 'cpu', None) is not None and args.cpu < 0:
        sub.error('--cpu must be 0 or more, not %d' % args.cpu)
    rows = getattr(args, 'rows', None)
    if rows is not None and rows < 1:
        sub.error('--rows must be 1 or more, not %d' % rows)
    for opt in ('hist_bits', 'out_bits'):
        v = getattr(args, opt, None)
        if v is not None and not 0 <= v <= MAX_BITS:
            sub.error('--%s must be 0..%d, not %d' % (
                'hist-bits' if opt == 'hist_bits' else 'bucket-bits', MAX_BITS, v))
    for opt, least in (('stack', 0), ('outliers', 1)):
        v = getattr(args, opt, None)
        if v is not None and v < least:
            sub.error('--%s must be %d or more, not %d' % (opt, least, v))
    if getattr(args, 'top', None) is not None and args.top < 1:
        sub.error('--top must be 1 or more, not %d' % args.top)
    if getattr(args, 'count', None) is not None and args.count < 1:
        sub.error('-n must be 1 or more, not %d' % args.count)
    if getattr(args, 'interval', None) is not None and args.interval <= 0:
        sub.error('-i must be above 0')
    if getattr(args, 'duration', None) is not None and args.count is not None:
        sub.error('--duration and -n both say when to stop: give one')
    if getattr(args, 'label', None) and STDIN not in getattr(args, 'names', []):
        sub.error("--label names an entry read from standard input ('-')")


def main(argv=None):
    parser = build_parser()
    if argv is None:
        argv = sys.argv[1:]
    if 'diff' in argv and '--' in argv[argv.index('diff'):]:
        # diff A1 A2 -- B1 B2: argparse would drop the '--' between the sides.
        argv = list(argv)
        argv[argv.index('--', argv.index('diff'))] = DIFF_SEP
    run = None
    cmd = next((c for c in RUN_COMMANDS if c in argv), None)
    if cmd and '--' in argv[argv.index(cmd):]:
        # latency TARGET... -- COMMAND ARGS: COMMAND's own options are its own.
        i = argv.index('--', argv.index(cmd))
        argv, run = list(argv[:i]), list(argv[i + 1:])
        if not run:
            parser.error('%s: give COMMAND after --' % cmd)
    args, extra = parser.parse_known_args(argv)
    if run is not None:
        args.run = run
    if not getattr(args, 'command', None):
        if extra:
            parser.error('unrecognized arguments: %s' % ' '.join(extra))
        parser.print_help()
        return 2
    sub = parser.subparsers[args.command]
    if extra:
        sub.error('unrecognized arguments: %s' % ' '.join(extra))
    check_args(args, sub)
    args.width = output_width()
    set_ssh_host(args.ssh)
    if args.dir is None:
        args.dir = os.environ.get('KSTATS_DIR') or DEFAULT_DIR
    if args.bits is not None and not 0 <= args.bits <= MAX_BITS:
        sub.error('--bits must be 0..%d' % MAX_BITS)
    if args.command == 'latency' and args.max_targets < 1:
        sub.error('--max-targets must be 1 or more')
    if args.command in RUN_COMMANDS and (getattr(args, 'pid', 0) or 0) < 0:
        sub.error('-p PID must be 0 or more')
    if args.command == 'trace' and not args.words:
        parser.error('trace needs its arguments, e.g. "kstats trace vfs_read bits 4"')
    if args.command == 'save' and not args.all and not args.names:
        parser.error('save needs NAME... DEST, or --all DEST')
    if args.command == 'save' and args.all and args.names:
        parser.error('save --all takes only DEST')
    return args.func(args)


# What an output stream that cannot encode a character (LC_ALL=C: ASCII)
# writes instead.
ASCII_FALLBACK = {'\u00b1': '+-', '\u00d7': 'x', '\u00b5': 'u', '\u2013': '-',
                  '\u2014': '-', '\u2026': '...'}


def ascii_fallback(err):
    """codecs error handler of the tool's output: a character that the
    stream's encoding lacks as its ASCII look-alike ('\u00b1' as '+-') or '?';
    a byte that the input's decoding escaped (surrogateescape) as itself."""
    c = err.object[err.start]
    if '\udc80' <= c <= '\udcff':
        return bytes([ord(c) - 0xdc00]), err.start + 1
    return ASCII_FALLBACK.get(c, '?'), err.start + 1


def fallback_streams():
    """Standard output and error write what they cannot encode through
    ascii_fallback instead of failing."""
    codecs.register_error('kstats-fallback', ascii_fallback)
    for name in ('stdout', 'stderr'):
        f = getattr(sys, name)
        if hasattr(f, 'reconfigure'):
            f.reconfigure(errors='kstats-fallback')
        elif hasattr(f, 'buffer'):      # Python 3.6
            setattr(sys, name, io.TextIOWrapper(f.buffer, f.encoding, 'kstats-fallback',
                                                line_buffering=f.line_buffering))


def run():
    # Output into a closed pipe (kstats show foo | head) ends quietly.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    fallback_streams()
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        rc = main()
    except Error as err:
        sys.stdout.flush()
        sys.stderr.write('kstats: error: %s\n' % err)
        rc = 1
    except KeyboardInterrupt:
        sys.stderr.write('\n')
        rc = 130
    except Exception as err:        # pylint: disable=broad-except
        if os.environ.get('KSTATS_DEBUG'):
            raise
        sys.stderr.write('kstats: internal error: %s: %s (KSTATS_DEBUG=1 for the '
                         'traceback)\n' % (type(err).__name__, err))
        rc = 70
    sys.exit(rc)
