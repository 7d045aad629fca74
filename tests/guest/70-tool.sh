#!/bin/sh
# The kstats command (tool/kstats, /usr/bin/kstats in the guest: its zipapp) against
# the live debugfs files: trace, list, show, stop/start/reset, watch, save,
# diff, export and remove, and how it reports a command the kernel refuses.
# timeout: 900
. /tests/lib.sh
plan 32
load_modules

FN=kstats_helper_work
K=150
D=20000

# json FILE KEY...: top-level values of a saved "kstats show --json".
json() {
	f=$1
	shift
	python3 -c "import json, sys
d = json.load(open('$f'))
print(' '.join(str(d[k]) for k in sys.argv[1:]))" "$@"
}
# has TEXT PATTERN: TEXT has a line matching PATTERN.
has() { echo "$1" | grep -q -- "$2"; }

check "python3 and kstats run in the guest" kstats --version

# trace: the command prints what it wrote and the new _control line.
out=$(kstats trace $FN bits 3 2>&1)
is "$(echo "$out" | head -n 1)" "ok: trace $FN bits 3" "kstats trace $FN bits 3"
check "it prints the new entry's _control line" \
	has "$out" "^name $FN origin control .* bits 3 .*state running"
helper work $K $D >/dev/null
is "$(kstats list --json | python3 -c "import json, sys
for r in json.load(sys.stdin):
	if r['name'] == '$FN':
		print(r['origin'], r['bits'], r['state'], r['samples'])")" \
	"control 3 running $K" "kstats list --json: origin, bits, state, samples"
kstats list | sed 's/^/#   /'

# show agrees with the raw file, count exactly.
kstats show $FN --json >/tmp/show.json
is "$(json /tmp/show.json count)" "$K" "kstats show --json: count $K"
is "$(json /tmp/show.json count)" "$(samples $FN)" "show's count is the raw file's"
check "show's mean is at least the $D ns busy wait" \
	python3 -c "import sys; sys.exit(not $(json /tmp/show.json mean) >= $D)"
kstats show $FN >/tmp/show.txt
check "show prints percentiles and a histogram" \
	sh -c "grep -q '^p99 ' /tmp/show.txt && grep -q '|@' /tmp/show.txt"
sed 's/^/#   /' /tmp/show.txt | head -n 16

# stop, start and reset through the command.
kstats stop $FN
helper work 10 1000 >/dev/null
is "$(samples $FN)" $K "kstats stop: nothing counted while stopped"
kstats start $FN
kstats reset $FN
is "$(samples $FN)" 0 "kstats start, kstats reset: empty"

# save two snapshots of one run; and one of a run 4 times slower.
helper work $K $D >/dev/null
kstats save $FN /tmp/fast >/dev/null
kstats reset $FN
helper work $K $((4 * D)) >/dev/null
kstats save $FN /tmp/slow >/dev/null
same=$(kstats diff /tmp/fast /tmp/fast)
is "$(echo "$same" | grep -c 'No difference proven at 97.5% confidence')" 2 \
	"kstats diff of one snapshot with itself: no difference in mean or median"
diff=$(kstats diff /tmp/fast /tmp/slow)
# The verdict; the mean's test may miss it when a few preempted calls of
# milliseconds widen its interval, the median's may not.
is "$(echo "$diff" | grep -E '^(Verdict|Median):')" "Median: Difference at 97.5% confidence
Verdict: different" "kstats diff of a $D ns and a $((4 * D)) ns run: a difference"
echo "$diff" | grep -E '^(Mean|Median)|Difference' | sed 's/^/#   /'

# export: OpenMetrics lines for the live entry.
exp=$(kstats export --openmetrics $FN)
is "$(echo "$exp" | grep "^kstats_duration_seconds_count{entry=\"$FN\"}" | awk '{ print $2 }')" \
	"$K" "kstats export: _count of the entry"
is "$(echo "$exp" | tail -n 1)" "# EOF" "kstats export ends with # EOF"

