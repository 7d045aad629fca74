#!/bin/sh
# /init of the kstats test guests (busybox sh, PID 1).
#
# Kernel messages go to the console, ttyS0. Everything the host parses goes
# to the second serial port, ttyS1, so it never interleaves with them (on
# arm64, whose QEMU virt machine has one serial port, ttyAMA0, to a virtio
# serial port named kstats.results: run-guest.sh):
#
#   # BEGIN <script>
#   ...the script's stdout and stderr: "ok - ...", "not ok - ...", "# ..."
#   # END <script> rc=<rc>
#   not ok - <script> exited <rc>          (only when rc != 0)
#   # DMESG BEGIN / ...dmesg... / # DMESG END
#   # GUEST DONE
#
# Modes (/etc/kstats-mode): "tests" (default) runs KUnit and /tests/[0-9]*.sh;
# "demo" runs /demo.sh and nothing else.

PATH=/sbin:/bin:/usr/sbin:/usr/bin
export PATH

# Default limit per test script, in seconds; a script overrides it with a
# "# timeout: N" line.
DEFAULT_TIMEOUT=300

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmpfs /tmp

# Raw mode: no "\n" -> "\r\n" translation on the results port.
port=/dev/ttyS1
# A virtio serial port, not a virtio console (hvc0): the console's output
# is written out by a kernel thread, and what it still holds at the reboot
# is lost; a port's write returns once QEMU has it. The driver adds the
# port a moment after boot, from its control queue.
if [ "$(uname -m)" = aarch64 ]; then
	port=
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		for d in /sys/class/virtio-ports/*; do
			[ "$(cat "$d/name" 2>/dev/null)" = kstats.results ] &&
				port=/dev/${d##*/}
		done
		[ -n "$port" ] && break
		sleep 1
	done
	[ -n "$port" ] || port=/dev/console
fi
stty -F "$port" raw -echo 2>/dev/null
exec 3>"$port"

KSTATS_TARGET=$(cat /etc/kstats-target)
KSTATS_MODULES=/modules
export KSTATS_TARGET KSTATS_MODULES
mode=tests
[ -r /etc/kstats-mode ] && mode=$(cat /etc/kstats-mode)

res() {
	echo "$*" >&3
}

# Mark the kernel log too, so that a splat can be tied to the test that
# caused it.
kmsg() {
	echo "kstats-guest: $*" >/dev/kmsg
}

# dump_tasks: every task's state, wait channel and kernel stack, then the
# kernel's own list of blocked tasks, to the console: what a script that
# ran out of time was waiting for.
dump_tasks() {
	{
		echo "kstats-guest: tasks at uptime $(cut -d' ' -f1 /proc/uptime) s"
		for d in /proc/[0-9]*; do
			[ -r "$d/stat" ] || continue
			echo "task ${d#/proc/} $(cut -d' ' -f2,3 "$d/stat" 2>/dev/null) wchan $(cat "$d/wchan" 2>/dev/null) cmd $(tr '\0' ' ' <"$d/cmdline" 2>/dev/null | cut -c1-120)"
			sed 's/^/    /' "$d/stack" 2>/dev/null
		done
	} >/dev/console 2>&1
	echo w >/proc/sysrq-trigger 2>/dev/null
}

# Run "$@" in a session of its own with a time limit, so that a hung script
# is killed together with its children, after dump_tasks. Returns its exit
# status, 124 on timeout (as coreutils timeout does).
run_limited() {
	limit=$1
	shift
	rm -f /tmp/timed-out
	setsid "$@" &
	pid=$!
	(sleep "$limit" && dump_tasks && kill -KILL -"$pid" 2>/dev/null &&
		: >/tmp/timed-out) &
	dog=$!
	wait "$pid"
	rc=$?
	kill "$dog" 2>/dev/null
	wait "$dog" 2>/dev/null
	# Whatever the script left running in the background goes too.
	kill -KILL -"$pid" 2>/dev/null
	if [ "$rc" = 137 ] && [ -e /tmp/timed-out ]; then
		rc=124
	fi
	return "$rc"
}

# insmod a module of /modules after the modules it depends on: insmod does
# not resolve dependencies, and busybox modinfo needs a modules.dep, so the
# "depends=" field is read from the .ko itself. Prints what it loaded,
# deepest first, so that the caller can unload in reverse.
load_with_deps() {
	deps=$(strings "$1" | sed -n 's/^depends=//p' | head -n 1)
	for dep in $(echo "$deps" | tr ',' ' '); do
		[ -e "/sys/module/$dep" ] && continue
		if [ -e "/modules/$dep.ko" ]; then
			load_with_deps "/modules/$dep.ko" || return 1
		fi
	done
	insmod "$1" || return 1
	echo "$1"
}

run_kunit() {
	ko=/modules/kstats_test.ko
	[ -e "$ko" ] || return 0
	res "# BEGIN kunit"
	kmsg "loading $ko"
	# KUnit runs the suites at load time and prints KTAP to the kernel log.
	if loaded=$(load_with_deps "$ko"); then
		for m in $(echo "$loaded" | sed -n '1!G;h;$p'); do
			m=${m##*/}
			rmmod "${m%.ko}" || res "not ok - rmmod ${m%.ko}"
		done
		res "# END kunit rc=0"
	else
		res "not ok - insmod $ko"
		res "# END kunit rc=1"
	fi
	kmsg "kunit done"
}

run_tests() {
	cd /tests || return 0
	for t in /tests/[0-9]*.sh; do
		[ -e "$t" ] || continue
		name=${t##*/}
		limit=$(sed -n 's/^# *timeout: *\([0-9][0-9]*\).*/\1/p' "$t" | head -n 1)
		res "# BEGIN $name"
		kmsg "BEGIN $name"
		began=$(cut -d' ' -f1 /proc/uptime)
		run_limited "${limit:-$DEFAULT_TIMEOUT}" sh "$t" </dev/null >&3 2>&3
		rc=$?
		kmsg "END $name rc=$rc"
		res "# END $name rc=$rc"
		if [ "$rc" = 124 ]; then
			res "not ok - $name timed out after ${limit:-$DEFAULT_TIMEOUT} s (uptime $began s to $(cut -d' ' -f1 /proc/uptime) s)"
		elif [ "$rc" != 0 ]; then
			res "not ok - $name exited $rc"
		fi
	done
	cd /
}

# kmemleak only reports objects older than 5 s, hence two scans with a
# pause; the report goes to the console log, where check-guest-log.sh
# looks for "unreferenced object".
run_kmemleak() {
	kml=/sys/kernel/debug/kmemleak
	[ -e "$kml" ] || return 0
	echo scan >"$kml"
	sleep 6
	echo scan >"$kml"
	echo "# KMEMLEAK BEGIN"
	cat "$kml"
	echo "# KMEMLEAK END"
}

# The direct trampolines' module, which kstats.ko needs: loaded once, it
# stays while the tests unload and load kstats.ko (kstats_tramp.h).
[ -e /modules/kstats_tramp.ko ] && insmod /modules/kstats_tramp.ko

case $mode in
demo)
	sh /demo.sh </dev/null >&3 2>&3
	res "# demo exited $?"
	;;
*)
	kmsg "target $KSTATS_TARGET, $(nproc) CPUs"
	run_kunit
	run_tests
	run_kmemleak
	res "# DMESG BEGIN"
	dmesg >&3
	res "# DMESG END"
	;;
esac

res "# GUEST DONE"
sync
reboot -f
# reboot -f should not return; make sure PID 1 never exits (a panic).
while :; do sleep 60; done
