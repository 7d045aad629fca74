#!/bin/sh
# Guest side of "make compare-sched" (scripts/compare-sched.sh), run after
# bpf-guest-lib.sh as the demo script of a guest with Debian 12's userspace: the kstats tool's
# runqlat, cpudist [--offcpu], offcpu and biolatency -D/-F, each beside
# bpftrace's answer to the same question, both attached over the same
# run of a real workload:
#   hackbench (perf bench sched messaging, processes on sockets), a
#   CPU-bound shell loop, a Python process that naps 1 ms at a time, and
#   direct reads of a virtio disk (vda, a file on the host) and of a
#   null_blk disk with 200 us completions.
# Prints "dev NAME MAJOR:MINOR" for the two disks, then per question:
#   section NAME                 the question
#   kstats_cmd WORDS             the kstats command that ran
#   kstats LINE / bpf LINE       its output, bpftrace's
#   end NAME
# kstats_sched_loops=N on the kernel's command line: hackbench's loops.
LOOPS=$(sed -n 's/.*kstats_sched_loops=\([0-9]*\).*/\1/p' /proc/cmdline)
LOOPS=${LOOPS:-100}
K=/sys/kernel/debug/kstats
# The virtio disk's driver and what it needs that the kernel has as modules.
# In the order of their dependencies; "insmod NAME failed" if one fails.
for m in virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev \
	virtio_pci virtio_blk; do
	[ ! -e /modules/$m.ko ] || insmod /modules/$m.ko || echo "# insmod $m failed"
done
insmod /modules/extra/null_blk.ko nr_devices=1 queue_mode=2 irqmode=2 \
	completion_nsec=200000 || echo "# insmod null_blk failed"
for _ in 1 2 3 4 5 6 7 8 9 10; do
	[ -b /dev/vda ] && break
	sleep 1
done
[ -b /dev/vda ] || echo "# no /dev/vda"

# The workload, all at once; hackbench's end ends it.
workload() {
	sh -c 'while :; do :; done' &
	hog=$!
	python3 -c 'import time
for _ in range(100000): time.sleep(0.001)' &
	nap=$!
	(
		dd if=/dev/vda of=/dev/null bs=4096 count=2000 iflag=direct
		dd if=/dev/nullb0 of=/dev/null bs=4096 count=1000 iflag=direct
	) 2>/dev/null &
	io=$!
	perf bench sched messaging -g 2 -l "$LOOPS" | sed -n 's/^/# hackbench: /;/Total time/p'
	wait $io
	kill $hog $nap
	wait $hog $nap 2>/dev/null
}

# at NAME: "at NAME SECONDS", the guest's uptime now.
at() { echo "at $1 $(cut -d' ' -f1 /proc/uptime)"; }

# question NAME BPFTRACE_PROGRAM KSTATS_ARGS...: bpftrace's program and
# the kstats command started at once, so that their windows differ only
# by the moments their probes are in; once both are, the workload; then
# kstats stopped by SIGTERM (its Ctrl-C) and bpftrace by SIGINT (it
# prints its maps) together; both outputs.
question() {
	name=$1 prog=$2
	shift 2
	echo "section $name"
	echo "kstats_cmd kstats $*"
	bpftrace -e "$prog" >/tmp/bpf.out 2>&1 &
	bpf=$!
	COLUMNS=80 kstats "$@" >/tmp/kstats.out 2>&1 &
	ks=$!
	# bpftrace's BEGIN prints once every probe is attached; the tool's
	# entry is attached once _control lists it.
	t0=$(date +%s) b="" k=""
	while [ -z "$b" ] || [ -z "$k" ]; do
		if [ -z "$b" ] && grep -q '^ready' /tmp/bpf.out; then
			b=1
			at bpftrace_in
		fi
		if [ -z "$k" ] && grep -q '^name kl' $K/_control; then
			k=1
			at kstats_in
		fi
		if ! kill -0 $bpf 2>/dev/null || ! kill -0 $ks 2>/dev/null ||
			[ $(($(date +%s) - t0)) -ge 600 ]; then
			echo "# not attached: bpftrace ${b:-no}, kstats ${k:-no}: $(tail -n 3 /tmp/bpf.out | tr '\n' ' ')"
			break
		fi
		sleep 0.2
	done
	workload
	at stop
	kill -TERM $ks
	kill -INT $bpf
	wait $ks
	echo "# kstats exited $?"
	wait $bpf
	echo "# bpftrace exited $?"
	sed 's/^/kstats /' /tmp/kstats.out
	sed 's/^/bpf /' /tmp/bpf.out
	echo "# left in _control: $(grep -c '^name kl' $K/_control)"
	echo "end $name"
}

