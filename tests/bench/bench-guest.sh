#!/bin/sh
# Guest side of "make bench" (scripts/bench.sh), busybox sh, one CPU.
# For each round, for each configuration: set it up, run
# "bench-mark dd SIZE" and "bench-mark dd 2*SIZE" (each executes two
# markers that the QEMU plugin counts instructions at), tear it down.
# Prints, in order, one line per bench-mark run:
#   run CONFIG ROUND N NS
# and "skip CONFIG REASON" for configurations this kernel lacks. The host
# pairs the k-th run line with the k-th pair of plugin markers.
# On a real machine (scripts/bench-host.sh, PERF=1 in the configuration),
# "perf stat" counts each run instead: "run CONFIG ROUND N NS INSN CYCLES".
# Its stdout is the results port (guest-init.sh: the second serial port on
# x86, the virtio serial port kstats.results on arm64). Without
# kstats_bench_exp.ko (built for x86 only: it times with the TSC, as on
# the arm64 targets), experiments 2 and 3 are skipped, with a line
# "skip experiment-N REASON" each.
. "${KSTATS_BENCH_CONF:-/etc/kstats-bench.conf}"
# IRQSYMS=1 (bench.sh, x86-64): only the interrupts' entries, which the
# next boot's plugin leaves out from (nokaslr: the same addresses).
if [ -n "${IRQSYMS:-}" ]; then
	awk '$2 ~ /^[tT]$/ && ($3 == "asm_common_interrupt" ||
		$3 == "asm_spurious_interrupt" || $3 ~ /^asm_sysvec_/) {
		print "irqsym", $1, $3 }' /proc/kallsyms
	exit 0
fi
M=${MODDIR:-/modules}
K=/sys/kernel/debug/kstats
T=/sys/kernel/tracing
[ -d $T ] || T=/sys/kernel/debug/tracing
mount -t tracefs tracefs $T 2>/dev/null

echo "# kernel $(uname -r)"
insmod "$M/kstats.ko" || echo "# insmod kstats failed"
F=/sys/kernel/debug/kstats_floor/attach
insmod "$M/kstats_floor.ko" || echo "# insmod kstats_floor failed"
E=/sys/kernel/debug/kstats_bench_exp
EXP=1
if [ -e "$M/kstats_bench_exp.ko" ]; then
	insmod "$M/kstats_bench_exp.ko" || echo "# insmod kstats_bench_exp failed"
else
	EXP=
	echo "# no kstats_bench_exp.ko for $(uname -m) (x86 only, the TSC): experiments 2 and 3 skipped"
fi

ctl() {
	echo "$1" >$K/_control
}

# kstats entry NAME created by _control command $2, stopped if $3 = stopped.
ks_on() {
	ctl "$2" || return 1
	[ "$3" != stopped ] || echo stop >"$K/$1"
}

# Offset of the first instruction after vfs_read's fentry call, where a
# pair side is a kprobe: 9 after an endbr64, else 5. arm64: after the two
# instructions of the patchable entry (the second, the ftrace call site,
# takes no kprobe), 12 after a BTI landing pad, else 8.
kp_off() {
	offs="9 5"
	[ "$(uname -m)" != aarch64 ] || offs="8 12"
	for o in $offs; do
		if ctl "trace kpoff start vfs_read+$o end vfs_write+$o" 2>/dev/null; then
			ctl 'remove kpoff'
			echo "$o"
			return
		fi
	done
	echo "${offs##* }"
}

# The user function of the uf-* configurations, and its offset in the
# file as kstats' listing gives it (uprobe_events takes no symbol).
UF=/usr/bin/bench-mark:bench_ufunc
uf_off() {
	ctl "trace $UF as uo" || return 1
	sed -n 's/^name uo .* offset \(0x[0-9a-f]*\).*/\1/p' $K/_control
	ctl 'remove uo'
}

# ftrace: a hist trigger $2 on event $1 (system/event); "!" + it removes it.
trig() {
	echo "$2" >>"$T/events/$1/trigger"
}

