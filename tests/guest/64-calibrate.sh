#!/bin/sh
# calibrate: the bias and cost of every mechanism, measured on kstats's own
# empty functions; bias_ns and overhead_ns on the lines of trace entries.
# timeout: 240
. /tests/lib.sh
# And three per calibrated mechanism, one per probed function, three
# with the cycle counter.
plan 26
load_modules

FN=kstats_helper_work
TS=__tracepoint_kstats_helper_start
TE=__tracepoint_kstats_helper_end
MS=kstats_helper_mark_start

# cal MECH KEY: KEY of the calibration line of MECH
cal() {
	awk -v m="$1" -v k="$2" '$1 == "calibration" && $3 == m {
		for (i = 2; i < NF; i += 2) if ($i == k) print $(i + 1) }' "$KS/_control"
}
# mean NAME: mean of all samples of an entry
mean() {
	grep CPUS "$KS/$1" | awk '{ n += $6; s += $6 * $8 } END { print n ? int(s / n) : 0 }'
}

FUNCS=kretprobe
kernel_has fprobe && FUNCS="kretprobe fprobe"
PAIRS="pair-ftrace-cpu pair-ftrace-task pair-kprobe-cpu pair-kprobe-task pair-tracepoint-cpu pair-tracepoint-task"
# clock-tsc (clock-cntvct) where entries may read the cycle counter
# (lib.sh's CLK and CYC).
MECHS="clock clock-local"
[ "$CLK" = "$CYC" ] && MECHS="$MECHS clock-$CYC"
MECHS="$MECHS manual $FUNCS"
for m in $FUNCS; do MECHS="$MECHS pcpu-$m"; done
MECHS="$MECHS $PAIRS"
# direct on every target (all have ftrace direct calls), Debian 6.1 too,
# where kstats.ko has no BTF: calibrate's function needs none. Without it
# the default mechanism of trace FUNC there would show no bias.
MECHS="$MECHS direct"

# Before any calibration, entries say "-".
is "$(ctl trace $FN as kw via kretprobe)" OK "trace $FN via kretprobe"
is "$(field kw bias_ns) $(field kw bias_p99_ns) $(field kw overhead_ns)" "- - -" \
	"bias and overhead are - before calibration and before any hit"

is "$(ctl calibrate samples 99)" "Invalid argument" "calibrate samples 99: EINVAL"
is "$(ctl calibrate samples 1000)" OK "calibrate samples 1000"
grep '^calibration ' "$KS/_control" | sed 's/^/# /'
is "$(grep '^calibration ' "$KS/_control" | awk '{ print $3 }' | tr '\n' ' ')" "$MECHS " \
	"one calibration line per mechanism of this kernel, in order"
for m in $MECHS; do
	plan 3
	l=$(grep "^calibration mechanism $m " "$KS/_control")
	check "$m: line format" sh -c "echo '$l' | grep -qE '^calibration mechanism $m bias_ns [0-9]+ bias_p99_ns [0-9]+ cost_ns [0-9]+ samples 1000\$'"
	# local_clock() may stand still between two reads (see 61-pairs.sh).
	[ "$m" = clock-local ] && continue
	check "$m: bias $(cal $m bias_ns) ns > 0" test "$(cal $m bias_ns)" -gt 0
	check "$m: p99 $(cal $m bias_p99_ns) >= p50 $(cal $m bias_ns)" \
		test "$(cal $m bias_p99_ns)" -ge "$(cal $m bias_ns)"
done
# How the mechanisms order is shown, not checked: these are timings, and
# under TCG on a shared host a few ns of difference (the manual hook
# against a tracepoint pair keyed by CPU, on the TSC) flip from boot to
# boot. Documentation/kstats.rst has the table.
CS=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)
echo "# clocksource $CS"
added() {
	echo $(($(cal "$1" bias_ns) - $(cal clock bias_ns)))
}
for m in $MECHS; do
	case $m in clock*) continue ;; esac
	echo "# $m adds $(added $m) ns to two back-to-back clock reads"
