#!/bin/sh
# The start of the guest scripts of "make compare-biolatency" and "make
# compare-sched" (scripts/compare-lib.sh puts it before them): tracefs
# and the BPF file system for bpftrace, locked memory for its maps, the
# guest described on the results port, kstats.ko and configfs (null_blk's)
# loaded.
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
# shellcheck disable=SC3045 # dash has it: BPF maps need locked memory
ulimit -l unlimited
echo "# kernel $(uname -r)"
echo "# $(bpftrace --version 2>&1)"
echo "# cpus $(nproc)"
insmod /modules/kstats.ko || echo "# insmod kstats failed"
grep -q configfs /proc/filesystems || insmod /modules/extra/configfs.ko
