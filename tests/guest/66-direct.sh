#!/bin/sh
# trace FUNC via direct: the ftrace direct-call trampoline (kstats_direct.c).
# Frames and return values, refusals, other ftrace users on the function,
# recursion and hardirq calls, stack traces, the trampoline bound, and
# remove and rmmod while a task sleeps inside the traced function.
# timeout: 900
. /tests/lib.sh
# And the branches below, by whether the helper has BTF.
plan 49

load_modules
BTF_HELPER=no
[ -e /sys/kernel/btf/kstats_helper ] && BTF_HELPER=yes
echo "# BTF of kstats_helper: $BTF_HELPER"
# What a plain trace FUNC takes where direct cannot serve.
PROBE=kretprobe
kernel_has fprobe && PROBE=fprobe

# Calls of FN with a sample each, on vmlinux code: vfs_read by dd.
is "$(ctl "trace vfs_read via direct")" OK "trace vfs_read via direct"
is "$(field vfs_read mechanism)" direct "listed as mechanism direct"
n0=$(samples vfs_read)
is "$(dd if=/dev/zero bs=1 count=3000 2>/dev/null | wc -c)" 3000 \
	"dd through a traced vfs_read reads what it should"
n1=$(samples vfs_read)
check "at least 3000 samples from 3000 reads ($((n1 - n0)))" [ $((n1 - n0)) -ge 3000 ]
echo stop > "$KS/vfs_read"
n0=$(samples vfs_read)
dd if=/dev/zero of=/dev/null bs=1 count=1000 2>/dev/null
is "$(samples vfs_read)" "$n0" "a stopped direct entry records nothing"
echo start > "$KS/vfs_read"
dd if=/dev/zero of=/dev/null bs=1 count=1000 2>/dev/null
check "started again, it records" [ "$(samples vfs_read)" -ge $((n0 + 1000)) ]
is "$(ctl remove vfs_read)" OK "remove it"

# Refusals: with a reason in the log, nothing left behind.
log_mark
is "$(ctl "trace pcpu:vfs_read via direct")" "Invalid argument" \
	"via is not for trace pcpu:"
is "$(ctl "trace vfs_read via direct value arg3")" "Operation not supported" \
	"a value entry is not for via direct"
is "$(ctl "trace vfs_read via direct pid 1")" "Operation not supported" \
	"nor is a filter"
is "$(log_new | grep -c 'via direct samples runtimes only, without filters')" 2 \
	"their reason is logged"
if [ $BTF_HELPER = yes ]; then
	plan 4
	is "$(ctl "trace kstats_helper_args7 via direct")" "Operation not supported" \
		"7 arguments: refused"
	is "$(log_new | grep -c 'kstats_helper_args7 takes 7 argument registers')" 1 \
		"its reason is logged"
	is "$(ctl "trace kstats_helper_byval via direct")" "Operation not supported" \
		"a struct by value: refused"
	is "$(log_new | grep -c 'kstats_helper_byval: argument 1 is not passed in registers')" 1 \
		"its reason is logged"
else
	plan 2
	is "$(ctl "trace kstats_helper_args6 via direct")" "Operation not supported" \
		"a module without BTF: refused"
	is "$(log_new | grep -c 'no BTF for kstats_helper_args6')" 1 \
		"its reason is logged"
fi
is "$(cat "$KS/_control")" "" "nothing left after the refusals"

# Without via: direct where it serves, else fprobe or kretprobe, the
# reason logged once; what direct never does goes there silently.
is "$(ctl "trace vfs_read")" OK "trace vfs_read"
is "$(field vfs_read mechanism)" direct "vmlinux has BTF: direct by default"
log_mark
is "$(ctl "trace vfs_read as again")" OK "vfs_read a second time, without via"
is "$(field again mechanism)" $PROBE "its direct site is taken: $PROBE"
is "$(log_new | grep -c 'again: not direct (direct: vfs_read already has a direct caller')" 1 \
	"the reason is logged"
is "$(ctl "trace vfs_read pid 1 as rdpid")" OK "a filtered trace"
is "$(ctl "trace vfs_read value retval as rdval")" OK "a value trace"
is "$(field rdpid mechanism) $(field rdval mechanism)" "$PROBE $PROBE" \
	"filters and values never go direct"
is "$(log_new | grep -c 'not direct')" 1 "and say nothing about it"
is "$(ctl "trace pcpu:vfs_read as rdpcpu")" OK "trace pcpu:"
is "$(field rdpcpu mechanism)" pcpu-$PROBE "pcpu: never goes direct"
for e in vfs_read again rdpid rdval rdpcpu; do ctl remove $e >/dev/null; done
is "$(ctl "trace vfs_read")" OK "once the direct entry is removed"
is "$(field vfs_read mechanism)" direct "the next plain trace is direct again"
ctl remove vfs_read >/dev/null
if [ $BTF_HELPER = yes ]; then
	plan 5
	log_mark
	is "$(ctl "trace kstats_helper_args7")" OK "a 7-argument function without via"
	is "$(field kstats_helper_args7 mechanism)" $PROBE "takes $PROBE"
	is "$(log_new | grep -c 'kstats_helper_args7: not direct (kstats_helper_args7 takes 7 argument registers')" 1 \
		"the reason is logged"
	is "$(helper args 10)" OK "its calls intact (one per run)"
	is "$(samples kstats_helper_args7)" 1 "and measured"
	ctl remove kstats_helper_args7 >/dev/null
