#!/bin/sh
# "trace ... outliers N": the N largest samples since the last reset, from
# every CPU, largest first, each with its time, CPU, task, key and kernel
# stack in _outliers/NAME. Exact order and fields from a value entry
# (values are exact, times under emulation are not) fed on known CPUs by
# processes of known names; a time entry's longest calls; reset, stop, a
# full store, a key, a request pair whose end runs in a kworker, the
# listing, refusals. Stacks that start at FUNC's caller through every
# mechanism, and "by stack" keys.
# timeout: 300
. /tests/lib.sh
plan 41
load_modules

W=kstats_helper_work
V=kstats_helper_value
O=$KS/_outliers
EINVAL="Invalid argument"
# The helper module has BTF on every target but deb61.
T=
[ -e /sys/kernel/btf/kstats_helper ] || T="type s64"
# value CPU COMM V K: a process named COMM makes K calls of the helper's
# value function with V on CPU; its pid goes into /tmp/kst92o.COMM.V.
value() {
	taskset -c "$1" sh -c "echo \$\$ > /tmp/kst92o.$2.$3; echo -n '$2' > /proc/self/comm;
		echo -n 'value $3 $4' > $HELPER"
}
# heads NAME: "RANK:VALUE:CPU:COMM" of each outlier line, in order
heads() {
	awk '$3 == "value" { print $2 ":" $4 ":" $10 ":" $16 }' "$O/$1" | tr '\n' ' ' | sed 's/ $//'
}

# Values are exact: the outliers of a value entry are known in advance.
is "$(ctl trace $V value arg2 $T outliers 3 as ko)" OK "trace ... outliers 3"
is "$(line ko | grep -c ' outliers 3 outliers_missed 0')" 1 "listing: outliers 3 outliers_missed 0"
is "$(cat "$O/ko")" "" "_outliers/ko: empty before any sample"
T0=$(date +%s)
U0=$(cut -d' ' -f1 /proc/uptime)
value 0 koa 5 20
value 1 kob 5 20
value 0 koa 300 1
value 1 kob 400 1
value 0 koa 100 1
value 1 kob 200 1
T1=$(date +%s)
U1=$(cut -d' ' -f1 /proc/uptime)
is "$(heads ko)" "1:400:1:kob 2:300:0:koa 3:200:1:kob" \
	"the 3 largest of both CPUs, largest first, with their CPU and comm"
is "$(awk '$3 == "value" { print $4; exit }' "$O/ko")" "$(field ko max)" "the first is the entry's max"
P=$(cat /tmp/kst92o.kob.400)
is "$(grep -c "^outlier 1 value 400 time [0-9]*\.[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9] mono [0-9]* cpu 1 pid $P tid $P comm kob$" "$O/ko")" 1 \
	"outlier 1: its pid and tid"
P=$(cat /tmp/kst92o.koa.300)
is "$(grep -c "^outlier 2 value 300 time [0-9.]* mono [0-9]* cpu 0 pid $P tid $P comm koa$" "$O/ko")" 1 \
	"outlier 2: its pid and tid"
S=$(awk '$2 == 1 && $3 == "value" { split($6, t, "."); print t[1] }' "$O/ko")
is "$([ "$S" -ge "$T0" ] && [ "$S" -le "$((T1 + 1))" ] && echo yes)" yes \
	"outlier 1: its time is the wall clock's ($T0 <= $S <= $T1)"
is "$(awk -v a="$U0" -v b="$U1" '$2 == 1 && $7 == "mono" { print ($8 / 1e9 >= a - 1 && $8 / 1e9 <= b + 1) }' "$O/ko")" 1 \
	"outlier 1: mono is CLOCK_MONOTONIC (between the uptimes $U0 and $U1 s)"
# arm64 before 6.13: the unwinder does not go on from a kprobe's exception
# to the link register, which holds the return into helper_run at the
# function's entry: the stack lacks that one caller (kstats.rst, Outliers).
if [ "$ARCH" = aarch64 ] && [ "$KVER" = 6.12 ]; then
	CALLERS=ksys_write
else
	CALLERS="helper_run ksys_write"
fi
is "$(grep -c -E '^outlier 1 stack (helper_run|ksys_write)\+0x[0-9a-f]+/0x[0-9a-f]+( \[kstats_helper\])?$' "$O/ko")" \
	"$(echo $CALLERS | wc -w)" "outlier 1: its stack has the callers, $CALLERS"
