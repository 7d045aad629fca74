#!/bin/sh
# _control filters (pid, tid, comm, cpu; AND when combined) and value
# entries (argN, retval): exact counts from the helper's value functions,
# called from known processes, with known names, on known CPUs.
# timeout: 300
. /tests/lib.sh
plan 67
load_modules

V=kstats_helper_value
IV=kstats_helper_ivalue
MS=kstats_helper_mark_start
ME=kstats_helper_mark_end
EINVAL="Invalid argument"

# slots NAME: "SLOT:COUNT" of each aggregate line, in slot order
slots() { grep CPUS "$KS/$1" | awk '{ printf "%s%s:%s", s, $2, $6; s = " " }'; }
# avg NAME SLOT: mean of that slot's aggregate line
avg() { grep CPUS "$KS/$1" | awk -v s="$2" '$2 == s { print $8 }'; }

# A process that calls "value 7 5" on CPU 0 once released; its pid is
# known before it calls.
FIFO=/tmp/kst67.fifo
rm -f $FIFO
mkfifo $FIFO
taskset -c 0 sh -c "read x < $FIFO; echo -n 'value 7 5' > $HELPER" &
P=$!

is "$(ctl trace $V pid $P as vpid)" OK "pid filter"
is "$(ctl trace $V tid $P as vtid)" OK "tid filter"
is "$(ctl trace $V pid $P tid $$ as vand)" OK "pid and tid filters"
is "$(ctl trace $V comm kst67 as vcomm)" OK "comm filter"
is "$(ctl trace $V cpu 1 as vcpu)" OK "cpu filter"
is "$(ctl trace $V as vtime)" OK "no filter"
# The types, which BTF checks where the helper has it (not on 6.1).
is "$(ctl trace $V value arg2 type s64 as varg)" OK "value arg2"
is "$(ctl trace $V value arg2 type s64 via kretprobe as vargk)" OK "value arg2 via kretprobe"
is "$(ctl trace $V value retval type s64 as vret)" OK "value retval"
is "$(ctl trace $V value retval type s64 cpu 1 as vretc)" OK "value retval on cpu 1"
is "$(ctl trace $IV value retval type s32 as viret)" OK "value retval of an int function"

# The filters and values are listed as the grammar writes them.
is "$(field vpid pid) $(field vpid filtered)" "$P 0" "pid listed, filtered 0"
is "$(field vand pid) $(field vand tid)" "$P $$" "pid and tid listed"
is "$(field vcomm comm) $(field vcpu cpu)" "kst67 1" "comm and cpu listed"
is "$(field vtime filtered)" "" "no filter: no filtered count"
is "$(field varg value) $(field vret value) $(field vret errors)" "arg2 retval 0" \
	"value arg2, value retval errors 0"
is "$(field varg type) $(field viret type)" "s64 s32" "the types listed"
is "$(field varg clock)$(field vret clock)" "" "value entries list no clock"
# Value entries never go direct: fprobe, or a kprobe without fprobe.
W=kprobe
kernel_has fprobe && W=fprobe
is "$(field varg mechanism) $(field vargk mechanism)" "$W kprobe" \
	"value arg2 hooks no return: $W, and kprobe via kretprobe"

# The calls: 20 of kstats_helper_value, each from a process pinned to a CPU.
echo > $FIFO
wait $P
taskset -c 0 sh -c "echo -n kst67 > /proc/self/comm; echo -n 'value 3 4' > $HELPER"
for c in "1 9 3" "0 5 3" "0 20 2" "1 1000 1" "1 -22 2"; do
	set -- $c
	helper_on $1 value $2 $3
done
for c in "-5 4" "7 1" "0 1"; do
	is "$(helper ivalue $c)" OK "ivalue $c"
done

is "$(samples vpid) $(field vpid filtered)" "5 15" "pid: 5 calls measured, 15 filtered"
is "$(samples vtid) $(field vtid filtered)" "5 15" "tid: 5 calls measured, 15 filtered"
is "$(samples vand) $(field vand filtered)" "0 20" "pid and tid of two processes: none measured"
is "$(samples vcomm) $(field vcomm filtered)" "4 16" "comm: 4 calls measured, 16 filtered"
is "$(samples vcpu) $(field vcpu filtered)" "6 14" "cpu 1: 6 calls measured, 14 filtered"
is "$(samples vtime)" 20 "no filter: all 20 calls"

# arg2 lands in its value's slot (bits 4: one slot each below 32); -22 as
# a u64 in the last slot.
is "$(slots varg)" "3:4 5:3 7:5 9:3 20:2 111:1 975:2" "value arg2: exact slots"
is "$(slots vargk)" "3:4 5:3 7:5 9:3 20:2 111:1 975:2" "value arg2 via kprobe: exact slots"
is "$(avg varg 111)" 1000 "value arg2: slot 111 holds 1000"
is "$(slots vret) $(field vret errors)" "3:4 5:3 7:5 9:3 20:2 111:1 2" \
	"value retval: exact slots, the 2 returns of -22 counted as errors"
is "$(slots vretc) $(field vretc errors) $(field vretc filtered)" "9:3 111:1 2 14" \
	"value retval on cpu 1: its 6 calls, 2 of them errors"
is "$(slots viret) $(field viret errors)" "0:1 7:1 4" \
	"value retval of an int function: -5 is an error"
is "$(field varg overhead_ns) $(field vret bias_ns)" "- -" \
	"value entries time nothing: overhead_ns -, bias_ns -"

# A pair filtered at its start: ends of the starts left out are unpaired.
is "$(ctl trace pcpu1 start $MS end $ME cpu 1)" OK "pair filtered on cpu 1"
helper_on 0 work 4 1000
helper_on 1 work 3 1000
is "$(samples pcpu1) $(field pcpu1 filtered) $(field pcpu1 unpaired)" "3 4 4" \
	"pair: 3 measured on cpu 1, 4 starts filtered, their 4 ends unpaired"

# Refusals: EINVAL, one reason in the log, nothing changed.
before=$(cat "$KS/_control"; ls "$KS")
refuse() {
	log_mark
	is "$(ctl "$1")" "$EINVAL" "$3: EINVAL"
	is "$(log_new | grep -c "refused: .*$2")" 1 "$3: reason '$2' logged"
	is "$(cat "$KS/_control"; ls "$KS")" "$before" "$3: nothing changed"
}
refuse "trace $V cpu 4096 as vbad" "no such CPU" "cpu beyond the machine"
refuse "trace $V pid -1 as vbad" "pid must be" "negative pid"
refuse "trace $V comm 0123456789abcdef as vbad" "comm is at most" "comm too long"
refuse "trace $V value $PAST as vbad" "arg1 to arg$NARGS" "$PAST: past the register arguments"
refuse "trace pcpu:$V value arg1 as vbad" "only for trace FUNC" "value with pcpu:"
refuse "trace $V value retval clock mono as vbad" "reads no clock" "value with clock"

ALL="vpid vtid vand vcomm vcpu vtime varg vargk vret vretc viret pcpu1"
for e in $ALL; do
	is "$(ctl remove $e)" OK "remove $e"
done
rm -f $FIFO
