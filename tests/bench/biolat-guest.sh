#!/bin/sh
# Guest side of "make compare-biolatency" (scripts/compare-biolatency.sh),
# run after bpf-guest-lib.sh as the demo script of a guest with Debian
# 12's userspace: kstats' request pair and bpftrace, attached at once,
# time the same block requests of a null_blk disk, which also counts them
# itself. Prints raw
# figures for the host to compare (tests/bench/biolat-report.py), one
# section per null_blk setting:
#   phase NAME PARAMS
#   disk READS WRITES        deltas of /sys/block/nullb0/stat
#   kstats_control LINE      the entry's _control line
#   kstats LINE              the CPUS lines of its file
#   bpf_lat NS               each request bpftrace timed
#   bpf LINE                 bpftrace's own output (maps on exit)
#   end NAME
# kstats_biolat_reqs=N on the kernel's command line: requests per phase.
REQS=$(sed -n 's/.*kstats_biolat_reqs=\([0-9]*\).*/\1/p' /proc/cmdline)
REQS=${REQS:-400}
K=/sys/kernel/debug/kstats

# bpftrace 0.17 has no rawtracepoint probes, and the block tracepoints'
# fields have no request pointer: the pair is keyed by (dev, sector),
# unique here as dd reads each block once. The same two tracepoints as
# kstats' entry. Each latency is printed, for exact percentiles.
# shellcheck disable=SC2016 # bpftrace's own $d
BPF='
BEGIN { printf("ready\n"); }
tracepoint:block:block_rq_issue { @s[args->dev, args->sector] = nsecs; }
tracepoint:block:block_rq_complete /@s[args->dev, args->sector]/ {
	$d = nsecs - @s[args->dev, args->sector];
	printf("bpf_lat %d\n", $d);
	@n = count();
	@ns = hist($d);
	delete(@s[args->dev, args->sector]);
}'

# "READS WRITES" completed on nullb0.
disk() { awk '{ print $1, $5 }' /sys/block/nullb0/stat; }

# kstats' entry of the pair.
kstats_on() {
	echo 'trace bio start __tracepoint_block_rq_issue end __tracepoint_block_rq_complete key arg1' \
		>$K/_control || echo "# kstats trace bio failed"
}

# bpftrace in the background ($bpf, output in /tmp/bpf.out); false if it
# did not attach.
bpf_on() {
	bpftrace -e "$BPF" >/tmp/bpf.out 2>&1 &
	bpf=$!
	t0=$(date +%s)
	# BEGIN runs once every probe is attached.
	while ! grep -q '^ready' /tmp/bpf.out; do
		if ! kill -0 $bpf 2>/dev/null || [ $(($(date +%s) - t0)) -ge 600 ]; then
			echo "# bpftrace did not attach: $(tail -n 3 /tmp/bpf.out | tr '\n' ' ')"
			kill -KILL $bpf 2>/dev/null
			return 1
		fi
		sleep 1
	done
	echo "# bpftrace attached after $(($(date +%s) - t0)) s"
}

# phase NAME FIRST NULL_BLK_PARAMS...: load null_blk so, attach both
# tools, FIRST (kstats or bpftrace) first, read REQS blocks with direct
# I/O, detach, print. A tracepoint calls its probes in the order they
# were attached, at the issue and at the completion alike: the second
# tool's time includes the first one's probe at the completion, the
# first one's time the second one's probe at the issue.
phase() {
	name=$1 first=$2
	shift 2
	echo "phase $name $first $*"
	insmod /modules/extra/null_blk.ko nr_devices=1 queue_mode=2 "$@" ||
		{ echo "# insmod null_blk failed"; return; }
	[ "$first" = bpftrace ] || kstats_on
	if ! bpf_on; then
		echo 'remove bio' >$K/_control 2>/dev/null
		rmmod null_blk
		return
	fi
	[ "$first" != bpftrace ] || kstats_on
	d0=$(disk)
	dd if=/dev/nullb0 of=/dev/null bs=4096 count="$REQS" iflag=direct 2>&1 |
		sed -n 's/^/# dd: /;/copied/p'
	d1=$(disk)
	echo "disk $((${d1% *} - ${d0% *})) $((${d1#* } - ${d0#* }))"
	# SIGINT: bpftrace prints its maps and exits.
	kill -INT $bpf
	wait $bpf
	echo "kstats_control $(grep '^name bio ' $K/_control)"
	grep CPUS $K/bio | sed 's/^/kstats /'
	grep '^bpf_lat ' /tmp/bpf.out
	grep -v '^bpf_lat ' /tmp/bpf.out | sed 's/^/bpf /'
	echo 'remove bio' >$K/_control
	rmmod null_blk
	echo "end $name"
}

# null_blk's defaults: completed at once, in the softirq of the issuing
# CPU. Then completions from a 500 us hrtimer (irqmode=2): both tools
# must see about that. Each in both orders of attachment.
for first in bpftrace kstats; do
	phase softirq "$first"
	phase timer500us "$first" irqmode=2 completion_nsec=500000
done
