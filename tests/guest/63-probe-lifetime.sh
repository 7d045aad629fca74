#!/bin/sh
# _control: remove while the traced code runs, unload of the module that
# holds the traced code, rmmod kstats with traces attached.
# timeout: 600
. /tests/lib.sh
plan 35

# Loops on both CPUs call the traced code while probes come and go. The
# guests run under TCG with thread=single: multi-threaded TCG executes
# stale int3s of the kernel's code patching (scripts/README.md).
load_modules

FN=kstats_helper_work
TS=__tracepoint_kstats_helper_start
TE=__tracepoint_kstats_helper_end

# Attach and detach, four rounds of every kind, while a loop on each CPU
# calls the traced code: asleep inside it for 1 ms a call, busy in nested
# calls, or in short calls back to back, whose handlers run on one CPU
# while the other removes their probes.
rm -f /tmp/stop
for cpu in 0 1; do
	taskset -c $cpu sh -c "while [ ! -e /tmp/stop ]; do
		echo 'sleep 20 1000000' > $HELPER; echo 'nest 5 20000' > $HELPER
		echo 'work 200 0' > $HELPER; done" &
done
bad=0
for round in 1 2 3 4; do
	for cmd in "trace $FN" "trace $FN via kretprobe" "trace pcpu:$FN" \
		"trace $FN start kstats_helper_mark_start end kstats_helper_mark_end" \
		"trace $FN start $TS end $TE key task" \
		"trace $FN start $FN end $TE key cpu"; do
		r1=$(ctl "$cmd")
		i=0
		while [ "$(samples $FN)" = 0 ] && [ $i -lt 100 ]; do i=$((i + 1)); done
		n=$(samples $FN)
		r2=$(ctl "remove $FN")
		if [ "$r1 $r2" != "OK OK" ] || [ "$n" = 0 ]; then
			bad=$((bad + 1))
			echo "# '$cmd': $r1, $n samples, remove: $r2"
		fi
		[ "$round" = 1 ] && echo "# '$cmd': $n samples before remove"
	done
done
: > /tmp/stop
wait
is "$bad" 0 "24 trace/remove cycles, each with samples, while both CPUs call and sleep in the function"
is "$(cat "$KS/_control")" "" "nothing left"

# The module holding the traced code goes: its entries are detached and
# stay readable, in state gone, until removed.
ctl "trace $FN" >/dev/null
ctl "trace kp start kstats_helper_mark_start end kstats_helper_mark_end" >/dev/null
ctl "trace tp start $TS end $TE key task" >/dev/null
ctl "trace mix start vfs_read end $TE" >/dev/null
ctl "trace rd start vfs_read end vfs_write" >/dev/null
helper work 10 1000 >/dev/null
log_mark
check "rmmod kstats_helper with traces attached" rmmod kstats_helper
for e in $FN kp tp mix; do
	is "$(field $e state)" gone "$e: state gone after the unload"
done
is "$(field rd state)" running "an entry on vmlinux only keeps running"
is "$(samples $FN) $(samples kp) $(samples tp)" "10 10 10" "gone entries keep their samples"
is "$(log_new | grep -c 'module kstats_helper unloaded, probes detached')" 4 "one log line per detached entry"
echo reset > "$KS/tp"
is "$(cat "$KS/tp")" "" "a gone entry can be reset"
line $FN | sed 's/^/# /'
for e in $FN kp tp mix; do
	is "$(ctl remove $e)" OK "remove gone entry $e"
done
load_modules
is "$(ctl "trace $FN")" OK "trace again after the module came back"
is "$(ctl "trace tp start $TS end $TE key cpu")" OK "its tracepoints are found again"
helper work 7 1000 >/dev/null
is "$(samples $FN) $(samples tp)" "7 7" "new entries count the new module"

# rmmod kstats with traces attached and their code running.
ctl remove $FN >/dev/null
ctl remove tp >/dev/null
rmmod kstats_helper
ctl "trace vfs_read" >/dev/null
ctl "trace pcpu:vfs_write" >/dev/null
ctl "trace sys start __tracepoint_sys_enter end __tracepoint_sys_exit key task" >/dev/null
ctl "trace irq start __tracepoint_irq_handler_entry end __tracepoint_irq_handler_exit" >/dev/null
grep '^name' "$KS/_control" | sed 's/^/# /'
dd if=/dev/zero of=/dev/null bs=1 count=2000 2>/dev/null
check "the traces have samples" test "$(samples vfs_read)" -ge 2000
# A reader that keeps calling vfs_read() meanwhile.
sh -c 'while [ ! -e /tmp/stop2 ]; do read l < /proc/version; done' &
# rmmod detaches every entry, a direct one (the default here) too.
echo "# vfs_read: mechanism $(field vfs_read mechanism)"
check "rmmod kstats with 4 traces attached" rmmod kstats
: > /tmp/stop2
wait
check "debugfs directory is gone" test ! -e "$KS"
check "kstats loads again" insmod "$MODDIR/kstats.ko"
is "$(cat "$KS/_control")" "" "and starts empty"
rmmod kstats

# A module's init text is freed once it has initialised: a target there
# is refused, by every form, while the module still initialises (a direct
# call's site, an fprobe's or a kprobe's address would outlive the text).
load_modules
IW=/sys/module/kstats_init_wait/parameters/go
insmod "$(ko kstats_init_wait)" &
ipid=$!
i=0
while [ ! -e $IW ] && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
check "a module waits in its init" test -e $IW
for c in "trace kstats_init_wait_fn" "trace kstats_init_wait_fn via kretprobe" \
	"trace iw gap kstats_init_wait_fn" \
	"trace iw start kstats_init_wait_fn end __tracepoint_kstats_helper_end"; do
	log_mark
	is "$(ctl "$c")" "Operation not supported" "'$c' in init text: EOPNOTSUPP"
	check "'$c': the reason is logged" \
		logged "is in the init text of module kstats_init_wait"
done
echo 1 >$IW
wait $ipid
is "$?" 0 "the module ends its init"
is "$(cat "$KS/_control")" "" "nothing was taken"
check "rmmod kstats_init_wait" rmmod kstats_init_wait
