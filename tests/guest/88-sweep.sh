#!/bin/sh
# The sweep: kstats aimed at dangerous functions and at functions sampled
# from available_filter_functions, one trace at a time while a load runs
# on every CPU, each removed at once; then rmmod kstats. The functions of
# sweep-dangerous.txt that this kernel has go through every command form
# (those after its "[rotated]" line through a rotation of the forms, as
# the sampled ones). Each form is first taken on a function that every
# kernel serves (or refused with EOPNOTSUPP where lib.sh's MECH_TABLE says
# the kernel lacks its mechanism). In the sweep a refusal (EINVAL or
# EOPNOTSUPP, no other errno) is fine and is counted; what must hold:
# every trace taken is removed, no entry is left, no command hangs, rmmod
# succeeds, and (check-guest-log.sh) no WARN, BUG, lockdep or KASAN
# report. Each command is written to /dev/kmsg first ("kstats-sweep:
# CMD"), so that a crash names it (run-guest.sh and check-guest-log.sh
# print the last such line).
#
# Each target sweeps its own slice: a seed of its own, so that the
# stock x86-64 targets together take every form of each curated function
# (6 forms each, at offsets 6 apart: deb61, deb612 and deb7x cover the
# 18), arm612 and arm7x 4 between them, and each samples other functions.
#
# Knobs, on the kernel command line (KSTATS_APPEND) or in the environment
# (the debug kernel, with KASAN and lockdep, runs a command about five
# times slower, arm64's guests two to four times, hence their smaller
# defaults):
#   KSTATS_SWEEP_SEED=N    the seed of the sample and of the rotation of
#                          the forms (default 19 + the target's slice
#                          times KSTATS_SWEEP_FIRST)
#   KSTATS_SWEEP_FIRST=N   forms per function of the first tier, in
#                          rotation (default 6 of the 18; 3 on the debug
#                          kernel, 2 on arm64)
#   KSTATS_SWEEP_MORE=N    functions of the second tier, chosen by the
#                          seed (default 70, about half; 16 on debug, 12
#                          on arm64)
#   KSTATS_SWEEP_COUNT=N   functions sampled (default 30; 12 on debug, 8
#                          on arm64)
#   KSTATS_SWEEP_FORMS=N   forms per function of the rotation: the second
#                          tier and the sample (default 1)
#   KSTATS_SWEEP_SKIP=F,G:FORM  functions, or one form of a function, left
#                          out (to sweep past a known crash)
#   KSTATS_SWEEP_ONLY=F,G  only these functions, every form (to replay)
#   KSTATS_SWEEP_LOAD=0    no load
# timeout: 3600
. /tests/lib.sh
# The forms (19), and 7 more.
plan 26
load_modules

T0=$(date +%s)
OUT=/tmp/sweep
STOP=$OUT/stop
rm -rf "$OUT"
mkdir -p "$OUT"

# knob NAME DEFAULT: from the environment, else the kernel command line.
knob() {
	v=$(eval echo "\${$1:-}")
	[ -n "$v" ] || v=$(tr ' ' '\n' < /proc/cmdline | sed -n "s/^$1=//p" | tail -n 1)
	echo "${v:-$2}"
}
# The debug kernel, and the arm64 guests (a sample within their share of
# make check's time), take the smaller defaults.
if [ "$TARGET" = debug ]; then
	FIRST=$(knob KSTATS_SWEEP_FIRST 3)
	MORE=$(knob KSTATS_SWEEP_MORE 16)
	COUNT=$(knob KSTATS_SWEEP_COUNT 12)
elif [ "$ARCH" = aarch64 ]; then
	FIRST=$(knob KSTATS_SWEEP_FIRST 2)
	MORE=$(knob KSTATS_SWEEP_MORE 12)
	COUNT=$(knob KSTATS_SWEEP_COUNT 8)