# Latency histogram through a synthetic event: from event $1 to event $2
# of the same task, both with a hist trigger keyed on common_pid.
synth_on() {
	echo 'bench_lat u64 lat' >>$T/synthetic_events || return 1
	trig "$1" 'hist:keys=common_pid:ts0=common_timestamp' &&
	trig "$2" "hist:keys=common_pid:lat=common_timestamp-\$ts0:onmatch(${1%/*}.${1#*/}).trace(bench_lat,\$lat)" &&
	trig synthetic/bench_lat 'hist:keys=lat.log2'
}

synth_off() {
	trig synthetic/bench_lat '!hist:keys=lat.log2'
	trig "$2" "!hist:keys=common_pid:lat=common_timestamp-\$ts0:onmatch(${1%/*}.${1#*/}).trace(bench_lat,\$lat)"
	trig "$1" '!hist:keys=common_pid:ts0=common_timestamp'
	echo '!bench_lat u64 lat' >>$T/synthetic_events
}

# On ($1 = on) or off: a latency histogram from probe $4's entry to its
# return, events bench/$3 and bench/$3ret of file $2 (kprobe_events,
# uprobe_events), through a synthetic event.
synth_probe() {
	if [ "$1" = on ]; then
		echo "p:bench/$3 $4" >>"$T/$2" &&
			echo "r:bench/${3}ret $4" >>"$T/$2" &&
			synth_on "bench/$3" "bench/${3}ret"
	else
		synth_off "bench/$3" "bench/${3}ret"
		echo "-:bench/${3}ret" >>"$T/$2"
		echo "-:bench/$3" >>"$T/$2"
	fi
}

# A probe event $2 (kprobe_events or dynamic_events syntax, in file $1)
# named bench/$3 with a hist trigger counting hits per task.
pev_on() {
	echo "$2" >>"$T/$1" && trig "bench/$3" 'hist:keys=common_pid'
}

pev_off() {
	trig "bench/$3" '!hist:keys=common_pid'
	echo "-:bench/$3" >>"$T/$1"
}

