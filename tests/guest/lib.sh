# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the in-guest tests (busybox sh). Each test prints
# "ok - DESC" or "not ok - DESC" lines; "# ..." lines are diagnostics.
# shellcheck disable=SC2034 # the variables set here are the scripts'

KS=/sys/kernel/debug/kstats
HELPER=/sys/kernel/debug/kstats_helper/cmd
MODDIR=/modules
TARGET=$(cat /etc/kstats-target 2>/dev/null || echo unknown)
# The default clock of entries that read one: the TSC while the kernel
# keeps it as its clocksource (it switches away when it marks the TSC
# unstable, as the Debian 6.1 guests do at boot), else mono; on arm64 the
# generic timer's counter (QEMU's virt machine needs no erratum's
# workaround for it).
case $(uname -m):$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null) in
*:tsc) CLK=tsc ;;
aarch64:arch_sys_counter) CLK=cntvct ;;
*) CLK=mono ;;
esac

# What each kernel must give, by uname -r's MAJOR.MINOR: the mechanism
# of a plain "trace vfs_read" and of "trace pcpu:vfs_read", then whether
# "via direct", "via fprobe", "via kretprobe", a kprobe pair, a tracepoint
# pair and a gap serve. 15-mechanisms.sh asserts every column, so a silent
# fallback fails; check.sh checks the table of Documentation/kstats.rst
# ("Kernels and mechanisms") against it. A kernel without a row fails.
# arm64 kernels have rows of their own, MAJOR.MINOR-arm64.
MECH_TABLE='
6.1         direct  pcpu-kretprobe  yes  no   yes  yes  yes  yes
6.12        direct  pcpu-fprobe     yes  yes  yes  yes  yes  yes
6.18        direct  pcpu-fprobe     yes  yes  yes  yes  yes  yes
7.3         direct  pcpu-fprobe     yes  yes  yes  yes  yes  yes
6.12-arm64  direct  pcpu-kretprobe  yes  no   yes  yes  yes  yes
7.3-arm64   direct  pcpu-fprobe     yes  yes  yes  yes  yes  yes
'
KVER=$(uname -r | cut -d. -f1-2)
ARCH=$(uname -m)
# mech_row: this kernel's row of MECH_TABLE (empty without one).
mech_row() {
	if [ "$ARCH" = aarch64 ]; then
		echo "$MECH_TABLE" | awk -v k="$KVER-arm64" '$1 == k'
	else
		echo "$MECH_TABLE" | awk -v k="$KVER" '$1 == k'
	fi
}
# Offsets past a function's patched entry, where a kprobe may go: x86-64's
# fentry call (5 bytes, or 9 after an endbr64); arm64's two instructions
# (8 bytes, or 12 after a BTI landing pad).
# SYSW: the prefix of the syscall wrappers (__x64_sys_read). CYC: the
# name of the cycle counter's clock. NARGS: the register arguments, arg1
# to argNARGS in value, by and key. NR_WRITE: write()'s syscall number.
if [ "$ARCH" = aarch64 ]; then
	KP_OFFSETS="8 12"
	SYSW=__arm64_sys_
	CYC=cntvct
	NARGS=8
	NR_WRITE=64
else
	KP_OFFSETS="5 9"
	SYSW=__x64_sys_
	CYC=tsc
	NARGS=6
	NR_WRITE=1
fi
PAST=arg$((NARGS + 1))
# kernel_has WHAT: direct, fprobe, kretprobe, kprobe-pair, tracepoint-pair or gap
# serves on this kernel.
kernel_has() {
	mech_row | awk -v w="$1" '{
		split("direct fprobe kretprobe kprobe-pair tracepoint-pair gap", c, " ")
		for (i = 1; i <= 6; i++) if (c[i] == w) exit $(i + 3) == "yes" ? 0 : 1
		exit 2
	}'
}

# kernel_config SYM: this kernel was built with CONFIG_SYM=y (false where
# it does not say: no /proc/config.gz).
kernel_config() { zcat /proc/config.gz 2>/dev/null | grep -qx "CONFIG_$1=y"; }

