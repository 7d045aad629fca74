#!/bin/sh
# A direct trace shares its function with the users of ftrace that modify
# the return address of the fentry call (IPMODIFY): a kprobe with a
# post_handler (tests/kstats_kprobe_post.c) and a livepatch
# (tests/kstats_livepatch.c, where the kernel has livepatch), each loaded
# before and after the trace. Both keep working, and kstats keeps
# counting the calls, of the patched function too.
# timeout: 600
. /tests/lib.sh
plan 14
load_modules

KPP=/sys/module/kstats_kprobe_post/parameters/hits
reads() { dd if=/dev/zero of=/dev/null bs=1 count="$1" 2>/dev/null; }

# A kprobe with a post_handler, after the trace, then before it.
is "$(ctl "trace vfs_read")" OK "trace vfs_read"
MECH=$(field vfs_read mechanism)
echo "# vfs_read: $MECH"
is "$(insmod "$(ko kstats_kprobe_post)" func=vfs_read 2>&1 | sed 's/.*: //')" "" \
	"a kprobe with a post_handler on vfs_read, after the trace"
n0=$(samples vfs_read)
h0=$(cat $KPP)
reads 200
check "the kprobe saw the reads ($(($(cat $KPP) - h0)))" test $(($(cat $KPP) - h0)) -ge 200
check "kstats counted them ($(($(samples vfs_read) - n0)))" \
	test $(($(samples vfs_read) - n0)) -ge 200
is "$(field vfs_read mechanism)" "$MECH" "the entry kept its mechanism"
is "$(ctl remove vfs_read)" OK "remove vfs_read"
h0=$(cat $KPP)
reads 100
check "the kprobe goes on alone" test $(($(cat $KPP) - h0)) -ge 100
is "$(ctl "trace vfs_read")" OK "trace vfs_read with the kprobe there"
is "$(field vfs_read mechanism)" "$MECH" "the same mechanism as without it"
n0=$(samples vfs_read)
h0=$(cat $KPP)
reads 200
check "both count the reads ($(($(cat $KPP) - h0)), $(($(samples vfs_read) - n0)))" \
	test $(($(cat $KPP) - h0)) -ge 200 -a $(($(samples vfs_read) - n0)) -ge 200
check "rmmod the kprobe" rmmod kstats_kprobe_post
n0=$(samples vfs_read)
reads 100
check "kstats goes on alone" test $(($(samples vfs_read) - n0)) -ge 100
is "$(ctl remove vfs_read)" OK "remove vfs_read"

# A livepatch of cmdline_proc_show.
LP=/sys/kernel/livepatch/kstats_livepatch
# lp_settled: its transition is over (up to 30 s).
lp_settled() {
	i=0
	while [ $i -lt 300 ]; do
		[ "$(cat $LP/transition 2>/dev/null)" = 0 ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
lp_load() {
	is "$(insmod "$(ko kstats_livepatch)" 2>&1 | sed 's/.*: //')" "" "load the livepatch $1"
	check "its transition completes" lp_settled
}
# lp_gone: a disabled patch is freed once unpatched: its directory goes.
lp_gone() {
	i=0
	while [ $i -lt 300 ] && [ -e $LP ]; do sleep 0.1; i=$((i + 1)); done
	[ ! -e $LP ]
}
lp_unload() {
	echo 0 > $LP/enabled
	check "the livepatch is disabled and unpatched" lp_gone
	check "rmmod the livepatch" rmmod kstats_livepatch
}
CMDLINE=$(cat /proc/cmdline)
if ! ko kstats_livepatch >/dev/null || [ ! -d /sys/kernel/livepatch ]; then
	plan 1
	skip_part "no livepatch on this kernel"
else
	plan 16
	is "$(ctl "trace cmdline_proc_show")" OK "trace cmdline_proc_show"
	M=$(field cmdline_proc_show mechanism)
	echo "# cmdline_proc_show: $M"
	lp_load "after the trace"
	n0=$(samples cmdline_proc_show)
	for i in 1 2 3 4 5; do out=$(cat /proc/cmdline); done
	is "$out" "kstats livepatch" "the patch took effect"
	is "$(($(samples cmdline_proc_show) - n0))" 5 "kstats counted the 5 patched calls"
	is "$(field cmdline_proc_show mechanism)" "$M" "the entry kept its mechanism"
	is "$(ctl remove cmdline_proc_show)" OK "remove the entry"
	is "$(cat /proc/cmdline)" "kstats livepatch" "the patch stays"
	is "$(ctl "trace cmdline_proc_show")" OK "trace it again, the patch there"
	is "$(field cmdline_proc_show mechanism)" "$M" "the same mechanism as without it"
	n0=$(samples cmdline_proc_show)
	for i in 1 2 3; do out=$(cat /proc/cmdline); done
	is "$out:$(($(samples cmdline_proc_show) - n0))" "kstats livepatch:3" \
		"patched, and counted"
	lp_unload
	is "$(cat /proc/cmdline)" "$CMDLINE" "the original function is back"
	n0=$(samples cmdline_proc_show)
	cat /proc/cmdline >/dev/null
	is "$(($(samples cmdline_proc_show) - n0))" 1 "and counted"
	is "$(ctl remove cmdline_proc_show)" OK "remove the entry"
fi
is "$(grep "^name " "$KS/_control")" "" "no entry left"
