#!/bin/sh
# A start that cannot arm the probes again (here: the tracepoint probe of
# a gap, whose registration allocates, failed by fault injection) leaves
# the entry stopped, and the write fails with the error. Needs failslab
# (the debug kernel).
# timeout: 200
. /tests/lib.sh
load_modules

FS=/sys/kernel/debug/failslab
if [ ! -d $FS ] || [ ! -e /proc/self/fail-nth ]; then
	skip "no failslab or fail-nth here"
fi
plan 13
TS=__tracepoint_kstats_helper_start
ENOMEM="Cannot allocate memory"

is "$(ctl trace af gap $TS)" OK "trace af gap $TS"
echo stop >"$KS/af"
is "$(field af state)" stopped "af stopped: its tracepoint probe is off"

# Fault injection for this task only (fail-nth), quiet, GFP_KERNEL too.
echo 0 >$FS/verbose
echo N >$FS/ignore-gfp-wait
log_mark
n=1
r=
while [ $n -le 300 ]; do
	# The Nth allocation of this process from here fails: the open of
	# the file for small N, the write (the probe's registration) later.
	r=$(sh -c "echo $n > /proc/self/fail-nth; echo start > $KS/af" 2>&1)
	case $r in
	*"write error"*) break ;;
	esac
	# A failure that something tolerated: stop and go on.
	[ "$(field af state)" = running ] && echo stop >"$KS/af"
	n=$((n + 1))
done
echo Y >$FS/ignore-gfp-wait
echo "# allocation $n: $r"
case $r in
*"$ENOMEM"*) ok "start with the probe's allocation failed: ENOMEM" ;;
*) not_ok "start with the probe's allocation failed: ENOMEM" ;;
esac
is "$(field af state)" stopped "af stays stopped"
is "$(log_new | grep -c 'af: cannot arm its probes (error -12)')" 1 "reason logged once"
helper work 3 0 >/dev/null
is "$(samples af)" 0 "no gap recorded while stopped"

echo start >"$KS/af"
is "$(field af state)" running "a start without a failure arms it"
helper work 3 0 >/dev/null
check "gaps recorded once armed" test "$(samples af)" -gt 0
is "$(ctl remove af)" OK "remove af"

# Every allocation of a key task pair's trace failing in turn (the entry,
# its task table, the sched_process_free and sched_process_exec probes'
# registrations, ...), while processes exit on the other CPU (their
# sched_process_free runs the free probe of a table that a failed trace
# frees): each is refused with ENOMEM and leaves nothing, or is tolerated
# and the trace taken (then removed); past the command's last
# allocation, ten traces in a row are taken. KASAN, kmemleak and lockdep
# watch (check-guest-log.sh).
TE=__tracepoint_kstats_helper_end
rm -f /tmp/stop79
taskset -c 1 sh -c "while [ ! -e /tmp/stop79 ]; do sh -c 'exit 0'; done" &
echo N >$FS/ignore-gfp-wait
n=1
bad=0
refused=0
taken=0
while [ $n -le 400 ] && [ $taken -lt 10 ]; do
	r=$(taskset -c 0 sh -c "echo $n > /proc/self/fail-nth
		echo 'trace kt start $TS end $TE key task' > $KS/_control" 2>&1)
	if [ -z "$r" ]; then
		taken=$((taken + 1))
		[ "$(ctl remove kt)" = OK ] || { bad=$((bad + 1)); echo "# allocation $n: remove kt failed"; }
	else
		taken=0
		refused=$((refused + 1))
		case $r in
		*"$ENOMEM"*) ;;
		*) bad=$((bad + 1)); echo "# allocation $n: $r" ;;
		esac
		[ -z "$(line kt)" ] || { bad=$((bad + 1)); echo "# allocation $n: kt left"; }
	fi
	n=$((n + 1))
done
echo Y >$FS/ignore-gfp-wait
: >/tmp/stop79
wait
echo "# key task pair: $refused allocation failures refused, $((n - 1)) tried"
check "key task pair: ten taken in a row past the last allocation" [ $taken = 10 ]
check "key task pair: allocation failures refused ($refused)" [ $refused -gt 3 ]
is "$bad" 0 "key task pair: every refusal was ENOMEM and left no entry"
is "$(grep -c '^name ' "$KS/_control")" 0 "key task pair: no entry left"
