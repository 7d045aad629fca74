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
	echo "# no failslab or fail-nth here: skipped"
	exit 0
fi
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
