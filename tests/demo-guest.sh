#!/bin/sh
# Guest side of "make demo" (busybox sh, /demo.sh in the initramfs): load
# kstats and an example module that instruments itself, make it record
# samples, and show the histogram the way a user would read it.
KS=/sys/kernel/debug/kstats
RUN=/sys/kernel/debug/kstats_example/run

say() {
	echo
	echo "### $*"
}

# ASCII view of the CPUS lines, merged per power of two of the mean:
# range (ns), count, CDF at the end of the range, bar scaled to 50.
bars() {
	grep CPUS "$1" | awk '
	{
		# busybox awk has no log(): find the power of two by halving.
		b = 1; for (v = $8; v >= 2; v = int(v / 2)) b *= 2
		if (!(b in cnt)) order[n++] = b
		cnt[b] += $6; p[b] = $10
		if (cnt[b] > max) max = cnt[b]
	}
	END {
		for (i = 0; i < n; i++) {
			b = order[i]; bar = ""
			for (j = 0; j < cnt[b] * 50 / max; j++)
				bar = bar "#"
			printf "[%8d, %8d) %8d  p %s |%s\n", b, 2 * b, cnt[b], p[b], bar
		}
	}'
}

echo "kstats demo on $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs"

say "insmod kstats.ko"
insmod /modules/kstats.ko
say "insmod kstats_example.ko loops=20000   # times memset() of 64 B..64 KiB"
insmod /modules/kstats_example.ko loops=20000

say "cat $KS/_control"
cat $KS/_control

say "grep CPUS $KS/example_memset   # slot, CPUs, count, avg ns, CDF"
grep CPUS $KS/example_memset

say "the same per power of two: [ns, ns) count CDF"
bars $KS/example_memset

say "echo reset > example_memset; 20000 more runs on CPU 1 only"
echo reset > $KS/example_memset
taskset -c 1 sh -c "echo 20000 > $RUN"
say "grep -c 'CPU  0 ' / 'CPU  1 ' example_memset   # lines per CPU"
echo "CPU 0: $(grep -c 'CPU  0 ' $KS/example_memset) lines," \
     "CPU 1: $(grep -c 'CPU  1 ' $KS/example_memset) lines"
say "tail -n 4 example_memset   # the slowest slots, per CPU and in total"
tail -n 4 $KS/example_memset

say "echo stop > example_memset; 1000 more runs are not counted"
echo stop > $KS/example_memset
echo 1000 > $RUN
grep CPUS $KS/example_memset | awk '{ n += $6 } END { print n " samples" }'
cat $KS/_control

say "rmmod kstats_example"
rmmod kstats_example

say "run-time attachment: trace a function and a latency, no recompiling"
echo "    echo 'trace vfs_read' > _control"
echo 'trace vfs_read' > $KS/_control
echo "    kstats trace sys start __tracepoint_sys_enter end __tracepoint_sys_exit key task"
kstats trace sys start __tracepoint_sys_enter end __tracepoint_sys_exit key task
cat $KS/_control

say "dd if=/dev/zero of=/dev/null bs=1 count=20000   # 20000 reads, 20000 writes"
echo reset > $KS/vfs_read
echo reset > $KS/sys
dd if=/dev/zero of=/dev/null bs=1 count=20000 2>/dev/null
echo stop > $KS/vfs_read
echo stop > $KS/sys
echo "    (between: echo reset, then echo stop, into each entry's file)"

say "kstats show vfs_read   # runtime of each vfs_read() call"
kstats show vfs_read
say "kstats show sys --rows 12   # syscalls: sys_enter to sys_exit of one task"
kstats show sys --rows 12
say "kstats export --openmetrics sys   # for Prometheus, in seconds"
kstats export --openmetrics sys | awk 'NR <= 3 || (/_bucket/ && $2 > 0 && n++ < 3)'
echo "..."
say "echo 'trace no_such_function' > _control   # refused: errno, and the reason in the log"
echo 'trace no_such_function' > $KS/_control
dmesg | grep 'kstats: ' | tail -n 1
say "cat _control   # counters of each trace"
cat $KS/_control

say "kstats remove vfs_read; kstats remove sys; rmmod kstats   # a direct trace keeps kstats loaded until removed"
kstats remove vfs_read
kstats remove sys
# A vfs_read() that was in flight at the remove may still be returning.
i=0
while ! rmmod kstats 2>/dev/null && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ ! -e $KS ] && echo "$KS is gone"