is "$(grep '^outlier [0-9]* stack' "$O/ko" | grep -c -E '\[kstats(_tramp)?\]')" 0 \
	"no frame of kstats itself"
is "$(grep -c '^outlier [0-9]* stack .*0x[0-9a-f]\{8\}' "$O/ko")" 0 "no frame as a raw address"

# Stopped: nothing kept; reset: all forgotten.
ctl stop ko > /dev/null
value 0 koc 900 1
is "$(heads ko)" "1:400:1:kob 2:300:0:koa 3:200:1:kob" "stopped: no new outlier"
ctl start ko > /dev/null
ctl reset ko > /dev/null
is "$(cat "$O/ko")" "" "reset: none left"
value 1 kod 7 1
value 0 kod 8 1
is "$(heads ko)" "1:8:0:kod 2:7:1:kod" "after the reset: the new ones only (2 of 3 places)"
value 1 kod 6 1
value 1 kod 9 1
is "$(heads ko)" "1:9:1:kod 2:8:0:kod 3:7:1:kod" "a full store gives up its least"
is "$(line ko | grep -c ' outliers_missed 0')" 1 "none missed"

# A time entry: the longest calls, by the one process that made them.
is "$(ctl trace $W outliers 2 as kt)" OK "trace FUNC outliers 2"
taskset -c 1 sh -c "echo \$\$ > /tmp/kst92o.kt; echo -n kot > /proc/self/comm;
	echo -n 'work 4 100000' > $HELPER"
P=$(cat /tmp/kst92o.kt)
sed 's/^/# /' "$O/kt"
is "$(grep -c "^outlier [12] value [0-9]* time [0-9.]* mono [0-9]* cpu 1 pid $P tid $P comm kot$" "$O/kt")" 2 \
	"time: 2 outliers, the process's"
is "$(awk '$3 == "value" { print ($4 >= 100000) }' "$O/kt" | tr -d '\n')" 11 "time: at least the 100 us asked"
is "$(awk '$3 == "value" { print $4; exit }' "$O/kt")" "$(field kt max)" "time: the first is the max"
is "$(awk '$3 == "value" { v[$2] = $4 } END { print (v[1] >= v[2]) }' "$O/kt")" 1 "time: largest first"
is "$(grep -c -E '^outlier 1 stack (helper_run|ksys_write)\+' "$O/kt")" 2 \
	"time: the stack has the callers"
ctl remove kt > /dev/null
# Through every mechanism, the stack starts at the caller that FUNC
# returned to, without the probe machinery's frames above it (direct's
# trampoline and FUNC's ftrace site below it, rethook's, fprobe's, the
# function graph's). But an fprobe's return on arm64 from 6.14 on (the
# function graph's): the unwinder there meets return_to_handler after
# the graph's stack gave up FUNC's return, and goes on at the caller's
# caller: no frame of the caller to start at (kstats.rst, Outliers).
VIAS=kretprobe
kernel_has fprobe && VIAS="kretprobe fprobe" && plan 2
LOST=
if [ "$ARCH" = aarch64 ] && { [ "${KVER%%.*}" -gt 6 ] ||
	{ [ "${KVER%%.*}" = 6 ] && [ "${KVER#*.}" -ge 14 ]; }; }; then
	LOST=fprobe
fi
for via in default $VIAS; do
	V2="via $via"
	[ "$via" = default ] && V2=
	is "$(ctl trace $W $V2 outliers 1 as kt$via)" OK "trace FUNC${V2:+ $V2} outliers 1 ($via)"
	taskset -c 1 sh -c "echo -n 'work 1 100000' > $HELPER"
	# helper_work(), inlined into helper_run() or not
	grep '^outlier 1 stack' "$O/kt$via" | sed 's/^/# /'
	if [ "$via" = "$LOST" ]; then
		is "$(grep -c -E '^outlier 1 stack helper_(work|run)\+' "$O/kt$via")" 0 \
			"$via: arm64 from 6.14: the unwinder leaves FUNC's caller out"
	else
		is "$(grep '^outlier 1 stack' "$O/kt$via" | head -n 1 |
			grep -c -E '^outlier 1 stack helper_(work|run)\+0x[0-9a-f]+/0x[0-9a-f]+ \[kstats_helper\]$')" \
			1 "$via: the stack starts at FUNC's caller"
	fi
	# One return hook at a time: stacked, a hook may be handed another's
	# trampoline as the address FUNC returns to (kstats.rst, Outliers).
	ctl remove kt$via > /dev/null
