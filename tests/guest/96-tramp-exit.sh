#!/bin/sh
# Review item 1 of issue 19: a task that returns through a removed
# entry's direct trampoline counts its call out in the end hook,
# then still runs the trampoline's last instructions. Preempted there, it
# runs kstats_tramp.ko's text with no call in flight: the slot must keep
# its reference on kstats_tramp (rmmod would free that text) until an
# RCU-tasks grace period after the last call has returned.
# tests/kstats_tramp_hold.c holds the task there, spinning in a kprobe
# handler (no RCU-tasks grace period ends meanwhile), as a preempted task
# would stay, until the script releases it.
# timeout: 300
. /tests/lib.sh
# kstats alone: kstats_tramp's reference count is kstats' use and the
# trampoline slot's (a kprobe on module text holds none once registered).
grep -q '^kstats_helper ' /proc/modules && rmmod kstats_helper
grep -q '^kstats ' /proc/modules || insmod "$MODDIR/kstats.ko"

if [ "$(cat /sys/devices/system/cpu/online)" = 0 ]; then
	skip "one CPU (the held task takes CPU 1)"
fi
plan 16
HOLD=/sys/module/kstats_tramp_hold/parameters/hold
# The open of a FIFO for reading sleeps in FN until a writer opens it;
# only this test opens FIFOs.
FN=fifo_open
FIFO=/tmp/fifo96
addr() { awk -v s="$1" '$3 == s { print "0x" $1; exit }' /proc/kallsyms; }