# Set up ($1 = on) or tear down ($1 = off) configuration $2; fails if this
# kernel lacks it. Its variables must not clash with the caller's ($c).
config() {
	on=$1
	case $2 in
	untraced | busybox-dd | loop-*-none | pp-off | exit-off | uf-off) ;;
	loop-*-stopped | loop-*-running)
		[ "$1" = off ] || echo "${2##*-}" | sed 's/running/start/;s/stopped/stop/' >$K/bench_loop ;;
	pp-kstats) config "$1" kstats-tp-pair-task ;;
	pp-runqlat) config "$1" kstats-runqlat ;;
	pp-offcpu) config "$1" kstats-offcpu ;;
	exit-direct) config "$1" kstats-direct ;;
	pp-ftrace) config "$1" ftrace-synth-syscall ;;
	uf-kstats) config "$1" kstats-ufunc ;;
	uf-kstats-stopped) config "$1" kstats-ufunc-stopped ;;
	uf-ftrace) config "$1" ftrace-synth-ufunc ;;
	floor-*)
		if [ "$on" = on ]; then
			case $2 in
			floor-tracepoint) echo tracepoint sys_enter >$F ;;
			*) echo "${2#floor-} vfs_read" >$F ;;
			esac
		else
			echo off >$F
		fi ;;
	kstats-*)
		case $2 in
		*-stopped) kst=stopped kc=${2%-stopped} ;;
		*) kst=running kc=$2 ;;
		esac
		case $kc in
		kstats-trace) cmd='trace vfs_read as e' ;;
		kstats-kretprobe) cmd='trace vfs_read via kretprobe as e' ;;
		kstats-fprobe) cmd='trace vfs_read via fprobe as e' ;;
		kstats-direct) cmd='trace vfs_read via direct as e' ;;
		# The default clock is the TSC where usable: mono side by side.
		kstats-trace-mono) cmd='trace vfs_read clock mono as e' ;;
		kstats-direct-mono) cmd='trace vfs_read via direct clock mono as e' ;;
		kstats-entry-pair-cpu-mono) cmd='trace e start vfs_read end vfs_write key cpu clock mono' ;;
		kstats-pcpu) cmd='trace pcpu:vfs_read as e' ;;
		kstats-entry-pair-cpu) cmd='trace e start vfs_read end vfs_write key cpu' ;;
		kstats-entry-pair-task) cmd='trace e start vfs_read end vfs_write key task' ;;
		kstats-kprobe-pair-cpu | kstats-kprobe-pair-task)
			o=$(kp_off)
			cmd="trace e start vfs_read+$o end vfs_write+$o key ${kc##*-}" ;;
		kstats-tp-pair-cpu) cmd='trace e start __tracepoint_sys_enter end __tracepoint_sys_exit key cpu' ;;
		kstats-tp-pair-task) cmd='trace e start __tracepoint_sys_enter end __tracepoint_sys_exit key task' ;;
		# Every call left out by a filter (no task has tgid 0).
		kstats-filtered) cmd='trace vfs_read pid 0 as e' ;;
		kstats-value-arg) cmd='trace vfs_read value arg3 as e' ;;
		kstats-value-retval) cmd='trace vfs_read value retval as e' ;;
		kstats-gap) cmd='trace e gap vfs_read' ;;
		kstats-counter) cmd='trace vfs_read counter page-faults as e' ;;
		kstats-by-comm) cmd='trace vfs_read by comm as e' ;;
		kstats-by-pid) cmd='trace vfs_read by pid as e' ;;
		kstats-by-arg) cmd='trace vfs_read by arg3 as e' ;;
		kstats-outliers) cmd='trace vfs_read outliers 10 as e' ;;
		kstats-ufunc) cmd="trace $UF as e" ;;
		# The scheduler's pairs as kstats runqlat and offcpu write them.
		kstats-runqlat)
			cmd='trace e key arg1->pid start __tracepoint_sched_wakeup start __tracepoint_sched_wakeup_new'
			cmd="$cmd start __tracepoint_sched_switch key arg2->pid if arg4 == 0"
			cmd="$cmd end __tracepoint_sched_switch key arg3->pid if arg3->pid != 0" ;;
		kstats-offcpu)
			cmd='trace e start __tracepoint_sched_switch key arg2->pid if arg2->pid != 0 by stack'
			cmd="$cmd end __tracepoint_sched_switch key arg3->pid if arg3->pid != 0" ;;
		*) return 1 ;;
		esac
		if [ "$on" = on ]; then
			ks_on e "$cmd" "$kst"
		else
			# What the entry saw: a trace that counts nothing is no trace.
			echo "# $2: $(grep '^name e ' $K/_control) samples $(awk \
				'$3 == "CPUS" { s += $6 } END { print s + 0 }' $K/e)"
			ctl 'remove e'
		fi ;;
	ftrace-syscall-hist)
		if [ "$on" = on ]; then
			trig raw_syscalls/sys_enter 'hist:keys=id'
		else
			trig raw_syscalls/sys_enter '!hist:keys=id'
		fi ;;
	ftrace-kprobe-hist | ftrace-kretprobe-hist | ftrace-fprobe-hist)
		case $2 in
		*-kprobe-*) f=kprobe_events ev='p:bench/kp vfs_read' ;;
		*-kretprobe-*) f=kprobe_events ev='r:bench/kp vfs_read' ;;
		*) f=dynamic_events ev='f:bench/kp vfs_read%return' ;;
		esac
		[ -e "$T/$f" ] || return 1
		if [ "$on" = on ]; then
			pev_on $f "$ev" kp
		else
			pev_off $f '' kp
		fi ;;
	ftrace-synth-syscall)
		if [ "$on" = on ]; then
			synth_on raw_syscalls/sys_enter raw_syscalls/sys_exit
		else
			synth_off raw_syscalls/sys_enter raw_syscalls/sys_exit
		fi ;;
	ftrace-synth-ufunc)
		[ -e $T/uprobe_events ] || return 1
		o=
		[ "$on" = off ] || o=$(uf_off) || return 1
		synth_probe "$on" uprobe_events uf "${UF%%:*}:$o" ;;
	ftrace-synth-vfs-read) synth_probe "$on" kprobe_events rd vfs_read ;;
	*) return 1 ;;
	esac
}

