#!/bin/sh
# _control: trace FUNC (fprobe or kretprobe) and trace pcpu:FUNC, with exact
# call counts from the helper's kstats_helper_work().
. /tests/lib.sh
plan 51
load_modules

K=200		# calls per run
D=20000		# ns of busy wait per call: every sample is at least D
FN=kstats_helper_work

# trace pcpu:FUNC, and trace FUNC where direct cannot serve: fprobe, or
# kretprobe where kstats has no fprobe (lib.sh's MECH_TABLE).
PROBE=kretprobe
kernel_has fprobe && PROBE=fprobe
# trace FUNC: direct where FUNC has a BTF prototype; vmlinux has one on
# every target, the helper module where the kernel gives modules BTF
# (not Debian 6.1's headers).
AUTO=$PROBE
[ -e /sys/kernel/btf/kstats_helper ] && AUTO=direct
echo "# target $TARGET: trace FUNC should use $AUTO on the helper, direct on vmlinux; pcpu $PROBE"

# The end of a trace's line before any calibration and any hit.
NOCAL=" bias_ns - bias_p99_ns - overhead_ns -"

# trace FUNC with the default mechanism.
is "$(write_err "$KS/_control" "trace $FN")" OK "trace $FN"
is "$(line $FN)" "name $FN origin control mechanism $AUTO targets $FN bits 4 clock $CLK state running missed 0$NOCAL" \
	"_control line of trace FUNC ($AUTO), default bits 4"
check "entry file exists" test -f "$KS/$FN"
is "$(stat -c %a "$KS/$FN")" 444 "entry file mode (0444: readable under lockdown)"
is "$(helper work $K $D)" OK "helper runs $K calls of $D ns"
is "$(samples $FN)" $K "$AUTO: exactly $K samples"
is "$(below $FN $D)" 0 "$AUTO: every slot mean is at least $D ns"
grep CPUS "$KS/$FN" | sed 's/^/#   /'
is "$(field $FN missed)" 0 "$AUTO: nothing missed"

# Nested calls are all measured.
echo reset > "$KS/$FN"
helper nest $K $D >/dev/null
is "$(samples $FN)" $((2 * K)) "$AUTO: nested calls: $((2 * K)) samples"
is "$(below $FN $D)" 0 "$AUTO: nested calls: every mean at least $D ns"

# Calls that migrate are measured too, across CPUs.
echo reset > "$KS/$FN"
is "$(helper migrate 20 $D)" OK "helper runs 20 migrating calls"
is "$(samples $FN)" 20 "$AUTO: migrating calls: 20 samples"
is "$(below $FN $D)" 0 "$AUTO: migrating calls: every mean at least $D ns"

# stop and start through the entry file; the probe stays.
echo stop > "$KS/$FN"
is "$(field $FN state)" stopped "_control shows a stopped trace"
helper work 10 1000 >/dev/null
is "$(samples $FN)" 20 "stopped trace counts nothing"
echo start > "$KS/$FN"
helper work 10 1000 >/dev/null
is "$(samples $FN)" 30 "restarted trace counts again"

is "$(write_err "$KS/_control" "remove $FN")" OK "remove $FN"
check "entry file is gone" test ! -e "$KS/$FN"
is "$(line $FN)" "" "_control has no line for it"
helper work 10 1000 >/dev/null
is "$(write_err "$KS/_control" "remove $FN")" "No such file or directory" "second remove gets ENOENT"

# via kretprobe works everywhere, with bits.
is "$(write_err "$KS/_control" "TRACE $FN Bits 2 VIA KRetProbe
")" OK "trace via kretprobe, bits 2, keywords in any case, newline"
is "$(line $FN)" "name $FN origin control mechanism kretprobe targets $FN bits 2 clock $CLK state running missed 0$NOCAL" \
	"_control line of a kretprobe trace"
helper work $K $D >/dev/null
is "$(samples $FN)" $K "kretprobe: exactly $K samples"
is "$(below $FN $D)" 0 "kretprobe: every mean at least $D ns"
is "$(write_err "$KS/_control" "remove $FN")" OK "remove the kretprobe trace"

