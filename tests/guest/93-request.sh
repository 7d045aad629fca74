#!/bin/sh
# Request pairs, "trace NAME start X end Y key argN": each end pairs with
# the pending start whose Nth argument is equal, whatever the CPU and the
# task. The helper starts requests in the writer on one CPU and ends them
# in a kworker on another: key task pairs none of them, key arg1 all.
# Restarts, unpaired ends, expiry, a full table and the refusals are
# counted exactly, and by KEY is the starting task's; then the block
# layer of a null_blk disk, against the disk's own count of completed
# reads, by comm of the reader (by the disk's name and by the request's
# flags: 61-truth.sh).
# timeout: 400
. /tests/lib.sh
plan 96
load_modules

RS=kstats_helper_req_start
RE=kstats_helper_req_end
TPS=__tracepoint_kstats_helper_start
TPE=__tracepoint_kstats_helper_end
EINVAL="Invalid argument"
ENOTSUP="Operation not supported"
# The helper module has BTF on every target but deb61: there the key's
# type must be given.
T='' T32=''
if [ ! -e /sys/kernel/btf/kstats_helper ]; then
	plan 2
	log_mark
	is "$(ctl trace rq start $RS end $RE key arg1)" "$EINVAL" "no BTF, no type: EINVAL"
	is "$(log_new | grep -c "refused: key arg1: $RS has no BTF: give the argument's type")" 1 \
		"no BTF, no type: reason logged"
	T="type u64" T32="type u32"
fi
# counts NAME: "count unpaired restarted expired dropped"
counts() {
	echo "$(samples "$1") $(field "$1" unpaired) $(field "$1" restarted) $(field "$1" expired) $(field "$1" dropped)"
}

is "$(ctl trace rq start $RS end $RE key arg1 $T)" OK "trace rq ... key arg1"
is "$(ctl trace rqt start $RS end $RE key task)" OK "the same pair, key task"
is "$(line rq | grep -c ' mechanism pair key arg1 targets kstats_helper_req_start,kstats_helper_req_end ')" 1 \
	"listing: key arg1"
is "$(line rq | grep -c ' dropped 0 unpaired 0 restarted 0 expired 0 slots 4096 expire 30 ')" 1 \
	"listing: the table's counters, size and expiry"
is "$(helper req 128 2000)" OK "128 requests, ended on another CPU"
is "$(counts rq)" "128 0 0 0 0" "key arg1: all 128 paired"
is "$(below rq 2000)" 0 "key arg1: no sample under the 2000 ns between start and end"
is "$(samples rqt) $(field rqt unpaired)" "0 128" "key task: none paired (the issue's 0 of 128)"
ctl remove rqt > /dev/null

# A start of a pending key restarts it; an end with none pending is unpaired.
is "$(helper reqstart 10)" OK "10 starts"
is "$(helper reqstart 10)" OK "the same 10 again"
is "$(helper reqend 10)" OK "their 10 ends"
is "$(helper reqend 5)" OK "5 ends with no start"
is "$(counts rq)" "138 5 10 0 0" "restarted 10, paired 10 more, unpaired 5"

# stop: the starts of before do not pair with the ends of after.
is "$(helper reqstart 4)" OK "4 starts"
ctl stop rq > /dev/null
ctl start rq > /dev/null
is "$(helper reqend 4)" OK "their ends after a stop and start"
is "$(counts rq)" "138 9 10 0 0" "no pair across a stop: 4 more unpaired"

# The tracepoints, with their argument (an unsigned int: 4 bytes of the
# register are the key).
is "$(ctl trace rqtp start $TPS end $TPE key arg1 $T32)" OK \
	"tracepoints, key arg1"
is "$(line rqtp | grep -c ' hooks tracepoint,tracepoint ')" 1 "tracepoints: hooked so"
is "$(helper req 64 1000)" OK "64 requests"
is "$(counts rqtp)" "64 0 0 0 0" "tracepoints: all 64 paired"
ctl remove rqtp > /dev/null
ctl remove rq > /dev/null