# plan N: N more results (ok, not ok and SKIP lines) that this script
# prints here. A script declares those of its unconditional part at its
# start, and those of each branch, loop pass or call as it takes it; at
# its exit the sum is printed as TAP's plan, "1..N", and check.sh fails a
# script whose number of results differs from it, or that printed no plan
# (it was killed, or never declared one).
PLAN=
plan() { PLAN=$((${PLAN:-0} + $1)); }
trap '[ -z "$PLAN" ] || echo "1..$PLAN"' EXIT

ok() { echo "ok - $*"; }
# skip WHY: this script does not apply to this boot. One TAP line, "ok -
# SCRIPT # SKIP WHY", then the script ends, before any other result and
# any plan: its plan is that line. check.sh counts it skipped where
# tests/guest/skips.conf allows it, and failed elsewhere.
skip() {
	skip_part "$@"
	PLAN=1
	exit 0
}
# skip_part WHY: a part of this script does not apply; the script goes on.
skip_part() { echo "ok - ${0##*/} # SKIP $*"; }
not_ok() { echo "not ok - $*"; }

# nglob PATTERN: how many files PATTERN names (0 if none).
nglob() {
	set -- $1
	if [ -e "$1" ]; then echo $#; else echo 0; fi
}

# check DESC CMD...: passes when CMD succeeds.
check() {
	desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}

# is GOT WANT DESC: exact string comparison, with a diff-like diagnostic.
is() {
	if [ "$1" = "$2" ]; then
		ok "$3"
	else
		not_ok "$3"
		echo "$1" | sed 's/^/#   got: /'
		echo "$2" | sed 's/^/#  want: /'
	fi
}

# write_err FILE STRING: writes STRING (no newline added) into FILE in one
# write(2) and prints "OK" or the error text, e.g. "Invalid argument".
# busybox's echo reports write errors, its printf does not.
write_err() {
	out=$( (echo -n "$2" > "$1") 2>&1) && { echo OK; return; }
	echo "$out" | sed 's/.*: //'
}

# helper CMD...: runs one kstats_helper command; prints OK or the error.
helper() {
	write_err "$HELPER" "$*"
}

# Run a helper command on one CPU.
helper_on() {
	cpu=$1
	shift
	taskset -c "$cpu" sh -c "printf '%s' '$*' > $HELPER"
}

# as_user CMD: runs a shell command as uid 1000 (busybox su needs passwd).
as_user() {
	grep -q '^user:' /etc/passwd 2>/dev/null || {
		echo 'root:x:0:0::/:/bin/sh' > /etc/passwd
		echo 'user:x:1000:1000::/:/bin/sh' >> /etc/passwd
		echo 'root:x:0:' > /etc/group
		echo 'user:x:1000:' >> /etc/group
	}
	su user -s /bin/sh -c "$1"
}

# The _control and entry files, as the trace tests read them:
# line NAME: the _control line of NAME
# (without its last field, "memory N": what it takes of max_memory, which
# 30-control.sh and 83-memory.sh check)
line() { grep "^name $1 " "$KS/_control" | sed 's/ memory [0-9]*$//'; }
# field NAME KEY: value of KEY on NAME's _control line
field() { grep "^name $1 " "$KS/_control" | awk -v k="$2" '{ for (i = 1; i < NF; i += 2) if ($i == k) print $(i + 1) }'; }
# samples NAME: total count
samples() { grep CPUS "$KS/$1" | awk '{ n += $6 } END { print n + 0 }'; }
# keys NAME: "KEY:COUNT" of each key's aggregate lines in _keys/NAME,
# sorted by key
keys() {
	grep CPUS "$KS/_keys/$1" | awk '{ k = $1 == "other" ? "other" : $2; n[k] += $(NF - 4) }
		END { for (k in n) print k ":" n[k] }' | sort | tr '\n' ' ' | sed 's/ $//'
}
# below NAME NS: CPUS lines whose mean is under NS
below() { grep CPUS "$KS/$1" | awk -v d="$2" '$8 < d { n++ } END { print n + 0 }'; }
# ctl COMMAND...: one write into _control; prints OK or the error
ctl() { write_err "$KS/_control" "$*"; }

