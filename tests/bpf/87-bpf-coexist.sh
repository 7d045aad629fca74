#!/bin/sh
# kstats beside BPF fentry/fexit programs (bpftrace's kfunc/kretfunc) on
# the same function, in either order, and beside a BPF kprobe; in the
# guest with a Debian userspace (check.sh's BPF guest). ftrace gives a
# function one direct caller: with BPF there first, "trace FUNC" takes
# fprobe or kretprobe and says why; with kstats there first, ftrace
# refuses BPF's trampoline (EBUSY: bpftrace cannot attach) and kstats
# goes on counting, unless the module parameter auto_direct is off, which
# keeps plain traces off the direct site. A second entry filtered on dd's name (fprobe or
# kretprobe: direct has no filters) and bpftrace count the same reads of
# one dd.
# timeout: 600
. /tests/lib.sh
# The results outside the branches below; each branch plans its own.
plan 17

check "insmod kstats" insmod "$MODDIR/kstats.ko"
echo "# $(bpftrace --version 2>&1)"
N=300

# links PID: the BPF links that PID holds; a link exists once its
# trampoline is in place.
links() { grep -l '^link_type:' /proc/"$1"/fdinfo/* 2>/dev/null | wc -l; }
# kprobes: the armed kprobes on vfs_read (bpftrace's kprobe: and
# kretprobe: go through perf's kprobe PMU, without a link), at +0x0 or
# at +0x4, past the ENDBR where the kernel has IBT.
kprobes() {
	grep -E ' vfs_read\+0x[04]( |$)' /sys/kernel/debug/kprobes/list 2>/dev/null |
		grep -vc DISABLED
}
# attached PID NLINKS NKPROBES
attached() { [ "$(links "$1")" -ge "$2" ] && [ "$(kprobes)" -ge "$3" ]; }

# bpf_start NLINKS NKPROBES PROGRAM: bpftrace PROGRAM in the background
# ($bpf, output in /tmp/bpf.out); true once it holds NLINKS links and
# NKPROBES kprobes are armed, false if it exited before or is not
# attached after 240 s (it takes 2 to 7 s under TCG; the guest has 600 s).
bpf_start() {
	bpftrace -e "$3" >/tmp/bpf.out 2>&1 &
	bpf=$!
	t0=$(date +%s)
	while ! attached $bpf "$1" "$2"; do
		kill -0 $bpf 2>/dev/null || return 1
		if [ $(($(date +%s) - t0)) -ge 240 ]; then
			echo "# bpftrace not attached after 240 s"
			bpf_where
			kill -KILL $bpf
			return 1
		fi
		sleep 1
	done
	echo "# bpftrace attached after $(($(date +%s) - t0)) s;" \
		"$(grep -E '^Sig(Ign|Cgt)' /proc/$bpf/status | tr '\n\t' '  ')"
}

# bpf_where: where bpftrace's threads are, what it printed, and the
# kprobes and ftrace sites on vfs_read, as "# " lines.
bpf_where() {
	for t in /proc/$bpf/task/*; do
		echo "# thread ${t##*/}: $(cut -d' ' -f3 "$t/stat") $(cat "$t/wchan")"
		sed 's/^/#     /' "$t/stack"
	done
	grep -E '^Sig(Ign|Cgt)' /proc/$bpf/status | sed 's/^/# /'
	sed 's/^/# bpftrace: /' /tmp/bpf.out
	grep vfs_read /sys/kernel/debug/kprobes/list $FTRACE | sed 's/^/# /'
}

# bpf_stop: SIGINT (bpftrace prints its maps and detaches) until it exits,
# since bpftrace may take its handler only after its first links are in
# place: a background job of sh starts with SIGINT ignored. Its status,
# or 124 if it has not exited after 120 s (then it is killed).
bpf_stop() {
	t0=$(date +%s)
	while kill -INT $bpf 2>/dev/null; do
		sleep 1
		kill -0 $bpf 2>/dev/null || break
		if [ $(($(date +%s) - t0)) -ge 120 ]; then
			echo "# bpftrace still running 120 s after SIGINT"
			bpf_where
			kill -KILL $bpf
			wait $bpf
			return 124
		fi
	done
	wait $bpf
}

# bpf_map NAME: the value of map @NAME as bpftrace printed it
bpf_map() { sed -n "s/^@$1: //p" /tmp/bpf.out; }

# The reads of one dd of N single bytes, counted by bpftrace and by the
# entry dd, whose filter makes it fprobe or kretprobe.
KFUNC='kfunc:vfs_read /comm == "dd"/ { @in = count(); }
kretfunc:vfs_read /comm == "dd"/ { @out = count(); }'
dd_reads() { dd if=/dev/zero of=/dev/null bs=1 count=$N 2>/dev/null; }
if kernel_has fprobe; then OTHER=fprobe; else OTHER=kretprobe; fi
FTRACE=/sys/kernel/debug/tracing/enabled_functions