# by KEY: the key of the task that started each request, not of the
# kworker that ends it on the other CPU.
is "$(ctl trace rqc start $RS end $RE key arg1 by comm $T)" OK "key arg1 by comm"
is "$(ctl trace rqp start $RS end $RE key arg1 by pid $T)" OK "key arg1 by pid"
is "$(ctl trace rqu start $RS end $RE key arg1 by cpu outliers 1 $T)" OK \
	"key arg1 by cpu, outliers 1"
taskset -c 0 sh -c "echo \$\$ > /tmp/kst93.pid; echo -n kreq93 > /proc/self/comm;
	echo -n 'req 32 1000' > $HELPER"
P=$(cat /tmp/kst93.pid)
is "$(keys rqc)" "kreq93:32" "by comm: all 32 under the comm of the task that started them"
is "$(keys rqp)" "$P:32" "by pid: the starter's pid"
is "$(keys rqu)" "0:32" "by cpu: the CPU of the starts"
is "$(samples rqc) $(field rqc unpaired) $(field rqc keys) $(field rqc keys_dropped)" \
	"32 0 1 0" "by comm: 32 samples, 1 key, none dropped"
is "$(grep -c '^outlier 1 value .* cpu 1 .* key 0$' "$KS/_outliers/rqu")" 1 \
	"the outlier: recorded on the kworker's CPU 1, under the start's key 0"
is "$(helper reqend 3)" OK "3 ends with no start"
is "$(samples rqp) $(field rqp unpaired) $(keys rqp)" "32 3 $P:32" \
	"an end without a start: unpaired, under no key"
ctl remove rqc > /dev/null
ctl remove rqp > /dev/null
ctl remove rqu > /dev/null
# by argN: the start's argument (the request's id, 0 to 31), kept with the
# start. Where the helper has no BTF, one type cannot serve both key and
# by: there key arg1 type u64 alone was checked above.
if [ -z "$T" ]; then
	plan 3
	is "$(ctl trace rqa start $RS end $RE key arg1 by arg2 keys 40)" OK "key arg1 by arg2"
	is "$(helper req 32 1000)" OK "32 requests"
	is "$(field rqa keys) $(field rqa keys_dropped) $(keys rqa | tr ' ' '\n' | grep -c -E '^([0-9]|[12][0-9]|3[01]):1$')" \
		"32 0 32" "by arg2: the ids 0 to 31, one request each"
	ctl remove rqa > /dev/null
fi

# Each side its own key: the request's id is kstats_helper_req_start's
# second argument and the end tracepoint's first.
is "$(ctl trace rqs start $RS key arg2 end $TPE key arg1 $T32)" OK \
	"start ... key arg2 end ... key arg1"
is "$(line rqs | grep -c ' mechanism pair key arg2,arg1 targets ')" 1 "listing: key arg2,arg1"
is "$(helper req 64 1000)" OK "64 requests"
is "$(counts rqs)" "64 0 0 0 0" "a key per side: all 64 paired"
ctl remove rqs > /dev/null

# Several starts: each request is started twice, by the function and then
# by its tracepoint (a restart), and ended once.
is "$(ctl trace rqm start $RS key arg2 start $TPS key arg1 end $RE key arg2 $T32)" OK \
	"two starts, each with its key"
is "$(line rqm | grep -c " key arg2|arg1,arg2 targets $RS|$TPS,$RE hooks [a-z]*|tracepoint,[a-z]* ")" 1 \
	"listing: both starts, their keys and hooks"
