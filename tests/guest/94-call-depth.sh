#!/bin/sh
# Call depth tracking (retbleed=stuff; check.sh boots the debug kernel on
# an emulated Intel Skylake for this script, which does nothing in other
# boots). ftrace calls a direct trampoline from the fentry site without
# the call thunk that counts calls, so the trampoline must count that
# call itself on each of its ways out, running or stopped; otherwise
# every traced call takes one return more than it counted, and the RSB
# is refilled ("stuffed") far more often. CALL_THUNKS_DEBUG counts, per
# CPU, the calls (C) and returns (R) that the tracking saw.
# timeout: 300
. /tests/lib.sh

case $(cat /sys/devices/system/cpu/vulnerabilities/retbleed 2>/dev/null) in
*Stuffing*) ;;
*)
	skip "call depth tracking is off in this boot"
	;;
esac
CT=/sys/kernel/debug/callthunks/cpu1
if [ ! -r $CT ]; then
	not_ok "the call thunk counters ($CT) are there"
	exit 0
fi
plan 8
load_modules
FN=kstats_helper_work
N=20000

# counts: "returns-minus-calls stuffs" of CPU 1 so far.
counts() { tr -d , <$CT | awk '{ print $4 - $2, $6 }'; }
# over K: the change of counts() while CPU 1 runs FN K times.
over() {
	# shellcheck disable=SC2046 # the two counts, as two words
	set -- "$1" $(counts)
	helper_on 1 "work $1 0"
	# shellcheck disable=SC2046
	set -- $(counts) "$2" "$3"
	echo $(($1 - $3)) $(($2 - $4))
}
# skew WHAT: returns minus calls per N calls of FN, less those of the
# command around them (a run of 0 calls), and the RSB refills likewise.
skew() {
	# shellcheck disable=SC2046 # two counts each
	set -- $(over 0) $(over $N)
	echo "# $1: returns-calls $(($3 - $1)), stuffs $(($4 - $2)) over $N calls" >&2
	echo $(($3 - $1))
}
# balanced WHAT: the skew is far below one return per call (N): a few
# interrupts and context switches on CPU 1 account for some.
balanced() {
	s=$(skew "$1")
	if [ "$s" -gt $((-N / 10)) ] && [ "$s" -lt $((N / 10)) ]; then
		ok "$1: calls and returns balance"
	else
		not_ok "$1: calls and returns balance (skew $s over $N calls)"
	fi
}

balanced "untraced $FN"
is "$(ctl "trace $FN as cd")" OK "trace $FN as cd"
is "$(field cd mechanism)" direct "cd is a direct entry"
balanced "running direct entry"
check "the running entry counted the calls" [ "$(samples cd)" -ge $N ]
echo stop >"$KS/cd"
balanced "stopped direct entry"
is "$(ctl "remove cd")" OK "remove cd"
rmmod kstats_helper
check "rmmod kstats" rmmod_drained kstats
