#!/bin/sh
# trace NAME gap X: per CPU, the time from one hit of X to the next. The
# helper calls kstats_helper_work() K times on one CPU, each call busy for
# D ns: K - 1 gaps on that CPU, each of at least D ns. The first hit of a
# CPU, and its first after a start, record nothing.
# timeout: 300
. /tests/lib.sh
plan 75
load_modules

D=20000
FN=kstats_helper_work
MS=kstats_helper_mark_start
TS=__tracepoint_kstats_helper_start
EINVAL="Invalid argument"
NOCAL=" bias_ns - bias_p99_ns - overhead_ns -"

# on NAME CPU: samples of that CPU in NAME
on() { awk -v c="$2" '$3 == "CPU" && $4 == c { n += $6 } END { print n + 0 }' "$KS/$1"; }
# per_cpu NAME: "CPU0 CPU1" samples
per_cpu() { echo "$(on "$1" 0) $(on "$1" 1)"; }

is "$(ctl trace g gap $FN)" OK "gap of a function"
is "$(line g)" "name g origin control mechanism gap targets $FN hooks ftrace bits 4 clock $CLK state running missed 0$NOCAL" \
	"_control line: mechanism gap, hooks ftrace, no bias"
is "$(ctl trace gt gap $TS bits 3)" OK "gap of a tracepoint"
is "$(line gt)" "name gt origin control mechanism gap targets $TS hooks tracepoint bits 3 clock $CLK state running missed 0$NOCAL" \
	"_control line of a tracepoint gap"
is "$(ctl trace gc gap $MS cpu 1 clock local)" OK "gap with a cpu filter and clock local"
is "$(line gc)" "name gc origin control mechanism gap targets $MS hooks ftrace bits 4 clock local state running missed 0 cpu 1 filtered 0$NOCAL" \
	"_control line: clock local, the filter and its count"
# Past the patched entry (lib.sh's KP_OFFSETS): a kprobe.
for o in $KP_OFFSETS; do
	r=$(ctl trace gk gap $FN+$o)
	[ "$r" = OK ] && break
done
is "$r" OK "gap of $FN+$o"
is "$(field gk hooks) $(field gk targets)" "kprobe $FN+$o" "SYMBOL+OFFSET: hooks kprobe"
is "$(samples g) $(samples gt) $(samples gc) $(samples gk)" "0 0 0 0" "no samples yet"

helper_on 0 work 20 $D
is "$(per_cpu g)" "19 0" "20 calls on CPU 0: 19 gaps, the first hit records nothing"
is "$(per_cpu gt)" "19 0" "tracepoint: 19 gaps"
is "$(per_cpu gk)" "19 0" "kprobe: 19 gaps"
is "$(samples gc) $(field gc filtered)" "0 20" "cpu 1 filter: 20 hits on CPU 0 filtered, no gap"
lo=$(field g min)
check "every gap is at least $D ns (min $lo)" test "$lo" -ge $D
lo=$(field gt min)
check "tracepoint: every gap is at least $D ns (min $lo)" test "$lo" -ge $D

helper_on 1 work 10 $D
is "$(per_cpu g)" "19 9" "10 calls on CPU 1: 9 gaps there"
is "$(per_cpu gt)" "19 9" "tracepoint: 9 gaps on CPU 1"
is "$(per_cpu gc) $(field gc filtered)" "0 9 20" "cpu 1 filter: 9 gaps on CPU 1"

# Running, the chain of hits goes on: the first call of the next run has
# its gap from the last call of the previous run on that CPU.
helper_on 0 work 5 $D
is "$(per_cpu g)" "24 9" "5 more calls on CPU 0: 5 more gaps"

# Stopped: the hook is off. After the start, the first hit on each CPU
# records nothing, so no gap spans the stop.
is "$(write_err "$KS/g" stop)" OK "stop"
is "$(field g state)" stopped "state stopped"
helper_on 0 work 5 $D
helper_on 1 work 5 $D
is "$(per_cpu g)" "24 9" "stopped: no gaps"
is "$(write_err "$KS/g" start)" OK "start"
helper_on 0 work 5 $D
helper_on 1 work 3 $D
is "$(per_cpu g)" "28 11" "after the start: 4 and 2 gaps, none spanning the stop"
lo=$(field g min)
check "still every gap at least $D ns (min $lo)" test "$lo" -ge $D

