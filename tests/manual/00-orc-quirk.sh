#!/bin/sh
# The ORC unwinder's warning at return_to_handler+0x46, without kstats
# (scripts/repro-orc-quirk.sh boots the debug kernel with no kstats
# module): function graph returns on the functions of a 1-byte dd, and a
# stack trace from every timer interrupt (event triggers), until the
# warning shows, at most ROUNDS (30) dd runs of 20,000 bytes.
. /tests/lib.sh
plan 2
T=/sys/kernel/tracing
grep -q " $T tracefs " /proc/mounts || mount -t tracefs nodev $T
is "$(wc -l < /proc/modules)" 0 "no module loaded"
echo 'vfs_read vfs_write ksys_read ksys_write rw_verify_area' > $T/set_ftrace_filter
echo function_graph > $T/current_tracer
for ev in irq_vectors/local_timer_entry timer/hrtimer_expire_entry; do
	echo stacktrace > $T/events/$ev/trigger
done
i=0
while [ $i -lt "${ROUNDS:-30}" ]; do
	dd if=/dev/zero of=/dev/null bs=1 count=20000 2>/dev/null
	i=$((i + 1))
	dmesg | grep -q 'stack going in the wrong direction' && break
done
for ev in irq_vectors/local_timer_entry timer/hrtimer_expire_entry; do
	echo '!stacktrace' > $T/events/$ev/trigger
done
echo nop > $T/current_tracer
echo "# after $i dd runs of 20,000 bytes:"
dmesg | grep 'stack going in the wrong direction' | sed 's/^/# /'
is "$(dmesg | grep -c 'stack going in the wrong direction? at return_to_handler+0x46/')" 1 \
	"the unwinder's warning at return_to_handler+0x46, without kstats"
