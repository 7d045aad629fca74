#!/bin/sh
# CPU hotplug: CPU 1 goes offline and online while entries record, per-CPU
# counts stay exact and the totals equal the sum of the CPU lines; reset
# clears an offline CPU too.
# timeout: 300
. /tests/lib.sh
plan 23
load_modules

FN=kstats_helper_work
ONLINE=/sys/devices/system/cpu/cpu1/online
if [ ! -w "$ONLINE" ]; then
	echo "# no CPU hotplug on this kernel: $ONLINE missing"
	not_ok "CPU 1 can go offline"
	exit 0
fi
# cpu_sum ENTRY CPU: samples on that CPU; cpus_sum ENTRY: of the CPUS lines.
cpu_sum() { grep "CPU  $2 " "$KS/$1" | awk '{ n += $6 } END { print n + 0 }'; }
cpus_sum() { grep CPUS "$KS/$1" | awk '{ n += $6 } END { print n + 0 }'; }
all_cpus() { grep -v CPUS "$KS/$1" | awk '{ n += $6 } END { print n + 0 }'; }

helper new hp 3 >/dev/null
ctl "trace $FN" >/dev/null
ctl "trace pcpu:$FN as hp_pcpu" >/dev/null
ctl "trace hp_pair start kstats_helper_mark_start end kstats_helper_mark_end key cpu" >/dev/null
ctl "trace hp_task start __tracepoint_kstats_helper_start end __tracepoint_kstats_helper_end key task" >/dev/null
ENTRIES="hp $FN hp_pcpu hp_pair hp_task"

# Exact: 40 calls on CPU 0, 30 on CPU 1, CPU 1 offline and 20 more on
# CPU 0, CPU 1 back and 10 more on it.
helper_on 0 work 40 0 hp
helper_on 1 work 30 0 hp
echo 0 > "$ONLINE"
is "$(cat "$ONLINE")" 0 "CPU 1 offline"
helper_on 0 work 20 0 hp
for e in $ENTRIES; do
	is "$(cpu_sum $e 0) $(cpu_sum $e 1) $(cpus_sum $e)" "60 30 90" \
		"$e: CPU 1 offline: its samples are still listed"
done
echo 1 > "$ONLINE"
is "$(cat "$ONLINE")" 1 "CPU 1 online again"
helper_on 1 work 10 0 hp
for e in $ENTRIES; do
	is "$(cpu_sum $e 0) $(cpu_sum $e 1) $(cpus_sum $e) $(all_cpus $e)" \
		"60 40 100 100" "$e: exact per-CPU counts after offline and online"
done

# Reset while CPU 1 is offline clears its counters too.
echo 0 > "$ONLINE"
for e in $ENTRIES; do echo reset > "$KS/$e"; done
echo 1 > "$ONLINE"
for e in $ENTRIES; do
	is "$(cat "$KS/$e")" "" "$e: reset with CPU 1 offline leaves nothing"
done

# Offline and online while a loop on CPU 1 records: the loop moves to
# CPU 0 and back; every call is counted on some CPU, and the totals are
# the sum of the CPU lines.
rm -f /tmp/hp-stop
taskset -c 1 sh -c "i=0; while [ ! -e /tmp/hp-stop ]; do
	echo 'work 10 0 hp' > $HELPER; i=\$((i + 1)); done; echo \$i > /tmp/hp-n" &
for _ in 1 2 3 4 5 6; do
	sleep 1
	echo 0 > "$ONLINE"
	sleep 1
	echo 1 > "$ONLINE"
done
: > /tmp/hp-stop
wait
n=$(($(cat /tmp/hp-n) * 10))
echo "# $n calls while CPU 1 went offline and online 6 times"
for e in $ENTRIES; do
	is "$(cpus_sum $e) $(all_cpus $e)" "$n $n" "$e: $n calls across 6 offline/online cycles"
done
for e in $ENTRIES; do
	[ "$e" = hp ] && continue
	grep "^name $e " "$KS/_control" | sed 's/^/# /'
done

for e in $FN hp_pcpu hp_pair hp_task; do ctl remove $e >/dev/null; done
helper delete hp >/dev/null
is "$(cat "$KS/_control")" "" "_control empty at the end"
