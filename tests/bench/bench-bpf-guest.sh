#!/bin/sh
# bpftrace and "perf ftrace latency" side of "make bench", in a guest with
# a Debian userspace (tests/bench/bpf-init.sh). Each tool stays attached
# for all rounds of its configuration (starting bpftrace costs tens of
# seconds under TCG); untraced and kstats runs in the same boot give the
# baseline. Prints "run CONFIG ROUND N NS" lines as bench-guest.sh does.
. /etc/kstats-bench.conf
K=/sys/kernel/debug/kstats
echo "# kernel $(uname -r)"
echo "# bpftrace $(bpftrace --version 2>&1)"
busybox insmod /modules/kstats_tramp.ko || echo "# insmod kstats_tramp failed"
busybox insmod /modules/kstats.ko || echo "# insmod kstats failed"

# want CONFIG: CONFIGS (bench.sh's KSTATS_BENCH_CONFIGS), if set, has it.
want() {
	[ -z "${CONFIGS:-}" ] && return 0
	case " $CONFIGS " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

# The rounds of configuration $1: of bench-mark dd, or of $LOOP, with
# $DIV times fewer iterations.
rounds() {
	want "$1" || return 0
	r=1
	while [ "$r" -le "$ROUNDS" ]; do
		for n in $SIZE $((SIZE * 2)); do
			n=$((n / ${DIV:-1}))
			out=$(bench-mark "${LOOP:-dd}" "$n" 2>&1)
			echo "run $1 $r $n ${out#ns }"
		done
		r=$((r + 1))
	done
}

# BPF links (fentry/fexit programs attached) that process $1 holds: a link
# fd exists only once its trampoline is in place.
links() {
	grep -l '^link_type:' /proc/"$1"/fdinfo/* 2>/dev/null | wc -l
}

# Armed kprobes and kretprobes on vfs_read (perf's kprobe PMU registers
# bpftrace's kprobe:/kretprobe: probes there): at +0x0, or at +0x4 past
# the ENDBR where the kernel has IBT (Debian's 6.12).
kprobes() {
	grep -E ' vfs_read\+0x[04]( |$)' /sys/kernel/debug/kprobes/list 2>/dev/null |
		grep -vc DISABLED
}

# What tool $1 holds and what is armed, for a tool that does not attach.
attach_state() {
	echo "# $c: link types: $(cat /proc/"$1"/fdinfo/* 2>/dev/null |
		sed -n 's/^link_type:[[:space:]]*//p' | sort | uniq -c | tr '\n' ' ')"
	echo "# $c: kprobes/list: $(grep -c . /sys/kernel/debug/kprobes/list 2>/dev/null) lines, on vfs_read: $(grep vfs_read /sys/kernel/debug/kprobes/list 2>/dev/null | tr '\n' ';')"
	echo "# $c: enabled_functions: $(grep -c . /sys/kernel/tracing/enabled_functions 2>/dev/null), vfs_read: $(grep '^vfs_read ' /sys/kernel/tracing/enabled_functions 2>/dev/null | tr '\n' ';')"
	echo "# $c: tool: $(tail -n 2 /tmp/tool.out | tr '\n' ' ')"
}

# Whether tool $pid is attached: it printed $ready, holds $nlinks BPF
# links and $nkp armed kprobes are on vfs_read. bpftrace prints
# "Attaching N probes..." before it attaches, and under TCG attaching can
# take minutes (fentry/fexit on 6.1, kprobes on a loaded 6.12 host):
# rounds run meanwhile measured a half-attached tool.
attached() {
	grep -q "$ready" /tmp/tool.out && [ "$(links $pid)" -ge "$nlinks" ] &&
		[ "$(kprobes)" -ge "$nkp" ]
}

# Run tool command "$4..." in the background, wait until it printed $1,
# holds $2 BPF links and $3 kprobes on vfs_read are armed (it is
# attached), run the rounds as configuration $c, stop it with SIGINT and
# show its last lines (the histogram).
with_tool() {
	want "$c" || return 0
	ready=$1 nlinks=$2 nkp=$3
	shift 3
	"$@" >/tmp/tool.out 2>&1 &
	pid=$!
	# Wall-clock seconds: each check forks a few processes, which under
	# TCG take long enough to make a count of checks no measure of time.
	t0=$(date +%s)
	i=0
	while ! attached && [ $i -lt "${BPF_ATTACH_WAIT:-300}" ]; do
		kill -0 $pid 2>/dev/null || break
		sleep 1
		i=$(($(date +%s) - t0))
		case $i in *0) [ $((i % 60)) -ne 0 ] || attach_state $pid ;; esac
	done
	if ! attached; then
		attach_state $pid
		echo "skip $c not attached after ${i}s ($(links $pid) of $nlinks BPF links, $(kprobes) of $nkp kprobes): $(tail -n 1 /tmp/tool.out)"
		kill -INT $pid 2>/dev/null
		wait $pid
		return
	fi
	echo "# $c attached after ${i}s"
	rounds "$c"
	# SIGINT prints the maps; detaching BPF trampolines can take minutes
	# under TCG, which is no part of the measurement.
	kill -INT $pid
	i=0
	while kill -0 $pid 2>/dev/null && [ $i -lt 120 ]; do
		sleep 1
		i=$((i + 1))
	done
	if kill -KILL $pid 2>/dev/null; then
		# Stuck in the kernel, it may never exit: do not wait.
		echo "# $c: still detaching after ${i}s, killed"
	else
		wait $pid
	fi
	sed "s/^/# $c: /" /tmp/tool.out | tail -n 30
}

