#!/bin/sh
# The lines of kstats runqlat, cpudist, offcpu and biolatency -D and -F
# against independent truths.
# The scheduler: kstats_sched_truth's four kthreads (a napper in two
# named functions, a spinner on CPU 0, a waiter behind a hog on CPU 1,
# one step after the other) are timed by that module's own probes on the
# same tracepoints, beside one entry at a time: two probes on each, one
# before kstats' and one after, so each interval has an inner length
# (the last probe's start to the first's end) and an outer one (the
# first's start to the last's end), and kstats' sample lies between them
# however long the guest stalls between the probes (TCG runs one vCPU at
# a time, and a turn of the other lasts up to 100 ms). Per thread, the
# counts agree within 2 (a start that meets its slot busy on another CPU
# is dropped); the lower median lies between the inner lengths' sample
# two ranks below the median's and the outer lengths' two ranks above,
# widened by a slot of bits 4 (1/16); the sum lies between the inner
# lengths' sum and the outer's (less or more the two largest where the
# counts differ), widened by 1/64 and 1 us a sample (the module's clock
# is not kstats'). The stack keys name the
# two functions, whose sleeps last at least their lengths, the long
# one's median above the short's.
# The block layer: two null_blk disks whose requests complete on a timer,
# 250 us and 2.5 ms after they are issued: each disk's key has exactly
# as many samples as its own count of completed reads grew by, and each
# median is at least its completion time.
# timeout: 600
. /tests/lib.sh
plan 1
load_modules

N=20
SHORT=2000
LONG=8000
BURST=1000
T=/sys/kernel/debug/kstats_sched_truth
THREADS="ktruth_nap ktruth_spin ktruth_wait ktruth_hog"

check "kstats_sched_truth loads" insmod "$(ko kstats_sched_truth)"

# kstat NAME REGEX: "count median sum" of the keys of _keys/NAME that
# match REGEX, their slots summed: the lower median is the average of the
# first slot whose cumulative count reaches (count + 1) / 2.
kstat() {
	grep CPUS "$KS/_keys/$1" |
		awk -v re="$2" '$1 == "key" && $2 ~ re { c[$4] += $8; s[$4] += $8 * $10 }
			END { for (k in c) print k, c[k], s[k] }' |
		sort -n | awk '{ c[NR] = $2; s[NR] = $3; n += $2; t += $3 }
			END { r = int((n + 1) / 2); med = 0
				for (i = 1; i <= NR; i++) { m += c[i]; if (m >= r) { med = s[i] / c[i]; break } }
				printf "%d %d %.0f\n", n, med, t }'
}
# truth KIND WHAT: "count lo hi sum_lo sum_hi top2_lo top2_hi" from the
# module.
truth() { awk -v k="$1" -v w="$2" '$1 == k && $2 == w { print $4, $6, $8, $10, $12, $14, $16 }' $T/results; }
# agree WHAT KSTATS TRUTH: kstats' count, median and sum against the
# module's bounds.
agree() {
	set -- "$1" $2 $3
	check "$1: count $2 against $5, median $3 in [$6, $7] ns, sum $4 in [$8, $9] ns" \
		awk -v kc="$2" -v km="$3" -v ks="$4" -v tc="$5" -v lo="$6" -v hi="$7" \
			-v slo="$8" -v shi="$9" -v tlo="${10}" -v thi="${11}" 'BEGIN {
			d = kc - tc; if (d < 0) d = -d
			if (kc < tc) slo -= tlo; if (kc > tc) shi += thi
			exit !(tc > 0 && d <= 2 && km >= lo * 15 / 16 && km <= hi * 17 / 16 &&
				ks >= slo * 63 / 64 - 1000 * kc && ks <= shi * 65 / 64 + 1000 * kc) }'
}

# round NAME LINE [NAME2 LINE2]: the module's threads run with one entry,
# NAME, traced by LINE (@NAP in it: the napper's pid), once they exist;
# beside the module's probes alone, as the probes of another entry would
# run between the module's clock read and this one's, at one end of an
# interval and not at the other. NAME2, traced after it, runs after it.
round() {
	is "$(write_err $T/ctl "prepare $N $SHORT $LONG $BURST")" OK "$1: four threads created"
	NAP=$(awk '$1 == "pid" && $2 == "ktruth_nap" { print $3 }' $T/results)
	is "$(ctl trace "$1" "$(echo "$2" | sed "s/@NAP/${NAP:-0}/")")" OK "$1: traced"
	[ -z "${3:-}" ] || is "$(ctl trace "$3" "$4")" OK "$3: traced after it"
	is "$(write_err $T/ctl run)" OK "$1: the threads ran and exited"
	echo stop > "$KS/$1"
	[ -z "${3:-}" ] || echo stop > "$KS/$3"
	sed "s/^/# $1 truth: /" $T/results
}

