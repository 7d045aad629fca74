#!/bin/sh
# The BTF of traced functions is read once and cached (vmlinux's while
# kstats is loaded, a module's until that module goes), and read from the
# init task's root, whatever mount namespace the writer of _control is in.
# /sys/kernel/btf is hidden under a tmpfs to see when kstats reads it.
# timeout: 200
. /tests/lib.sh
load_modules

BTF=/sys/kernel/btf
EOPNOTSUPP="Operation not supported"

# The helper's BTF read, then the helper loaded again: its cached BTF
# goes with the old module.
if [ "$TARGET" != deb61 ]; then
	is "$(ctl trace kstats_helper_fn4 via direct as b4)" OK "direct on a helper function"
	is "$(ctl remove b4)" OK "remove b4"
fi
rmmod kstats_helper
load_modules

is "$(ctl trace vfs_write via direct as bw)" OK "direct on vfs_write"
mount -t tmpfs none $BTF
is "$(ls $BTF)" "" "/sys/kernel/btf hidden"
is "$(ctl trace vfs_read via direct as br)" OK "direct on vfs_read while hidden: vmlinux's BTF is cached"
is "$(ctl trace vfs_read value arg3 as bv) $(field bv type)" "OK u64" \
	"value of vfs_read while hidden: typed from the cache"
if [ "$TARGET" != deb61 ]; then
	log_mark
	is "$(ctl trace kstats_helper_fn5 via direct as b5)" "$EOPNOTSUPP" \
		"direct on a helper function while hidden: the reloaded helper's BTF is not cached"
	is "$(log_new | grep -c "refused: no BTF for kstats_helper_fn5")" 1 "no BTF: reason logged"
fi
umount $BTF
is "$(ls $BTF | grep -c vmlinux)" 1 "/sys/kernel/btf visible again"

if [ "$TARGET" != deb61 ]; then
	# Hidden in the writer's mount namespace only: read from init's.
	exec 3>"$KS/_control"
	unshare -m sh -c "mount -t tmpfs none $BTF; ls $BTF | grep -c . >/dev/null; printf 'trace kstats_helper_fn5 via direct as b5' >&3"
	is "$?" 0 "direct on a helper function from a mount namespace without /sys/kernel/btf"
	exec 3>&-
	is "$(field b5 mechanism)" direct "b5: direct"
	helper fns 6 >/dev/null
	is "$(samples b5)" 1 "b5: one call"
	is "$(ctl remove b5)" OK "remove b5"
else
	echo "# kstats_helper.ko has no BTF here: no module BTF to read"
fi

for e in bw br bv; do
	is "$(ctl remove $e)" OK "remove $e"
done