is "$(helper req 32 1000)" OK "32 requests"
is "$(counts rqm)" "32 0 32 0 0" "32 pairs, each started twice"
ctl remove rqm > /dev/null
# runqlat's pair: from a task's wakeup, or its preemption while still
# runnable, to its next switch-in, keyed by the task's address.
RUNQ="start __tracepoint_sched_wakeup key arg1 start __tracepoint_sched_wakeup_new key arg1"
RUNQ="$RUNQ start __tracepoint_sched_switch key arg2 if arg4 == 0 end __tracepoint_sched_switch key arg3"
is "$(ctl trace runq $RUNQ)" OK "runqlat's line"
is "$(line runq | grep -c ' key arg1|arg1|arg2,arg3 targets __tracepoint_sched_wakeup|__tracepoint_sched_wakeup_new|__tracepoint_sched_switch,__tracepoint_sched_switch hooks tracepoint|tracepoint|joined,tracepoint if -|-|arg4==0,- ')" 1 \
	"listing: three starts, one of them conditional"

# The same line keyed by pid: a field path through BTF, read at the hit.
RUNQ="start __tracepoint_sched_wakeup key arg1->pid start __tracepoint_sched_wakeup_new key arg1->pid"
RUNQ="$RUNQ start __tracepoint_sched_switch key arg2->pid if arg4 == 0 end __tracepoint_sched_switch key arg3->pid"
is "$(ctl trace runqp $RUNQ)" OK "runqlat's line by pid"
is "$(line runqp | grep -c ' key arg1->pid|arg1->pid|arg2->pid,arg3->pid targets .* faulted 0 ')" 1 \
	"listing: the field paths, faulted 0"
for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do sleep 0.01; done
check "runq: at least the 20 wakeups of the sleeps ($(samples runq))" test "$(samples runq)" -ge 20
check "runq by pid: at least the 20 wakeups of the sleeps ($(samples runqp))" \
	test "$(samples runqp)" -ge 20