# Block devices' numbers, for bpftrace's keys (dev_t: major << 20 | minor).
for b in /sys/block/vda /sys/block/nullb0; do
	[ -e $b/dev ] && echo "dev ${b##*/} $(cat $b/dev)"
done

# The tools' windows differ by a moment at the start, so totals are not
# compared: the workload's tasks (comm sched-messaging, dd, python3) live
# inside both, and each question is asked per comm, by both tools.
#
# runqlat.bt's program (its #include needs kernel headers that the guest
# has not: TASK_RUNNING is 0), each CPU's idle task left out as BCC's
# runqlat and kstats' pair leave it out, a histogram per comm. The event
# reports a preempted task's state as TASK_REPORT_MAX (256 on 6.1 and
# 6.12), which runqlat.bt's "== TASK_RUNNING" leaves out: taken here, as
# BCC's runqlat and kstats' pair take a preempted task whose raw state
# (arg4) is 0; 256 also takes one preempted on its way to sleep.
# shellcheck disable=SC2016 # bpftrace's own $ns
question runqlat 'BEGIN { printf("ready\n"); }
tracepoint:sched:sched_wakeup, tracepoint:sched:sched_wakeup_new { @qtime[args->pid] = nsecs; }
tracepoint:sched:sched_switch {
	if ((args->prev_state == 0 || args->prev_state == 256) && args->prev_pid) {
		@qtime[args->prev_pid] = nsecs;
	}
	$ns = @qtime[args->next_pid];
	if ($ns) { @usecs[args->next_comm] = hist((nsecs - $ns) / 1000); }
	delete(@qtime[args->next_pid]);
}
END { clear(@qtime); }' runqlat --by comm --top 8
# cpudist's way (BCC's; bpftrace's tools ship none) on the same
# tracepoint as kstats' pair, pid 0 left out as there: from the switch
# that names a task as $1 (next: on-CPU time; prev: off-CPU time) to the
# one that names it as $2, per comm.
cpudist_prog() {
	printf '%s\n' 'BEGIN { printf("ready\n"); }' 'tracepoint:sched:sched_switch {' \
		"	if (args->${2}_pid) {" "		\$t = @t[args->${2}_pid];" \
		"		if (\$t) {" \
		"			@usecs[args->${2}_comm] = hist((nsecs - \$t) / 1000);" \
		"			delete(@t[args->${2}_pid]);" "		}" "	}" \
		"	if (args->${1}_pid) { @t[args->${1}_pid] = nsecs; }" '}' 'END { clear(@t); }'
}
question cpudist "$(cpudist_prog next prev)" cpudist --by comm --top 8
question cpudist-offcpu "$(cpudist_prog prev next)" cpudist --offcpu --by comm --top 8
# offcputime's way (the bench's pp-bpftrace-offcpu): the stack where the
# task slept, at finish_task_switch() in the task that resumes, summed;
# hackbench's tasks only, as kstats -c takes them; 128 stack keys (on
# 6.1 its tasks slept in more than 32 places, the default).
# shellcheck disable=SC2016
question offcpu 'BEGIN { printf("ready\n"); }
tracepoint:sched:sched_switch /args->prev_comm == "sched-messaging"/ {
	@s[args->prev_pid] = nsecs;
}
kprobe:finish_task_switch* {
	$t = @s[tid];
	if ($t) { @ns[kstack] = sum(nsecs - $t); delete(@s[tid]); }
}
END { clear(@s); }' offcpu --folded --keys 128 -c sched-messaging
# biolatency.bt 0.17 takes kprobes that newer kernels inline: the
# tracepoints' way, keyed by (dev, sector) as compare-biolatency.sh does,
# a histogram per $1 (the device's number, or its rwbs flags).
biolatency_prog() {
	printf '%s\n' 'BEGIN { printf("ready\n"); }' \
		'tracepoint:block:block_rq_issue { @s[args->dev, args->sector] = nsecs; }' \
		'tracepoint:block:block_rq_complete /@s[args->dev, args->sector]/ {' \
		"	@usecs[args->$1] = hist((nsecs - @s[args->dev, args->sector]) / 1000);" \
		'	delete(@s[args->dev, args->sector]);' '}' 'END { clear(@s); }'
}
question biolatency "$(biolatency_prog dev)" biolatency -D
question biolatency-flags "$(biolatency_prog rwbs)" biolatency -F
