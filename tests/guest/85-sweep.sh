#!/bin/sh
# The sweep: kstats aimed at the dangerous functions of sweep-dangerous.txt
# (every one this kernel has, through every command form) and at functions
# sampled from available_filter_functions with a fixed seed (a rotation of
# the forms each), one trace at a time while a load runs, each removed at
# once; then rmmod kstats. A refusal is fine and is counted; what must
# hold: every trace taken is removed, no entry is left, rmmod succeeds, no
# hang, and (check-guest-log.sh) no WARN, BUG, lockdep or KASAN report.
# Each command is written to /dev/kmsg first ("kstats-sweep: CMD"), so a
# crash names it (check.sh prints the last such line).
#
# Knobs, on the kernel command line (KSTATS_APPEND) or in the environment:
#   KSTATS_SWEEP_SEED=N    the sample's seed (default 19)
#   KSTATS_SWEEP_COUNT=N   functions sampled (default 240, debug kernel 80)
#   KSTATS_SWEEP_FORMS=N   forms per sampled function (default 2; 12: all)
#   KSTATS_SWEEP_SKIP=F,G  functions left out (to sweep past a known crash)
#   KSTATS_SWEEP_ONLY=F,G  only these functions, every form (to replay)
# timeout: 900
. /tests/lib.sh
load_modules

T0=$(date +%s)
STOP=/tmp/sweep-stop
OUT=/tmp/sweep
rm -rf "$OUT" "$STOP"
mkdir -p "$OUT"

# knob NAME DEFAULT: from the environment, else the kernel command line.
knob() {
	v=$(eval echo "\${$1:-}")
	[ -n "$v" ] || v=$(tr ' ' '\n' < /proc/cmdline | sed -n "s/^$1=//p" | tail -n 1)
	echo "${v:-$2}"
}
SEED=$(knob KSTATS_SWEEP_SEED 19)
COUNT=$(knob KSTATS_SWEEP_COUNT 240)
[ "$TARGET" = debug ] && COUNT=$(knob KSTATS_SWEEP_COUNT 80)
NFORMS=$(knob KSTATS_SWEEP_FORMS 2)
SKIP=$(knob KSTATS_SWEEP_SKIP "" | tr ',' ' ')
ONLY=$(knob KSTATS_SWEEP_ONLY "" | tr ',' ' ')

# The other side of the pairs: a tracepoint every kernel has, hooked
# without touching FUNC's own site.
OTHER=__tracepoint_sched_switch

# Every command form. cmd FORM FUNC NAME: sets C to its command.
FORMS_ALL="trace kretprobe fprobe direct pcpu gap start-cpu start-task end-cpu end-task arg1 retval"
cmd() {
	case $1 in
	trace) C="trace $2 as $3" ;;
	kretprobe) C="trace $2 via kretprobe as $3" ;;
	fprobe) C="trace $2 via fprobe as $3" ;;
	direct) C="trace $2 via direct as $3" ;;
	pcpu) C="trace pcpu:$2 as $3" ;;
	gap) C="trace $3 gap $2" ;;
	start-cpu) C="trace $3 start $2 end $OTHER key cpu" ;;
	start-task) C="trace $3 start $2 end $OTHER key task" ;;
	end-cpu) C="trace $3 start $OTHER end $2 key cpu" ;;
	end-task) C="trace $3 start $OTHER end $2 key task" ;;
	arg1) C="trace $2 value arg1 as $3" ;;
	retval) C="trace $2 value retval as $3" ;;
	esac
}

# put STRING: one write into _control; sets R to OK or the error text.
# Builtins only (no fork): a few thousand commands run under TCG.
put() {
	if echo "$1" > "$KS/_control" 2> "$OUT/err"; then
		R=OK
	else
		read -r R < "$OUT/err"
		R=${R##*: }
	fi
}

# A form that the kernel lacks altogether (EOPNOTSUPP on a plain function
# of every kernel, before any load) is skipped, and said so.
FORMS=""
for form in $FORMS_ALL; do
	cmd "$form" vfs_read sweep_probe
	put "$C"
	case $R in
	OK)
		put "remove sweep_probe"
		FORMS="$FORMS $form"
		;;
	"Operation not supported")
		echo "# form $form: skipped, this kernel lacks it ('$C': $R)" ;;
	*)
		FORMS="$FORMS $form"
		echo "# form $form: '$C' refused ($R), kept" ;;
	esac
done
NF=$(echo $FORMS | wc -w)

# The curated functions this kernel has; and the sample: functions of
# vmlinux in available_filter_functions (no compiler clones, no module
# functions), in an order fixed by the seed.
AFF=/sys/kernel/tracing/available_filter_functions
[ -r "$AFF" ] || AFF=/sys/kernel/debug/tracing/available_filter_functions
awk '!/^#/ && NF { print $1 }' /tests/sweep-dangerous.txt > "$OUT/curated.all"
{ awk '{ print $1 }' "$AFF"; awk '{ print $3 }' /proc/kallsyms; } |
	awk 'NR == FNR { want[$1] = 1; next } ($1 in want) && !seen[$1]++' \
		"$OUT/curated.all" - > "$OUT/curated.have"
awk 'NR == FNR { have[$1] = 1; next } !($1 in have)' "$OUT/curated.have" \
	"$OUT/curated.all" > "$OUT/curated.absent"
awk -v s="$SEED" 'BEGIN { srand(s) }
	NF == 1 && $1 ~ /^[A-Za-z_][A-Za-z0-9_]*$/ && $1 !~ /^__ftrace_invalid/ &&
	!seen[$1]++ { printf "%.9f %s\n", rand(), $1 }' "$AFF" |
	sort -n | awk '{ print $2 }' > "$OUT/all"