ctl remove runq > /dev/null
ctl remove runqp > /dev/null
# Field paths into the helper's struct helper_req (its id is set by
# kstats_helper_req_start, read at kstats_helper_req_end's entry), where
# the helper has BTF.
if [ -z "$T" ]; then
	plan 7
	is "$(ctl trace rqp start $RS key arg2 end $RE key 'arg1->id' if 'arg1->id' '<' 8)" OK \
		"end ... key arg1->id if arg1->id < 8"
	is "$(line rqp | grep -c ' key arg2,arg1->id targets .* if -,arg1->id<8 .* unpaired 0 faulted 0 ')" 1 \
		"listing: the field paths"
	is "$(helper req 32 1000)" OK "32 requests"
	is "$(counts rqp)" "8 0 0 0 0" "the ids the struct holds: 8 pairs, the other ends left out"
	ctl remove rqp > /dev/null
	is "$(ctl trace pk start kstats_helper_req_peek key 'arg1->id' end $RE key arg2)" OK \
		"a field path through a pointer that may be NULL"
	is "$(helper reqpeek 16)" OK "16 calls, 8 of them with NULL"
	is "$(field pk faulted) $(field pk dropped) $(field pk unpaired)" "8 0 0" \
		"faulted 8: the NULL ones left out"
	ctl remove pk > /dev/null

	# by EXPR after a site is read there: a char array as a string key
	# (the name that the start wrote, read at the end), an integer member
	# at the start, a bare argN after the end of a pair of two starts.
	plan 15
	is "$(ctl trace rqn start $RS key arg2 end $RE key arg2 by 'arg1->name')" OK \
		"end ... by arg1->name"
	is "$(line rqn | grep -c ' by arg1->name type string at end keys ')" 1 \
		"listing: by arg1->name type string at end"
	is "$(ctl trace rqi start $RS key arg2 by 'arg1->id' end $RE key arg2 keys 40)" OK \
		"start ... by arg1->id"
	is "$(line rqi | grep -c ' by arg1->id type u32 keys ')" 1 "listing: by arg1->id type u32"
	is "$(ctl trace rqe start $RS key arg2 start $TPS key arg1 end $RE key arg2 by arg2 keys 40)" \
		OK "two starts, by arg2 after the end"
	is "$(line rqe | grep -c ' by arg2 type u32 at end ')" 1 "listing: the end's arg2"
	is "$(helper req 32 1000)" OK "32 requests"
	is "$(keys rqn)" "rq0:8 rq1:8 rq2:8 rq3:8" "by arg1->name: 8 requests under each name"
	is "$(field rqn keys) $(field rqn faulted) $(samples rqn)" "4 0 32" \
		"by arg1->name: 4 keys, no fault, 32 samples"
	is "$(field rqi keys) $(keys rqi | tr ' ' '\n' | grep -c -E '^([0-9]|[12][0-9]|3[01]):1$')" \
		"32 32" "by arg1->id at the start: the ids 0 to 31, one request each"
	is "$(field rqe keys) $(keys rqe | tr ' ' '\n' | grep -c -E '^([0-9]|[12][0-9]|3[01]):1$')" \
		"32 32" "by arg2 at the end: the ids 0 to 31, one request each"
	ctl remove rqn > /dev/null
	ctl remove rqi > /dev/null
	ctl remove rqe > /dev/null
	# A string through a NULL pointer: no key (other), counted in faulted.
	is "$(ctl trace pkn start kstats_helper_req_peek key arg2 by 'arg1->name' end $RE key arg2)" OK \
		"by arg1->name at a start whose arg1 may be NULL"
	is "$(helper reqpeek 16) $(field pkn faulted)" "OK 8" "faulted 8: the NULL ones' names"
	ctl remove pkn > /dev/null
	log_mark
	is "$(ctl trace bad start $RS key arg2 by 'arg1->name' start $TPS key arg1 end $RE key arg2)" \
		"$EINVAL" "by arg1->name after one of two starts: EINVAL"
	is "$(log_new | grep -c 'refused: by argN at a start: one start only')" 1 \
		"by arg1->name after one of two starts: reason logged"

	# by stack at the start: the stack where each request started.
	plan 3
	is "$(ctl trace rqk start $RS key arg2 by stack end $RE key arg2)" OK "start ... by stack"
	is "$(helper req 32 1000)" OK "32 requests"
	is "$(field rqk keys) $(keys rqk | grep -c ';helper_write+0x[0-9a-f]*\[kstats_helper\];.*:32$')" "1 1" \
		"by stack: one stack, through the helper's write, 32 samples"
	echo "# rqk: $(keys rqk)"
	ctl remove rqk > /dev/null
fi

# if argN OP NUMBER after a side: only its hits that compare so count.
# Starts of ids 0 to 15, ends of every id but 3: 15 pairs, the ends of 16
# to 31 unpaired, the start of 3 left pending.
is "$(ctl trace rqi start $RS key arg2 if arg2 '<' 16 end $RE if arg2 '!=' 3 $T32)" OK \
	"start ... if arg2 < 16 end ... if arg2 != 3"
is "$(line rqi | grep -c ' key arg2 targets .* if arg2<16,arg2!=3 ')" 1 "listing: both conditions"
is "$(helper req 32 1000)" OK "32 requests"
is "$(counts rqi)" "15 16 0 0 0" "if: 15 pairs, 16 ends unpaired"
is "$(helper reqstart 4)" OK "4 starts more, of ids 0 to 3"
is "$(helper reqend 4)" OK "and their ends"
is "$(counts rqi)" "18 16 1 0 0" "ids 0 to 2 paired, id 3 restarted and its end left out"
ctl remove rqi > /dev/null
# On tracepoints, with key cpu's default pairing.
is "$(ctl trace tpi start $TPS if arg1 '>' 9 end $TPE if arg1 == 12 $T32)" OK \
	"tracepoints: start if arg1 > 9, end if arg1 == 12, key cpu"
