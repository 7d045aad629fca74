#!/bin/sh
# Guest side of "make bench" (scripts/bench.sh), busybox sh, one CPU.
# For each round, for each configuration: set it up, run
# "bench-mark dd SIZE" and "bench-mark dd 2*SIZE" (each executes two
# markers that the QEMU plugin counts instructions at), tear it down.
# Prints, in order, one line per bench-mark run:
#   run CONFIG ROUND N NS
# and "skip CONFIG REASON" for configurations this kernel lacks. The host
# pairs the k-th run line with the k-th pair of plugin markers.
. /etc/kstats-bench.conf
K=/sys/kernel/debug/kstats
T=/sys/kernel/tracing
[ -d $T ] || T=/sys/kernel/debug/tracing
mount -t tracefs tracefs $T 2>/dev/null

echo "# kernel $(uname -r)"
insmod /modules/kstats.ko || echo "# insmod kstats failed"

ctl() {
	echo "$1" >$K/_control
}

# setup/teardown of configuration $2 ($1 = on|off); fails if unsupported.
config() {
	case $2 in
	untraced | busybox-dd) ;;
	kstats-trace) [ "$1" = on ] && ctl 'trace vfs_read' || ctl 'remove vfs_read' ;;
	kstats-trace-stopped)
		if [ "$1" = on ]; then
			ctl 'trace vfs_read' && echo stop >$K/vfs_read
		else
			ctl 'remove vfs_read'
		fi ;;
	*) return 1 ;;
	esac
}

CONFIGS=${CONFIGS:-"untraced busybox-dd kstats-trace kstats-trace-stopped"}

r=1
while [ "$r" -le "$ROUNDS" ]; do
	for c in $CONFIGS; do
		if ! config on "$c" 2>/tmp/err; then
			[ "$r" = 1 ] && echo "skip $c $(head -n 1 /tmp/err)"
			config off "$c" 2>/dev/null
			continue
		fi
		for n in $SIZE $((SIZE * 2)); do
			if [ "$c" = busybox-dd ]; then
				out=$(bench-mark run dd if=/dev/zero of=/dev/null \
					bs=1 count="$n" 2>&1 | grep '^ns')
			else
				out=$(bench-mark dd "$n" 2>&1)
			fi
			echo "run $c $r $n ${out#ns }"
		done
		config off "$c" || echo "# teardown of $c failed"
	done
	r=$((r + 1))
done
