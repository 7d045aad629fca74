# SPDX-License-Identifier: GPL-2.0
"""kstats runqlat, cpudist [--offcpu], offcpu and biolatency: the
scheduler's and the block layer's questions as one pair entry each,
measured, printed and removed as kstats latency measures a function.
Calls latency (Session, measure), live and errors."""

import argparse
import os
import re

from .btf import cmd_flags_namer
from .errors import Error
from .latency import Session, exec_command, measure, wait_command
from .live import require_live

# The scheduler's pairs of sched_switch and the wakeups, keyed by the
# task's pid (a field path through BTF). pid 0, each CPU's idle task, is
# left out of every side where it would pair with another CPU's: "if
# argN->pid != 0", which -p PID makes "if argN->tgid == PID" (the task
# that waited or ran, a thread of PID), and -c COMM "if argN->comm ==
# "COMM"". A key written before the sites
# keys the starts without one of their own (the wakeups'): the line must
# fit _control's 256 bytes with --by and --keys. WHO: the end's argument
# that is that task, which --by reads there.
SCHED_PAIRS = {
    'runqlat': ('run queue latency (wakeup or preemption to switch-in)',
                'key arg1->pid start __tracepoint_sched_wakeup '
                'start __tracepoint_sched_wakeup_new '
                'start __tracepoint_sched_switch key arg2->pid if arg4 == 0 '
                'end __tracepoint_sched_switch key arg3->pid if arg3->pid != 0'),
    'oncpu': ('on-CPU time (switch-in to switch-out)',
              'start __tracepoint_sched_switch key arg3->pid if arg3->pid != 0 '
              'end __tracepoint_sched_switch key arg2->pid if arg2->pid != 0'),
    'offcpu': ('off-CPU time (switch-out to switch-in)',
               'start __tracepoint_sched_switch key arg2->pid if arg2->pid != 0 '
               'end __tracepoint_sched_switch key arg3->pid if arg3->pid != 0'),
}
WHO = {'runqlat': 'arg3', 'oncpu': 'arg2', 'offcpu': 'arg3'}
# --by KEY: the field of the task that waited or ran, read at the end.
SCHED_BY = {'comm': 'comm', 'pid': 'tgid', 'tid': 'pid'}

# biolatency: a request from its issue to its completion, keyed by its
# address; -D and -F: by fields of the request, read at the completion.
BIO_PAIR = ('block I/O latency (issue to completion)',
            'start __tracepoint_block_rq_issue key arg1 '
            'end __tracepoint_block_rq_complete key arg1')
BIO_BY = {'disk': 'by arg1->q->disk->disk_name', 'flags': 'by arg1->cmd_flags'}


def sched_words(which, args, pid=None):
    """The pair's words for args: -p PID (or COMMAND's pid), or -c COMM,
    on every side that left pid 0 out, --by after the end, by stack after
    kstats offcpu's start, outliers N."""
    words = SCHED_PAIRS[which][1]
    pid = args.pid if pid is None else pid
    if pid is not None:
        words = re.sub(r'(arg[0-9])->pid != 0', r'\1->tgid == %d' % pid, words)
    elif args.comm:
        words = re.sub(r'(arg[0-9])->pid != 0', r'\1->comm == "%s"' % args.comm, words)
    if getattr(args, 'stacks', False):
        words = words.replace(' end ', ' by stack end ', 1)
    elif args.by:
        words += ' by %s->%s' % (WHO[which], SCHED_BY[args.by])
    if args.keys and (args.by or getattr(args, 'stacks', False)):
        words += ' keys %d' % args.keys
    if args.outliers:
        words += ' outliers %d' % args.outliers
    return words


class Held(object):
    """COMMAND forked and held before its exec, so that the pair can name
    its pid before it runs; release() lets it exec and waits for it."""

    def __init__(self, argv):
        r, w = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            os.close(w)
            if os.read(r, 1) != b'x':
                os._exit(127)       # never released: the attach failed
            exec_command(argv)
        os.close(r)
        self.go = w

    def release(self):
        os.write(self.go, b'x')
        os.close(self.go)
        self.go = None
        return wait_command(self.pid)

    def drop(self):
        """Never released (the attach failed): it exits unrun."""
        if self.go is not None:
            os.close(self.go)
            self.go = None
            os.waitpid(self.pid, 0)