is "$(helper irqend 16 1000)" OK "16 starts and ends on one CPU"
is "$(samples tpi) $(field tpi unpaired)" "1 0" "one pair: id 12's start and end"
ctl remove tpi > /dev/null

# Expiry: starts never ended go after expire N s (checked every N/2 s).
is "$(ctl trace rqx start $RS end $RE key arg1 expire 1 $T)" OK "expire 1"
is "$(helper reqstart 7)" OK "7 starts never ended"
i=0
while [ "$(field rqx expired)" != 7 ] && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
is "$(field rqx expired)" 7 "expired 7"
is "$(helper reqend 7)" OK "their ends, late"
is "$(counts rqx)" "0 7 0 7 0" "late ends are unpaired"
ctl remove rqx > /dev/null

# A full table: 100 keys for 64 slots; each key's start is in one of the
# 16 slots from its home, or dropped.
is "$(ctl trace rqf start $RS end $RE key arg1 slots 64 $T)" OK "slots 64"
is "$(helper reqstart 100)" OK "100 starts"
D=$(field rqf dropped)
is "$([ "$D" -ge 36 ] && echo yes)" yes "at least 36 of 100 dropped (got $D)"
is "$(helper reqend 100)" OK "their ends"
is "$(counts rqf)" "$((100 - D)) $D 0 0 $D" "each start kept is paired, each dropped one's end unpaired"
ctl remove rqf > /dev/null

# Refusals: a clear errno, one logged reason each, nothing created. The
# log takes 10 refusals in 5 s: two windows of five.
# refuse WANT REASON DESC COMMAND...
refuse() {
	want=$1 why=$2 desc=$3
	shift 3
	is "$(ctl "$@")" "$want" "$desc"
	is "$(log_new | grep -c "refused: $why")" 1 "$desc: reason logged"
}
log_mark
refuse "$EINVAL" "key argN, if argN: start is SYMBOL+OFFSET, where the argument registers may hold anything" \
	"key argN at SYMBOL+OFFSET: EINVAL" trace bad start $RS+4 end $RE key arg1 $T
refuse "$EINVAL" "key must be cpu, task or arg1 to arg$NARGS" "key arg0: EINVAL" \
	trace bad start $RS end $RE key arg0
refuse "$EINVAL" "expire is only for key argN" "expire without key argN: EINVAL" \
	trace bad start $RS end $RE key task expire 5
refuse "$EINVAL" "expire must be 1 to 3600 seconds" "expire 0: EINVAL" \
	trace bad start $RS end $RE key arg1 expire 0 $T
refuse "$ENOTSUP" "by syscall: only for a key task pair that ends at __tracepoint_sys_exit" \
	"by syscall with key argN: EOPNOTSUPP" trace bad start $RS end $RE key arg1 by syscall $T
log_mark
refuse "$EINVAL" "clock local is only for pcpu: and key cpu" "clock local with key argN: EINVAL" \
	trace bad start $RS end $RE key arg1 clock local $T
refuse "$EINVAL" "counter needs start and end on one CPU" "counter with key argN: EINVAL" \
	trace bad start $RS end $RE key arg1 counter cycles $T
refuse "$ENOTSUP" "tracepoint sched_process_free has no argument 2" \
	"a tracepoint without that argument: EOPNOTSUPP" \
	trace bad start __tracepoint_sched_process_free end $RE key arg2 $T
refuse "$ENOTSUP" "key arg6: a tracepoint's probe has arg1 to arg5 in registers" \
	"key arg6 of a tracepoint: EOPNOTSUPP" trace bad start $TPS end $TPE key arg6 $T
refuse "$EINVAL" "key must be cpu, task or arg1 to arg$NARGS" "key $PAST: EINVAL" \
	trace bad start $RS end $RE key $PAST
# The log's next window of refusals.
sleep 5
log_mark
refuse "$EINVAL" "if arg2: 4294967296 is no u32 value (start $RS)" \
	"if: a NUMBER beyond the argument's type: EINVAL" \
	trace bad start $RS if arg2 == 4294967296 end $RE $T32