BM=bench-mark
[ -z "${PERF:-}" ] || BM="perf stat -x, -e instructions,cycles -o /tmp/perf.csv bench-mark"

# The workload of configuration $1, $2 iterations; prints "ns TIME".
work() {
	case $1 in
	busybox-dd)
		$BM run dd if=/dev/zero of=/dev/null bs=1 count="$2" 2>&1 |
			grep '^ns' ;;
	loop-*-none) $BM write $E/loop "$(echo "$1" | cut -d- -f2) none $2" ;;
	loop-*) $BM write $E/loop "$(echo "$1" | cut -d- -f2) record $2" ;;
	pp-*) $BM pingpong "$2" ;;
	exit-*) $BM forkexit "$2" ;;
	uf-*) $BM ufunc "$2" ;;
	*) $BM dd "$2" ;;
	esac
}

KS="kstats-trace kstats-kretprobe kstats-fprobe kstats-direct kstats-pcpu
kstats-entry-pair-cpu kstats-entry-pair-task kstats-kprobe-pair-cpu
kstats-kprobe-pair-task kstats-tp-pair-cpu kstats-tp-pair-task kstats-gap"
ALL="untraced busybox-dd floor-kretprobe floor-kprobe floor-fprobe
floor-fprobe-entry floor-ftrace floor-direct floor-tracepoint"
for c in $KS; do
	ALL="$ALL $c $c-stopped"
done
# Clock mono where the default is the TSC, filters, values and counters:
# running only.
ALL="$ALL kstats-trace-mono kstats-direct-mono kstats-entry-pair-cpu-mono"
ALL="$ALL kstats-filtered kstats-value-arg kstats-value-retval kstats-counter"
ALL="$ALL kstats-by-comm kstats-by-pid kstats-by-arg kstats-outliers"
ALL="$ALL ftrace-syscall-hist ftrace-kprobe-hist ftrace-kretprobe-hist
ftrace-fprobe-hist ftrace-synth-syscall ftrace-synth-vfs-read
loop-empty-none loop-empty-stopped loop-empty-running loop-memcpy-none
loop-memcpy-stopped loop-memcpy-running loop-mono-none loop-local-none
loop-tsc-none pp-off pp-kstats pp-ftrace pp-runqlat pp-offcpu exit-off exit-direct
uf-off uf-kstats uf-kstats-stopped uf-ftrace"
CONFIGS=${CONFIGS:-$ALL}
# Experiment 3's configurations need kstats_bench_exp.ko.
if [ -z "$EXP" ]; then
	echo "skip experiment-3 no kstats_bench_exp.ko for $(uname -m) (x86 only)"
	c=
	for x in $CONFIGS; do
		case $x in
		loop-*) ;;
		*) c="$c $x" ;;
		esac
	done
	CONFIGS=$c
fi

r=1
while [ "$r" -le "$ROUNDS" ]; do
	for c in $CONFIGS; do
		if ! config on "$c" 2>/tmp/err; then
			[ "$r" = 1 ] && echo "skip $c $(head -n 1 /tmp/err)"
			config off "$c" 2>/dev/null
			continue
		fi
		for n in $SIZE $((SIZE * 2)); do
			# The empty loop runs 2 instructions an iteration, a clock
			# loop about 50: more of them, or an interrupt around the
			# loop (its irqs-off part) would show in the difference.
			case $c in
			loop-empty-* | loop-mono-* | loop-local-* | loop-tsc-*)
				n=$((n * 20)) ;;
			# A fork and exit is some 200 dd iterations' work; a
			# uprobe's traps about ten in time under TCG.
			exit-*) n=$((n / 100)) ;;
			uf-*) n=$((n / 10)) ;;
			esac
			out=$(work "$c" "$n")
			if [ -n "${PERF:-}" ]; then
				out="$out $(awk -F, '$3 ~ /^instructions/ { i = $1 }
					$3 ~ /^cycles/ { c = $1 } END { print i + 0, c + 0 }' /tmp/perf.csv)"
			fi
			echo "run $c $r $n ${out#ns }"
			case $c in
			loop-*) echo "loopns $c $r $(cat $E/loop)" ;;
			esac
		done
		config off "$c" || echo "# teardown of $c failed"
	done
	r=$((r + 1))
