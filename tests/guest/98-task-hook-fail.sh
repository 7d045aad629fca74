#!/bin/sh
# Issue 27, review item 4: a key task pair registers its sched_process_free
# probe on its task table, then its sched_process_exec probe; if that
# fails, the table is freed. A call of the free probe may be running on
# the table then, on another CPU: the table must not be freed before it
# returns (tracepoint_synchronize_unregister()). tests/kstats_task_hold.c
# parks the control writer between the two registrations, holds a call of
# the free probe on its table on CPU 1 (tasks end there), and makes the
# registration fail with ENOMEM. A use after free is seen by KASAN: the debug kernel.
# timeout: 300
. /tests/lib.sh
load_modules

if [ "$(cat /sys/devices/system/cpu/online)" = 0 ]; then
	skip "one CPU (the held call takes CPU 1)"
fi
kernel_config KASAN ||
	skip "no KASAN on this kernel: a use after free would go unseen"
plan 14

S=/sys/module/kstats_task_hold/parameters/state
TS=__tracepoint_kstats_helper_start
TE=__tracepoint_kstats_helper_end
OUT=/tmp/out98
addr() { awk -v s="$1" '$3 == s { print "0x" $1; exit }' /proc/kallsyms; }

# While the call is held, CPU 1 takes no interrupt: a fork may wait for it
# (a TLB flush), and so may a command substitution. So the hold is watched
# with builtins only. state_is V: the hold's state reads V, within 200000
# looks (a guard against a hang only).
state_is() {
	_n=0
	read -r SV <$S
	while [ "$SV" != "$1" ] && [ $_n -lt 200000 ]; do
		_n=$((_n + 1))
		read -r SV <$S
	done
	[ "$SV" = "$1" ]
}
# writer_done_or_waiting: the writer has returned (it wrote its status),
# or sleeps in a grace period of the error path.
writer_done_or_waiting() {
	_n=0
	while [ $_n -lt 200000 ]; do
		[ -e $OUT.rc ] && return 0
		while read -r _l; do
			case $_l in *synchroniz*) return 0 ;; esac
		done <"/proc/$wpid/stack"
		_n=$((_n + 1))
	done
	return 1
}

# This shell and the writer on CPU 0; ending tasks on CPU 1, whose free
# probe calls run there.
taskset -p 1 $$ >/dev/null
rm -f $OUT.*
is "$(insmod "$(ko kstats_task_hold)" hook="$(addr kstats_task_hook_exec)" \
	freed="$(addr kstats_task_freed)" cpu=1 2>&1 | sed 's/.*: //')" "" \
	"kprobes on kstats_task_hook_exec and kstats_task_freed"
for m in kstats kstats_helper kstats_task_hold; do
	check "$m's init text is freed" init_freed $m
done
taskset 2 sh -c "while [ ! -e $OUT.stop ]; do (:); done" &
lpid=$!
# Two key task pairs first: their free probes stay on the tracepoint, so
# that the failing pair's removal of its own patches no text (a static
# key or static call update would wait for CPU 1, held).
is "$(ctl "trace tk0 start $TS end $TE key task")" OK "a first key task pair"
is "$(ctl "trace tk1 start $TS end $TE key task")" OK "a second key task pair"
log_mark
echo 1 >$S
(
	echo "trace tk start $TS end $TE key task" >"$KS/_control" 2>$OUT.err
	# shellcheck disable=SC2320 # the status of that write
	echo $? >$OUT.rc
) &
wpid=$!
# Held (3) comes after parked (2), maybe before this shell has looked.
check "the writer is parked, and a call of its free probe held on CPU 1" \
	state_is 3
echo 4 >$S
check "the registration failed: the writer returned, or waits for the held call" \
	writer_done_or_waiting
echo 5 >$S
wait $wpid
touch $OUT.stop
wait $lpid

is "$(cat $OUT.rc) $(sed 's/.*: //' $OUT.err)" "1 Cannot allocate memory" \
	"trace key task: ENOMEM when sched_process_exec refuses"
check "the reason is logged" logged "sched_process_exec refused (error -12)"
is "$(grep -c '^name ' "$KS/_control")" 2 "the two pairs are left as they were"
is "$(ctl remove tk0)$(ctl remove tk1)" OKOK "remove them"
is "$(log_new | grep -c KASAN)" 0 "no use after free of the task table"
check "rmmod kstats_task_hold" rmmod kstats_task_hold
taskset -p 3 $$ >/dev/null
rm -f $OUT.*