else
	FIRST=$(knob KSTATS_SWEEP_FIRST 6)
	MORE=$(knob KSTATS_SWEEP_MORE 70)
	COUNT=$(knob KSTATS_SWEEP_COUNT 30)
fi
case $TARGET in
deb612 | arm7x) SLICE=1 ;;
deb7x) SLICE=2 ;;
deb618) SLICE=3 ;;
debug) SLICE=4 ;;
*) SLICE=0 ;;
esac
SEED=$(knob KSTATS_SWEEP_SEED $((19 + SLICE * FIRST)))
NFORMS=$(knob KSTATS_SWEEP_FORMS 1)
SKIP=$(knob KSTATS_SWEEP_SKIP "" | tr ',' ' ')
ONLY=$(knob KSTATS_SWEEP_ONLY "" | tr ',' ' ')
LOAD=$(knob KSTATS_SWEEP_LOAD 1)
# A command that takes this long is hung (remove must return at once).
HANG=120
# Left to report before guest-init's limit (the timeout line above; the
# default sweep takes about a minute).
LIMIT=3540

# The other side of the pairs: a tracepoint every kernel has, hooked
# without touching FUNC's own site.
OTHER=__tracepoint_sched_switch

# Every command form. cmd FORM FUNC NAME: sets C to its command.
FORMS_ALL="trace kretprobe fprobe direct pcpu gap start-cpu start-task end-cpu end-task start-arg end-arg arg1 retval cgroup by by-arg by-stack outliers"
cmd() {
	case $1 in
	trace) C="trace $2 as $3" ;;
	kretprobe) C="trace $2 via kretprobe as $3" ;;
	fprobe) C="trace $2 via fprobe as $3" ;;
	direct) C="trace $2 via direct as $3" ;;
	pcpu) C="trace pcpu:$2 as $3" ;;
	gap) C="trace $3 gap $2" ;;
	start-cpu) C="trace $3 start $2 end $OTHER key cpu" ;;
	# A second start, on the end's tracepoint; the stack at each start.
	start-task) C="trace $3 start $2 by stack start $OTHER end $OTHER key task keys 4" ;;
	end-cpu) C="trace $3 start $OTHER end $2 key cpu" ;;
	end-task) C="trace $3 start $OTHER end $2 key task" ;;
	# A key per side, and a condition on FUNC's side; at the end, its
	# argument and stack as keys.
	start-arg) C="trace $3 start $2 key arg1 if arg1 != 0 end $OTHER key arg3 by comm" ;;
	end-arg) C="trace $3 start $OTHER key arg2 end $2 key arg1 if arg1 != 0 by stack keys 4" ;;
	arg1) C="trace $2 value arg1 as $3" ;;
	retval) C="trace $2 value retval as $3" ;;
	cgroup) C="trace $2 cgroup / as $3" ;;
	by) C="trace $2 by comm keys 4 as $3" ;;
	by-arg) C="trace $2 by arg1 keys 4 as $3" ;;
	by-stack) C="trace $2 by stack keys 4 as $3" ;;
	outliers) C="trace $2 outliers 2 as $3" ;;
	esac
}