done

# Experiment 5's time, which the instruction counts of a whole fork and
# exit scatter too much to show: a pair from acct_process() to
# exit_sem(), the calls around sched_process_exit in do_exit() (6.1 to
# 6.18), per exiting task, without and with a direct entry on vfs_read
# (each exit then walks the dying task's stack). One line a round:
# "exitwalk ROUND MEAN_NS_WITHOUT MEAN_NS_WITH", SIZE/20 exits each (at
# least 10). With the exit-* configurations only (not the cost gate's).
exit_mean() {
	awk '$3 == "CPUS" { n += $6; s += $6 * $8 } END { if (n) printf "%.0f", s / n }' "$K/ew"
}
NEXITS=$((SIZE / 20))
[ "$NEXITS" -ge 10 ] || NEXITS=10
exits() {
	i=0
	while [ $i -lt "$NEXITS" ]; do
		( : )
		i=$((i + 1))
	done
}
exit_walk() {
	if ! ctl 'trace ew start acct_process end exit_sem key task' 2>/dev/null; then
		echo "skip exitwalk no pair acct_process -> exit_sem here"
		return
	fi
	exits
	r=1
	while [ "$r" -le "$ROUNDS" ]; do
		echo reset >"$K/ew"
		exits
		off=$(exit_mean)
		ctl 'trace vfs_read via direct as dv'
		echo reset >"$K/ew"
		exits
		on=$(exit_mean)
		ctl 'remove dv'
		echo "exitwalk $r $off $on"
		r=$((r + 1))
	done
	ctl 'remove ew'
}
case " $CONFIGS " in
*" exit-direct "*) exit_walk ;;
esac

# PROFILE=1: the kernel's and modules' text symbols, for profile.py.
[ -z "${PROFILE:-}" ] ||
	awk '$2 ~ /^[tT]$/ { print "ksym", $0 }' /proc/kallsyms

# Experiment 2: clock reads and kstats_record() in the kernel, then the
# runtime of an empty function under each mechanism, as the TSC sees it
# around the call and, for kstats, as its own histogram has it.
if [ -z "$EXP" ]; then
	echo "skip experiment-2 no kstats_bench_exp.ko for $(uname -m) (x86 only)"
	exit 0
fi
echo "${CLOCKS:-10000}" >$E/clocks && sed 's/^/clocks /' $E/clocks

# Value of the first CPUS line of entry $1 whose cumulative p reaches $2.
kpct() {
	awk -v q="$2" '$3 == "CPUS" && $10 >= q { print $8; exit }' "$K/$1"
}

for m in none floor-kprobe floor-kretprobe floor-fprobe floor-fprobe-entry \
	floor-ftrace floor-direct kstats-trace kstats-kretprobe kstats-fprobe \
	kstats-direct kstats-pcpu; do
	fn=kstats_bench_exp_empty
	case $m in
	none) ok=1 ;;
	floor-*) echo "${m#floor-} $fn" >$F 2>/dev/null && ok=1 || ok= ;;
	kstats-trace) ctl "trace $fn as e" 2>/dev/null && ok=1 || ok= ;;
	kstats-pcpu) ctl "trace pcpu:$fn as e" 2>/dev/null && ok=1 || ok= ;;
	kstats-*) ctl "trace $fn via ${m#kstats-} as e" 2>/dev/null && ok=1 || ok= ;;
	esac
	if [ -z "$ok" ]; then
		echo "skip empty-$m"
		continue
	fi
	echo "${EMPTY:-10000}" >$E/empty && echo "empty $m $(cut -d' ' -f2- $E/empty)"
	case $m in
	kstats-*)
		echo "# empty-$m: $(grep '^name e ' $K/_control)"
		echo "emptyhist $m p10 $(kpct e 0.1) p50 $(kpct e 0.5) p90 $(kpct e 0.9) p99 $(kpct e 0.99) p99.9 $(kpct e 0.999)"
		ctl 'remove e' ;;
	floor-*) echo off >$F ;;
	esac
done