# While the task is held, CPU 1 takes no interrupt: a fork may wait for
# it (a TLB flush of the forking shell's memory), and so may a command
# substitution. So the hold is watched with builtins only.
# wait_cs N: N hundredths of a second pass.
wait_cs() {
	read -r _u _ </proc/uptime
	_end=$((${_u%.*} * 100 + 1${_u#*.} - 100 + $1))
	while [ $((${_u%.*} * 100 + 1${_u#*.} - 100)) -lt $_end ]; do
		read -r _u _ </proc/uptime
	done
}
# read_state: HV, the hold parameter; RV, kstats_tramp's reference count.
read_state() {
	read -r HV <$HOLD
	while read -r _m _ _c _; do
		[ "$_m" = kstats_tramp ] && RV=$_c
	done </proc/modules
}
# hold_is V: the hold parameter reads V; the task is held until released,
# so this waits as long as the host needs (120 s: only a guard against a
# hang, far beyond the under-a-second this takes).
hold_is() {
	_n=0
	read_state
	while [ "$HV" != "$1" ] && [ $_n -lt 1200 ]; do
		wait_cs 10
		_n=$((_n + 1))
		read_state
	done
	[ "$HV" = "$1" ]
}

# drain_pass: waits (builtins only, 20 s at most: the held CPU would
# then be reported as an RCU stall) until the trace shows
# a drain pass that began after the marker "kstats96-held" (the call was
# counted out before it) and ended (DRAIN=ends), or a pass that has not
# ended and whose worker sleeps, its state D, or I (an RCU-tasks grace
# period is waited for in TASK_IDLE since 6.x) (DRAIN=waits): a pass
# sleeps only in its grace period, which it waits for only once it has
# read a count of 0. On a failure the events and the state are printed.
drain_pass() {
	_n=0
	DRAIN=
	while [ $_n -lt 200 ]; do
		_w='' _held='' _after='' _ended=''
		while read -r _l; do
			case $_l in
			*tracing_mark_write:\ kstats96-held*) _held=1 ;;
			*workqueue_execute_start:*)
				_w=${_l%%[ 	]*} _w=${_w##*-} _after=$_held _ended='' ;;
			*workqueue_execute_end:*) _ended=1 ;;
			esac
		done <$TR/trace
		if [ -n "$_w" ] && [ -n "$_after" ] && [ -n "$_ended" ]; then
			DRAIN=ends
			return 0
		fi
		_st=
		[ -n "$_w" ] && [ -z "$_ended" ] && read -r _ _ _st _ <"/proc/$_w/stat"
		case $_st in
		D | I)
			DRAIN=waits
			return 0
			;;
		esac
		wait_cs 10
		_n=$((_n + 1))
	done
	while read -r _l; do
		case $_l in *workqueue_execute*|*kstats96*) echo "# event: $_l" ;; esac
	done <$TR/trace
	echo "# worker ${_w:-none}: state ${_st:-unread}"
	return 1
}

# This shell and what it starts on CPU 0 (the drain work is queued
# there); the sleeper on CPU 1, where it is held.
taskset -p 1 $$ >/dev/null
rm -f $FIFO
mkfifo $FIFO
is "$(ctl "trace $FN via direct")" OK "trace $FN via direct"
taskset 2 sh -c "exec 4<$FIFO" &
spid=$!
check "a task sleeps in $FN" asleep $FN wait_for_partner
log_mark
is "$(ctl remove $FN)" OK "remove while it sleeps there"
slot=$(log_new | sed -n "s/.*$FN: 1 calls in flight in trampoline \([0-9]*\);.*/\1/p")
check "its trampoline ($slot) drains" [ -n "$slot" ]

# x86-64's trampoline calls kstats_tramp_end(), arm64's the hook itself.
callee=$(addr kstats_tramp_end)
is "$(insmod "$(ko kstats_tramp_hold)" tramp="$(addr "kstats_direct_tramp_$slot")" \
	${callee:+callee=$callee} pid=$spid 2>&1 | sed 's/.*: //')" "" \
	"a kprobe after trampoline $slot's call of its end hook"
for m in kstats_tramp kstats kstats_tramp_hold; do
	check "$m's init text is freed" init_freed $m
done
r0=$(trefs)
# The drain's passes: kstats_tramp's delayed work, seen by the
# workqueue's events in tracefs.
TR=/sys/kernel/debug/tracing
DW=$(addr kstats_tramp_drain_work)
check "kstats_tramp_drain_work is in kallsyms" [ -n "$DW" ]
for e in workqueue_execute_start workqueue_execute_end; do
	echo "function == $DW" >$TR/events/workqueue/$e/filter
	echo 1 >$TR/events/workqueue/$e/enable
done
echo 1 >$TR/tracing_on
: >$TR/trace
# The drain's timer stays on CPU 0, where its work runs: with timer
# migration, an idle CPU 0's timer may move to CPU 1, whose held task
# keeps it from firing (7.3 once showed no pass in 20 s).
TM=/proc/sys/kernel/timer_migration
tm0=
[ ! -w $TM ] || { read -r tm0 <$TM; echo 0 >$TM; }
echo 1 >$HOLD
exec 5>$FIFO
exec 5>&-
check "the woken sleeper is held after its call was counted out" hold_is 2
# The drain's next pass reads the count 0: it must then wait for an
# RCU-tasks grace period, which cannot end while the task is held, before
# it drops the slot's reference. A drain that does not wait ends its pass.
echo kstats96-held >$TR/trace_marker
check "a drain pass after the count-out has ended or waits" drain_pass
read_state
is "$HV:$RV:$DRAIN" "2:$r0:waits" \
	"while it is held there, the trampoline keeps its reference on kstats_tramp"
echo 0 >$HOLD
[ -z "$tm0" ] || echo "$tm0" >$TM
for e in workqueue_execute_start workqueue_execute_end; do
	echo 0 >$TR/events/workqueue/$e/enable
done
wait $spid
is "$?" 0 "the sleeper returned through the trampoline"
check "then the reference goes ($r0 - 1)" trefs_reach $((r0 - 1))
check "rmmod the kprobe" rmmod kstats_tramp_hold
check "rmmod kstats" rmmod_drained kstats
taskset -p 3 $$ >/dev/null
rm -f $FIFO