else
	plan 3
	log_mark
	is "$(ctl "trace kstats_helper_args6")" OK "a module without BTF, without via"
	is "$(field kstats_helper_args6 mechanism)" $PROBE "takes $PROBE"
	is "$(log_new | grep -c 'kstats_helper_args6: not direct (no BTF for kstats_helper_args6')" 1 \
		"the reason is logged"
	ctl remove kstats_helper_args6 >/dev/null
fi
log_mark
is "$(ctl "trace no_such_function_kst66")" "No such file or directory" \
	"no such function: ENOENT, as with any mechanism"
is "$(log_new | grep -c 'not direct')" 0 "not a fallback"
is "$(cat "$KS/_control")" "" "nothing left"

if [ $BTF_HELPER = yes ]; then
	plan 23
	# Six arguments and a checksum; a struct of two words in rax:rdx.
	is "$(ctl "trace kstats_helper_args6 via direct")" OK "trace a 6-argument function"
	is "$(ctl "trace kstats_helper_pair via direct")" OK "trace a function returning rax:rdx"
	is "$(helper args 200)" OK "200 calls each, every argument and return value intact"
	is "$(samples kstats_helper_args6) $(samples kstats_helper_pair)" "200 200" \
		"one sample per call"

	# Another direct caller on the same function.
	is "$(ctl "trace kstats_helper_args6 via direct as twice")" \
		"Device or resource busy" "a second direct caller: EBUSY"
	helper args 10 >/dev/null
	is "$(samples kstats_helper_args6)" 210 "the first keeps counting"
	ctl remove kstats_helper_args6 >/dev/null
	ctl remove kstats_helper_pair >/dev/null

	# Beside an fprobe or kretprobe on the same function; recursion.
	FN=kstats_helper_work
	is "$(ctl "trace $FN via $PROBE")" OK "trace $FN via $PROBE"
	is "$(ctl "trace $FN via direct as wd")" OK "and via direct beside it"
	helper work 50 1000 >/dev/null
	helper nest 20 1000 >/dev/null
	is "$(samples $FN) $(samples wd)" "90 90" \
		"both count every call, nested ones included"
	is "$(below wd 1000)" 0 "no direct sample below the 1000 ns busy wait"
	ctl remove $FN >/dev/null
	ctl remove wd >/dev/null

	# Hardirq context.
	is "$(ctl "trace kstats_helper_in_irq via direct")" OK "trace a function called in hardirq"
	is "$(helper irq 40)" OK "40 calls from irq_work"
	is "$(samples kstats_helper_in_irq)" 40 "40 samples"
	ctl remove kstats_helper_in_irq >/dev/null

	# A stack trace from inside the traced function, as the unwinder
	# (ORC) walks it: the function, its trampoline, its fentry site (the
	# function again), then its caller.
	is "$(ctl "trace kstats_helper_stack via direct")" OK "trace a function that logs its stack"
	log_mark
	helper stack >/dev/null
	log_new | grep 'kstats_helper: stack ' | sed 's/^/# /'
	is "$(log_new | sed -n 's/.*kstats_helper: stack [0-9]*: \([a-z_0-9]*\)+.*/\1/p' |
		sed -n '/kstats_helper_stack$/,/kstats_helper_stack_caller/p' |
		sed 's/kstats_direct_tramp_[0-9]*/TRAMP/' | tr '\n' ' ')" \
		"kstats_helper_stack TRAMP kstats_helper_stack kstats_helper_stack_caller " \
		"the stack goes through the trampoline to the caller"
	is "$(samples kstats_helper_stack)" 1 "and the call was measured"
	ctl remove kstats_helper_stack >/dev/null

	# The bound: KSTATS_DIRECT_MAX trampolines, ENOSPC past it.
	bad=0
	i=0
	while [ $i -lt 16 ]; do
		[ "$(ctl "trace kstats_helper_fn$i via direct")" = OK ] || bad=$((bad + 1))
		i=$((i + 1))
	done
	is "$bad" 0 "16 direct entries"
	log_mark
	is "$(ctl "trace kstats_helper_fn16 via direct")" "No space left on device" \
		"a 17th: ENOSPC"
	is "$(log_new | grep -c 'direct: all 16 trampolines in use')" 1 "its reason is logged"
	is "$(ctl "trace kstats_helper_fn16")" OK "a 17th without via"
	is "$(field kstats_helper_fn16 mechanism)" $PROBE "takes $PROBE"
	helper fns 17 >/dev/null
	is "$(samples kstats_helper_fn0) $(samples kstats_helper_fn15) $(samples kstats_helper_fn16)" \
		"1 1 1" "the 17 count their calls"
	i=0
	while [ $i -le 16 ]; do ctl remove kstats_helper_fn$i >/dev/null; i=$((i + 1)); done
	is "$(ctl "trace kstats_helper_fn16 via direct")" OK "after removals, slots are free again"
	ctl remove kstats_helper_fn16 >/dev/null
