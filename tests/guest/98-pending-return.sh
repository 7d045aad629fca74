#!/bin/sh
# Issue 27, item 3: a removed probe's pending returns never reach another
# entry, whatever is allocated after it. A reader sleeps in vfs_read()
# under entry A; A is removed and B, a new entry on vfs_read by the same
# mechanism, is made at once (its memory likely where A's was). Then the
# reader returns. From 6.14, fprobe looks a pending return's fprobe up by
# its address only: B got A's call (one sample too many) or, with no exit
# handler (value argN), fprobe called NULL: a panic. Looped, for fprobe
# and kretprobe, with B timing the reader's calls (exactly one: its
# second read, ended by SIGKILL) and C sampling an argument; for direct,
# which takes no filter, on fifo_open(), which only this test calls.
# That B did take A's memory is seen, not assumed: kprobe events record
# the address of each probe that kstats attaches (its fprobe or kretprobe
# is inside it; C's fprobe lives apart, kstats_fprobe.c), and in some
# round of each mechanism B's is A's (not under KASAN, whose quarantine
# keeps freed memory from new allocations).
# timeout: 600
. /tests/lib.sh
# And three for each mechanism this kernel has.
plan 3
load_modules
FIFO=/tmp/fifo98
# The shell, and so the entries' allocations, on CPU 0.
taskset -p 1 $$ >/dev/null
T=/sys/kernel/tracing
grep -q " $T tracefs " /proc/mounts || mount -t tracefs nodev $T
kasan=0
kernel_config KASAN && kasan=1
# registered: the addresses of the probes attached since the last call.
registered() {
	sed -n 's/.* probe=0x\([0-9a-f]*\).*/\1/p' $T/trace | tr '\n' ' '
	echo > $T/trace
}

# waits_in PID FN...: PID sleeps in one of the FNs (its wchan), within
# 30 s. A pipe's reader sleeps in pipe_read(), anon_pipe_read() on 7.x.
waits_in() {
	_p=$1
	shift
	_i=0
	while [ $_i -lt 300 ]; do
		_w=
		read -r _w <"/proc/$_p/wchan" 2>/dev/null
		for _f in "$@"; do
			[ "$_w" = "$_f" ] && return 0
		done
		_i=$((_i + 1))
		sleep 0.1
	done
	return 1
}

# round MECH FIRST SECOND: one round of the scenario through "via MECH";
# B (b98, durations) and C (c98, value arg3) made in the order FIRST
# SECOND, so that either may take A's memory. Sets got.
round() {
	rm -f $FIFO
	mkfifo $FIFO
	exec 3<>$FIFO
	r=$(ctl "trace vfs_read via $1 as a98")
	cat <&3 >/dev/null &
	cpid=$!
	waits_in $cpid pipe_read anon_pipe_read || r="$r (no reader)"
	r="$r $(ctl remove a98)"
	for e in $2 $3; do
		case $e in
		b98) r="$r $(ctl "trace vfs_read via $1 pid $cpid as b98")" ;;
		c98) r="$r c98: $(ctl "trace vfs_read via $1 value arg3 pid $cpid as c98")" ;;
		esac
	done
	# The first read returns (started under a98), the second sleeps.
	echo x >&3
	waits_in $cpid pipe_read anon_pipe_read || r="$r (no second read)"
	kill -9 $cpid
	wait $cpid
	exec 3>&-
	got="$r $(samples b98)"
	# A's probe, then FIRST's and SECOND's.
	order="$2 $3"
	# shellcheck disable=SC2046
	set -- $(registered)
	case $order in
	"b98 c98") b=$2 ;;
	*) b=$3 ;;
	esac
	[ -n "$1" ] && [ "$1" = "$b" ] && reused=$((reused + 1))
	ctl remove b98 >/dev/null
	ctl remove c98 >/dev/null
}

# direct_round: the same through via direct on fifo_open(): a reader
# sleeps in it (no writer yet) under A; B is made after A's removal;
# then a writer opens (B's one call) and wakes the reader, whose call
# returns through A's trampoline. Sets got.
direct_round() {
	rm -f $FIFO
	mkfifo $FIFO
	r=$(ctl "trace fifo_open via direct as a98")
	cat $FIFO >/dev/null &
	cpid=$!
	waits_in $cpid wait_for_partner || r="$r (no reader)"
	r="$r $(ctl remove a98) $(ctl "trace fifo_open via direct as b98")"
	exec 4>$FIFO
	exec 4>&-
	wait $cpid
	got="$r $(samples b98)"
	ctl remove b98 >/dev/null
}

for mech in fprobe kretprobe direct; do
	kernel_has $mech || {
		echo "# no $mech on this kernel"
		continue
	}
	plan 3
	case $mech in
	fprobe | kretprobe)
		plan 1
		check "a kprobe event on kstats_${mech}_attach" sh -c \
			"echo 'p:kst98/$mech kstats:kstats_${mech}_attach probe=\$arg1:x64' >> $T/kprobe_events &&
			echo 1 > $T/events/kst98/$mech/enable" ;;
	esac
	is "$(ctl 'trace pcpu:vfs_write as w98')" OK "pcpu:vfs_write beside them"
	bad=0 reused=0
	registered >/dev/null
	for i in 1 2 3 4 5 6; do
		if [ $mech = direct ]; then
			direct_round
			want="OK OK OK 1"
		elif [ $((i % 2)) = 1 ]; then
			round $mech c98 b98
			want="OK OK c98: OK OK 1"
		else
			round $mech b98 c98
			want="OK OK OK c98: OK 1"
		fi
		[ "$got" = "$want" ] || {
			bad=$((bad + 1))
			echo "# $mech round $i: got '$got', want '$want'"
		}
	done
	is "$bad" 0 "$mech: 6 rounds, the new entries see only their own calls of the reader"
	if [ $mech != direct ]; then
		echo 0 > $T/events/kst98/$mech/enable
		echo "-:kst98/$mech" >> $T/kprobe_events
		echo "# $mech: B's probe at A's address in $reused of 6 rounds"
		plan 1
		if [ "$kasan" = 1 ]; then
			skip_part "memory reuse: KASAN's quarantine keeps freed memory from new allocations"
		else
			check "$mech: in some round B took A's memory ($reused of 6)" test "$reused" -gt 0
		fi
	fi
	is "$(ctl remove w98)" OK "remove w98"
done
rm -f $FIFO
taskset -p 3 $$ >/dev/null
is "$(cat "$KS/_control")" "" "nothing left"
check "rmmod kstats_helper" rmmod kstats_helper
check "rmmod kstats" rmmod_drained kstats