# same_reads: with bpftrace attached and vfs_read traced, trace dd's
# reads too, run dd, stop bpftrace: it and the entry dd counted the same
# reads, and vfs_read all of them and more.
same_reads() {
	is "$(ctl "trace vfs_read as dd comm dd")" OK "trace dd's reads"
	before=$(samples vfs_read)
	dd_reads
	all=$(($(samples vfs_read) - before))
	got=$(samples dd)
	bpf_stop
	is "$(bpf_map in) $(bpf_map out)" "$got $got" "bpftrace counted dd's reads as kstats did"
	check "dd's reads: at least $N" test "$got" -ge $N
	check "vfs_read: all reads, at least dd's" test "$all" -ge "$got"
	is "$(ctl remove dd)" OK "remove dd"
}

# site_free: wait until nothing is on vfs_read's fentry site; a BPF
# trampoline goes some time after bpftrace has exited.
site_free() {
	t0=$(date +%s)
	while grep -q '^vfs_read ' $FTRACE; do
		[ $(($(date +%s) - t0)) -lt 240 ] || return 1
		sleep 1
	done
	echo "# vfs_read's site free after $(($(date +%s) - t0)) s"
}

# 1. BPF first: kstats takes another way, and says why.
if bpf_start 2 0 "$KFUNC"; then
	plan 10
	ok "bpftrace kfunc+kretfunc attached"
	log_mark
	is "$(ctl "trace vfs_read")" OK "trace vfs_read beside BPF fentry/fexit"
	is "$(field vfs_read mechanism)" $OTHER "it took $OTHER"
	check "the log says why it is not direct" \
		logged "vfs_read: not direct (direct: vfs_read already has a direct caller"
	same_reads
	is "$(ctl remove vfs_read)" OK "remove vfs_read"
else
	plan 1
	not_ok "bpftrace kfunc+kretfunc attached"
	sed 's/^/# bpftrace: /' /tmp/bpf.out
fi

# 2. kstats first: BPF's trampoline is refused, kstats counts on.
check "the BPF trampoline has left vfs_read" site_free
is "$(ctl "trace vfs_read")" OK "trace vfs_read"
is "$(field vfs_read mechanism)" direct "it is direct"
if bpf_start 2 0 "$KFUNC"; then
	not_ok "bpftrace kfunc+kretfunc refused"
	bpf_stop
else
	wait $bpf
	check "bpftrace kfunc+kretfunc refused" test $? -ne 0
fi
sed 's/^/# bpftrace: /' /tmp/bpf.out
check "bpftrace says it cannot attach" grep -Eq "Error attaching probe: (kfunc|kretfunc):" /tmp/bpf.out
before=$(samples vfs_read)
dd_reads
check "kstats counts on: $N reads and more" \
	test $(($(samples vfs_read) - before)) -ge $N

# 3. A BPF kprobe and kretprobe beside the direct trace: all count.
if bpf_start 0 2 'kprobe:vfs_read /comm == "dd"/ { @in = count(); }
kretprobe:vfs_read /comm == "dd"/ { @out = count(); }'; then
	plan 7
	ok "bpftrace kprobe+kretprobe attached beside the direct trace"
	same_reads
	is "$(field vfs_read mechanism)" direct "vfs_read is still direct"
else
	plan 1
	not_ok "bpftrace kprobe+kretprobe attached beside the direct trace"
	sed 's/^/# bpftrace: /' /tmp/bpf.out
fi

is "$(ctl remove vfs_read)" OK "remove the direct trace"

# 4. kstats first, with auto_direct off: a plain trace leaves the direct
# site to BPF, whose trampoline then attaches; both count.
PARAM=/sys/module/kstats/parameters/auto_direct
echo N >$PARAM
check "the BPF trampoline has left vfs_read" site_free
log_mark
is "$(ctl "trace vfs_read")" OK "trace vfs_read with auto_direct off"
is "$(field vfs_read mechanism)" $OTHER "it took $OTHER"
if logged "vfs_read: not direct"; then
	not_ok "and logged no fallback"
else
	ok "and logged no fallback"
fi
if bpf_start 2 0 "$KFUNC"; then
	plan 7
	ok "bpftrace kfunc+kretfunc attached after the trace"
	same_reads
	is "$(field vfs_read mechanism)" $OTHER "vfs_read is still $OTHER"
else
	plan 1
	not_ok "bpftrace kfunc+kretfunc attached after the trace"
	sed 's/^/# bpftrace: /' /tmp/bpf.out
fi
is "$(ctl remove vfs_read)" OK "remove vfs_read"
echo Y >$PARAM
is "$(ctl "trace vfs_read")" OK "trace vfs_read with auto_direct on again"
is "$(field vfs_read mechanism)" direct "it is direct again"
is "$(ctl remove vfs_read)" OK "remove vfs_read"

check "rmmod kstats" rmmod_drained kstats