fi

# A task asleep inside the traced function returns into the trampoline
# after remove: the trampoline must stay, and kstats_tramp with it.
if [ $BTF_HELPER = yes ]; then
	plan 5
	is "$(ctl "trace kstats_helper_block via direct")" OK "trace a function that sleeps"
	echo block > "$HELPER" &
	spid=$!
	check "a task sleeps in it" asleep kstats_helper_block
	log_mark
	is "$(ctl remove kstats_helper_block)" OK "remove while it sleeps there"
	is "$(log_new | grep -c 'kstats_helper_block: 1 calls in flight in trampoline [0-9]*; kstats_tramp stays loaded')" 1 \
		"its trampoline drains"
	helper wake >/dev/null
	wait $spid
	is "$?" 0 "the sleeper returned through the trampoline with return value 0"
fi

# The module of the traced function goes: the entry is detached (gone).
if [ $BTF_HELPER = yes ]; then
	plan 7
	ctl "trace kstats_helper_args6 via direct" >/dev/null
	helper args 5 >/dev/null
	log_mark
	check "rmmod kstats_helper with a direct entry on it" rmmod kstats_helper
	is "$(field kstats_helper_args6 state) $(samples kstats_helper_args6)" "gone 5" \
		"the entry is gone and keeps its samples"
	is "$(log_new | grep -c 'kstats_helper_args6: module kstats_helper unloaded')" 1 \
		"one log line"
	is "$(ctl remove kstats_helper_args6)" OK "remove the gone entry"
	load_modules
	is "$(ctl "trace kstats_helper_args6 via direct")" OK "trace it again in the new module"
	is "$(helper args 3)" OK "calls of the new module intact"
	is "$(samples kstats_helper_args6)" 3 "and counted"
	ctl remove kstats_helper_args6 >/dev/null
fi

# rmmod: the FIFO read of vmlinux where a head reading a FIFO sleeps,
# woken by a write: pipe_read, or anon_pipe_read where fifo_pipe_read calls
# it (6.18 and 7.x); kstats_helper goes first, since it uses kstats.
PREAD=pipe_read
grep -q ' anon_pipe_read$' /proc/kallsyms && PREAD=anon_pipe_read
rmmod kstats_helper
rm -f /tmp/fifo
mkfifo /tmp/fifo
sleeper() { exec 4<>/tmp/fifo; head -c 3 <&4 > /tmp/slept; }
wake() { exec 5>/tmp/fifo; echo hi >&5; exec 5>&-; }

# remove, then rmmod at once: kstats goes while the sleeper is still in
# the trampoline, which kstats_tramp keeps; it returns through it, and
# kstats_tramp's reference for the slot goes then.
r0=$(trefs)
is "$(ctl "trace $PREAD via direct")" OK "trace $PREAD via direct"
sleeper &
spid=$!
check "a task sleeps in $PREAD" asleep $PREAD
log_mark
is "$(ctl remove $PREAD)" OK "remove while it sleeps there"
check "the trampoline drains" logged "$PREAD: [0-9]* calls in flight in trampoline [0-9]*; kstats_tramp stays loaded"
check "rmmod kstats at once while it drains" rmmod kstats
is "$(rmmod kstats_tramp 2>&1 | sed 's/.*: //')" "Resource temporarily unavailable" \
	"rmmod kstats_tramp fails at once while it drains: EAGAIN"
check "kstats loads again" insmod "$MODDIR/kstats.ko"
is "$(ctl "trace $PREAD via direct as again")" OK "and traces $PREAD via direct again"
wake
wait $spid
is "$?:$(cat /tmp/slept)" "0:hi" "the sleeper read what was written"
is "$(ctl remove again)" OK "remove the new entry"
check "kstats_tramp's references come back ($r0)" trefs_reach "$r0"
check "rmmod kstats" rmmod kstats
insmod "$MODDIR/kstats.ko"

# rmmod with a direct entry still there, and a task asleep in it: the
# entry is detached as any other; kstats_tramp keeps the trampoline.
is "$(ctl "trace $PREAD via direct")" OK "trace $PREAD via direct again"
sleeper &
spid=$!
check "a task sleeps in $PREAD again" asleep $PREAD
check "rmmod kstats with a direct entry and a sleeper in it" rmmod kstats
wake
wait $spid
is "$?:$(cat /tmp/slept)" "0:hi" "the sleeper read what was written"
check "kstats_tramp's references come back ($r0 - 1 without kstats)" \
	trefs_reach $((r0 - 1))

# A direct entry without calls in flight: rmmod detaches it.
insmod "$MODDIR/kstats.ko"
is "$(ctl "trace vfs_read via direct")" OK "trace vfs_read via direct"
check "rmmod kstats with an idle direct entry" rmmod kstats
check "kstats_tramp's references come back ($r0 - 1 without kstats)" \
	trefs_reach $((r0 - 1))
rm -f /tmp/fifo /tmp/slept
load_modules
is "$(cat "$KS/_control")" "" "nothing left"
