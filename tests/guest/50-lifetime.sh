#!/bin/sh
# Deleting entries under open readers, reads during recording, rmmod.
. /tests/lib.sh
plan 13
load_modules

# A reader holds the file open while the entry is deleted.
helper new gone 2 >/dev/null
helper record gone 9 9 >/dev/null
exec 3< "$KS/gone"
exec 4> "$KS/gone"
is "$(helper delete gone)" OK "delete with the file held open"
check "file is gone from the directory" test ! -e "$KS/gone"
is "$(cat <&3 2>&1 | sed 's/.*: //')" "Input/output error" "read on the stale fd gets EIO"
is "$( (echo -n reset >&4) 2>&1 | sed 's/.*: //')" "Input/output error" "write on the stale fd gets EIO"
exec 3<&- 4>&-
is "$(helper new gone 2)" OK "the name can be reused"
is "$(cat "$KS/gone")" "" "reused name starts empty"
helper delete gone >/dev/null

# Reads while both CPUs record: each read is self-consistent.
helper new busy 3 >/dev/null
pids=
for cpu in 0 1; do
	taskset -c $cpu sh -c "i=0; while [ \$i -lt 40 ]; do
		printf 'record busy %s 200' \$((i * 37 + 1)) > $HELPER; i=\$((i + 1)); done" &
	pids="$pids $!"
done
running() { for p in $pids; do kill -0 $p 2>/dev/null && return 0; done; return 1; }
bad=0 reads=0
while running || [ $reads -lt 5 ]; do
	cat "$KS/busy" > /tmp/busy
	reads=$((reads + 1))
	[ -s /tmp/busy ] || continue
	# Per slot, CPU counts add up to the CPUS line; the CDF ends at 1.
	awk '
	/CPUS/ { if (c != $6) bad = 1; c = 0; tot += $6; last = $10; next }
	{ c += $6 }
	END { if (c != 0 || (tot && last != "1.000000")) bad = 1; exit bad }
	' /tmp/busy || bad=$((bad + 1))
done
wait
is "$bad" 0 "all $reads reads during recording were self-consistent"
is "$(grep CPUS "$KS/busy" | awk '{s += $6} END {print s}')" 16000 "all 16000 samples counted"

# rmmod is refused while a kernel user holds entries, then works.
check "kstats cannot go while the helper uses it" sh -c "! rmmod kstats 2>/dev/null"
exec 3< "$KS/busy"
check "helper unloads with an entry still open" rmmod kstats_helper
exec 3<&-
is "$(ls "$KS" | tr '\n' ' ')" "_control _keys _outliers " "helper's entries were deleted on unload"
check "kstats unloads" rmmod kstats
check "debugfs directory is gone" test ! -e "$KS"
