#!/bin/sh
# The BTF of traced functions is read once and cached (vmlinux's while
# kstats is loaded, a module's until that module goes), and read from the
# init task's root, whatever mount namespace the writer of _control is in.
# /sys/kernel/btf is hidden under a tmpfs to see when kstats reads it.
# timeout: 200
. /tests/lib.sh
plan 21
load_modules

BTF=/sys/kernel/btf
EOPNOTSUPP="Operation not supported"

# The helper's BTF read, then the helper loaded again: its cached BTF
# goes with the old module.
if [ "$TARGET" != deb61 ]; then
	plan 2
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
	plan 2
	log_mark
	is "$(ctl trace kstats_helper_fn5 via direct as b5)" "$EOPNOTSUPP" \
		"direct on a helper function while hidden: the reloaded helper's BTF is not cached"
	is "$(log_new | grep -c "refused: no BTF for kstats_helper_fn5")" 1 "no BTF: reason logged"
fi
umount $BTF
is "$(nglob "$BTF/vmlinux")" 1 "/sys/kernel/btf visible again"

if [ "$TARGET" != deb61 ]; then
	plan 4
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

# Only the kernel's own BTF is read: what it says decides the frame a
# trampoline builds and the width of a value, so a file that root mounts
# over /sys/kernel/btf (before kstats reads it, as a Secure Boot machine's
# root could, then raise lockdown) must not decide them. The forgery here
# gives vfs_read() an unsigned char return; read, it would type
# "value retval" as u8.
EINVAL="Invalid argument"
forge_btf() {
	python3 -c '
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
hdr_len, type_off, type_len, str_off = struct.unpack_from("<4I", d, 4)
strs = hdr_len + str_off
def name(off):
    return bytes(d[strs + off:d.index(b"\0", strs + off)]).decode()
# Bytes after a btf_type by kind, per member for the kinds with members.
fixed = {1: 4, 3: 12, 14: 4, 17: 4}
member = {4: 12, 5: 12, 6: 8, 13: 8, 15: 12, 19: 12}
at, p, end = [None], hdr_len + type_off, hdr_len + type_off + type_len
while p < end:
    at.append(p)
    info = struct.unpack_from("<I", d, p + 4)[0]
    kind, vlen = info >> 24 & 0x1f, info & 0xffff
    p += 12 + fixed.get(kind, 0) + member.get(kind, 0) * vlen
def find(kind, want):
    for i, q in enumerate(at[1:], 1):
        name_off, info, size_type = struct.unpack_from("<3I", d, q)
        if info >> 24 & 0x1f == kind and name(name_off) == want:
            return i, size_type
u8 = find(1, "unsigned char")[0]
proto = find(12, "vfs_read")[1]
struct.pack_into("<I", d, at[proto] + 8, u8)
sys.stdout.buffer.write(d)
' "$1"
}
is "$(ctl trace vfs_read value retval as bk) $(field bk type)" "OK s64" \
	"value retval of vfs_read: s64 from the kernel's BTF"
is "$(ctl remove bk)" OK "remove bk"
forge_btf $BTF/vmlinux >/tmp/kst86.btf
is "$?" 0 "a forged copy of vmlinux's BTF: vfs_read returns unsigned char"
rmmod kstats_helper
check "kstats unloads, to read BTF again" rmmod_drained kstats
mount -t tmpfs none $BTF
cp /tmp/kst86.btf $BTF/vmlinux
load_modules
log_mark
is "$(ctl trace vfs_read value retval as bf)" "$EINVAL" \
	"a forged BTF over /sys/kernel/btf is not read: value retval has no type"
is "$(log_new | grep -c "kstats: /sys/kernel/btf/vmlinux is not the kernel's BTF (not sysfs's node): not read")" 1 \
	"the forgery's refusal logged"
is "$(ctl trace vfs_read via direct as bf)" "$EOPNOTSUPP" "no direct without the kernel's BTF"
is "$(ctl trace vfs_read value retval type u64 as bf) $(field bf type)" "OK u64" \
	"value retval with its type given"
is "$(ctl remove bf)" OK "remove bf"
umount $BTF
# Another sysfs file bound over it: sysfs, but not the node of vmlinux's BTF.
mount --bind /sys/kernel/notes $BTF/vmlinux
log_mark
is "$(ctl trace vfs_read value retval as bf)" "$EINVAL" \
	"another sysfs file bound over vmlinux's BTF is not read"
is "$(log_new | grep -c "kstats: /sys/kernel/btf/vmlinux is not the kernel's BTF (not sysfs's node): not read")" 1 \
	"the bind mount's refusal logged"
umount $BTF/vmlinux
is "$(ctl trace vfs_read value retval as bk) $(field bk type)" "OK s64" \
	"the kernel's BTF again: s64"
is "$(ctl remove bk)" OK "remove bk"