# via fprobe: where kstats has it (Debian's 6.1 has no CONFIG_FPROBE).
if ! kernel_has fprobe; then
	plan 3
	log_mark
	is "$(write_err "$KS/_control" "trace $FN via fprobe")" "Operation not supported" \
		"no fprobe: via fprobe gets EOPNOTSUPP"
	check "no fprobe: via fprobe logs why" logged 'no fprobe'
	is "$(line $FN)" "" "no fprobe: no entry was created"
else
	plan 5
	is "$(write_err "$KS/_control" "trace $FN via fprobe bits 5")" OK "$TARGET: trace via fprobe"
	is "$(field $FN mechanism)" fprobe "$TARGET: mechanism fprobe"
	helper work $K $D >/dev/null
	is "$(samples $FN)" $K "fprobe: exactly $K samples"
	is "$(below $FN $D)" 0 "fprobe: every mean at least $D ns"
	is "$(write_err "$KS/_control" "remove $FN")" OK "remove the fprobe trace"
fi

# trace pcpu:FUNC: one pending call per CPU.
is "$(write_err "$KS/_control" "trace pcpu:$FN bits 3")" OK "trace pcpu:$FN"
is "$(line $FN)" "name $FN origin control mechanism pcpu-$PROBE targets $FN bits 3 clock $CLK state running missed 0 skipped 0$NOCAL" \
	"_control line of a pcpu trace (entry name is FUNC)"
helper work $K $D >/dev/null
is "$(samples $FN)" $K "pcpu: exactly $K samples"
is "$(below $FN $D)" 0 "pcpu: every mean at least $D ns"
is "$(field $FN skipped)" 0 "pcpu: nothing skipped"
echo reset > "$KS/$FN"
helper nest $K $D >/dev/null
is "$(samples $FN)" $K "pcpu: nested calls: only the $K outer ones are measured"
is "$(field $FN skipped)" $K "pcpu: nested calls: $K inner calls skipped"
is "$(below $FN $((2 * D)))" 0 "pcpu: nested calls: outer means at least $((2 * D)) ns"
echo reset > "$KS/$FN"
helper migrate 20 $D >/dev/null
is "$(samples $FN)" 0 "pcpu: migrating calls are not measured"
is "$(field $FN skipped)" $((K + 20)) "pcpu: 20 migrating calls skipped"
# The slots were freed on return: plain calls are measured again.
helper work $K $D >/dev/null
is "$(samples $FN)" $K "pcpu: after migrations, $K samples again"
is "$(field $FN missed)" 0 "pcpu: nothing missed"
is "$(write_err "$KS/_control" "remove $FN")" OK "remove the pcpu trace"

# A traced kernel function, for the record.
is "$(write_err "$KS/_control" "trace vfs_read")" OK "trace vfs_read"
# busybox cat may use sendfile(); dd reads.
dd if=/proc/version of=/dev/null bs=1 count=10 2>/dev/null
check "vfs_read has samples" test "$(samples vfs_read)" -ge 10
is "$(write_err "$KS/_control" "remove vfs_read")" OK "remove vfs_read"
is "$(cat "$KS/_control")" "" "_control empty again"

# as NAME: a function whose name is no entry name, here a syscall wrapper.
is "$(write_err "$KS/_control" "trace ${SYSW}read as sys_read")" OK \
	"trace ${SYSW}read as sys_read"
is "$(field sys_read targets) $(field sys_read mechanism)" "${SYSW}read direct" \
	"_control: entry sys_read traces ${SYSW}read with direct"
dd if=/dev/zero of=/dev/null bs=1 count=300 2>/dev/null
n=$(samples sys_read)
check "sys_read: at least dd's 300 reads ($n)" test "$n" -ge 300
is "$(write_err "$KS/_control" "trace kstats_helper_work as kwork via kretprobe")" OK \
	"as NAME traces a function a second time, by another mechanism"
is "$(write_err "$KS/_control" "trace kstats_helper_work as kwork2")" OK \
	"and a third time"
helper work 10 1000 >/dev/null
is "$(samples kwork) $(samples kwork2)" "10 10" "both count the same 10 calls"
for e in sys_read kwork kwork2; do
	is "$(write_err "$KS/_control" "remove $e")" OK "remove $e"
done