# asleep FUNC...: true once a task sleeps in one of the FUNCs, within
# 30 s (its wchan; builtins only, since a pipe of the test itself may be
# what is traced).
asleep() {
	i=0
	while [ $i -lt 300 ]; do
		for f in /proc/[0-9]*/wchan; do
			w=
			read -r w < "$f" 2>/dev/null
			for fn in "$@"; do
				[ "$w" = "$fn" ] && return 0
			done
		done
		i=$((i + 1))
		sleep 0.1
	done
	return 1
}

# mod_refs MOD: the reference count of module MOD.
mod_refs() { awk -v m="$1" '$1 == m { print $3 }' /proc/modules; }
# refs: kstats'; trefs: kstats_tramp's (kstats.ko's use, and one per
# trampoline slot not free).
refs() { mod_refs kstats; }
trefs() { mod_refs kstats_tramp; }
# refs_reach N [MOD]: the reference count of MOD (kstats) is N within 5 s
# (an entry whose probes are unregistered at last drops kstats' pin; a
# drained trampoline slot drops kstats_tramp's reference).
refs_reach() {
	_n=0
	while [ "$(mod_refs "${2:-kstats}")" != "$1" ] && [ $_n -lt 50 ]; do
		sleep 0.1
		_n=$((_n + 1))
	done
	[ "$(mod_refs "${2:-kstats}")" = "$1" ]
}
trefs_reach() { refs_reach "$1" kstats_tramp; }

# init_freed MOD: MOD's init sections are freed (no area of
# /proc/vmallocinfo holds them; addresses of one length compare as
# strings). That free, a work item soon after the module loads, flushes
# every CPU's TLB: with a CPU held with its interrupts off (96-tramp-exit,
# 98-task-hook-fail), the other would wait in it as long as the hold
# lasts, and the script that ends it with it.
init_freed() {
	for _s in /sys/module/"$1"/sections/.init.*; do
		[ -e "$_s" ] || continue
		read -r _a <"$_s"
		_i=0
		while awk -v a="$_a" '{ split($1, r, "-") }
			r[1] <= a && a < r[2] { f = 1 } END { exit !f }' /proc/vmallocinfo; do
			[ $_i -lt 300 ] || return 1
			sleep 0.1
			_i=$((_i + 1))
		done
	done
}

# ko NAME: the path of test module NAME in the initramfs.
ko() {
	for f in "$MODDIR/tests/$1.ko" "$MODDIR/$1.ko"; do
		[ -e "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}

# kstats logs 10 refusals per 5 s by default (its log_burst parameter);
# the scripts read the reason of most refusals, so they raise it
# (62-control-errors.sh checks the default; a new value starts a new
# window).
LOG_BURST=100000
raise_log_burst() {
	_lb=/sys/module/kstats/parameters/log_burst
	[ "$(cat $_lb)" = $LOG_BURST ] || echo $LOG_BURST > $_lb
}

load_modules() {
	grep -q '^kstats ' /proc/modules || insmod "$MODDIR/kstats.ko" || return 1
	raise_log_burst
	grep -q '^kstats_helper ' /proc/modules ||
		insmod "$MODDIR/tests/kstats_helper.ko" 2>/dev/null ||
		insmod "$MODDIR/kstats_helper.ko"
}

# rmmod_drained MOD: rmmod MOD, again every 0.1 s for up to 5 s while it
# is in use (a removed direct entry drains its calls in flight); true once
# MOD is gone.
rmmod_drained() {
	_rd=0
	while [ $_rd -lt 50 ] && ! rmmod "$1" 2>/dev/null; do
		sleep 0.1
		_rd=$((_rd + 1))
	done
	! grep -q "^$1 " /proc/modules
}

# Kernel log lines added since the last call of log_mark: those after the
# line that was last then (timestamped, so unique), not a line count, which
# stops growing once the kernel's log buffer is full; all lines if that
# line has gone out of the buffer.
log_mark() { LOG_LAST=$(dmesg | tail -n 1); }
log_new() {
	# Through the environment: awk -v would expand the backslashes that
	# logged commands carry (\0 of a refused NUL).
	dmesg | LOG_LAST=$LOG_LAST awk '
		{ line[NR] = $0; if ($0 == ENVIRON["LOG_LAST"]) at = NR }
		END { for (i = at + 1; i <= NR; i++) print line[i] }'
}
# logged PATTERN: a line since log_mark matches the grep PATTERN
logged() { log_new | grep -q "$1"; }
