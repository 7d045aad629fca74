#!/bin/sh
# calibrate keeps what it could measure: with every direct trampoline in
# use, "direct" is left out with its reason logged, and every other
# mechanism still gets its line.
# timeout: 240
. /tests/lib.sh
plan 18
load_modules

ENOSPC="No space left on device"
# Functions of vmlinux (BTF on every target) whose arguments all travel
# in registers, seldom called here.
FUNCS="vfs_rename vfs_link vfs_symlink vfs_mkdir vfs_rmdir vfs_unlink
vfs_mknod vfs_create vfs_fsync vfs_fsync_range vfs_statfs vfs_fallocate
vfs_truncate vfs_readlink vfs_setxattr vfs_getxattr vfs_removexattr
vfs_listxattr vfs_copy_file_range vfs_clone_file_range vfs_dedupe_file_range
vfs_iter_read vfs_iter_write"

i=0
names=""
full=""
for f in $FUNCS; do
	r=$(ctl trace $f via direct as cd$i)
	if [ "$r" = OK ]; then
		names="$names cd$i"
		i=$((i + 1))
	elif [ "$r" = "$ENOSPC" ]; then
		full=yes
		break
	else
		echo "# $f via direct: $r"
	fi
done
[ -z "$full" ] && r=$(ctl trace vfs_read via direct as cdx)
is "${full:-$r}" "${full:-$ENOSPC}" "every direct trampoline in use ($i entries here): ENOSPC"
[ "$r" = OK ] && names="$names cdx"

log_mark
is "$(ctl calibrate samples 200)" OK "calibrate with no trampoline free"
grep '^calibration ' "$KS/_control" | sed 's/^/# /'
is "$(grep -c '^calibration mechanism direct ' "$KS/_control")" 0 "no direct line"
for m in clock clock-local manual kretprobe pcpu-kretprobe pair-ftrace-cpu pair-ftrace-task \
	pair-kprobe-cpu pair-kprobe-task pair-tracepoint-cpu pair-tracepoint-task; do
	is "$(grep -c "^calibration mechanism $m bias_ns [0-9]* bias_p99_ns [0-9]* cost_ns [0-9]* samples 200\$" "$KS/_control")" 1 \
		"$m measured"
done
is "$(log_new | grep -c 'calibrate: direct not measured: direct: all 16 trampolines in use')" 1 \
	"the reason for direct logged"

for e in $names; do
	ctl remove "$e" >/dev/null
done
is "$(grep -c '^name cd' "$KS/_control")" 0 "direct entries removed"
# A trampoline is free again: direct is measured.
is "$(ctl calibrate samples 200)" OK "calibrate again"
is "$(grep -c '^calibration mechanism direct ' "$KS/_control")" 1 "direct line back"
