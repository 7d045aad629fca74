#!/bin/sh
# A call of FUNC that entered before "stop" and returns after a later
# "start" is not measured (its time would include the stop): through
# direct, fprobe, kretprobe, a counter entry and pcpu:. A call that sleeps
# inside kstats_helper_block() until "wake" spans the stop and the start;
# pcpu: skips every call that sleeps, so there a call busy for 3 s on
# CPU 0 does, while this shell runs on CPU 1.
# timeout: 300
. /tests/lib.sh
plan 10
load_modules

B=kstats_helper_block
W=kstats_helper_work
taskset -p 2 $$ >/dev/null

# Entries into B, and into the marks around W: seen as samples.
is "$(ctl trace $B value arg1 type s32 as bin)" OK "entries of $B counted"
is "$(ctl trace kstats_helper_mark_start value arg1 type u32 as win)" OK "entries of $W counted"

# inside ENTRY N: wait until ENTRY has more than N samples (30 s at most).
inside() {
	i=0
	while [ "$(samples "$1")" -le "$2" ] && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ "$(samples "$1")" -gt "$2" ]
}

# blocked ENTRY [stop]: one call of B, woken once it is inside; with
# "stop", the entry is stopped and started again meanwhile.
blocked() {
	n=$(samples bin)
	helper block >/dev/null &
	p=$!
	check "$1: a call is inside $B" inside bin "$n"
	if [ "$2" = stop ]; then
		echo stop >"$KS/$1"
		echo start >"$KS/$1"
	fi
	helper wake >/dev/null
	wait $p
}

# spans ENTRY CMD...: trace $B by CMD, then a call that does not span a
# stop (measured) and one that does (not measured).
spans() {
	plan 6
	e=$1
	shift
	r=$(ctl "$@" as "$e")
	if [ "$r" != OK ]; then
		not_ok "$e: $* is taken ($r)"
		return
	fi
	blocked "$e"
	is "$(samples "$e")" 1 "$e ($(field "$e" mechanism)): a call inside a running period is measured"
	blocked "$e" stop
	is "$(samples "$e")" 1 "$e: a call across stop and start is not"
	is "$(field "$e" state)" running "$e: running"
	is "$(ctl remove "$e")" OK "remove $e"
}

if [ -e /sys/kernel/btf/kstats_helper ]; then
	spans bd trace $B via direct
else
	plan 1
	skip_part "direct: $B has no BTF here (kstats_helper.ko without BTF)"
fi
kernel_has fprobe && spans bf trace $B via fprobe
spans bk trace $B via kretprobe
spans bc trace $B counter context-switches

# pcpu: a call busy for 3 s on CPU 0, preemption off, that does not sleep.
is "$(ctl trace pcpu:$W as pw)" OK "trace pcpu:$W"
helper_on 0 work 1 1000
is "$(samples pw)" 1 "pw ($(field pw mechanism)): an undisturbed call is measured"
n=$(samples win)
helper_on 0 work 1 3000000000 &
p=$!
check "pw: a call is inside $W" inside win "$n"
echo stop >"$KS/pw"
echo start >"$KS/pw"
check "pw: stopped and started while the call still ran" kill -0 $p
wait $p
is "$(samples pw) $(field pw skipped)" "1 0" "pw: a call across stop and start is not measured, nor skipped"
is "$(ctl remove pw)" OK "remove pw"

is "$(ctl remove bin)" OK "remove bin"
is "$(ctl remove win)" OK "remove win"
