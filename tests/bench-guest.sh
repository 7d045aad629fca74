#!/bin/sh
# Guest side of "make bench": cost of one kstats_record() sample, in
# picoseconds per operation, three rounds of 1000000 iterations each, all
# cases interleaved in one boot. Compare cases as ratios: under QEMU TCG
# absolute figures are far from real hardware.
echo "kstats hot-path benchmark on $(uname -r)"
insmod /modules/kstats.ko
insmod /modules/kstats_bench.ko
for round in 1 2 3; do
	echo "# round $round"
	echo 1000000 > /sys/kernel/debug/kstats_bench/run
	cat /sys/kernel/debug/kstats_bench/run
done
rmmod kstats_bench
rmmod kstats
