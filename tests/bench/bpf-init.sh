#!/bin/sh
# /init of the bench's bpftrace guest: a Debian userspace (debootstrap,
# scripts/bench-rootfs.sh) unpacked from the initramfs. Runs
# /bench-bpf-guest.sh with its output on the second serial port, then
# powers off.
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing
mount -t tmpfs tmpfs /tmp
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
ulimit -l unlimited
stty -F /dev/ttyS1 raw -echo 2>/dev/null
sh /bench-bpf-guest.sh </dev/null >/dev/ttyS1 2>&1
echo "# GUEST DONE" >/dev/ttyS1
sync
echo o >/proc/sysrq-trigger
sleep 60
