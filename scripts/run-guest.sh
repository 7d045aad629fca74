#!/bin/bash
# Boot a target's kernel in QEMU with an initramfs from mkinitramfs.sh.
#   LOGDIR/console.log  first serial port: the kernel's console
#   LOGDIR/results.tap  second serial port: what the guest init reports
# arm64 targets boot in qemu-system-aarch64's virt machine: its one serial
# port (ttyAMA0) is the console, a virtio serial port the results port
# (guest-init.sh).
#   LOGDIR/qemu.log     QEMU's own messages; LOGDIR/qemu.cmd its command
#   LOGDIR/monitor.txt  of a guest that ran out of time: its vCPUs'
#                       registers and interrupt controllers (QEMU's monitor)
# Succeeds iff the guest printed "# GUEST DONE" before the time limit
# (KSTATS_GUEST_TIMEOUT seconds, default 3600). KSTATS_TCG_OPTS: options
# of QEMU's -accel tcg (default thread=single). KSTATS_APPEND: more kernel
# arguments (check.sh boots the debug kernel with lockdown= this way).
# KSTATS_GUEST_MEM: the guest's RAM (default 1G; the Debian userspace of
# the BPF guest needs 2G). KSTATS_GUEST_CPU: QEMU's CPU model under TCG
# (default max; check.sh's call depth boot emulates an Intel Skylake).
# KSTATS_QEMU_ARGS: more QEMU arguments, split at spaces (a disk for
# "make compare-sched").
#
# Usage: run-guest.sh TARGET INITRAMFS LOGDIR
set -euo pipefail
. "$(dirname "$0")/targets.sh"

[ $# -eq 3 ] || {
	echo "usage: ${0##*/} TARGET INITRAMFS LOGDIR" >&2
	exit 2
}
target=$1 initramfs=$2 logdir=$3
limit=${KSTATS_GUEST_TIMEOUT:-3600}
[ -r "$initramfs" ] || die "no initramfs $initramfs"
mkdir -p "$logdir"

arch=$(target_arch "$target")

# KVM only with hardware virtualisation: /dev/kvm may exist without it
# (a software backend far slower than TCG); never for an arm64 guest, nor
# for a boot that asks for a CPU model (KSTATS_GUEST_CPU: KVM gives the
# host's CPU, and the call depth boot needs an Intel Skylake's).
if [ "$arch" = x86_64 ] && [ -z "${KSTATS_GUEST_CPU:-}" ] &&
	grep -qwE 'vmx|svm' /proc/cpuinfo && [ -w /dev/kvm ]; then
	accel=(-accel kvm -cpu host)
else
	# One host thread runs both vCPUs in turn: QEMU 7.2's multi-threaded
	# TCG now and then executes a stale int3 of the kernel's live code
	# patching when another vCPU runs the patched code (scripts/README.md).
	# KSTATS_TCG_OPTS="" gives back one thread per vCPU.
	tcg=${KSTATS_TCG_OPTS-thread=single}
	accel=(-accel "tcg${tcg:+,$tcg}" -cpu "${KSTATS_GUEST_CPU:-max}")
fi

# panic=-1 reboots at once on a panic, and -no-reboot turns any reboot into
# QEMU's exit. Oopses do not panic, so one run shows every report.
# mitigations=off: page table isolation costs a lot under TCG.
# The machine and its two output ports (targets.sh).
guest_machine "$target" "$logdir/console.log" "$logdir/results.tap"
append="console=$GUEST_CONSOLE${GUEST_ARGS:+ $GUEST_ARGS} loglevel=7 panic=-1 printk.devkmsg=on mitigations=off"
append+=${KSTATS_APPEND:+ $KSTATS_APPEND}
read -ra qemu_args <<<"${KSTATS_QEMU_ARGS:-}"