# put STRING: one write into _control; sets R to OK or the error text.
# Builtins only (no fork): hundreds of commands run under TCG.
put() {
	if echo "$1" > "$KS/_control" 2> "$OUT/err"; then
		R=OK
	else
		read -r R < "$OUT/err"
		R=${R##*: }
	fi
}

# Every form is first tried on a function that every kernel lets each
# form trace: vfs_read(), and for a value or key of its first argument
# (vfs_read's is a pointer) an integer's, close_fd()'s or ksys_read()'s.
# A form must be taken there where lib.sh's MECH_TABLE says this kernel
# serves it, and refused with EOPNOTSUPP where it says not (the fprobe
# and direct forms; the cgroup filter without cgroups), then left out of
# the sweep.
CTRL_ARG1=
for f in close_fd ksys_read; do
	grep -q " $f\$" /proc/kallsyms && CTRL_ARG1=$f && break
done
check "a function of an integer first argument (close_fd, ksys_read) is in kallsyms" \
	[ -n "$CTRL_ARG1" ]
FORMS=""
for form in $FORMS_ALL; do
	f=vfs_read
	case $form in arg1 | by-arg) f=${CTRL_ARG1:-close_fd} ;; esac
	want=OK
	case $form in
	fprobe | direct) kernel_has "$form" || want="Operation not supported" ;;
	# Without cgroups the cgroup filter is EOPNOTSUPP.
	cgroup) grep -q cgroup2 /proc/filesystems || want="Operation not supported" ;;
	esac
	cmd "$form" "$f" sweep_probe
	put "$C"
	is "$R" "$want" "form $form: '$C'"
	[ "$R" = OK ] && put "remove sweep_probe"
	[ "$want" = OK ] && FORMS="$FORMS $form"
done
# F1..F$NF: the forms, for the rotations.
NF=0
for form in $FORMS; do
	NF=$((NF + 1))
	eval "F$NF=$form"
done
[ "$FIRST" -le "$NF" ] || FIRST=$NF

# The curated functions (every form, or rotated), and the sample:
# functions of vmlinux in available_filter_functions (no compiler clones,
# no module functions, each name once), chosen by the seed. A curated function that this kernel lacks is found so by
# its first command (ENOENT) and left out.
AFF=/sys/kernel/tracing/available_filter_functions
[ -r "$AFF" ] || AFF=/sys/kernel/debug/tracing/available_filter_functions
awk '/^\[rotated\]/ { r = 1 } !/^[#[]/ && NF { print $1 > (r ? "'"$OUT"'/rotated" : "'"$OUT"'/curated") }' \
	/tests/sweep-dangerous.txt
# The sample's list is made by grep and sort, not awk: busybox's awk
# takes a minute over the 50,000 lines in an arm64 guest.
cat "$OUT/curated" "$OUT/rotated" > "$OUT/listed"
grep -E '^[A-Za-z_][A-Za-z0-9_]*$' "$AFF" | grep -v '^__ftrace_invalid' | sort -u |
	grep -v -x -F -f "$OUT/listed" > "$OUT/all"
# pick K FILE: K lines of FILE chosen by the seed, in their order (K
# line numbers drawn, then sed prints those lines).
pick() {
	_lines=$(awk -v s="$SEED" -v k="$1" -v n="$(wc -l < "$2")" '
		BEGIN { srand(s); if (k > n) k = n
			while (c < k) { i = int(rand() * n) + 1; if (!(i in got)) { got[i] = 1; c++; print i } } }' |
		sort -n | sed 's/$/p/' | tr '\n' ';')
	[ -z "$_lines" ] || sed -n "$_lines" "$2"
}
pick "$COUNT" "$OUT/all" > "$OUT/sampled"
pick "$MORE" "$OUT/rotated" > "$OUT/rotated.picked"
mv "$OUT/rotated.picked" "$OUT/rotated"
if [ -n "$ONLY" ]; then
	FIRST=$NF
	echo "$ONLY" | tr ' ' '\n' | grep . > "$OUT/curated"
	: > "$OUT/rotated"
	: > "$OUT/sampled"
fi
for f in $SKIP; do
	case $f in *:*) continue ;; esac
	for l in curated rotated sampled; do
		grep -vx "$f" "$OUT/$l" > "$OUT/$l.new"
		mv "$OUT/$l.new" "$OUT/$l"
	done
done
cat "$OUT/rotated" "$OUT/sampled" > "$OUT/rotation"
echo "# forms:$FORMS"
echo "# seed $SEED; $(wc -l < "$OUT/curated") curated functions, $FIRST form(s) each; $(wc -l < "$OUT/rotated") more and $(wc -l < "$OUT/sampled") of $(wc -l < "$OUT/all") sampled, $NFORMS form(s) each${SKIP:+; left out: $SKIP}"