# Writing commands refuse a saved capture (not debugfs), which stays as it
# was.
kstats save --all /tmp/cap >/dev/null
sums=$(md5sum /tmp/cap/* | sort)
err=$(kstats --dir /tmp/cap stop $FN 2>&1)
is "$?" 1 "kstats --dir CAPTURE stop exits 1"
is "$err" "kstats: error: /tmp/cap is not on debugfs (a saved capture?): stop writes only to the live kstats directory" \
	"and says why"
err=$(KSTATS_DIR=/tmp/cap kstats reset $FN 2>&1)
is "$?" 1 "KSTATS_DIR=CAPTURE kstats reset exits 1"
is "$(md5sum /tmp/cap/* | sort)" "$sums" "the capture's files are unchanged"
# (The live directory passed the same check: stop, start and reset above.)
n=$(samples $FN)

# Units and the summary line; standard input with --label.
line=$(kstats show $FN | sed -n 4p)
check "kstats show: summary line with units ($line)" \
	sh -c "echo '$line' | grep -Eq '^count $n  min [0-9.]+(ns|us|ms)  mean .*  p99 [0-9.]+(ns|us|ms)  p99.9\* [0-9.]+(ns|us|ms)$'"
is "$(kstats show - --label $FN --json <"$KS/$FN" | python3 -c "import json, sys
d = json.load(sys.stdin)
print(d['name'], d['count'], d['unit'])")" "$FN $n ns" "cat FILE | kstats show - --label NAME"
err=$(kstats export --openmetrics -o /nonexistent/dir/x.prom 2>&1)
is "$?:$(echo "$err" | wc -l)" "1:1" "export to a missing directory: exit 1, one line"

# watch: the second refresh shows the samples recorded since the first.
rm -f /tmp/stop
sh -c "while [ ! -e /tmp/stop ]; do echo 'work 20 1000' > $HELPER; done" &
out=$(kstats watch $FN -i 2 -n 2 --no-clear)
: >/tmp/stop
wait
echo "$out" | sed 's/^/#   /'
last=$(echo "$out" | awk '$1 == "last" { n = $4 } END { print n + 0 }')
check "kstats watch: samples in the last interval ($last)" test "$last" -gt 0
out=$(kstats watch $FN -i 1 -n 2 --json)
is "$(echo "$out" | python3 -c "import json, sys
docs = [json.loads(l) for l in sys.stdin]
print(len(docs), docs[0]['interval'], docs[1]['total']['count'] == docs[0]['total']['count'] + docs[1]['interval']['count'])")" \
	"2 None True" "kstats watch --json: one object per interval, intervals add up"

# A refused command: errno in words and the kernel's reason, exit 1.
err=$(kstats trace no_such_function_kst 2>&1)
rc=$?
is "$rc" 1 "kstats trace of a missing symbol exits 1"
check "it names the errno" has "$err" 'ENOENT (No such file or directory)'
check "and the kernel's reason" has "$err" 'kernel: .*no symbol no_such_function_kst'
echo "$err" | sed 's/^/#   /'
err=$(kstats remove no_such_entry 2>&1)
is "$?" 1 "kstats remove of a missing entry exits 1"
check "it names ENOENT" has "$err" ENOENT

# The printed line is the new entry's, wherever it is listed.
out=$(kstats trace pcpu:$FN as pw 2>&1)
is "$(echo "$out" | sed -n 2p | cut -d' ' -f1-6)" "name pw origin control mechanism pcpu-$(
	kernel_has fprobe && echo fprobe || echo kretprobe)" \
	"kstats trace pcpu:$FN as pw prints pw's line"
is "$(kstats remove pw $FN)" "removed pw
removed $FN" "kstats remove pw $FN"
check "the entry is gone" test ! -e "$KS/$FN"
is "$(kstats list | grep -c "^$FN ")" 0 "kstats list no longer has it"
