#!/bin/sh
# Memory: 1,000 create/remove cycles (100 of them also a trace) grow neither percpu nor (without
# KASAN, whose quarantine holds freed objects) unreclaimable slab memory,
# and kmemleak (debug kernel) finds nothing after the run; the memory of
# an entry, slots x possible CPUs x 16 bytes, is what the guest reports;
# the cap on entries (module parameter max_entries) gives ENOSPC past it.
# timeout: 400
. /tests/lib.sh
load_modules

FN=kstats_helper_work
ENOSPC="No space left on device"
CYCLES=${MEM_CYCLES:-1000}
mem() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
ncpu=$(($(cat /sys/devices/system/cpu/possible | sed 's/.*-//') + 1))
kasan=0
zcat /proc/config.gz 2>/dev/null | grep -q '^CONFIG_KASAN=y' && kasan=1

# One cycle: a kernel entry (new, record, delete); every 10th cycle also
# a trace (trace, remove; attaching and detaching probes is slow under
# TCG), through one of five mechanisms in turn.
cycle() {
	echo "new mem 5" > "$HELPER"
	echo "record mem 123456 3" > "$HELPER"
	echo "delete mem" > "$HELPER"
	[ $(($1 % 10)) = 0 ] || return 0
	case $(($1 / 10 % 5)) in
	0) echo "trace $FN bits 5" ;;
	1) echo "trace $FN via kretprobe" ;;
	2) echo "trace pcpu:$FN" ;;
	3) echo "trace $FN start kstats_helper_mark_start end kstats_helper_mark_end" ;;
	4) echo "trace $FN start __tracepoint_kstats_helper_start end __tracepoint_kstats_helper_end key task" ;;
	esac > "$KS/_control"
	echo "work 2 0" > "$HELPER"
	echo "remove $FN" > "$KS/_control"
}

i=0
while [ $i -lt 50 ]; do cycle $i; i=$((i + 1)); done
sync
pcpu0=$(mem Percpu)
slab0=$(mem SUnreclaim)
start=$(date +%s)
i=0
while [ $i -lt "$CYCLES" ]; do cycle $i; i=$((i + 1)); done
pcpu1=$(mem Percpu)
slab1=$(mem SUnreclaim)
echo "# $CYCLES cycles in $(($(date +%s) - start)) s: Percpu $pcpu0 -> $pcpu1 kB, SUnreclaim $slab0 -> $slab1 kB"
is "$(cat "$KS/_control")" "" "nothing left after $CYCLES cycles"
# One entry of frac_bits 5: 1920 slots x 16 bytes per possible CPU.
entry_kb=$((1920 * 16 * ncpu / 1024))
check "$CYCLES cycles: Percpu grew less than one entry ($entry_kb kB)" \
	test $((pcpu1 - pcpu0)) -lt "$entry_kb"
if [ "$kasan" = 1 ]; then
	echo "# KASAN kernel: its quarantine holds freed slab objects; kmemleak checks instead"
else
	# A leak of 64 bytes per cycle would show as 62 kB.
	check "$CYCLES cycles: unreclaimable slab grew less than 64 bytes per cycle" \
		test $((slab1 - slab0)) -lt $((CYCLES * 64 / 1024))
fi

# The cost of an entry: 30 entries of frac_bits 5 (1920 slots). Free
# space in already populated percpu pages, which earlier tests' entries
# leave, would take some of it (after 67-filters-values.sh the full suite
# measured +1440 kB of 1800): 30 entries first use it up.
i=30
while [ $i -lt 60 ]; do echo "new m$i 5" > "$HELPER"; i=$((i + 1)); done
p0=$(mem Percpu)
i=0
while [ $i -lt 30 ]; do echo "new m$i 5" > "$HELPER"; i=$((i + 1)); done
p1=$(mem Percpu)
want=$((30 * 1920 * 16 * ncpu / 1024))
echo "# 30 entries of 1920 slots on $ncpu possible CPUs: Percpu +$((p1 - p0)) kB, expected $want kB"
# Free space in already populated percpu pages takes some of it.
check "Percpu grew by 30 entries' slots x CPUs x 16 bytes (-15%, +5%)" \
	test $(((p1 - p0) * 100)) -ge $((want * 85)) -a $(((p1 - p0) * 100)) -le $((want * 105))
i=0
while [ $i -lt 60 ]; do echo "delete m$i" > "$HELPER"; i=$((i + 1)); done

# The cap: kstats loaded with max_entries=4.
rmmod kstats_helper
rmmod kstats
is "$(insmod "$MODDIR/kstats.ko" max_entries=4 2>&1)" "" "insmod kstats max_entries=4"
load_modules
is "$(cat /sys/module/kstats/parameters/max_entries)" 4 "max_entries is 4"
for e in c1 c2 c3; do helper new $e 3 >/dev/null; done
is "$(write_err "$KS/_control" "trace $FN")" OK "fourth entry, a trace"
is "$(helper new c5 3)" "$ENOSPC" "fifth entry through kstats_new(): ENOSPC"
log_mark
is "$(write_err "$KS/_control" "trace pcpu:$FN as c6")" "$ENOSPC" "fifth entry through _control: ENOSPC"
is "$(log_new | grep -c "_control: 'trace pcpu:$FN as c6' refused")" 1 "one line in the log"
check "no file for the refused entries" test ! -e "$KS/c5" -a ! -e "$KS/c6"
is "$(grep -c '^name' "$KS/_control")" 4 "four entries listed"
helper delete c1 >/dev/null
is "$(helper new c5 3)" OK "room again after a delete"
echo "remove $FN" > "$KS/_control"
for e in c2 c3 c5; do helper delete $e >/dev/null; done
rmmod kstats_helper
rmmod kstats
load_modules
is "$(cat /sys/module/kstats/parameters/max_entries)" 1024 "max_entries is 1024 by default"