# The load: reads, forks, execs, exits and short sleeps on every CPU,
# and tasks that die inside whatever is traced: a process killed with
# SIGKILL while asleep (it dies in get_signal()), a kernel thread that
# ends (kstats_helper's kthread command), and CPU 1 taken offline and
# back where the kernel allows it.
if [ "$LOAD" != 0 ]; then
	for cpu in $(seq 0 $(($(nproc) - 1))); do
		taskset -c "$cpu" sh -c "while [ ! -e $STOP ]; do
			dd if=/dev/zero of=/dev/null bs=512 count=8 2> /dev/null
			sh -c 'cat /proc/self/stat > /dev/null'
			sleep 5 & kill -9 \$! 2> /dev/null
			echo kthread > $HELPER
			sleep 0.1
		done" &
	done
	CPU1=/sys/devices/system/cpu/cpu1/online
	if [ -w $CPU1 ]; then
		sh -c "while [ ! -e $STOP ]; do
			echo 0 > $CPU1; sleep 0.5; echo 1 > $CPU1; sleep 2
		done" &
	fi
fi

# one FORM FUNC: attach, then remove. A refusal is counted per errno; a
# symbol this kernel lacks (ENOENT: the other side of the pairs is a
# tracepoint of every kernel) ends FUNC's forms (A=1).
N=0
one() {
	case " $SKIP " in *" $2:$1 "*) return ;; esac
	N=$((N + 1))
	name=w$N
	cmd "$1" "$2" "$name"
	c=$C
	echo "$N $c" > "$OUT/current"
	echo "kstats-sweep: $c" > /dev/kmsg
	put "$c"
	if [ "$R" = "No such file or directory" ]; then
		echo "$2" >> "$OUT/absent"
		A=1
		return
	fi
	if [ "$R" != OK ]; then
		echo "$R	$1	$2" >> "$OUT/refused"
		return
	fi
	echo "$name	$c" >> "$OUT/taken"
	echo "$N remove $name (of: $c)" > "$OUT/current"
	echo "kstats-sweep: remove $name (of: $c)" > /dev/kmsg
	put "remove $name"
	[ "$R" = OK ] || echo "$R	$c" >> "$OUT/unremoved"
}

# rotate LIST PERFUNC: PERFUNC forms per function of file LIST, in a
# rotation that the seed shifts.
rotate() {
	i=0
	while read -r f; do
		A=0
		j=0
		while [ $j -lt "$2" ] && [ $j -lt "$NF" ] && [ $A = 0 ]; do
			k=$(((i * $2 + j + SEED) % NF + 1))
			eval "form=\$F$k"
			one "$form" "$f"
			j=$((j + 1))
		done
		i=$((i + 1))
	done < "$1"
}

sweep() {
	if [ "$FIRST" -ge "$NF" ]; then
		while read -r f; do
			A=0
			for form in $FORMS; do
				one "$form" "$f"
				[ $A = 1 ] && break
			done
		done < "$OUT/curated"
	else
		rotate "$OUT/curated" "$FIRST"
	fi
	rotate "$OUT/rotation" "$NFORMS"
	echo "$N" > "$OUT/count"
}

# watchdog PID: waits for PID, the sweep or rmmod, in the background; fails
# if $OUT/current (the command in progress) stays the same for HANG s, or
# if the whole script runs past LIMIT.
watchdog() {
	last=
	since=$(date +%s)
	while [ -e "/proc/$1" ]; do
		sleep 2
		now=$(date +%s)
		cur=$(cat "$OUT/current")
		if [ "$cur" != "$last" ]; then
			last=$cur
			since=$now
		elif [ $((now - since)) -ge $HANG ]; then
			not_ok "no command hangs: ${cur} for $((now - since)) s"
			# The blocked tasks' stacks, into the kernel log.
			echo w > /proc/sysrq-trigger
			return 1
		fi
		if [ $((now - T0)) -ge $LIMIT ]; then
			not_ok "the sweep ends in ${LIMIT} s: at command ${cur}"
			return 1
		fi
	done
}