c=untraced rounds untraced
echo 'trace vfs_read as e' >$K/_control && c=kstats-trace rounds kstats-trace
echo 'remove e' >$K/_control

c=bpftrace-kretprobe with_tool Attaching 0 2 bpftrace -e '
kprobe:vfs_read { @s[tid] = nsecs; }
kretprobe:vfs_read /@s[tid]/ { @ns = hist(nsecs - @s[tid]); delete(@s[tid]); }'

# perf ftrace latency traces a command: its own configuration runs the
# rounds under one perf each (perf starts fast).
if ! want perf-ftrace-latency; then
	:
elif perf ftrace latency -h 2>&1 | grep -q -- '--trace-funcs'; then
	r=1
	while [ "$r" -le "$ROUNDS" ]; do
		for n in $SIZE $((SIZE * 2)); do
			perf ftrace latency -T vfs_read -- bench-mark dd "$n" \
				>/tmp/perf.out 2>&1
			out=$(grep '^ns' /tmp/perf.out)
			echo "run perf-ftrace-latency $r $n ${out#ns }"
		done
		r=$((r + 1))
	done
	grep -v '^ns' /tmp/perf.out | tail -n 30 | sed 's/^/# perf: /'
else
	echo "skip perf-ftrace-latency perf has no ftrace latency"
fi
c=untraced-after rounds untraced-after

# Experiment 4's ping-pong (two context switches per round trip) under
# the scheduler's questions: kstats runqlat's and offcpu's pairs, and
# bpftrace's runqlat.bt and offcputime.bt's way (the stack where the
# task slept, at finish_task_switch() in the task that resumes), as
# histograms. BEGIN runs once every probe is attached.
LOOP=pingpong
c=pp-off rounds pp-off
echo 'trace e key arg1->pid start __tracepoint_sched_wakeup start __tracepoint_sched_wakeup_new start __tracepoint_sched_switch key arg2->pid if arg4 == 0 end __tracepoint_sched_switch key arg3->pid if arg3->pid != 0' \
	>$K/_control && c=pp-runqlat rounds pp-runqlat
echo 'remove e' >$K/_control
echo 'trace e start __tracepoint_sched_switch key arg2->pid if arg2->pid != 0 by stack end __tracepoint_sched_switch key arg3->pid if arg3->pid != 0' \
	>$K/_control && c=pp-offcpu rounds pp-offcpu
echo 'remove e' >$K/_control
c=pp-bpftrace-runqlat with_tool ready 0 0 bpftrace -e '
BEGIN { printf("ready\n"); }
tracepoint:sched:sched_wakeup, tracepoint:sched:sched_wakeup_new { @q[args->pid] = nsecs; }
tracepoint:sched:sched_switch {
	if (args->prev_state == 0) { @q[args->prev_pid] = nsecs; }
	$t = @q[args->next_pid];
	if ($t) { @us = hist((nsecs - $t) / 1000); delete(@q[args->next_pid]); }
}'
c=pp-bpftrace-offcpu with_tool ready 0 0 bpftrace -e '
BEGIN { printf("ready\n"); }
tracepoint:sched:sched_switch /args->prev_pid/ { @s[args->prev_pid] = nsecs; }
kprobe:finish_task_switch* {
	$t = @s[tid];
	if ($t) { @ns[kstack] = hist(nsecs - $t); delete(@s[tid]); }
}'

# Experiment 6: a user function, bench-mark's bench_ufunc(), timed by
# kstats' uprobe and by bpftrace's uprobe and uretprobe, as a histogram
# (bench-guest.sh's uf-* configurations, a tenth of the iterations).
LOOP=ufunc DIV=10
UF=/usr/bin/bench-mark:bench_ufunc
c=uf-off rounds uf-off
echo "trace $UF as e" >$K/_control && c=uf-kstats rounds uf-kstats
echo 'remove e' >$K/_control
c=uf-bpftrace with_tool ready 0 0 bpftrace -e "
BEGIN { printf(\"ready\\n\"); }
uprobe:$UF { @s[tid] = nsecs; }
uretprobe:$UF /@s[tid]/ { @ns = hist(nsecs - @s[tid]); delete(@s[tid]); }"
LOOP='' DIV=''

# PROFILE=1: the kernel's and modules' text symbols, for profile.py
# (before the kfunc row, which can hang).
[ -z "${PROFILE:-}" ] ||
	awk '$2 ~ /^[tT]$/ { print "ksym", $0 }' /proc/kallsyms

# Last: detaching fentry/fexit programs can hang this TCG guest.
c=bpftrace-kfunc with_tool Attaching 2 0 bpftrace -e '
kfunc:vfs_read { @s[tid] = nsecs; }
kretfunc:vfs_read /@s[tid]/ { @ns = hist(nsecs - @s[tid]); delete(@s[tid]); }'
