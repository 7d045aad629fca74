#!/bin/sh
# Kernel lockdown (debug kernel, booted by check.sh with lockdown= or with
# KSTATS_LOCKDOWN=raise on the command line; in other boots this script
# does nothing). Under both levels kstats loads (signed), and its files
# can be read; opening them for writing is refused by debugfs (EPERM).
# File descriptors opened before lockdown was raised still write, except
# that confidentiality refuses every trace (no kprobes), with EPERM and
# one line in the log.
# timeout: 300
. /tests/lib.sh

SECFS=/sys/kernel/security
EPERM="Operation not permitted"
FN=kstats_helper_work
case $(cat /proc/cmdline) in
*lockdown=integrity*) mode=integrity ;;
*lockdown=confidentiality*) mode=confidentiality ;;
*KSTATS_LOCKDOWN=raise*) mode=raise ;;
*)
	skip "not a lockdown boot (check.sh boots the debug kernel with lockdown= for this)"
	;;
esac
grep -q " $SECFS " /proc/mounts || mount -t securityfs securityfs "$SECFS"
level() { sed 's/.*\[\(.*\)\].*/\1/' "$SECFS/lockdown"; }
state() { grep "^name $1 " "$KS/_control" | sed 's/.* state \([a-z]*\).*/\1/'; }
# fdw FD STRING: one write into an open file descriptor; OK or the error.
fdw() {
	out=$(eval "(echo -n \"\$2\" >&$1) 2>&1") && { echo OK; return; }
	echo "$out" | sed 's/.*: //'
}

# What works at a lockdown level set at boot: loading, reading, and
# refused write opens.
locked_boot() {
	plan 15
	is "$(level)" "$mode" "lockdown is $mode"
	log_mark
	check "$mode: signed kstats.ko loads" insmod "$MODDIR/kstats.ko"
	raise_log_burst
	is "$(log_new | grep -c 'kstats: kernel is locked down: debugfs files are read-only; write commands into /dev/kstats')" 1 \
		"$mode: one line in the log says so at load"
	check "$mode: signed example module loads" insmod "$MODDIR/kstats_example.ko"
	is "$(grep -c . "$KS/_control")" 1 "$mode: _control can be read"
	is "$(grep '^name' "$KS/_control" | cut -d' ' -f1-8)" \
		"name example_memset origin kernel bits 4 state running" "$mode: _control lists the entry"
	is "$(samples example_memset)" 10000 "$mode: the entry can be read: 10000 samples"
	check "$mode: the kstats tool reads it" kstats show example_memset
	log_mark
	is "$(write_err "$KS/_control" "trace vfs_read")" "$EPERM" "$mode: _control cannot be opened for writing"
	is "$(write_err "$KS/example_memset" reset)" "$EPERM" "$mode: an entry cannot be opened for writing"
	is "$(log_new | grep -c 'Lockdown: .*debugfs access is restricted')" 2 \
		"$mode: each refusal logged by the lockdown LSM"
	is "$(samples example_memset)" 10000 "$mode: the entry is unchanged"
	# /dev/kstats takes the commands that debugfs refuses.
	dev() { write_err /dev/kstats "$*"; }
	if [ "$mode" = integrity ]; then
		plan 11
		is "$(dev "trace vfs_read as ld_d")" OK "$mode: trace through /dev/kstats"
		cat "$KS/_control" "$KS/_control" >/dev/null
		is "$(samples ld_d | awk '{ print ($1 > 0) }')" 1 "$mode: the trace counts"
		is "$(dev "stop ld_d") $(field ld_d state)" "OK stopped" "$mode: stop through /dev/kstats"
		is "$(dev "remove ld_d")" OK "$mode: remove through /dev/kstats"
		is "$(dev "trace vfs_read bits 9")" "Invalid argument" "$mode: bad input through /dev/kstats: EINVAL"
		# The tool, which sends its commands through /dev/kstats.
		is "$(kstats trace vfs_read as ld_t 2>&1 | head -n 1)" "ok: trace vfs_read as ld_t" \
			"$mode: kstats trace"
		cat "$KS/_control" >/dev/null
		is "$(kstats stop ld_t 2>&1)$(field ld_t state)" stopped "$mode: kstats stop"
		is "$(kstats reset ld_t 2>&1)$(samples ld_t)" 0 "$mode: kstats reset"
		is "$(kstats start ld_t 2>&1)$(field ld_t state)" running "$mode: kstats start"
		kstats trace vfs_read bits 9 >/tmp/out 2>&1
		is "$? $(grep -c "kstats: kernel: .*'trace vfs_read bits 9' refused: bits must be 0 to 5" /tmp/out)" \
			"1 1" "$mode: kstats trace with bad input: exit 1, the kernel's reason"
		is "$(kstats remove ld_t 2>&1)" "removed ld_t" "$mode: kstats remove"
	else
		plan 3
		log_mark
		is "$(dev "trace vfs_read as ld_d")" "$EPERM" "$mode: trace through /dev/kstats: EPERM"
		is "$(log_new | grep -c "kstats: /dev/kstats: 'trace vfs_read as ld_d' refused: kernel locked down (confidentiality)")" 1 \
			"$mode: one line in the log names lockdown"
		kstats trace vfs_read as ld_t >/tmp/out 2>&1
		is "$? $(grep -c "kstats: kernel: .*'trace vfs_read as ld_t' refused: kernel locked down (confidentiality)" /tmp/out)" \
			"1 1" "$mode: kstats trace: exit 1, the kernel's reason names lockdown"
	fi
	is "$(dev "reset example_memset") $(samples example_memset)" "OK 0" "$mode: reset through /dev/kstats"
	check "$mode: rmmod example" rmmod kstats_example
	check "$mode: rmmod kstats" rmmod kstats
}

