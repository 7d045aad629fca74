#!/bin/sh
# Review item 1 of issue 19: a task that returns through a removed
# entry's direct trampoline counts its call out in kstats_tramp_end(),
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

is "$(insmod "$(ko kstats_tramp_hold)" tramp="$(addr "kstats_direct_tramp_$slot")" \
	callee="$(addr kstats_tramp_end)" pid=$spid 2>&1 | sed 's/.*: //')" "" \
	"a kprobe after trampoline $slot's call of kstats_tramp_end"
for m in kstats_tramp kstats kstats_tramp_hold; do
	check "$m's init text is freed" init_freed $m
done
r0=$(trefs)
echo 1 >$HOLD
exec 5>$FIFO
exec 5>&-
check "the woken sleeper is held after its call was counted out" hold_is 2
# Five drain periods: long enough for a drain that does not wait.
wait_cs 50
read_state
is "$HV:$RV" "2:$r0" \
	"while it is held there, the trampoline keeps its reference on kstats_tramp"
echo 0 >$HOLD
wait $spid
is "$?" 0 "the sleeper returned through the trampoline"
check "then the reference goes ($r0 - 1)" trefs_reach $((r0 - 1))
check "rmmod the kprobe" rmmod kstats_tramp_hold
check "rmmod kstats" rmmod_drained kstats
taskset -p 3 $$ >/dev/null
rm -f $FIFO