RUNQ="start __tracepoint_sched_wakeup key arg1->pid start __tracepoint_sched_wakeup_new key arg1->pid"
RUNQ="$RUNQ start __tracepoint_sched_switch key arg2->pid if arg4 == 0"
RUNQ="$RUNQ end __tracepoint_sched_switch key arg3->pid if arg3->pid != 0 by arg3->comm"
ONCPU="start __tracepoint_sched_switch key arg3->pid if arg3->pid != 0"
ONCPU="$ONCPU end __tracepoint_sched_switch key arg2->pid if arg2->pid != 0 by arg2->comm"
OFFCPU="start __tracepoint_sched_switch key arg2->pid if arg2->pid == @NAP by stack"
OFFCPU="$OFFCPU end __tracepoint_sched_switch key arg3->pid"

# kstats runqlat -c ktruth_wait's line (an "if" on a name) beside it:
# the waiter's pairs only, exactly.
RUNQC=$(echo "$RUNQ" | sed 's/if arg3->pid != 0/if arg3->comm == "ktruth_wait"/')
plan 5
round runq "$RUNQ" runqc "$RUNQC"
is "$(field runqc if)" '-|-|arg4==0,arg3->comm=="ktruth_wait"' "listing: the end's condition on a name"
plan 6
for t in $THREADS; do
	agree "runq $t" "$(kstat runq "^$t\$")" "$(truth runq $t)"
done
is "$(keys runqc | sed 's/:[0-9]*//g') $(field runqc faulted)" "ktruth_wait 0" \
	"runqc: the waiter's key only, no read faulted"
is "$(keys runqc | sed 's/.*://')" "$(truth runq ktruth_wait | cut -d' ' -f1)" \
	"runqc: the waiter's pairs, as many as the module's"
# A name compares with a char array only, and fits in it with its NUL.
plan 6
log_mark
SW=__tracepoint_sched_switch
is "$(ctl trace bad "start $SW key arg3->pid if arg3->pid == \"x\" end $SW key arg2->pid")" \
	"Invalid argument" "if arg3->pid == \"x\": EINVAL"
check "if arg3->pid == \"x\": reason logged" logged 'if arg3->pid: not a char array (a name), which a "STRING" compares with'
is "$(ctl trace bad "start $SW key arg3->pid if arg3->comm < \"x\" end $SW key arg2->pid")" \
	"Invalid argument" "if arg3->comm < \"x\": EINVAL"
check "if arg3->comm < \"x\": reason logged" logged 'if: a string compares with == or != only'
is "$(ctl trace bad "start $SW key arg3->pid if arg3->comm == \"0123456789abcdef\" end $SW key arg2->pid")" \
	"Invalid argument" "a name of 16 characters: EINVAL"
is "$(ctl remove runqc) $(grep -c '^name bad ' "$KS/_control")" "OK 0" "remove runqc; nothing made of the refusals"
plan 3
round oncpu "$ONCPU"
plan 4
for t in $THREADS; do
	agree "oncpu $t" "$(kstat oncpu "^$t\$")" "$(truth oncpu $t)"
done
plan 3
round offcpu "$OFFCPU"
plan 6
for f in kstats_truth_nap_short kstats_truth_nap_long; do
	agree "offcpu in $f" "$(kstat offcpu "$f\\\\+")" "$(truth offcpu_in $f)"
	# A sleep whose timer expires before it switches out has no
	# interval (once in 20 on the debug kernel).
	n=$(truth offcpu_in $f | cut -d' ' -f1)
	check "$f: the module saw at least $((N / 2)) of its $N sleeps ($n)" test "${n:-0}" -ge $((N / 2))
