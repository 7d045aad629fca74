#!/bin/sh
# Torture, for a bounded time, all at once: two writers tracing and
# removing the same and different names through every mechanism, key cpu,
# task and arg1, and outliers, readers of the entries, of _control, _keys
# and _outliers, reset/start/stop spam, and
# the traced code running on every CPU. Then rmmod kstats_helper and
# rmmod kstats while all of it still runs: each succeeds or fails with
# EBUSY or EAGAIN; afterwards both load again and a new trace counts.
# timeout: 300
. /tests/lib.sh
plan 9
load_modules

SECS=${TORTURE_SECS:-20}
FN=kstats_helper_work
MS=kstats_helper_mark_start
ME=kstats_helper_mark_end
TS=__tracepoint_kstats_helper_start
TE=__tracepoint_kstats_helper_end
STOP=/tmp/torture-stop
rm -f "$STOP" /tmp/torture-*.n

# writer ID NAME...: cycles through every way of creating NAME, then
# removes it; counts the commands that were taken.
writer() {
	id=$1
	shift
	n=0
	while [ ! -e "$STOP" ]; do
		for name in "$@"; do
			for c in "trace $FN as $name" "trace $FN via kretprobe as $name" \
				"trace $FN via fprobe as $name" "trace pcpu:$FN as $name" \
				"trace $name start $MS end $ME key cpu" \
				"trace $name start $MS end $ME key task" \
				"trace $name start $TS end $TE key task" \
				"trace $name start $FN end $TE key cpu" \
				"trace $FN outliers 3 as $name" \
				"trace $name start $TS end $TE key arg1 type u32 outliers 2"; do
				echo "$c" > "$KS/_control" 2>/dev/null && n=$((n + 1))
				echo "remove $name" > "$KS/_control" 2>/dev/null && n=$((n + 1))
				[ -e "$STOP" ] && break 2
			done
		done
	done
	echo "$n" > "/tmp/torture-w$id.n"
}

reader() {
	n=0
	while [ ! -e "$STOP" ]; do
		cat "$KS/_control" > /dev/null 2>&1
		for f in "$KS"/* "$KS"/_keys/* "$KS"/_outliers/*; do
			cat "$f" > /dev/null 2>&1
		done
		n=$((n + 1))
	done
	echo "$n" > /tmp/torture-r.n
}

spammer() {
	while [ ! -e "$STOP" ]; do
		for f in "$KS"/*; do
			case $f in */_control) continue ;; esac
			for c in reset stop start; do echo $c > "$f" 2>/dev/null; done
		done
	done
}

helper new tk 3 >/dev/null
# Their stderr would cut into the results: a write into a file that
# rmmod took away is the shell's error, whatever the command's 2>.
writer 1 same w1 2>/dev/null &
writer 2 same w2 2>/dev/null &
reader 2>/dev/null &
spammer 2>/dev/null &
for cpu in $(seq 0 $(($(nproc) - 1))); do
	taskset -c "$cpu" sh -c "while [ ! -e $STOP ]; do
		echo 'work 50 0' > $HELPER; echo 'nest 5 0' > $HELPER
		dd if=/dev/zero of=/dev/null bs=1 count=200; done 2>/dev/null" &
done
sleep "$SECS"

# rmmod while all of that runs: the helper (holding traced code and an
# entry of its own), then kstats itself; up to three tries each.
rmmod_torture() {
	tries=""
	for _ in 1 2 3; do
		out=$(rmmod "$1" 2>&1) && { tries="$tries OK"; break; }
		out=$(echo "$out" | sed 's/.*: //')
		tries="$tries '$out'"
		case $out in
		"Resource temporarily unavailable" | "Device or resource busy") ;;
		*) break ;;
		esac
		sleep 1
	done
	echo "# rmmod $1 under torture:$tries"
	case $tries in
	*"'Resource temporarily unavailable'" | *"'Device or resource busy'" | *OK)
		ok "rmmod $1 under torture: succeeds, or EAGAIN or EBUSY" ;;
	*) not_ok "rmmod $1 under torture: succeeds, or EAGAIN or EBUSY" ;;
	esac
}
rmmod_torture kstats_helper
rmmod_torture kstats
: > "$STOP"
wait
echo "# commands taken: writer 1 $(cat /tmp/torture-w1.n), writer 2 $(cat /tmp/torture-w2.n); reader passes $(cat /tmp/torture-r.n)"
check "the writers got commands through" test "$(cat /tmp/torture-w1.n)" -gt 0 -a "$(cat /tmp/torture-w2.n)" -gt 0
# Once all of it stopped, whatever is left unloads, once the entries
# left are removed (a direct one keeps kstats loaded).
if [ -e "$KS/_control" ]; then
	for n in $(awk '$1 == "name" { print $2 }' "$KS/_control"); do
		echo "# left over: $n"
		ctl remove "$n" >/dev/null
	done
fi
left=""
for m in kstats_helper kstats; do
	if grep -q "^$m " /proc/modules; then
		# A removed direct entry may still drain a moment.
		rmmod_drained $m || left="$left $m"
	fi
done
is "$left" "" "whatever is left unloads once the torture stopped"
check "kstats is gone" test ! -e "$KS"

check "kstats loads again" load_modules
is "$(write_err "$KS/_control" "trace $FN")" OK "a new trace is taken"
helper work 9 0 >/dev/null
is "$(grep CPUS "$KS/$FN" | awk '{ n += $6 } END { print n }')" 9 "and counts"
echo "remove $FN" > "$KS/_control"
is "$(cat "$KS/_control")" "" "_control empty at the end"
