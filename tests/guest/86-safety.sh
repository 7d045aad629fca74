#!/bin/sh
# Safety: targets on kstats' own record path are refused; the handlers'
# recursion guard survives a clocksource read that no list names (the
# test clocksource of tests/kstats_clocksource.c); functions that never
# return are refused where a return is awaited, and accepted where not;
# a direct trampoline keeps kstats loaded: rmmod fails at once.
# timeout: 900
. /tests/lib.sh
plan 10

EOPNOTSUPP="Operation not supported"
CS=/sys/devices/system/clocksource/clocksource0
load_modules

# refuse CMD DESC [WHY]: EOPNOTSUPP, the entries as they were, and with
# WHY one line in the log saying why.
refuse() {
	before=$(grep '^name' "$KS/_control" | awk '{ print $2 }')
	log_mark
	is "$(ctl "$1")" "$EOPNOTSUPP" "$2: EOPNOTSUPP"
	[ -z "${3:-}" ] ||
		is "$(log_new | grep -c "_control: '$1' refused: .*$3")" 1 "$2: the reason in the log"
	is "$(grep '^name' "$KS/_control" | awk '{ print $2 }')" "$before" \
		"$2: the entries as they were"
}

is "$(ctl "trace keep start __tracepoint_sys_enter end __tracepoint_sys_exit")" OK \
	"an entry that the refusals must leave alone"

# The clocksource reads of the guests' machines, current or not, and
# functions that never return.
echo "# clocksource: $(cat $CS/current_clocksource) of $(cat $CS/available_clocksource)"
# The functions named below that this kernel has, from one read of
# kallsyms (a grep of it takes seconds in an arm64 guest).
NAMES="read_hpet acpi_pm_read read_tsc arch_counter_read do_exit do_group_exit
	make_task_dead __switch_to preempt_schedule_notrace kasan_check_range"
HAVE=" $(awk -v names="$NAMES" 'BEGIN { n = split(names, a); for (i = 1; i <= n; i++) want[a[i]] = 1 }
	($3 in want) && !seen[$3]++ { printf "%s ", $3 }' /proc/kallsyms)"
# present FUNC...: those this kernel has; the others named in a comment.
present() {
	for f in "$@"; do
		case $HAVE in *" $f "*) echo "$f" ;; *) echo "# no $f here" >&2 ;; esac
	done
}
CLOCKS=$(present read_hpet acpi_pm_read read_tsc arch_counter_read)
NORETURN=$(present do_exit do_group_exit make_task_dead)
for f in $CLOCKS; do
	plan 6
	refuse "trace $f" "trace $f" "on kstats' record path"
	refuse "trace g gap $f" "gap $f" "on kstats' record path"
done
for f in $NORETURN; do
	plan 3
	refuse "trace $f" "trace $f" "never returns"
done
for f in $CLOCKS; do
	plan 8
	refuse "trace $f via kretprobe" "trace $f via kretprobe"
	refuse "trace pcpu:$f" "trace pcpu:$f"
	refuse "trace p start $f end vfs_read" "pair start $f"
	refuse "trace p start vfs_read end $f key task" "pair end $f"
done
# Refused where their return is awaited.
for f in $NORETURN; do
	plan 6
	refuse "trace $f via kretprobe" "trace $f via kretprobe"
	refuse "trace pcpu:$f" "trace pcpu:$f"
	refuse "trace $f value retval" "trace $f value retval"
done
# Found by the sweep (88-sweep.sh): a return hook on __switch_to ends on
# another task's stack (rethook BUG); preempt_schedule_notrace is on the
# record path (a handler's preempt_enable); sanitizer hooks too, where
# kstats is instrumented (the debug kernel's KASAN).
if [ -n "$(present __switch_to)" ]; then
	plan 7
	refuse "trace __switch_to as sw via kretprobe" "trace __switch_to via kretprobe" \
		"never returns to its caller"
	refuse "trace __switch_to as sw" "trace __switch_to"
	is "$(ctl "trace sw gap __switch_to")" OK "gap __switch_to is accepted"
	is "$(ctl remove sw)" OK "remove it"
fi
for f in $(present preempt_schedule_notrace kasan_check_range); do
	plan 4
	refuse "trace $f via kretprobe" "trace $f via kretprobe"
	refuse "trace g gap $f" "gap $f"