case $mode in
integrity | confidentiality)
	locked_boot
	if [ "$mode" = integrity ]; then
		mode=confidentiality
		plan 1
		is "$(write_err "$SECFS/lockdown" confidentiality)" OK "integrity: raised to confidentiality at run time"
		locked_boot
	fi
	exit 0
	;;
esac

# Raised at run time, with files opened before.
plan 22
is "$(level)" none "booted without lockdown"
load_modules
helper new ld 3 >/dev/null
echo "trace $FN" > "$KS/_control"
exec 5>"$KS/_control" 6>"$KS/ld" 7>"$HELPER"
is "$(write_err "$SECFS/lockdown" integrity)" OK "lockdown raised to integrity"
is "$(level)" integrity "lockdown is integrity"
is "$(write_err "$KS/_control" "trace vfs_read")" "$EPERM" "integrity: new write opens refused"
is "$(fdw 5 "trace pcpu:$FN as ld_p")" OK "integrity: trace through an fd opened before"
is "$(fdw 6 stop)" OK "integrity: stop through an fd opened before"
is "$(state ld)" stopped "integrity: the entry is stopped"
is "$(fdw 6 start)" OK "integrity: start through an fd opened before"
is "$(fdw 7 "work 5 0 ld")" OK "integrity: the helper works through its fd"
is "$(samples $FN) $(samples ld_p) $(samples ld)" "5 5 5" "integrity: entries count and read"

is "$(write_err "$SECFS/lockdown" confidentiality)" OK "lockdown raised to confidentiality"
before=$(cat "$KS/_control")
for c in "trace vfs_read" "trace pcpu:vfs_read" "trace vfs_read via kretprobe" \
	"trace p start vfs_read end vfs_write" \
	"trace p start __tracepoint_sys_enter end __tracepoint_sys_exit key task"; do
	plan 2
	log_mark
	is "$(fdw 5 "$c")" "$EPERM" "confidentiality: '$c' refused through an fd opened before"
	is "$(log_new | grep -c "kstats: _control: '$c' refused: kernel locked down (confidentiality)")" 1 \
		"confidentiality: '$c': one line in the log"
done
is "$(cat "$KS/_control")" "$before" "confidentiality: _control unchanged"
is "$(fdw 7 "work 4 0 ld")" OK "confidentiality: traced code runs"
is "$(samples $FN) $(samples ld_p) $(samples ld)" "9 9 9" "confidentiality: existing traces keep counting and read"
is "$(fdw 6 reset)" OK "confidentiality: reset through an fd opened before"
is "$(samples ld)" 0 "confidentiality: reset done"
is "$(fdw 5 "remove ld_p")" OK "confidentiality: remove through an fd opened before"
is "$(fdw 5 "remove $FN")" OK "confidentiality: remove the other trace"
is "$(fdw 7 "delete ld")" OK "confidentiality: helper deletes its entry"
exec 5>&- 6>&- 7>&-
is "$(cat "$KS/_control")" "" "confidentiality: _control empty"
check "rmmod kstats_helper" rmmod kstats_helper
check "rmmod kstats" rmmod kstats