done

# by stack: the stack where FUNC returns to as a key, cut as an outlier's
# is: kstats_helper_work() called 5 times from helper_work() and 3 times,
# nested, from itself.
# innermost NAME: "FRAME:COUNT" of each stack key's innermost frame
innermost() {
	keys "$1" | tr ' ' '\n' | sed -E 's/^.*;([^;]*):([0-9]+)$/\1:\2/; s/\+0x[0-9a-f]+//;
		s/\[kstats_helper\]//; s/^helper_run:/helper_work:/' | sort | tr '\n' ' ' | sed 's/ $//'
}
for via in default $VIAS; do
	plan 4
	V2="via $via"
	[ "$via" = default ] && V2=
	is "$(ctl trace $W by stack $V2 as ks$via)" OK "trace FUNC by stack${V2:+ $V2} ($via)"
	echo -n 'work 2 0' > $HELPER
	echo -n 'nest 3 0' > $HELPER
	if [ "$via" = "$LOST" ]; then
		# Two stacks still, without their callers' frames.
		is "$(keys ks$via | tr ' ' '\n' | sed 's/.*://' | sort -n | tr '\n' ' ')" "3 5 " \
			"by stack, $via: two stacks, 5 calls and 3 nested"
		is "$(field ks$via keys) $(field ks$via keys_dropped)" "2 0" \
			"by stack, $via: 2 keys, none dropped"
	else
		is "$(innermost ks$via)" "helper_work:5 kstats_helper_work:3" \
			"by stack, $via: 5 calls from helper_work, 3 nested"
		is "$(grep '^key .* min ' $KS/_keys/ks$via | grep -c -E \
			';helper_(work|run)\+0x[0-9a-f]+\[kstats_helper\];kstats_helper_work\+0x[0-9a-f]+\[kstats_helper\] min ')" 1 \
			"by stack, $via: the nested calls' stack, outermost first"
	fi
	is "$(ctl remove ks$via)" OK "removed"
done
log_mark
is "$(ctl trace $W by stack outliers 2 as kbad)" "Operation not supported" "by stack with outliers: refused"
is "$(ctl trace kbad gap kstats_helper_mark_start by stack)" \
	"Operation not supported" "by stack on a gap: refused"
is "$(log_new | grep -c -E 'by stack with outliers: each outlier has its stack already|by: a gap spans two hits of any tasks; no key')" 2 \
	"the reasons logged"

# With keys: the sample's key.
is "$(ctl trace $V value arg2 $T by comm outliers 1 as kok)" OK "by comm outliers 1"
value 0 kkk 500 1
is "$(grep -c '^outlier 1 value 500 .* comm kkk key kkk$' "$O/kok")" 1 "the outlier's key"

# A request pair: the end, and so the outlier, is the kworker's.
U=
[ -e /sys/kernel/btf/kstats_helper ] || U="type u64"
is "$(ctl trace kor start kstats_helper_req_start end kstats_helper_req_end key arg1 $U outliers 1)" OK \
	"a request pair with outliers 1"
is "$(helper req 8 20000)" OK "8 requests"
is "$(grep -c '^outlier 1 value .* comm kworker/' "$O/kor")" 1 "who ended it: a kworker"
is "$(grep -c '^outlier 1 stack helper_req_end_fn+' "$O/kor")" 1 "where: helper_req_end_fn"

# Bad input: refused, nothing made.
log_mark
is "$(ctl trace $W outliers 0 as bad)" "$EINVAL" "outliers 0: EINVAL"
is "$(ctl trace $W outliers 257 as bad)" "$EINVAL" "outliers 257: EINVAL"
is "$(log_new | grep -c 'refused: outliers must be 1 to 256')" 2 "reason logged"
is "$(nglob "$O/bad")" 0 "no file for a refused trace"

for e in ko kok kor; do
	ctl remove $e > /dev/null
done
is "$(ls "$O" | wc -l)" 0 "_outliers: empty once they are removed"