def cmd_sched(args):
    """kstats runqlat, cpudist [--offcpu], offcpu, biolatency [-D|-F]."""
    require_live(args, args.command)
    keyed = args.by or args.command == 'offcpu' or getattr(args, 'disks', False) or \
        getattr(args, 'flags', False)
    if args.interval is not None and keyed:
        raise Error('the table of keys is printed once, at the end: not with -i')
    if args.interval is not None and args.run:
        raise Error('-i prints while it waits, -- COMMAND prints once COMMAND ends: give one')
    if args.command == 'biolatency':
        if args.disks and args.flags:
            raise Error('-D and -F: one histogram per disk or per flags, not both')
        label, words = BIO_PAIR
        key = 'disk' if args.disks else 'flags' if args.flags else None
        # -F: the flags named as the running kernel names them (its BTF).
        args.key_names = cmd_flags_namer() if args.flags else None
        if key:
            words += ' ' + BIO_BY[key]
            if args.keys:
                words += ' keys %d' % args.keys
        if args.outliers:
            words += ' outliers %d' % args.outliers
        args.by = key
        session = Session(args)
        return measure(args, session, lambda _: session.attach_pair(label, words))
    which = 'offcpu' if args.command == 'offcpu' or args.offcpu else (
        'oncpu' if args.command == 'cpudist' else 'runqlat')
    args.stacks = args.command == 'offcpu'
    if args.comm is not None:
        if args.pid is not None or args.run:
            raise Error('-c COMM and -p PID or -- COMMAND: give one of them')
        if not (0 < len(args.comm) < 16 and args.comm.isascii() and args.comm.isprintable()
                and not set(args.comm) & set(' ",|')):
            raise Error('-c COMM: 1 to 15 printable characters, no space, quote, comma '
                        'or |')
    label = SCHED_PAIRS[which][0]
    session = Session(args)
    if args.stacks:
        args.by = 'stack'
    if not args.run:
        words = sched_words(which, args)
        return measure(args, session, lambda _: session.attach_pair(label, words))
    held = Held(args.run)
    try:
        words = sched_words(which, args, held.pid)
        return measure(args, session, lambda _: session.attach_pair(label, words),
                       run=held.release)
    finally:
        held.drop()


def add_sched(sub, par, common_args):
    """The parsers of runqlat, cpudist, offcpu and biolatency;
    common_args(s) adds the options they share with kstats latency."""
    helps = (('runqlat', 'run queue latency, as runqlat gives it', 'runqlat'),
             ('cpudist', 'on-CPU (or off-CPU) time per run, as cpudist gives it', 'oncpu'),
             ('offcpu', 'off-CPU time by the stack where tasks slept, as offcputime',
              'offcpu'),
             ('biolatency', 'block I/O latency, per disk (-D) or flags (-F) too', None))
    for name, what, which in helps:
        pair = SCHED_PAIRS[which] if which else BIO_PAIR
        s = sub.add_parser(name, parents=[par.common, par.unit], help=what,
                           formatter_class=argparse.RawDescriptionHelpFormatter,
                           epilog='%s: one pair entry, removed at the end:\n  trace NAME %s%s%s'
                           % (pair[0], pair[1], ' by stack (after the start)'
                              if name == 'offcpu' else '', '' if not which else
                              '\n-- COMMAND: run COMMAND, and measure its threads only '
                              '(not its children)'))
        if name == 'cpudist':
            s.add_argument('--offcpu', action='store_true',
                           help='off-CPU time: switch-out to switch-in')
        if name == 'biolatency':
            s.add_argument('-D', '--disks', action='store_true',
                           help='a histogram per disk (the request\'s disk_name)')
            s.add_argument('-F', '--flags', action='store_true',
                           help='a histogram per request flags (cmd_flags, named from the '
                           "kernel's BTF)")
        else:
            s.add_argument('-p', '--pid', type=int, metavar='PID',
                           help='only the threads of process PID (the task that waited or ran)')
            s.add_argument('-c', '--comm', metavar='COMM',
                           help='only the tasks named COMM (the task that waited or ran)')
        if name == 'offcpu':
            s.add_argument('--folded', action='store_true',
                           help="print 'FRAMES TOTAL_NS' per stack, for flame graph tools")
        s.add_argument('--keys', type=int, metavar='N',
                       help='with keys: at most N of them (default 32; the rest: other)')
        if name in ('runqlat', 'cpudist'):
            s.add_argument('--by', choices=sorted(SCHED_BY),
                           help='a histogram per task that waited or ran too (its comm, '
                           'process or thread id), and a table of them at the end')
        common_args(s)
        s.set_defaults(func=cmd_sched, cpu=None, hist_bits=None, bias=None, count=None,
                       via=None, by=None, pid=None, comm=None, run=None, offcpu=False,
                       folded=False, keys=None)
