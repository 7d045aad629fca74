#!/bin/sh
# Lockdown raised after kstats loaded, as on a Secure Boot machine
# (Debian's kernels have the lockdown LSM): debugfs refuses every open
# for writing, /dev/kstats takes the commands, and confidentiality
# refuses probes. The last script of a boot: nothing after it may write
# into debugfs. The debug kernel's main boot scans kmemleak through
# debugfs afterwards; its lockdown boots run 89-lockdown.sh instead.
# timeout: 200
. /tests/lib.sh

SECFS=/sys/kernel/security
DEV=/dev/kstats
FN=kstats_helper_work
EPERM="Operation not permitted"
case $TARGET in
debug) skip "the debug kernel's lockdown boots run 89-lockdown.sh" ;;
esac
plan 45
grep -q " $SECFS " /proc/mounts || mount -t securityfs securityfs "$SECFS"
level() { sed 's/.*\[\(.*\)\].*/\1/' "$SECFS/lockdown"; }
dev() { write_err $DEV "$*"; }

# An entry whose value is typed by "type u64" where no BTF says what it
# is (the helper's function while /sys/kernel/btf is hidden, kstats
# loaded afresh: nothing cached) may show addresses: confidentiality
# hides its values.
load_modules
rmmod kstats_helper
check "kstats unloads, to read BTF afresh" rmmod_drained kstats
mount -t tmpfs none /sys/kernel/btf
load_modules
is "$(ctl "trace $FN value retval type u64 as lr_raw")" OK "a value typed without BTF"
umount /sys/kernel/btf
is "$(level)" none "booted without lockdown"
helper new lr 3 >/dev/null
# The test helper's own debugfs file: opened before; helper7 writes
# its commands through that descriptor.
exec 7>"$HELPER"
helper7() {
	out=$( (echo -n "$*" >&7) 2>&1) && { echo OK; return; }
	echo "$out" | sed 's/.*: //'
}
is "$(write_err "$SECFS/lockdown" integrity)" OK "lockdown raised to integrity"
is "$(level)" integrity "lockdown is integrity"
log_mark
is "$(write_err "$KS/_control" "trace $FN as lr_t")" "$EPERM" "integrity: _control refuses write opens"
is "$(log_new | grep -c 'Lockdown: .*debugfs access is restricted')" 1 "integrity: the lockdown LSM says so"
is "$(dev "trace $FN as lr_t")" OK "integrity: trace through $DEV"
is "$(dev "trace pcpu:$FN as lr_p")" OK "integrity: trace pcpu: through $DEV"
is "$(helper7 work 6 0 lr)" OK "integrity: 6 calls"
check "integrity: the untyped value is shown" grep -q CPUS "$KS/lr_raw"
is "$(samples lr_t) $(samples lr_p) $(samples lr)" "6 6 6" "integrity: entries count and read in debugfs"
is "$(dev "stop lr_t") $(dev "reset lr")" "OK OK" "integrity: stop and reset through $DEV"
is "$(helper7 work 2 0 lr)" OK "integrity: 2 calls"
is "$(samples lr_t) $(samples lr_p) $(samples lr)" "6 8 2" "integrity: stopped and reset"
is "$(dev "start lr_t")" OK "integrity: start through $DEV"
is "$(field lr_t state)" running "integrity: lr_t running"
# The tool sends its commands through $DEV.
is "$(kstats trace $FN via kretprobe as lr_k 2>&1 | head -n 1)" "ok: trace $FN via kretprobe as lr_k" \
	"integrity: kstats trace"
is "$(kstats stop lr_k 2>&1)$(field lr_k state)" stopped "integrity: kstats stop"
is "$(kstats reset lr 2>&1)$(samples lr)" 0 "integrity: kstats reset"
is "$(kstats remove lr_k 2>&1)" "removed lr_k" "integrity: kstats remove"
is "$(kstats show lr >/dev/null 2>&1 && echo shown)" shown "integrity: kstats show"
# What a user of a Secure Boot machine types first.
is "$(kstats trace vfs_read 2>&1 | head -n 1)" "ok: trace vfs_read" "integrity: kstats trace vfs_read"
cat /proc/self/status >/dev/null
is "$(kstats show vfs_read 2>/dev/null | grep -c '^count [1-9]')" 1 "integrity: kstats show vfs_read: its samples"
is "$(kstats remove vfs_read 2>&1)" "removed vfs_read" "integrity: kstats remove vfs_read"

is "$(write_err "$SECFS/lockdown" confidentiality)" OK "lockdown raised to confidentiality"
before=$(cat $DEV)
log_mark
is "$(dev "trace vfs_read")" "$EPERM" "confidentiality: trace through $DEV: EPERM"
is "$(log_new | grep -c "kstats: /dev/kstats: 'trace vfs_read' refused: kernel locked down (confidentiality)")" 1 \
	"confidentiality: one line in the log names lockdown"
is "$(cat $DEV)" "$before" "confidentiality: the refused trace changed nothing"
is "$(dev "stop lr_t")" OK "confidentiality: stop through $DEV"
log_mark
is "$( (cat "$KS/lr_raw" >/dev/null) 2>&1 | sed 's/.*: //')" "$EPERM" \
	"confidentiality: the values of an entry typed without BTF are not read"
is "$(log_new | grep -c "kstats: lr_raw: its values may be addresses (typed without BTF): not shown under confidentiality lockdown")" 1 \
	"confidentiality: the reason logged"
is "$(field lr_raw min)$(field lr_raw max)" "" "confidentiality: nor its min and max in the listing"
check "confidentiality: a timed entry is still read" grep -q CPUS "$KS/lr_t"
log_mark
is "$(dev "start lr_t")" "$EPERM" "confidentiality: starting a trace (arming probes): EPERM"
is "$(log_new | grep -c "kstats: /dev/kstats: 'start lr_t' refused: kernel locked down (confidentiality)")" 1 \
	"confidentiality: the start's refusal logged"
is "$(field lr_t state)" stopped "confidentiality: lr_t stays stopped"
kstats trace vfs_read as lr_v >/tmp/out 2>&1
is "$? $(grep -c "kstats: kernel: .*'trace vfs_read as lr_v' refused: kernel locked down (confidentiality)" /tmp/out)" \
	"1 1" "confidentiality: kstats trace fails with the kernel's reason"
is "$(dev "start lr") $(field lr state)" "OK running" "confidentiality: a kernel entry starts (no probe)"
is "$(helper7 work 3 0 lr)" OK "confidentiality: 3 calls"
is "$(samples lr_t) $(samples lr_p) $(samples lr)" "6 11 3" "confidentiality: traces made before count"
is "$(dev "remove lr_t") $(dev "remove lr_p") $(dev "remove lr_raw")" "OK OK OK" \
	"confidentiality: remove through $DEV"
helper7 delete lr >/dev/null
exec 7>&-
is "$(cat $DEV)" "" "confidentiality: nothing left"
check "confidentiality: rmmod kstats_helper" rmmod kstats_helper
check "confidentiality: rmmod kstats" rmmod kstats
