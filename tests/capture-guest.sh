#!/bin/sh
# shellcheck shell=sh disable=SC3037 # busybox sh: echo -n
# Guest side of tests/capture.sh (busybox sh, run as /demo.sh): record the
# raw sample lists appended to this script through the test helper module,
# each sample on its CPU (taskset), then print every kstats file between
# "# CAPTURE BEGIN <dir>/<file>" and "# CAPTURE END <dir>/<file>" lines for
# the host to store as capture directories:
#   helper/   _control and one file per entry of tests/fixtures/samples/
#   example/  _control and example_memset from kstats_example (real timings)
# The data, appended by tests/capture.sh after the "#@DATA" line:
#   #@ENTRY NAME bits BITS [stop]
#   CPU COUNT VALUE          (COUNT samples of VALUE on CPU)
KS=/sys/kernel/debug/kstats
HELPER=/sys/kernel/debug/kstats_helper/cmd
SELF=${KSTATS_CAPTURE_SELF:-/demo.sh}

fail() {
	echo "# CAPTURE FAILED: $*"
	exit 1
}

data() {
	sed -n '/^#@DATA$/,$p' "$SELF"
}

# dump DIR: every file of $KS, as DIR/<file>.
dump() {
	for f in "$KS/_control" $(sed -n 's/^name \([^ ]*\) .*/\1/p' "$KS/_control"); do
		f=${f##*/}
		echo "# CAPTURE BEGIN $1/$f"
		cat "$KS/$f" || fail "cat $KS/$f"
		echo "# CAPTURE END $1/$f"
	done
}

echo "# capture on $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs"
insmod /modules/kstats.ko || fail "insmod kstats.ko"
insmod /modules/kstats_helper.ko || fail "insmod kstats_helper.ko"

data | sed -n 's/^#@ENTRY //p' >/tmp/entries
while read -r name _ bits flag; do
	echo -n "new $name $bits" >"$HELPER" || fail "new $name $bits"
	for cpu in 0 1; do
		data | awk -v e="$name" -v c="$cpu" '
			/^#@ENTRY / { on = ($2 == e); next }
			on && $1 == c' >/tmp/rec
		# shellcheck disable=SC2016 # expanded by the inner sh
		taskset -c "$cpu" sh -c '
			while read -r c n v; do
				echo -n "record $0 $v $n" >"$1" || exit 1
			done </tmp/rec' "$name" "$HELPER" ||
			fail "record $name on CPU $cpu"
	done
	if [ "$flag" = stop ]; then
		echo -n "stop $name" >"$HELPER" || fail "stop $name"
	fi
	echo "# recorded $name: $(grep CPUS "$KS/$name" | awk '{n += $6} END {print n + 0}') samples"
done </tmp/entries
dump helper
rmmod kstats_helper || fail "rmmod kstats_helper"

insmod /modules/kstats_example.ko loops=20000 || fail "insmod kstats_example.ko"
dump example
rmmod kstats_example
rmmod kstats
echo "# CAPTURE DONE"
exit 0