done
is "$(ctl "trace exits gap do_exit")" OK "gap do_exit is accepted"
is "$(ctl "trace ex start do_exit end __tracepoint_sched_process_free")" OK \
	"a pair starting at do_exit is accepted"
for _ in 1 2 3 4 5 6 7 8 9 10; do sh -c "exit 0"; done
check "gap do_exit counted exits" test "$(samples exits)" -ge $((10 - $(nproc)))
is "$(ctl remove exits)" OK "remove the gap"
is "$(ctl remove ex)" OK "remove the pair"

# The guard: a clocksource of a test module, not on any list, made
# current, and its read function traced through each hook with the
# clock that reads it (clock mono). Every hit from inside a handler is
# a recursion: skipped, counted in missed; nothing else breaks.
TCS=kstats_test
if insmod "$MODDIR/tests/kstats_clocksource.ko" 2>/dev/null ||
	insmod "$MODDIR/kstats_clocksource.ko"; then
	plan 15
	old=$(cat $CS/current_clocksource)
	echo $TCS > $CS/current_clocksource
	is "$(cat $CS/current_clocksource)" $TCS "the test clocksource is current"
	R=kstats_test_cs_read
	is "$(ctl "trace $R clock mono")" OK "trace $R clock mono"
	echo "# $R: $(field $R mechanism)"
	is "$(ctl "trace g gap $R clock mono")" OK "gap $R clock mono (an ftrace callback)"
	is "$(ctl "trace p start $R end vfs_read clock mono")" OK \
		"pair start $R clock mono"
	is "$(ctl "trace q start vfs_read end $R clock mono key task")" OK \
		"pair end $R clock mono key task"
	if [ "$(field $R mechanism)" != direct ] && [ -e /sys/kernel/btf/kstats_clocksource ]; then
		not_ok "trace $R should be direct where its module has BTF"
	fi
	dd if=/dev/zero of=/dev/null bs=1 count=2000 2>/dev/null
	sleep 1
	for e in $R g p; do
		check "$e counted samples" test "$(samples $e)" -gt 0
		m=$(field $e missed)
		echo "# $e: missed $m ($(field $e mechanism))"
	done
	check "the guard skipped recursions (missed of gap > 0)" \
		test "$(field g missed)" -gt 0
	for e in $R g p q; do is "$(ctl remove $e)" OK "remove $e"; done
	# A direct entry on the cycle counter (a lean shape) starts and ends
	# without the guard: neither calls anything. Its hits inside another
	# handler, one that reads the test clocksource, are measured, but for
	# the calls timed for overhead_ns (one in 64 per CPU), which take the
	# guard and are skipped there.
	r=$(ctl "trace $R clock $CYC")
	if [ "$r" = OK ]; then
		plan 6
		is "$(field $R clock)" $CYC "trace $R clock $CYC"
		echo "# $R clock $CYC: $(field $R mechanism)"
		is "$(ctl "trace m gap vfs_read clock mono")" OK \
			"gap vfs_read clock mono (its handler reads $R)"
		dd if=/dev/zero of=/dev/null bs=1 count=500 2>/dev/null
		n=$(samples m)
		echo "# gap m: $n samples; $R: $(samples $R) samples, missed $(field $R missed)"
		check "the gap's handler ran for each of dd's 500 reads" test "$n" -ge 500
		check "$R's hits inside it were measured (63 in 64 at least)" \
			test "$(samples $R)" -ge $((n - n / 64 - 2))
		for e in $R m; do is "$(ctl remove $e)" OK "remove $e"; done
	else
		plan 1
		skip_part "clock $CYC refused here: $r"
	fi
	echo "$old" > $CS/current_clocksource
	is "$(cat $CS/current_clocksource)" "$old" "the clocksource is back to $old"
	check "rmmod the test clocksource" rmmod kstats_clocksource
else
	plan 1
	skip_part "no test clocksource on this target"
fi
is "$(ctl remove keep)" OK "remove keep"

# rmmod detaches a direct entry as any other (66-direct.sh: with a
# sleeper).
is "$(ctl "trace vfs_read")" OK "trace vfs_read"
if [ "$(field vfs_read mechanism)" = direct ]; then
	rmmod kstats_helper
	check "rmmod with a direct entry succeeds at once" rmmod kstats
	load_modules
else
	echo "# vfs_read is not direct here: $(field vfs_read mechanism)"
	is "$(ctl remove vfs_read)" OK "remove vfs_read"
fi
is "$(grep "^name " "$KS/_control")" "" "no entry left"