done
for f in $FUNCS; do
	plan 1
	check "$f: a probed empty call costs its caller something ($(cal $f cost_ns) ns)" \
		test "$(cal $f cost_ns)" -gt 0
done

# ftrace at a function entry saves no registers and dispatches no kprobe;
# under TCG a kprobe there (also through ftrace) measures about the same.
echo "# pair-ftrace-cpu adds $(added pair-ftrace-cpu) ns, pair-kprobe-cpu $(added pair-kprobe-cpu) ns"

# Entry lines carry their mechanism's bias: kretprobe for kw, the pair
# kinds for pairs (a mixed pair: the mean of its two kinds).
is "$(field kw bias_ns) $(field kw bias_p99_ns)" \
	"$(cal kretprobe bias_ns) $(cal kretprobe bias_p99_ns)" "kw shows the kretprobe bias"
is "$(ctl trace tpt start $TS end $TE key task)" OK "tracepoint pair, key task"
is "$(field tpt bias_ns)" "$(cal pair-tracepoint-task bias_ns)" "tpt shows the pair-tracepoint-task bias"
is "$(ctl trace mix start $MS end $TE)" OK "kprobe start, tracepoint end"
is "$(field mix hooks)" ftrace,tracepoint "the mixed pair: ftrace at the mark, a tracepoint"
is "$(field mix bias_ns)" \
	"$(( ($(cal pair-ftrace-cpu bias_ns) + $(cal pair-tracepoint-cpu bias_ns)) / 2 ))" \
	"a mixed pair shows the mean of both kinds"
# trace FUNC's default on every target, Debian 6.1 included.
is "$(ctl trace vfs_read as rd)" OK "trace vfs_read by default"
is "$(field rd mechanism) $(field rd bias_ns) $(field rd bias_p99_ns)" \
	"direct $(cal direct bias_ns) $(cal direct bias_p99_ns)" \
	"the default mechanism, direct, shows its bias"
is "$(ctl remove rd)" OK "remove rd"
# The calibration ran with the default clock: another clock, another bias.
if [ "$CLK" = "$CYC" ]; then
	plan 3
	is "$(ctl trace $FN via kretprobe clock mono as kmono)" OK "an entry with clock mono"
	is "$(field kmono bias_ns) $(field kmono bias_p99_ns)" "- -" \
		"clock mono where the calibration ran on the TSC: no bias shown"
	is "$(ctl remove kmono)" OK "remove kmono"
fi

# What the probe measures of an empty call is below what its caller
# measures of the same call (the helper times each call from outside).
is "$(helper new caller 4)" OK "caller-side entry"
is "$(helper work 400 0 caller)" OK "400 calls of $FN, each timed by its caller"
echo "# kw mean $(mean kw) ns, caller mean $(mean caller) ns; $(line kw)"
check "kretprobe: the probe's mean $(mean kw) < the caller's mean $(mean caller)" \
	test "$(mean kw)" -lt "$(mean caller)"
o=$(field kw overhead_ns)
check "overhead_ns $o > 0 after 400 hits" test "$o" -gt 0
o=$(field tpt overhead_ns)
check "overhead_ns $o > 0 for the tracepoint pair" test "$o" -gt 0
is "$(helper delete caller)" OK "delete the caller entry"

# A second calibration replaces the first.
is "$(ctl calibrate samples 100)" OK "calibrate samples 100"
is "$(cal clock samples)" 100 "the table is from the last calibration"
for e in kw tpt mix; do
	is "$(ctl remove $e)" OK "remove $e"
done
is "$(grep -c '^name ' "$KS/_control")" 0 "no entry left (calibration lines stay)"

# The calibration table lives as long as the module: unload both, so that
# the next scripts start with an empty _control.
check "rmmod kstats_helper" rmmod kstats_helper
check "rmmod kstats" rmmod kstats
