#!/bin/sh
# Clocks: an entry reads the cycle counter ($CYC: the TSC, arm64's
# CNTVCT) by default where the kernel keeps it in step across CPUs (its
# clocksource is the TSC), else mono; "clock tsc" where the kernel has
# marked the TSC unstable is refused. Every mechanism's cycle counter
# samples are ns, placed against a busy wait and a manual hook around it,
# both on ktime_get_mono_fast_ns().
. /tests/lib.sh
plan 7
load_modules

FN=kstats_helper_work
MS=kstats_helper_mark_start
ME=kstats_helper_mark_end
TS=__tracepoint_kstats_helper_start
TE=__tracepoint_kstats_helper_end
N=200
WAIT=20000

echo "# clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource), default clock $CLK"
is "$(ctl trace $FN as cdef)" OK "trace $FN, default clock"
is "$(field cdef clock)" $CLK "listed with the default clock, $CLK"
is "$(ctl remove cdef)" OK "remove cdef"
is "$(ctl trace $FN clock mono as cmono)" OK "clock mono"
is "$(field cmono clock)" mono "clock mono is listed"
is "$(ctl remove cmono)" OK "remove cmono"
is "$(ctl trace $FN clock cycles as cbad)" "Invalid argument" "clock cycles: EINVAL"

if [ $CLK != $CYC ]; then
	plan 3
	log_mark
	is "$(ctl trace $FN clock tsc as ctsc)" "Operation not supported" \
		"clock tsc with the TSC marked unstable: EOPNOTSUPP"
	check "its reason is logged" logged "clock tsc: this kernel has marked its TSC unstable"
	is "$(grep -c '^name ' "$KS/_control")" 0 "nothing left after the refusal"
	exit 0
fi

# tsc_check NAME WHAT IN|OUT: after the helper's N busy waits of WAIT ns
# (by ktime_get_mono_fast_ns()), each timed by a manual hook "ref" around
# the call of FUNC, NAME has N samples in ns. A probe of FUNC is IN the
# hook's span: its least sample lies between WAIT and the hook's least.
# A pair from the marks around the hook is OUT: its least sample is at
# least the hook's, and below 1.5 times it. Cycles for ns (2.3 GHz here)
# or a scale off by more than 0.1% fail either way.
tsc_check() {
	plan 5
	helper new ref 5 >/dev/null
	helper work $N $WAIT ref >/dev/null
	is "$(samples $1)" $N "$2: $N samples"
	is "$(field $1 unstable)" "" "$2: no sample lost to an unstable counter"
	tmin=$(field $1 min)
	rmin=$(field ref min)
	echo "# $2: min $tmin max $(field $1 max); the hook around: min $rmin max $(field ref max)"
	if [ "$3" = IN ]; then
		check "$2: min $tmin >= the wait $WAIT (less 0.1%)" \
			test $((tmin * 1000)) -ge $((WAIT * 999))
		check "$2: min $tmin <= the hook's min $rmin (plus 0.1%)" \
			test $((tmin * 1000)) -le $((rmin * 1001))
	else
		check "$2: min $tmin >= the hook's min $rmin (less 0.1%)" \
			test $((tmin * 1000)) -ge $((rmin * 999))
		check "$2: min $tmin < 1.5 x the hook's min $rmin" \
			test $((tmin * 2)) -lt $((rmin * 3))
	fi
	helper delete ref >/dev/null
	is "$(ctl remove $1)" OK "remove $1"
}

MECHS=kretprobe
kernel_has fprobe && MECHS="kretprobe fprobe"
# Each tsc_check counts its own; pcpu:, the pairs and the end five more.
plan 5
for m in $MECHS; do
	plan 2
	is "$(ctl trace $FN via $m clock $CYC as t$m)" OK "trace via $m, clock $CYC"
	is "$(field t$m clock)" $CYC "clock $CYC is listed"
	tsc_check t$m "via $m" IN
done
is "$(ctl trace pcpu:$FN clock $CYC as tpcpu)" OK "trace pcpu:, clock $CYC"
tsc_check tpcpu "pcpu:" IN
is "$(ctl trace tcpu start $MS end $ME key cpu clock $CYC)" OK "pair keyed by CPU, clock $CYC"
tsc_check tcpu "key cpu" OUT
is "$(ctl trace ttask start $TS end $TE key task)" OK "pair keyed by task, default clock"
is "$(field ttask clock)" $CYC "the default clock of a task pair is $CYC too"
tsc_check ttask "key task" OUT
# via direct needs the helper module's BTF.
if [ -e /sys/kernel/btf/kstats_helper ]; then
	plan 2
	is "$(ctl trace $FN via direct as tdirect)" OK "trace via direct, default clock"
	is "$(field tdirect clock)" $CYC "direct: clock $CYC"
	tsc_check tdirect "via direct" IN
fi
is "$(grep -c '^name ' "$KS/_control")" 0 "no entry left at the end"