: > "$OUT/refused"
: > "$OUT/taken"
: > "$OUT/unremoved"
: > "$OUT/absent"
echo "0 start" > "$OUT/current"
sweep &
SW=$!
watchdog $SW || { : > "$STOP"; exit 1; }
wait $SW
: > "$STOP"
wait
echo "# $(cat "$OUT/count") commands in $(($(date +%s) - T0)) s: $(wc -l < "$OUT/taken") taken, $(wc -l < "$OUT/refused") refused; absent here: $(tr '\n' ' ' < "$OUT/absent")"

# The refusals, per errno and form, as a record of what this kernel
# refuses.
sort "$OUT/refused" | awk -F '\t' '
	function out() { if (last != "") print "# refused: " last " (" n "):" s }
	{ k = $1 " / " $2; if (k != last) { out(); last = k; n = 0; s = "" }
	  n++; s = s " " $3 }
	END { out() }' | awk '{ l = ""
		for (i = 1; i <= NF; i++) {
			if (length(l) + length($i) > 150) { print l; l = "#  " }
			l = l " " $i
		}
		print l }' | sed 's/^ //'

# A kstats that refused nearly everything would pass the rest: at least a
# third of the commands are taken (about half on every kernel; the value
# forms refuse pointers and void functions).
ntaken=$(wc -l < "$OUT/taken")
check "the sweep took at least a third of its $(cat "$OUT/count") commands ($ntaken)" \
	[ $((ntaken * 3)) -ge "$(cat "$OUT/count")" ]
# A refusal says the target cannot be served (EINVAL) or not by this
# mechanism or option (EOPNOTSUPP); any other errno (ENOMEM, ENOSPC,
# EBUSY, EEXIST...) is a fault of kstats, not of the target.
is "$(cut -f 1 "$OUT/refused" | sort -u | grep -vx -e 'Invalid argument' -e 'Operation not supported')" "" \
	"every refusal is EINVAL or EOPNOTSUPP"
is "$(cat "$OUT/unremoved")" "" "every trace taken is removed"
is "$(grep -c '^name ' "$KS/_control")" 0 "no entry is left in _control"

# Kernel log reports (the patterns of check-guest-log.sh), each with the
# sweep command before it.
dmesg | awk '/kstats-sweep: / { last = $0; next }
	/WARNING:|BUG:|BUG kmalloc|KASAN|UBSAN|Oops|Kernel panic|general protection fault|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|INFO: lockdep|DEBUG_LOCKS_WARN_ON|sleeping function called from invalid context|scheduling while atomic|Call Trace:/ {
		print "# report: " $0; print "#   after: " last }' | head -n 40

# Calls still in flight in a direct trampoline at their remove.
dmesg | sed -n 's/.*kstats: \(w[0-9]*\): \([0-9]*\) calls in flight.*/\1 \2/p' |
	while read -r name n; do
		echo "# in flight at remove: $n calls of '$(grep "^$name	" "$OUT/taken" | cut -f 2)'"
	done

# rmmod: the helper, then kstats, which must return at once (a few
# tries a second apart: a trampoline still draining the load's calls is
# checked every 100 ms).
rmmod kstats_helper
echo "rmmod kstats" > "$OUT/current"
echo "kstats-sweep: rmmod kstats" > /dev/kmsg
(
	for i in 1 2 3 4 5; do
		rmmod kstats 2> "$OUT/rmmod" && break
		sleep 1
	done
) &
watchdog $! || exit 1
is "$(sed 's/.*: //' "$OUT/rmmod")" "" "rmmod kstats after the sweep"
check "kstats is gone" test ! -e "$KS"