# reset clears the histogram only: the first hit after it has its gap
# from the last hit before it.
is "$(write_err "$KS/g" reset)" OK "reset"
is "$(samples g) $(field g min)" "0 " "reset: no samples, no min"
helper_on 0 work 3 $D
is "$(per_cpu g)" "3 0" "after the reset: 3 calls, 3 gaps"

# Refusals: EINVAL (or the errno of the lookup), one reason in the log,
# nothing changed.
before=$(cat "$KS/_control"; ls "$KS")
refuse() {
	log_mark
	is "$(ctl "$1")" "$4" "$3: $4"
	is "$(log_new | grep -c "refused: .*$2")" 1 "$3: reason '$2' logged"
	is "$(cat "$KS/_control"; ls "$KS")" "$before" "$3: nothing changed"
}
refuse "trace gb gap $FN value arg1" "only for trace FUNC" "gap with value" "$EINVAL"
refuse "trace gb gap $FN via direct" "only for trace FUNC" "gap via direct" "$EINVAL"
refuse "trace gb gap $FN key task" "only for start/end pairs" "gap with key task" "$EINVAL"
refuse "trace gb gap $FN start $FN end $MS" "a gap takes no start or end" \
	"gap with start and end" "$EINVAL"
refuse "trace gb gap $FN as gx" "only for trace FUNC" "gap with as" "$EINVAL"
refuse "trace pcpu:$FN gap $FN" "takes no start, end or gap" "pcpu: with gap" "$EINVAL"
refuse "trace gb gap $FN cpu 4096" "no such CPU" "gap on a CPU the machine lacks" "$EINVAL"
refuse "trace gb gap kstats_no_such_function" "no symbol" "gap of no symbol" \
	"No such file or directory"
refuse "trace gb gap __tracepoint_kstats_no_such" "no tracepoint" "gap of no tracepoint" \
	"No such file or directory"
refuse "trace g gap $MS" "exists" "gap of an existing name" "File exists"
refuse "trace gb gap $FN gap $MS" "gap given twice" "gap twice" "$EINVAL"

for e in g gt gc gk; do
	is "$(ctl remove $e)" OK "remove $e"
done

# Trace and remove while both CPUs hit X back to back: 12 cycles, 3 on
# the debug kernel (where the 12 took 177 s).
rounds="1 2 3 4"
[ "$TARGET" != debug ] || rounds=1
rm -f /tmp/stopg
for cpu in 0 1; do
	taskset -c $cpu sh -c "while [ ! -e /tmp/stopg ]; do
		echo 'work 200 0' > $HELPER; done" &
done
bad=0
for _ in $rounds; do
	for x in $FN $TS $FN+$o; do
		r1=$(ctl trace gr gap $x)
		i=0
		while [ "$(samples gr)" = 0 ] && [ $i -lt 100 ]; do i=$((i + 1)); done
		n=$(samples gr)
		r2=$(ctl remove gr)
		if [ "$r1 $r2" != "OK OK" ] || [ "$n" = 0 ]; then
			bad=$((bad + 1))
			echo "# gap $x: $r1, $n samples, remove: $r2"
		fi
	done
done
: > /tmp/stopg
wait
is "$bad" 0 "$(($(echo $rounds | wc -w) * 3)) trace/remove cycles of gaps, each with samples, while both CPUs hit X"

# The module of X goes: its gap entries are detached, state gone.
is "$(ctl trace gu gap $FN)" OK "gap of the helper's function"
is "$(ctl trace gv gap $TS)" OK "gap of the helper's tracepoint"
helper_on 1 work 4 $D
log_mark
check "rmmod kstats_helper with gaps attached" rmmod kstats_helper
is "$(field gu state) $(field gv state)" "gone gone" "state gone after the unload"
is "$(log_new | grep -c 'g[uv]: module kstats_helper unloaded, probes detached')" 2 \
	"the detach logged for each"
is "$(samples gu) $(samples gv)" "3 3" "gone entries keep their gaps"
for e in gu gv; do
	is "$(ctl remove $e)" OK "remove gone entry $e"
done
load_modules
# Entries only: a calibration of an earlier script (71) stays listed.
is "$(grep -c '^name ' "$KS/_control")" 0 "nothing left"
