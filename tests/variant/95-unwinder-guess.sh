#!/bin/sh
# kstats built as for a kernel whose unwinder guesses (x86-64's
# UNWINDER_GUESS, which no target has: KSTATS_TEST_UNWINDER_GUESS, in
# check.sh's deb612-guess boot). Its walk of a dying task's stack would
# count out stale return addresses too, and kstats_tramp.ko could go
# while a call still sleeps in a trampoline: direct is refused, saying
# why, and a plain trace takes the next mechanism and says so.
# timeout: 120
. /tests/lib.sh
plan 10
load_modules
GUESS="direct: this kernel's unwinder guesses (UNWINDER_GUESS)"

log_mark
is "$(ctl trace vfs_read via direct)" "Operation not supported" "via direct: EOPNOTSUPP"
is "$(log_new | grep -c "_control: 'trace vfs_read via direct' refused: $GUESS")" 1 \
	"the reason is logged"
is "$(grep -c '^name ' "$KS/_control")" 0 "nothing was taken"
log_mark
is "$(ctl trace vfs_read)" OK "trace vfs_read without via"
M=fprobe
kernel_has fprobe || M=kretprobe
is "$(field vfs_read mechanism)" $M "it takes $M"
is "$(log_new | grep -c "vfs_read: not direct ($GUESS")" 1 "and says why it is not direct"
dd if=/dev/zero of=/dev/null bs=1 count=100 2>/dev/null
check "it counts" test "$(samples vfs_read)" -ge 100
is "$(ctl remove vfs_read)" OK "remove vfs_read"
check "rmmod kstats_helper" rmmod kstats_helper
check "rmmod kstats" rmmod_drained kstats