# monitor_dump SOCKET: the answers of QEMU's monitor at SOCKET to a few
# questions about a guest that hangs (where its vCPUs are, what their
# interrupt controllers hold).
monitor_dump() {
	python3 - "$1" <<'PY'
import socket
import sys
import time

s = socket.socket(socket.AF_UNIX)
s.settimeout(5)
s.connect(sys.argv[1])
s.settimeout(1)
for cmd in ('', 'info registers -a', 'info lapic', 'info pic', 'info irq'):
    if cmd:
        s.sendall(cmd.encode() + b'\n')
    time.sleep(1)
    out = b''
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            out += chunk
    except socket.timeout:
        pass
    # Less the monitor's echo of what was typed (terminal escapes).
    text = out.decode(errors='replace').replace('\r', '')
    sys.stdout.write(''.join(x for x in text.splitlines(True) if '\x1b' not in x))
PY
}

boot() {
	local kernel=$1 mon qemu t0=$SECONDS
	: >"$logdir/console.log"
	: >"$logdir/results.tap"
	mon=$(mktemp -u /tmp/kstats-monitor.XXXXXX)
	local cmd=("${GUEST_PIN[@]}" "${GUEST_QEMU[@]}" -nodefaults -no-user-config
		"${accel[@]}" -m "${KSTATS_GUEST_MEM:-1G}" -smp 2 -display none -no-reboot
		-kernel "$kernel" -initrd "$initramfs" -append "$append"
		"${GUEST_PORTS[@]}" "${qemu_args[@]}"
		-monitor "unix:$mon,server=on,wait=off")
	printf '%q ' "${cmd[@]}" >"$logdir/qemu.cmd"
	echo >>"$logdir/qemu.cmd"
	# The guest powers off by itself; the time limit catches hangs, and
	# before QEMU is stopped its monitor tells where the vCPUs were.
	"${cmd[@]}" </dev/null >"$logdir/qemu.log" 2>&1 &
	qemu=$!
	while kill -0 "$qemu" 2>/dev/null; do
		if [ $((SECONDS - t0)) -ge "$limit" ]; then
			monitor_dump "$mon" >"$logdir/monitor.txt" 2>&1 || true
			kill "$qemu" 2>/dev/null || true
			for _ in 1 2 3 4 5 6 7 8 9 10; do
				kill -0 "$qemu" 2>/dev/null || break
				sleep 1
			done
			kill -KILL "$qemu" 2>/dev/null || true
			break
		fi
		sleep 1
	done
	wait "$qemu" || echo "qemu exited with status $?" >>"$logdir/qemu.log"
	rm -f "$mon"
}

start=$SECONDS
kernel=$(target_kernel "$target")
boot "$kernel"
# An extracted vmlinux that QEMU cannot boot prints nothing at all: retry
# with the distro's compressed image.
if [ ! -s "$logdir/console.log" ] && [[ $kernel != */vmlinuz-* ]] &&
	[ "$target" != debug ]; then
	kernel=$(target_vmlinuz "$target")
	echo "run-guest: $target: no output from the vmlinux, retrying $kernel" >&2
	boot "$kernel"
fi
secs=$((SECONDS - start))
echo "$secs" >"$logdir/boot-seconds"

if grep -qx '# GUEST DONE' "$logdir/results.tap"; then
	exit 0
fi
echo "run-guest: $target: guest did not finish in ${limit}s (ran ${secs}s); see $logdir/console.log, $logdir/qemu.log and $logdir/monitor.txt" >&2
# What it was doing: the last mark that the guest init ("kstats-guest:")
# or a test ("kstats-sweep:", one per command) wrote into the kernel log.
last=$(tr -d '\r' <"$logdir/console.log" | grep -a 'kstats-[a-z]*: ' | tail -n 1) || true
echo "run-guest: $target: last mark in the kernel log: ${last:-none}" >&2
# Whether its vCPUs were idle (HLT=1) or where they ran, and its last
# words on both ports, for a CI log that keeps nothing else.
awk '/^CPU#/ { cpu = $1 } /^RIP=/ { for (i = 1; i <= NF; i++) if ($i ~ /^HLT=/) h = $i
	print "run-guest: monitor: " cpu " " $1 " " h }' "$logdir/monitor.txt" >&2 2>/dev/null || true
tr -d '\r' <"$logdir/console.log" | tail -n 5 | sed 's/^/run-guest: console: /' >&2
tail -n 5 "$logdir/results.tap" | sed 's/^/run-guest: results: /' >&2
exit 1
