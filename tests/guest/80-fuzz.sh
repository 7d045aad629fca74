#!/bin/sh
# Fuzz: 100,000 writes (30,000 on the debug kernel) into _control and
# entry files (the fuzzer is
# tests/user/kstats_fuzz.c); entries that existed before, stopped, must
# read byte-identical afterwards and _control must list the same entries.
# Then 1,000 more beside concurrent resets (file and /dev/kstats) and
# reads of _keys and _outliers.
# KSTATS_FUZZ_SEED on the kernel command line replays a run.
# timeout: 500
. /tests/lib.sh
plan 25
load_modules

FN=kstats_helper_work
EINVAL="Invalid argument"
state() { grep "^name $1 " "$KS/_control" | sed 's/.* state \([a-z]*\).*/\1/'; }
put() { kstats-fuzz put "$@"; }

# Entry commands with a NUL and more after it are refused, as _control
# refuses them, and change nothing.
helper new fz 3 >/dev/null
echo stop > "$KS/fz"
for cmd in 'start\0junk' 'start\0' 'stop\0\n' 'reset\0x' 'START\0junk\n'; do
	log_mark
	is "$(put "$KS/fz" "$cmd")" "$EINVAL" "entry: '$cmd' refused"
	is "$(log_new | grep -c 'fz: command refused: NUL byte')" 1 "entry: '$cmd': one line in the log"
done
is "$(state fz)" stopped "entry: still stopped after the NUL commands"
is "$(put "$KS/fz" 'start\n')" OK "entry: 'start' with a newline is taken"
is "$(state fz)" running "entry: running"
is "$(put "$KS/_control" "trace $FN\\0junk")" "$EINVAL" "_control: NUL refused"

# The entries to keep: one of kernel code, one trace, one pair, stopped,
# with samples.
helper new keep_kern 2 >/dev/null
helper record keep_kern 1234 7 >/dev/null
echo "trace kstats_helper_mark_end as keep_trace" > "$KS/_control"
echo "trace keep_pair start kstats_helper_mark_start end __tracepoint_kstats_helper_end key task" > "$KS/_control"
helper work 3 1000 >/dev/null
for e in keep_kern keep_trace keep_pair; do echo stop > "$KS/$e"; done
check "kept entries have samples" test "$(grep -c CPUS "$KS/keep_trace")" -ge 1

seed=$(sed -n 's/.*KSTATS_FUZZ_SEED=\([0-9]*\).*/\1/p' /proc/cmdline)
[ -n "$seed" ] || seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
echo "# fuzz seed $seed (replay: KSTATS_APPEND=KSTATS_FUZZ_SEED=$seed)"
# 40,000 writes, 30,000 on the debug kernel (KASAN, lockdep, kmemleak):
# 100,000 took 798 s there, 88 to 106 s on the stock kernels of a slow
# host (2026-11-29). A new seed each run: the runs add up.
N=40000
[ "$TARGET" != debug ] || N=30000
start=$(date +%s)
kstats-fuzz fuzz "$KS" "$seed" $N fz keep_kern keep_trace keep_pair
# 2: it could not open its files, and wrote nothing.
is "$?" 0 "the fuzzer ran its $N writes and exited 0"
echo "# fuzz took $(($(date +%s) - start)) s"
grep '^name' "$KS/_control" | sed 's/^/# /'

echo "remove keep_trace" > "$KS/_control"
echo "remove keep_pair" > "$KS/_control"
helper delete keep_kern >/dev/null
helper delete fz >/dev/null

# The same beside writers and readers the fuzzer does not see: resets of
# one entry from its file and from /dev/kstats at once, and reads of its
# _keys and _outliers, each read bounded (a seqcount left odd by two
# resets would make it spin for good). The entry, vfs_read with keys and
# outliers, is the fuzzer's ENTRY here: its state may change. The kept
# entries are gone by now: the fuzzer's "reset fz" and such find none.
echo "trace vfs_read outliers 4 by pid as conc80" > "$KS/_control"
rm -f /tmp/kst80.*
side() {
	n=0
	while [ ! -e /tmp/kst80.stop ]; do
		"$@" || echo "$*" >> /tmp/kst80.fail
		n=$((n + 1))
	done
	echo "$n" > "/tmp/kst80.$1.n"
}
read_conc80() { timeout 10 cat "$KS/_keys/conc80" "$KS/_outliers/conc80" > /dev/null; }
reset_file() { echo reset > "$KS/conc80"; }
reset_dev() { echo "reset conc80" > /dev/kstats; }
# (stderr away from the results: a reset of an entry the fuzzer removed
# is the shell's error.)
side reset_file 2>/dev/null & p1=$!
side reset_dev 2>/dev/null & p2=$!
side read_conc80 2>/dev/null & p3=$!
seed2=$((seed + 1))
# 1,000 writes: the three loops beside them starve the fuzzer (2,000 took
# 47 s on deb61, the 40,000 before them 15 s), and each loop still runs
# hundreds of times.
kstats-fuzz fuzz "$KS" "$seed2" 1000 conc80
is "$?" 0 "the fuzzer ran 1000 writes beside concurrent resets and reads"
touch /tmp/kst80.stop
wait $p1 $p2 $p3
for w in reset_file reset_dev read_conc80; do
	check "$w ran beside the fuzzer ($(cat /tmp/kst80.$w.n 2>/dev/null) times)" \
		test "$(cat /tmp/kst80.$w.n 2>/dev/null || echo 0)" -gt 0
done
is "$(cat /tmp/kst80.fail 2>/dev/null)" "" "no reset failed and no read took over 10 s"
check "_outliers/conc80 and _keys/conc80 read at once afterwards" read_conc80
echo "remove conc80" > "$KS/_control"
# Calibration lines (71-tool-calibrate.sh) stay as long as the module.
is "$(grep -c '^name ' "$KS/_control")" 0 "_control lists no entry at the end"
