#!/bin/sh
# A probe that cannot be unregistered is never freed: remove fails with
# EBUSY and the entry stays, kstats holds a reference on itself (rmmod
# fails), and the traced function runs on. A later remove that succeeds
# frees the entry and drops the reference. fail_function (the debug
# kernel) makes kstats' unregister wrappers fail once.
# timeout: 300
. /tests/lib.sh
# kstats alone: rmmod must fail because of the kept probe, not because
# another module uses kstats.
grep -q '^kstats_helper ' /proc/modules && rmmod kstats_helper
grep -q '^kstats ' /proc/modules || insmod "$MODDIR/kstats.ko"

FF=/sys/kernel/debug/fail_function
if [ ! -d $FF ]; then
	skip "no fail_function here (CONFIG_FAIL_FUNCTION)"
fi
# The rmmod after the second removes; try and at_exit count their own.
plan 1
EBUSY="Device or resource busy"

# A function that does not sleep (but for a contended lock or a page
# fault), called by uname(1): its entries drain at once.
FN=__x64_sys_newuname
calls() {
	_i=0
	while [ $_i -lt "$1" ]; do
		uname >/dev/null
		_i=$((_i + 1))
	done
}

# fail_once FUNC: the next call of FUNC returns -EINVAL (fail_function's
# default for an errno), unrun.
fail_once() {
	echo "$1" >$FF/inject || return 1
	echo N >$FF/task-filter
	echo 100 >$FF/probability
	echo 0 >$FF/interval
	echo 1 >$FF/times
	echo 0 >$FF/verbose
}

# try MECH UNREGISTER WHAT: the remove of a MECH entry of FN fails
# when UNREGISTER fails, and succeeds when tried again.
try() {
	plan 15
	mech=$1 fn=$2 what=$3 e=df_$1
	rb=$(refs)
	is "$(ctl "trace $FN as $e via $mech")" OK "trace $FN as $e via $mech"
	r0=$(refs)
	calls 20
	check "$mech: the entry counts" [ "$(samples "$e")" -ge 20 ]
	check "$mech: fail_function takes $fn" fail_once "$fn"
	log_mark
	is "$(ctl "remove $e")" "$EBUSY" "$mech: remove fails with EBUSY when $what fails"
	check "$mech: the log says why" logged "$e: $what failed (error -22)"
	check "$mech: the log says kstats stays" \
		logged "$e: its probes could not be unregistered; kstats stays loaded"
	is "$(refs)" "$((r0 + 1))" "$mech: kstats holds one more reference"
	is "$(field "$e" state)" gone "$mech: the entry stays, in state gone"
	check "$mech: its file still reads" grep -q CPUS "$KS/$e"
	calls 20
	is "$(uname)" Linux "$mech: $FN runs on under the kept probe"
	rmmod kstats 2>/dev/null
	check "$mech: rmmod kstats fails while the probe is kept" \
		grep -q '^kstats ' /proc/modules
	echo >$FF/inject
	log_mark
	is "$(ctl "remove $e")" OK "$mech: a second remove succeeds"
	check "$mech: and says so" logged "$e: its probes are unregistered now; kstats may go"
	is "$(line "$e")" "" "$mech: the entry is gone"
	check "$mech: the references are dropped" refs_reach "$rb"
}

if kernel_has direct; then
	try direct kstats_direct_unregister "unregister_ftrace_direct()"
fi
if kernel_has fprobe; then
	try fprobe kstats_fprobe_unregister "unregister_fprobe()"
fi

check "rmmod kstats after the second removes" rmmod_drained kstats

# at_exit MECH UNREGISTER WHAT: rmmod kstats with a MECH entry whose
# unregister fails once. Module exit cannot be refused: it tries again,
# and goes only once the probe is unregistered (before, it went with the
# probe still registered, and the next call of FN ran freed code).
at_exit() {
	plan 6
	mech=$1 e=dx_$1
	insmod "$MODDIR/kstats.ko"
	is "$(ctl "trace $FN as $e via $mech")" OK "exit: trace $FN as $e via $mech"
	calls 20
	check "exit, $mech: fail_function takes $2" fail_once "$2"
	log_mark
	check "exit, $mech: rmmod kstats succeeds" rmmod kstats
	check "exit, $mech: the log says why" logged "$e: $3 failed (error -22)"
	check "exit, $mech: and that module exit tried again" \
		logged "$e: its probes could not be unregistered; module exit tries again until they are"
	echo >$FF/inject
	calls 20
	is "$(uname)" Linux "exit, $mech: $FN runs on, kstats gone"
}

if kernel_has direct; then
	at_exit direct kstats_direct_unregister "unregister_ftrace_direct()"
fi
if kernel_has fprobe; then
	at_exit fprobe kstats_fprobe_unregister "unregister_fprobe()"
fi
