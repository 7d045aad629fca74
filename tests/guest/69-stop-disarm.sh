#!/bin/sh
# A stopped traced entry costs (next to) nothing: "stop" disarms its probes
# and "start" arms them again, without losing counts. Seen from outside:
# a kretprobe or kprobe is [DISABLED] in kprobes/list, a pair side hooked
# by ftrace leaves enabled_functions, as soon as the write returns.
# timeout: 200
. /tests/lib.sh
plan 35
load_modules

TS=__tracepoint_kstats_helper_start
TE=__tracepoint_kstats_helper_end
MS=kstats_helper_mark_start
ME=kstats_helper_mark_end
KPL=/sys/kernel/debug/kprobes/list
EF=/sys/kernel/debug/tracing/enabled_functions

kretprobe_disabled() { grep -w kstats_helper_work "$KPL" | grep -q DISABLED; }
kretprobe_enabled() { grep -w kstats_helper_work "$KPL" | grep -vq DISABLED; }
ftrace_hooked() { grep -q "^$MS " "$EF"; }
ftrace_unhooked() { ! grep -q "^$MS " "$EF"; }

# cycle NAME [DISARMED ARMED]: 10 calls running, 10 stopped, 10 running
# again; DISARMED and ARMED check the hooks right after stop and start.
cycle() {
	helper work 10 0 >/dev/null
	echo stop >"$KS/$1"
	[ -n "$2" ] && check "$1: stop disarms its probes" "$2"
	helper work 10 0 >/dev/null
	echo start >"$KS/$1"
	[ -n "$3" ] && check "$1: start arms them again" "$3"
	helper work 10 0 >/dev/null
	is "$(samples "$1")" 20 "$1: 20 samples, none while stopped, none lost"
	is "$(field "$1" state)" running "$1: running again"
}

is "$(ctl trace kstats_helper_work via kretprobe as kr)" OK "trace via kretprobe"
check "kretprobe armed" kretprobe_enabled
cycle kr kretprobe_disabled kretprobe_enabled
# The state counts, not the number of writes.
echo stop >"$KS/kr"
echo stop >"$KS/kr"
check "kr: stopped twice, disarmed" kretprobe_disabled
echo start >"$KS/kr"
echo start >"$KS/kr"
check "kr: started twice, armed" kretprobe_enabled
echo stop >"$KS/kr"
is "$(ctl remove kr)" OK "remove kr while disarmed"
check "kr's kretprobe is gone" sh -c "! grep -qw kstats_helper_work $KPL"

# fprobe (6.5 to 6.13): a stop sets fprobe's own disabled flag, which
# nothing outside shows; the counts must be right.
if kernel_has fprobe; then
	plan 4
	is "$(ctl trace kstats_helper_work via fprobe as fpt)" OK "trace via fprobe"
	cycle fpt
	is "$(ctl remove fpt)" OK "remove fpt"
fi

is "$(ctl trace ep start $MS end $ME)" OK "pair of function entries"
is "$(field ep hooks)" ftrace,ftrace "hooked by ftrace"
check "ep: start side in enabled_functions" ftrace_hooked
cycle ep ftrace_unhooked ftrace_hooked
is "$(ctl remove ep)" OK "remove ep"
is "$(ctl trace ep2 start $MS end $ME key task)" OK "pair, key task"
echo stop >"$KS/ep2"
check "ep2: stop disarms" ftrace_unhooked
is "$(ctl remove ep2)" OK "remove ep2 while disarmed"
check "no ftrace hook left" ftrace_unhooked

is "$(ctl trace tp start $TS end $TE)" OK "pair of tracepoints"
cycle tp
is "$(ctl remove tp)" OK "remove tp"

# Kprobes past the entry: the first instruction after the patched entry
# (lib.sh's KP_OFFSETS).
for o in $KP_OFFSETS; do
	r=$(ctl trace kp start $MS+$o end $ME+$o)
	[ "$r" = OK ] && break
done
is "$r" OK "pair of kprobes (+$o)"
kp_disabled() { grep "$MS+0x$o" "$KPL" | grep -q DISABLED; }
kp_enabled() { grep "$MS+0x$o" "$KPL" | grep -vq DISABLED; }
check "kp: kprobe armed" kp_enabled
cycle kp kp_disabled kp_enabled
is "$(ctl remove kp)" OK "remove kp"

# rmmod with a disarmed entry (not direct: a direct trampoline keeps
# kstats loaded, see 66-direct.sh).
is "$(ctl trace kstats_helper_work as last via kretprobe)" OK "trace last"
echo stop >"$KS/last"
rmmod kstats_helper 2>/dev/null
rmmod kstats
check "rmmod kstats with a disarmed entry" sh -c "! grep -q '^kstats ' /proc/modules"