done
agree "offcpu ktruth_nap, every stack" "$(kstat offcpu .)" "$(truth offcpu ktruth_nap)"
s=$(kstat offcpu 'kstats_truth_nap_short\\+' | cut -d' ' -f2)
l=$(kstat offcpu 'kstats_truth_nap_long\\+' | cut -d' ' -f2)
check "the medians in order: $SHORT us <= short $s ns < long $l ns, $LONG us <= long" \
	test "${s:-0}" -ge $((SHORT * 1000)) -a "${l:-0}" -gt "${s:-0}" -a "${l:-0}" -ge $((LONG * 1000))

plan 4
for e in runq oncpu offcpu; do
	is "$(ctl remove $e)" OK "remove $e"
done
check "rmmod kstats_sched_truth" rmmod kstats_sched_truth

# biolatency -D and -F: by the disk's name and by the request's flags,
# fields of the request that the end reads.
plan 13
grep -q configfs /proc/filesystems || insmod /modules/extra/configfs.ko
grep -q ' /sys/kernel/config ' /proc/mounts || mount -t configfs none /sys/kernel/config
is "$(insmod /modules/extra/null_blk.ko nr_devices=0 2>&1)" "" "null_blk loaded, no disk"
C=/sys/kernel/config/nullb
for d in kfast:250000 kslow:2500000; do
	mkdir $C/${d%:*}
	echo 2 > $C/${d%:*}/irqmode
	echo ${d#*:} > $C/${d%:*}/completion_nsec
	echo 1 > $C/${d%:*}/power
done
# disk DIR: its disk's name: its configfs directory's, or nullbN by its index.
disk() { if [ -e /sys/block/$1 ]; then echo $1; else echo "nullb$(cat $C/$1/index)"; fi; }
FAST=$(disk kfast)
SLOW=$(disk kslow)
check "two disks, $FAST and $SLOW" test -b /dev/$FAST -a -b /dev/$SLOW
BIO="start __tracepoint_block_rq_issue key arg1 end __tracepoint_block_rq_complete key arg1"
is "$(ctl trace biod $BIO by 'arg1->q->disk->disk_name')" OK \
	"trace biod ... by arg1->q->disk->disk_name"
is "$(ctl trace biof $BIO by 'arg1->cmd_flags')" OK "trace biof ... by arg1->cmd_flags"
is "$(line biod | grep -c ' by arg1->q->disk->disk_name type string at end ')" 1 \
	"listing: the disk's name, a string, at the end"
# reads DISK: the disk's own count of completed reads.
reads() { awk '{ print $1 }' /sys/block/$1/stat; }
F0=$(reads $FAST)
S0=$(reads $SLOW)
dd if=/dev/$FAST of=/dev/null bs=4096 count=40 iflag=direct 2>/dev/null
dd if=/dev/$SLOW of=/dev/null bs=4096 count=24 iflag=direct 2>/dev/null
F=$(($(reads $FAST) - F0))
S=$(($(reads $SLOW) - S0))
for e in biod biof; do echo stop > "$KS/$e"; done
check "the disks completed the reads made: $F of 40, $S of 24" test $F -ge 40 -a $S -ge 24
kf=$(kstat biod "^$FAST\$")
ks=$(kstat biod "^$SLOW\$")
echo "# biod: $(keys biod); $FAST: $kf; $SLOW: $ks (count median sum)"
is "${kf%% *} ${ks%% *} $(field biod faulted)" "$F $S 0" \
	"by disk_name: exactly the reads each disk completed, no read of the path faulted"
kf=$(echo "$kf" | cut -d' ' -f2)
ks=$(echo "$ks" | cut -d' ' -f2)
check "medians in order: 250 us <= $FAST's $kf ns, 2.5 ms <= $SLOW's $ks ns" \
	test "$kf" -ge 250000 -a "$ks" -ge 2500000 -a "$ks" -gt "$kf"
echo "# biof: $(keys biof)"
# The flags' low byte is the operation: REQ_OP_READ, 0.
is "$(keys biof | tr ' ' '\n' | awk -F: '$1 % 256 == 0 { n += $2 } END { print n + 0 }') $(samples biof)" \
	"$((F + S)) $((F + S))" "by cmd_flags: every read under flags of REQ_OP_READ"
is "$(ctl remove biod)" OK "remove biod"
is "$(ctl remove biof)" OK "remove biof"
rmdir $C/kfast $C/kslow
check "rmmod null_blk" rmmod null_blk
is "$(cat "$KS/_control")" "" "_control empty at the end"
