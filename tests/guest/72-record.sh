#!/bin/sh
# kstats record and heatmap against a live entry: the interval deltas of
# workloads with known call counts add up to them, per CPU too; a reset
# between reads is marked and neither loses nor doubles a call; the
# recording reads back (show, heatmap --json). Polls, no timing limits.
# timeout: 600
. /tests/lib.sh
plan 17
load_modules

FN=kstats_helper_work
R=/tmp/rec
K1=40
K2=25
K3=30
D=2000

kstats trace $FN bits 3 >/dev/null
check "kstats trace $FN" test -e "$KS/$FN"

# nlines: interval lines recorded so far in $R/_record.
nlines() { tail -n +2 $R/_record 2>/dev/null | wc -l; }
# wait_for CMD...: polls CMD every 0.1 s, at most 900 times.
wait_for() {
	i=0
	until "$@"; do
		i=$((i + 1))
		[ $i -ge 900 ] && return 1
		sleep 0.1
	done
}
at_least() { [ "$(nlines)" -ge "$1" ]; }
# settle: two more intervals, the second read entirely after the calls
# made before settle, so that they are all in the recording.
settle() { wait_for at_least $(($(nlines) + 2)); }
# total FIELD VALUE: sum of the counts of the _record lines whose FIELD
# is VALUE ("" for all).
total() {
	awk -v k="$1" -v v="$2" 'NR > 1 {
		for (i = 1; i < NF; i += 2) f[$i] = $(i + 1)
		if (k == "" || f[k] == v) n += f["count"] } END { print n + 0 }' $R/_record
}
# cpu_sum N: the samples of CPU N in every interval's delta file.
cpu_sum() {
	cat $R/[0-9]*/$FN | awk -v c="$1" '$3 == "CPU" && $4 == c { n += $6 } END { print n + 0 }'
}

rm -rf $R
kstats record $FN -i 0.2 -o $R >/tmp/rec.out 2>&1 &
pid=$!
check "kstats record writes its index after the first read" wait_for test -f $R/_record
helper_on 0 work $K1 $D
settle
helper_on 1 work $K2 $D
settle
kstats reset $FN
check "a reset between two reads is marked" wait_for grep -q ' delta reset why counts ' $R/_record
helper_on 0 work $K3 $D
kill -TERM $pid
wait $pid
is "$?" 0 "kstats record stops on SIGTERM with status 0"
sed 's/^/#   /' /tmp/rec.out | tail -n 4
check "after its last read" grep -q 'stopped by a signal' /tmp/rec.out

is "$(total "" "")" $((K1 + K2 + K3)) "the interval deltas add up to the $((K1 + K2 + K3)) calls"
is "$(grep -c ' delta reset ' $R/_record)" 1 "one interval marked reset"
is "$(awk '/ delta reset / { r = 1 } r && NR > 1 { print }' $R/_record |
	awk '{ for (i = 1; i < NF; i += 2) if ($i == "count") n += $(i + 1) } END { print n + 0 }')" \
	$K3 "from the reset on: the $K3 calls made after it"
is "$(grep -c ' delta ok ' $R/_record)" $(($(nlines) - 1)) "every other interval a delta"
is "$(cpu_sum 0):$(cpu_sum 1)" "$((K1 + K3)):$K2" "per CPU: $((K1 + K3)) on CPU 0, $K2 on CPU 1"
is "$(grep CPUS $R/start/$FN | awk '{ n += $6 } END { print n + 0 }')" 0 "start/: the first read, empty"
is "$(grep CPUS $R/end/$FN | awk '{ n += $6 } END { print n + 0 }'):$(samples $FN)" "$K3:$K3" \
	"end/: the last read, as the live file"

# The busiest interval is a capture that show reads.
busy=$(awk 'NR > 1 { for (i = 1; i < NF; i += 2) f[$i] = $(i + 1)
	if (f["count"] > n) { n = f["count"]; d = f["dir"] } } END { print d, n }' $R/_record)
is "$(kstats --dir $R/${busy% *} show $FN --json | python3 -c "import json, sys
print(json.load(sys.stdin)['count'])")" "${busy#* }" "kstats --dir REC/${busy% *} show: the interval's count"
is "$(kstats heatmap $R --json | python3 -c "import json, sys
d = json.load(sys.stdin)
print(sum(map(sum, d['counts'])), len(d['intervals']), d['bits'])")" \
	"$((K1 + K2 + K3)) $(nlines) 3" "kstats heatmap --json: every call in a cell, one row per interval"
err=$(kstats heatmap $R -o /tmp/h.png 2>&1)
is "$?:$(echo "$err" | wc -l)" "1:1" "heatmap -o without gnuplot: exit 1, one line"
echo "# $err"

# --duration fixes the number of intervals: 1 s / 0.2 s.
kstats record $FN -i 0.2 -d 1 -o /tmp/rec2 >/dev/null
is "$(tail -n +2 /tmp/rec2/_record | wc -l)" 5 "kstats record -i 0.2 -d 1: 5 intervals"

kstats remove $FN >/dev/null
check "the trace is removed" test ! -e "$KS/$FN"