awk 'NR == FNR { c[$1] = 1; next } !($1 in c)' "$OUT/curated.all" "$OUT/all" |
	head -n "$COUNT" > "$OUT/sampled"
if [ -n "$ONLY" ]; then
	echo "$ONLY" | tr ' ' '\n' | grep . > "$OUT/curated.have"
	: > "$OUT/sampled"
fi
for f in $SKIP; do
	for l in curated.have sampled; do
		grep -vx "$f" "$OUT/$l" > "$OUT/$l.new"
		mv "$OUT/$l.new" "$OUT/$l"
	done
done
echo "# seed $SEED (KSTATS_APPEND=KSTATS_SWEEP_SEED=N for another sample): $(wc -l < "$OUT/sampled") of $(wc -l < "$OUT/all") functions, $NFORMS forms each"
echo "# curated: $(wc -l < "$OUT/curated.have") present, every form; absent here: $(tr '\n' ' ' < "$OUT/curated.absent")"
echo "# forms:$FORMS${SKIP:+; skipped functions: $SKIP}"

# The load: reads, forks, execs, exits and short sleeps on every CPU.
for cpu in $(seq 0 $(($(nproc) - 1))); do
	taskset -c "$cpu" sh -c "while [ ! -e $STOP ]; do
		dd if=/dev/zero of=/dev/null bs=512 count=8 2> /dev/null
		sh -c 'cat /proc/self/stat > /dev/null'
		ls /sys/kernel/debug > /dev/null
		sleep 0.05
	done" &
done

# one FORM FUNC: attach, then remove; a refusal is counted per errno.
N=0
one() {
	N=$((N + 1))
	name=w$N
	cmd "$1" "$2" "$name"
	c=$C
	echo "$c" > "$OUT/current"
	echo "kstats-sweep: $c" > /dev/kmsg
	put "$c"
	if [ "$R" != OK ]; then
		echo "$R	$1	$2" >> "$OUT/refused"
		return
	fi
	echo "$name	$c" >> "$OUT/taken"
	echo "kstats-sweep: remove $name (of: $c)" > /dev/kmsg
	put "remove $name"
	[ "$R" = OK ] || echo "$R	$c" >> "$OUT/unremoved"
}

sweep() {
	: > "$OUT/refused"
	: > "$OUT/taken"
	: > "$OUT/unremoved"
	set -- $FORMS
	while read -r f; do
		for form in $FORMS; do one "$form" "$f"; done
	done < "$OUT/curated.have"
	i=0
	while read -r f; do
		j=0
		while [ $j -lt "$NFORMS" ] && [ $j -lt $NF ]; do
			k=$(((i * NFORMS + j) % NF + 1))
			eval "one \"\${$k}\" \"\$f\""
			j=$((j + 1))
		done
		i=$((i + 1))
	done < "$OUT/sampled"
	echo "$N" > "$OUT/count"
}

# A hang names the command it hangs in: the sweep runs in the background
# and this shell reports it before the script's own timeout.
LIMIT=840
sweep &
SW=$!
while [ -e "/proc/$SW" ] && [ $(($(date +%s) - T0)) -lt $LIMIT ]; do
	sleep 1
done
if [ -e "/proc/$SW" ]; then
	not_ok "the sweep finishes (hung in: $(cat "$OUT/current"))"
	echo w > /proc/sysrq-trigger
	: > "$STOP"
	exit 1
fi
wait $SW
: > "$STOP"
wait
echo "# $(cat "$OUT/count") commands in $(($(date +%s) - T0)) s: $(wc -l < "$OUT/taken") taken, $(wc -l < "$OUT/refused") refused"

# The refusals, per errno and form, for the record of what this kernel
# refuses.
sort "$OUT/refused" | awk -F '\t' '
	{ k = $1 " / " $2; if (k != last) { if (last != "") print "# refused: " last " (" n "):" s; last = k; n = 0; s = "" }
	  n++; s = s " " $3 }
	END { if (last != "") print "# refused: " last " (" n "):" s }' | fold -w 200

is "$(cat "$OUT/unremoved")" "" "every trace taken is removed"
is "$(grep -c '^name ' "$KS/_control")" 0 "no entry is left in _control"

# Kernel log reports, each with the sweep command before it.
dmesg | awk '/kstats-sweep: / { last = $0; next }
	/WARNING:|BUG:|KASAN|UBSAN|Oops|lockdep|circular locking|recursive locking|inconsistent lock|suspicious RCU|sleeping function|scheduling while atomic/ {
		print "# report: " $0; print "#   after: " last }' | head -n 40

# Calls still in flight in a direct trampoline: the entries and commands.
dmesg | sed -n 's/.*kstats: \(w[0-9]*\): \([0-9]*\) calls in flight.*/\1 \2/p' |
	while read -r name n; do
		echo "# in flight at remove: $n calls of '$(grep "^$name	" "$OUT/taken" | cut -f 2)'"
	done

# rmmod: the helper, then kstats. Sleeping calls of the load have all
# returned once it stopped; a trampoline still draining is checked every
# 100 ms, so a few tries a second apart are given.
rmmod kstats_helper
tries=0
while ! out=$(rmmod kstats 2>&1); do
	tries=$((tries + 1))
	[ $tries -ge 10 ] && break
	sleep 1
done
is "$out" "" "rmmod kstats after the sweep"
check "kstats is gone" test ! -e "$KS"
