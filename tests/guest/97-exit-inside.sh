#!/bin/sh
# Issue 27, item 1: a task that dies inside a direct-traced call never
# returns to the trampoline. Counted out as it dies (sched_process_exit),
# it must not keep the slot draining, or kstats_tramp loaded, once the
# entry is removed: a process killed while asleep (it dies in get_signal()),
# processes that exit (inside the syscall dispatch where it is a function), a
# kernel thread that ends inside its function; then rmmod.
# timeout: 300
. /tests/lib.sh
# drained counts its own two results.
plan 12
load_modules
base=$(trefs)

# trefs_at_most N: kstats_tramp's reference count is N or less within 5 s
# (less: a slot left draining by an earlier part freed meanwhile).
trefs_at_most() {
	_n=0
	while [ "$(trefs)" -gt "$1" ] && [ $_n -lt 50 ]; do
		sleep 0.1
		_n=$((_n + 1))
	done
	[ "$(trefs)" -le "$1" ]
}
# drained FN: "remove FN" succeeds and kstats_tramp's reference count
# comes back to what it was before the trace (the slot is free again).
drained() {
	plan 2
	is "$(ctl "remove $1")" OK "remove $1"
	check "$1: no call left in flight, the slot is free (references $base)" \
		trefs_at_most "$base"
}

# A process killed while asleep wakes, and dies in get_signal().
is "$(ctl 'trace get_signal via direct')" OK "trace get_signal via direct"
sleep 100 &
spid=$!
check "a process sleeps" asleep hrtimer_nanosleep do_nanosleep
kill -9 $spid
wait $spid
is "$?" 137 "it was killed"
drained get_signal

# Processes that exit: exit_group() inside the syscall dispatch, with
# whichever mechanism takes it: x64_sys_call() on x86-64 (direct on 6.1
# and 6.12, kretprobe on 7.3; not in every kernel's image), invoke_syscall()
# on arm64.
SYSFN=
for f in x64_sys_call invoke_syscall; do
	grep -q " $f\$" /proc/kallsyms && SYSFN=$f && break
done
if [ -n "$SYSFN" ]; then
	plan 1
	is "$(ctl "trace $SYSFN")" OK "trace $SYSFN"
	echo "# $SYSFN: mechanism $(field $SYSFN mechanism)"
	for i in 1 2 3 4 5 6 7 8; do
		sh -c 'exit 3'
	done
	# The eight exited inside it, counted out. Other tasks' syscalls that
	# entered meanwhile may still be in flight at the remove (kstats logs
	# how many), and one of them may sleep on (ci15, deb61: 4 at the
	# remove, the slot still draining 5 s later): the next parts count
	# from what the reference count is once they return, or 5 s on.
	plan 2
	log_mark
	is "$(ctl "remove $SYSFN")" OK "remove $SYSFN"
	n=$(log_new | sed -n "s/.*$SYSFN: \([0-9]*\) calls in flight in trampoline .*/\1/p")
	check "$SYSFN: the 8 that exited were counted out (in flight at the remove: ${n:-0})" \
		[ "${n:-0}" -lt 8 ]
	trefs_reach "$base" || echo "# $SYSFN: $(($(trefs) - base)) slot still draining"
	base=$(trefs)
else
	plan 1
	skip_part "no syscall dispatch function (x64_sys_call, invoke_syscall) in this kernel"
fi

# A kernel thread that ends inside its traced function (as kthread() ends
# every kernel thread): three of them. Direct needs the function's BTF:
# where kstats_helper.ko has none (Debian 6.1), kthread() itself is
# traced, which every kernel thread runs in; one that another started
# meanwhile may stay in flight, but the three that ended must not.
if [ -e /sys/kernel/btf/kstats_helper ]; then
	FN=kstats_helper_dies
else
	FN=kthread
fi
is "$(ctl "trace $FN via direct")" OK "trace $FN via direct"
for i in 1 2 3; do
	is "$(helper kthread)" OK "kernel thread $i ends inside kstats_helper_dies"
done
if [ $FN = kthread ]; then
	plan 2
	log_mark
	is "$(ctl remove kthread)" OK "remove kthread"
	# kstats logs the calls still in flight when there are any; with none
	# logged the slot must be free at once.
	n=$(log_new | sed -n 's/.*kthread: \([0-9]*\) calls in flight in trampoline .*/\1/p')
	if [ -n "$n" ]; then
		check "the three that ended were counted out (in flight at remove: $n)" \
			[ "$n" -lt 3 ]
	else
		check "none in flight at remove: the slot is free (references $base)" \
			trefs_at_most "$base"
	fi
else
	drained $FN
fi

# The idle task of a CPU taken offline stops inside do_idle() for good: it
# never exits, and a CPU that comes back starts its idle task afresh on
# its stack. Its calls in flight are counted out once the CPU is dead.
ONLINE=/sys/devices/system/cpu/cpu1/online
is "$(ctl 'trace do_idle via direct')" OK "trace do_idle via direct"
check "CPU 1 goes offline" sh -c "echo 0 > $ONLINE"
check "CPU 1 comes back" sh -c "echo 1 > $ONLINE"
for i in 1 2 3; do
	sleep 0.2
done
drained do_idle

check "rmmod kstats_helper" rmmod kstats_helper
check "rmmod kstats" rmmod kstats
if [ $FN != kthread ]; then
	plan 2
	check "rmmod kstats_tramp: no slot is left" rmmod kstats_tramp
	check "kstats_tramp loads again" insmod "$MODDIR/kstats_tramp.ko"
fi