refuse "$EINVAL" "if arg2: -1 is no u32 value (end $RE)" \
	"if: a negative NUMBER for an unsigned argument: EINVAL" \
	trace bad start $RS end $RE if arg2 '>' -1 $T32
refuse "$EINVAL" "if must follow start SITE or end SITE" "if before start and end: EINVAL" \
	trace bad if arg1 == 0 start $RS end $RE
refuse "$EINVAL" "the starts have keys of their own that differ: give the end one" \
	"two starts with keys that differ, an end without: EINVAL" \
	trace bad start $RS key arg2 start $TPS key arg1 end $RE $T32
refuse "$ENOTSUP" "arg1->comm of tracepoint sched_wakeup is not an integer" \
	"a string as a pair key: EOPNOTSUPP" \
	trace bad start __tracepoint_sched_wakeup key 'arg1->comm' end __tracepoint_sched_switch key 'arg3->comm'
if [ -z "$T" ]; then
	plan 4
	refuse "$ENOTSUP" "arg1 of kstats_helper_req_start has no member nosuch" \
		"a member that is not there: EOPNOTSUPP" trace bad start $RS end $RE key 'arg1->nosuch'
	refuse "$ENOTSUP" "arg2 of kstats_helper_req_start is no pointer: ->id cannot follow it" \
		"a path from an integer: EOPNOTSUPP" trace bad start $RS end $RE key 'arg2->id'
else
	plan 2
	refuse "$ENOTSUP" "key arg1->id: $RE has no BTF, which a field path needs" \
		"a field path without BTF: EOPNOTSUPP" trace bad start $RS key arg2 end $RE key 'arg1->id' $T32
fi
is "$(grep -c '^name bad ' "$KS/_control")" 0 "nothing created"

# The block layer: biolatency's pair on a null_blk disk. Each completed
# read is one request (direct I/O of one block each).
if [ ! -e /modules/extra/null_blk.ko ]; then
	plan 1
	skip_part "block layer: no null_blk module for this kernel"
else
	plan 6
	# configfs is a module on Debian's kernels, which null_blk needs.
	grep -q configfs /proc/filesystems || insmod /modules/extra/configfs.ko
	is "$(insmod /modules/extra/null_blk.ko nr_devices=1 queue_mode=2 2>&1)" "" "null_blk loaded"
	is "$(ctl trace bio start __tracepoint_block_rq_issue end __tracepoint_block_rq_complete key arg1 by comm)" OK \
		"trace bio ... key arg1 by comm"
	R0=$(awk '{ print $1 }' /sys/block/nullb0/stat)
	dd if=/dev/nullb0 of=/dev/null bs=4096 count=64 iflag=direct 2>/dev/null
	R1=$(awk '{ print $1 }' /sys/block/nullb0/stat)
	is "$((R1 - R0))" 64 "64 reads completed (the disk's count)"
	is "$(samples bio) $(field bio unpaired) $(field bio dropped)" "64 0 0" \
		"bio: one sample per completed request, none unpaired"
	# Issued by dd, or by kblockd's worker where the queue ran later.
	echo "# bio by comm: $(keys bio)"
	is "$(keys bio | tr ' ' '\n' | grep -v -E '^(dd|kworker/[0-9:HuU]+):' | wc -l) $(keys bio |
		tr ' ' '\n' | awk -F: '{ n += $NF } END { print n }')" "0 64" \
		"bio by comm: 64 requests, under dd or a kworker"
	is "$(keys bio | grep -c 'dd:')" 1 "bio by comm: dd issued requests"
	ctl remove bio > /dev/null
	# biolatency -D and -F: 61-truth.sh, on two disks.
	rmmod null_blk
fi
is "$(grep -c -E '^name (rq|bio|bad)' "$KS/_control")" 0 "no request entry left"
