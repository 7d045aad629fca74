#!/bin/bash
# The kstats test suite ("make check", and CI):
#   1. install what is needed (setup.sh); build the debug kernel (cached)
#   2. checkpatch --strict on our C sources
#   3. per target: W=1 build, sparse, initramfs
#   4. boot the targets' guests (KSTATS_JOBS at a time; the debug kernel's
#      scripts in two boots, the first two guests), then per target:
#      did the guest finish, its TAP results, a clean kernel log and, where
#      kstats_test.ko was built, the KUnit results; the debug kernel also
#      boots three times more under lockdown (tests/guest/89-lockdown.sh)
#      and once on an emulated Skylake with call depth tracking on
#      (tests/guest/94-call-depth.sh)
#   5. on the host: a guest records a capture (tests/capture.sh), then
#      pytest runs tests/host (the kstats command) on it and on the kept
#      fixtures, one check per test; "dkms build" and "make install"
#      (into a staging directory, then "make uninstall") against the stock
#      kernels' headers;
#      "make demo" (deb61) runs to its end
# Each check prints "PASS <target> <what>", "FAIL <target> <what>" or,
# for a guest script that does not apply to a boot (tests/guest/
# skips.conf), "SKIP <target> <what>"; the last line is "N passed, N
# failed, N skipped", and the exit status is non-zero iff a check failed. Logs and artifacts: build/<target>/ in the repository.
#
# Environment:
#   KSTATS_TARGETS        targets to test (default: deb61 deb612 deb618 deb7x
#                         arm612 arm7x debug); those of
#                         KSTATS_SUBSET_TARGETS (deb618 and the arm64 ones)
#                         run the guest scripts of KSTATS_ARM_SUITES
#                         (targets.sh) only; the arm64 ones have no sparse
#                         pass, capture, dkms or install; deb618 and
#                         arm7x (KSTATS_SMALL_TARGETS) run
#                         KSTATS_SMALL_SUITES only; the tool's
#                         scripts (KSTATS_TOOL_SUITES) run on
#                         KSTATS_TOOL_TARGETS only, those of
#                         KSTATS_SHARED_SUITES on KSTATS_SHARED_TARGETS
#                         only; debug runs all but
#                         KSTATS_DEBUG_OMIT, in two boots (the second
#                         KSTATS_DEBUG_SECOND's); no target runs
#                         KSTATS_PENDING_SUITES (scripts ahead of their
#                         kernel side; empty: they run too)
#   KSTATS_GUEST_TIMEOUT  seconds a guest may run (default 3600)
#   KSTATS_JOBS           guests booted at once (default 2)
#   KSTATS_BUILD          artifact directory (default: build/ in the repo)
#   KSTATS_TESTS          only the guest scripts starting with these words
#   KSTATS_HOST           0: skip the host side (capture, pytest, dkms)
#   KSTATS_BENCH          0: skip the bench smoke test
#   KSTATS_BPF            stock targets whose kernel also boots the BPF
#                         guest (tests/bpf/; default deb612; "" for none)
#   KSTATS_SRC            module sources (default: the repo; for testing the
#                         test platform itself)
set -euo pipefail
. "$(dirname "$0")/targets.sh"

build=$(realpath -m "${KSTATS_BUILD:-$KSTATS_REPO/build}")
jobs=${KSTATS_JOBS:-2}
src=${KSTATS_SRC:-$KSTATS_REPO}
export KSTATS_SRC=$src
passed=0
failed=0
failures=()
skipped=0
t0=$SECONDS

pass() {
	echo "PASS $*"
	passed=$((passed + 1))
}

fail() {
	echo "FAIL $*"
	failed=$((failed + 1))
	failures+=("$*")
}

# A check that did not apply here (tests/guest/skips.conf says where).
skip() {
	echo "SKIP $*"
	skipped=$((skipped + 1))
}

# phase NAME: the time since the last phase began goes to that phase;
# NAME begins now. finish prints them, and each guest's time.
phases=()
phase_name=setup
phase_t=$SECONDS
phase() {
	phases+=("$phase_name $((SECONDS - phase_t))")
	phase_name=$1
	phase_t=$SECONDS
}

finish() {
	local f p

	phase end
	for p in "${phases[@]}"; do
		echo "check: time: phase ${p% *}: ${p##* } s"
	done
	for f in "$build"/*/log/boot-seconds; do
		[ -e "$f" ] || continue
		p=${f%/log/boot-seconds}
		echo "check: time: guest ${p##*/}: $(cat "$f") s"
	done
	for f in "$build"/jobs/*.secs; do
		[ -e "$f" ] || continue
		p=${f##*/}
		echo "check: time: job ${p%.secs}: $(cat "$f") s"
	done
	echo "check: done in $((SECONDS - t0)) s; logs in $build/"
	# Again at the end: a CI log is often read from its tail.
	for f in "${failures[@]}"; do
		echo "failed: $f"
	done
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ] || exit 1
	exit 0
}

# Indent the diagnostics of a failed step ($1: file) into the output.
show() {
	# head may close the pipe early: pipefail must not end the run.
	[ -s "$1" ] && { sed 's/^/    /' "$1" | head -n 60 || true; }
	return 0
}

mkdir -p "$build"

if ! "$KSTATS_SCRIPTS/setup.sh" >"$build/setup.log" 2>&1; then
	fail "all setup ($build/setup.log)"
	show "$build/setup.log"
	finish
fi

targets=$(targets_list)
echo "check: targets: $(tr '\n' ' ' <<<"$targets")"
# The stock kernels installed on the host (not the pinned ones, whose
# headers live in the cache and build in a chroot): the bench smoke test,
# dkms and make install run against these.
host_stock=$(for t in $targets; do
	[ "$t" != debug ] && ! target_pinned "$t" && echo "$t"
done || true)

echo "check: debug kernel (built once, then cached in $KSTATS_CACHE)"
kernel_src=$(debug_kernel_dir)
if "$KSTATS_SCRIPTS/build-debug-kernel.sh" >/dev/null 2>"$build/debug-kernel.err"; then
	pass "debug kernel-build"
else
	fail "debug kernel-build"
	show "$build/debug-kernel.err"
	targets=$(grep -vx debug <<<"$targets" || true)
fi

# checkpatch, once: the sources are the same for every target.
cfiles=()
for f in "$src"/*.c "$src"/*.h "$src"/tests/*.c "$src"/examples/*.c; do
	[ -e "$f" ] && cfiles+=("$f")
done
if [ ${#cfiles[@]} -eq 0 ]; then
	echo "check: no C sources for checkpatch"
elif [ ! -x "$kernel_src/scripts/checkpatch.pl" ]; then
	fail "all checkpatch (no $kernel_src/scripts/checkpatch.pl)"
else
	log=$build/checkpatch.log
	if "$kernel_src/scripts/checkpatch.pl" --strict --no-tree --color=never \
		-f "${cfiles[@]}" >"$log" 2>&1 &&
		! grep '^total: ' "$log" | grep -qv '^total: 0 errors, 0 warnings, 0 checks,'; then
		pass "all checkpatch"
	else
		fail "all checkpatch ($log)"
		grep -E '^(ERROR|WARNING|CHECK):|^#[0-9]+: FILE:' "$log" >"$log.short" || true
		show "$log.short"
	fi
fi

# The test platform's own scripts (the host side in bash, the guest init in
# busybox sh).
log=$build/shellcheck.log
if (cd "$KSTATS_SCRIPTS" && shellcheck -x ./*.sh "$KSTATS_REPO/.ci/run") \
	>"$log" 2>&1; then
	pass "all shellcheck"
else
	fail "all shellcheck ($log)"
	show "$log"
fi
# The guest scripts, in busybox's sh (dash's dialect, close to it), at
# warnings and errors; each sources the guest's /tests/lib.sh, checked
# with them.
log=$build/shellcheck-guest.log
if (cd "$src/tests/guest" && shellcheck -s dash -S warning -e SC1091 ./*.sh ../variant/*.sh ../manual/*.sh) \
	>"$log" 2>&1; then
	pass "all shellcheck of the guest scripts"
else
	fail "all shellcheck of the guest scripts ($log)"
	show "$log"
fi

# The tool's Python and its tests (config: tool/pyproject.toml).
log=$build/ruff.log
if (cd "$src" && "$KSTATS_RUFF" check --no-cache tool tests/host) >"$log" 2>&1; then
	pass "all ruff"
else
	fail "all ruff ($log)"
	show "$log"
fi

# kCFI traps on a tracepoint probe of another prototype, so pairs and
# gaps refuse tracepoints where it is on: kstats_probe.h must test the
# kernel's own name of it (CONFIG_CFI_CLANG, CONFIG_CFI from 6.18), read
# from the debug kernel's arch/Kconfig.
cfi=$(sed -n 's/^config \(CFI\(_CLANG\)\{0,1\}\)$/\1/p' "$kernel_src/arch/Kconfig" 2>/dev/null |
	head -n 1)
if [ -n "$cfi" ] && grep -q "defined(CONFIG_$cfi)" "$src/kstats_probe.h"; then
	pass "all kstats_probe.h tests CONFIG_$cfi, the kernel's kCFI option"
else
	fail "all kstats_probe.h does not test the kernel's kCFI option (${cfi:-none in $kernel_src/arch/Kconfig})"
fi

# The table "Kernels and mechanisms" of Documentation/kstats.rst must say
# what tests/guest/lib.sh's MECH_TABLE has the guests assert.
mech_rows() {
	awk '/^MECH_TABLE=/ { on = 1; next } on && /^'"'"'$/ { exit }
		on && NF { $1 = $1; print }' "$src/tests/guest/lib.sh"
}
doc_rows() {
	awk '/^\.\. kernels-mechanisms-table/ { on = 1; next }
		on && /^[0-9]+\.[0-9]+[-a-z0-9]* / { $1 = $1; print; n++; next }
		on && n && /^=/ { exit }' "$src/Documentation/kstats.rst"
}
if [ -n "$(mech_rows)" ] && [ "$(mech_rows)" = "$(doc_rows)" ]; then
	pass "all docs: the kernels and mechanisms table matches the tests' table"
else
	fail "all docs: the kernels and mechanisms table differs from tests/guest/lib.sh's MECH_TABLE"
	diff <(mech_rows) <(doc_rows) | sed 's/^/    /' || true
fi

# Each target's guest boots as soon as its modules and initramfs are
# ready, up to $jobs guests at once, the slow debug kernel first. Each
# records its exit status; results are read afterwards, in target order.
# boot NAME [TARGET [KERNEL ARGUMENTS]]: the guest of build/NAME.
boot() {
	# Plain: a debug guest unpacks it in 6.4 s, gzip'd in 9.3 s (KASAN's
	# inflate), and the BPF guest's would take long to decompress.
	local out=$build/$1 rc=0 initrd=$build/$1/initramfs.cpio
	KSTATS_APPEND=${3:-} "$KSTATS_SCRIPTS/run-guest.sh" "${2:-$1}" \
		"$initrd" "$out/log" 2>"$out/guest.err" || rc=$?
	echo "$rc" >"$out/guest.rc"
}

running=0
declare -A slot_of=()
# take_slot: waits until fewer than $jobs jobs of the pool run, and
# gives the next job a free slot, KSTATS_HOST_CPU: the host CPU that its
# guests' QEMU runs on (targets.sh). QEMU's TCG reads the guest's TSC
# from the host CPU it runs on; moving between host CPUs whose TSCs
# differ, it would step the guest's clock forward at each move.
take_slot() {
	local done_pid='' s
	if [ "$running" -ge "$jobs" ]; then
		wait -n -p done_pid || true
		running=$((running - 1))
		[ -n "$done_pid" ] && unset "slot_of[$done_pid]"
	fi
	running=$((running + 1))
	for ((s = 0; ; s++)); do
		[[ " ${slot_of[*]} " == *" $s "* ]] || break
	done
	if [ "$s" -lt "$(nproc)" ]; then
		export KSTATS_HOST_CPU=$s
	else
		unset KSTATS_HOST_CPU
	fi
	next_slot=$s
}
launch() {
	take_slot
	echo "check: $1: booting the guest (up to ${KSTATS_GUEST_TIMEOUT:-3600} s)${3:+ with $3}"
	boot "$@" &
	slot_of[$!]=$next_slot
}

# selected SCRIPT: KSTATS_TESTS (if set) selects guest script SCRIPT.
selected() {
	[ -z "${KSTATS_TESTS:-}" ] && return 0
	# shellcheck disable=SC2086 # words, each a prefix
	prefixed "$1" $KSTATS_TESTS
}

# prefixed SCRIPT WORD...: one of the WORDs starts guest script SCRIPT's name.
prefixed() {
	local f=$1 p
	shift
	for p in "$@"; do
		[[ $f == "$p"* ]] && return 0
	done
	return 1
}

# runs_on TARGET SCRIPT: TARGET's main boot runs guest script SCRIPT:
# KSTATS_TESTS selects it, TARGET keeps it, and on the debug kernel it is
# not one of the second boot's.
# shellcheck disable=SC2317 # called through scripts_where
runs_on() {
	selected "$2" && ! left_out "$1" "$2" &&
		{ [ "$1" != debug ] || ! words_prefix "$2" "$KSTATS_DEBUG_SECOND"; }
}

# debug_second SCRIPT: the debug kernel's second boot runs SCRIPT.
# shellcheck disable=SC2317 # called through scripts_where
debug_second() {
	selected "$1" && ! left_out debug "$1" &&
		words_prefix "$1" "$KSTATS_DEBUG_SECOND"
}

# left_out TARGET SCRIPT: TARGET leaves guest script SCRIPT out (targets.sh
# says why): every target leaves out KSTATS_PENDING_SUITES (scripts whose
# kernel side is not there yet), the subset targets run KSTATS_ARM_SUITES
# only, those of KSTATS_SMALL_TARGETS KSTATS_SMALL_SUITES only, the tool's
# scripts run on KSTATS_TOOL_TARGETS only, those of the same C on every
# kernel on KSTATS_SHARED_TARGETS only, and the debug kernel leaves out
# KSTATS_DEBUG_OMIT.
# shellcheck disable=SC2317 # called through scripts_where
left_out() {
	if words_prefix "$2" "$KSTATS_PENDING_SUITES"; then
		return 0
	fi
	if subset_target "$1" && ! words_prefix "$2" "$KSTATS_ARM_SUITES"; then
		return 0
	fi
	if [[ " $KSTATS_SMALL_TARGETS " == *" $1 "* ]] &&
		! words_prefix "$2" "$KSTATS_SMALL_SUITES"; then
		return 0
	fi
	if only_on "$1" "$2" "$KSTATS_TOOL_SUITES" "$KSTATS_TOOL_TARGETS" ||
		only_on "$1" "$2" "$KSTATS_SHARED_SUITES" "$KSTATS_SHARED_TARGETS"; then
		return 0
	fi
	[ "$1" = debug ] && words_prefix "$2" "$KSTATS_DEBUG_OMIT"
}

# only_on TARGET SCRIPT SUITES TARGETS: SCRIPT is one of SUITES, which
# run on TARGETS only, and TARGET is not one of them.
# shellcheck disable=SC2317 # called through left_out
only_on() {
	words_prefix "$2" "$3" && [[ " $4 " != *" $1 "* ]]
}

# words_prefix SCRIPT WORDS: one of the words of WORDS starts SCRIPT.
# shellcheck disable=SC2317 # called through scripts_where's tests
words_prefix() {
	# shellcheck disable=SC2086 # words, each a prefix
	prefixed "$1" $2
}

# scripts_where TEST ARGS...: the guest scripts for which TEST ARGS...
# SCRIPT succeeds, one line each.
scripts_where() {
	local f
	for f in "$src"/tests/guest/[0-9]*.sh; do
		"$@" "${f##*/}" && echo "${f##*/}"
	done
	return 0
}

# target_tests TARGET: the KSTATS_TESTS of TARGET's initramfs, the names
# of the scripts it runs (a word that matches none if there are none).
target_tests() {
	local sel
	sel=$(scripts_where runs_on "$1" | tr '\n' ' ')
	echo "${sel:-none-selected}"
}

# debug_boot NAME SCRIPTS ARGS: boot the debug kernel again with kernel
# arguments ARGS, running only the guest scripts SCRIPTS, whole names
# (a prefix such as "94" would take every script it starts).
debug_boot() {
	local name=$1 tests=$2 args=$3 out=$build/$1 w
	for w in $tests; do
		if [[ $w != *.sh || ! -e $src/tests/guest/$w ]]; then
			fail "$name: no guest script $w"
			return 0
		fi
	done
	rm -rf "$out"
	mkdir -p "$out/modules"
	# The modules without the KUnit suite, which ran in the debug boot.
	cp "$build/debug/modules/"*.ko "$out/modules/"
	rm -f "$out/modules/kstats_test.ko"
	if KSTATS_TESTS=$tests "$KSTATS_SCRIPTS/mkinitramfs.sh" debug \
		"$out/modules" "$out/initramfs.cpio" 2>"$out/initramfs.err"; then
		debug_boots+=("$name")
		boot_scripts[$name]=$tests
		launch "$name" debug "$args"
	else
		fail "$name initramfs"
		show "$out/initramfs.err"
	fi
}

# The debug kernel's extra boots: its second half of the guest scripts
# (launched beside the first, the two longest boots of the run), three
# under lockdown and one with call depth tracking (below).
debug_boots=()
# The guest scripts of each extra boot, which must all run there.
declare -A boot_scripts=()

phase "builds, guests and the host's jobs"
guests=()
for t in $(grep -x debug <<<"$targets") $(grep -vx debug <<<"$targets"); do
	out=$build/$t
	rm -rf "$out"
	mkdir -p "$out"
	echo "check: $t: $(target_release "$t"), KDIR $(target_kdir "$t")"
	if "$KSTATS_SCRIPTS/build-modules.sh" "$t" "$out" build \
		>"$out/modules.txt" 2>"$out/build.err"; then
		pass "$t build"
		echo "check: $t: modules: $(cd "$out/modules" && echo *.ko)"
	else
		fail "$t build ($out/build.log)"
		show "$out/build.err"
	fi
	if ! compgen -G "$out/modules/*.ko" >/dev/null; then
		fail "$t guest (no module was built)"
	elif ! KSTATS_TESTS=$(target_tests "$t") "$KSTATS_SCRIPTS/mkinitramfs.sh" "$t" \
		"$out/modules" "$out/initramfs.cpio" 2>"$out/initramfs.err"; then
		fail "$t initramfs"
		show "$out/initramfs.err"
	else
		guests+=("$t")
		launch "$t"
		if [ "$t" = debug ]; then
			second=$(scripts_where debug_second | tr '\n' ' ')
			[ -z "$second" ] || debug_boot debug-2 "$second" ""
		fi
	fi
	if "$KSTATS_SCRIPTS/build-modules.sh" "$t" "$out" sparse \
		>/dev/null 2>"$out/sparse.err"; then
		pass "$t sparse"
	else
		fail "$t sparse ($out/sparse.log)"
		show "$out/sparse.err"
	fi
done

# The debug kernel again, under lockdown: booted with lockdown=integrity
# and with lockdown=confidentiality, and without, raising it at run time
# (KSTATS_LOCKDOWN=raise), each running tests/guest/89-lockdown.sh only.
# And on an emulated Intel Skylake with call depth tracking on
# (retbleed=stuff), running tests/guest/94-call-depth.sh only.
if [[ " ${guests[*]} " == *" debug "* ]]; then
	if selected 89-lockdown.sh; then
		debug_boot debug-lockdown-integrity 89-lockdown.sh lockdown=integrity
		debug_boot debug-lockdown-confidentiality 89-lockdown.sh lockdown=confidentiality
		debug_boot debug-lockdown-raise 89-lockdown.sh KSTATS_LOCKDOWN=raise
	fi
	if selected 94-call-depth.sh; then
		KSTATS_GUEST_CPU=Skylake-Client debug_boot debug-call-depth 94-call-depth.sh \
			"mitigations=auto retbleed=stuff spectre_v2=retpoline"
	fi
fi

# kstats beside BPF (tests/bpf/), on the stock targets of KSTATS_BPF
# (default deb612): their kernel booted into a Debian userspace with
# bpftrace (bench-rootfs.sh, cached), in 2G of RAM.
bpf_boots=()
for t in ${KSTATS_BPF-deb612}; do
	if [[ " ${guests[*]} " != *" $t "* ]] || ! selected 87-bpf-coexist.sh; then
		continue
	fi
	name=$t-bpf
	out=$build/$name
	rm -rf "$out"
	mkdir -p "$out/modules"
	cp "$build/$t/modules/kstats.ko" "$build/$t/modules/kstats_tramp.ko" "$out/modules/"
	if rootfs=$("$KSTATS_SCRIPTS/bench-rootfs.sh" 2>"$out/rootfs.err") &&
		KSTATS_TESTS=87 "$KSTATS_SCRIPTS/mkinitramfs.sh" --rootfs "$rootfs" \
			--tests "$src/tests/bpf" "$t" "$out/modules" \
			"$out/initramfs.cpio" 2>"$out/initramfs.err"; then
		bpf_boots+=("$name")
		boot_scripts[$name]=87-bpf-coexist.sh
		# It takes about 30 s; a guest that hangs (ci11 of 2026-11-29:
		# silent from 21 s on, idle, its own watchdogs silent too) must
		# not hold the run for an hour.
		KSTATS_GUEST_MEM=2G KSTATS_GUEST_TIMEOUT=${KSTATS_GUEST_TIMEOUT:-900} \
			launch "$name" "$t"
	else
		fail "$name initramfs"
		show "$out/rootfs.err"
		show "$out/initramfs.err"
	fi
done

# deb612 with kstats built as for a kernel whose unwinder guesses
# (KSTATS_TEST_UNWINDER_GUESS, kstats_tramp.h: x86-64's UNWINDER_GUESS,
# which no target's kernel has), running tests/variant/ only: direct
# refused there, and a plain trace on the next mechanism.
variant_boots=()
if [[ " ${guests[*]} " == *" deb612 "* ]] && selected 95-unwinder-guess.sh; then
	name=deb612-guess
	out=$build/$name
	rm -rf "$out"
	mkdir -p "$out"
	if KSTATS_BUILD_DEFINES=KSTATS_TEST_UNWINDER_GUESS \
		"$KSTATS_SCRIPTS/build-modules.sh" deb612 "$out" build \
		>"$out/modules.txt" 2>"$out/build.err" &&
		KSTATS_TESTS=95 "$KSTATS_SCRIPTS/mkinitramfs.sh" --tests "$src/tests/variant" \
			deb612 "$out/modules" "$out/initramfs.cpio" 2>"$out/initramfs.err"; then
		variant_boots+=("$name")
		boot_scripts[$name]=95-unwinder-guess.sh
		launch "$name" deb612
	else
		fail "$name build and initramfs ($out)"
		show "$out/build.err"
		show "$out/initramfs.err"
	fi
fi

# The host side's jobs that boot guests of their own (the bench smoke
# test, the capture, the demo) or compile (DKMS, make install) join the
# guests' pool: they fill the slot that the last guests leave free. Each
# runs in a subshell whose output, its PASS and FAIL lines among it, goes
# to $build/jobs/NAME.out; replay counts them after the guests' results,
# in launch order.
hostdir=$build/host
rm -rf "$hostdir" "$build/jobs"
mkdir -p "$hostdir" "$build/jobs"
pooled=()
# pool_run NAME FUNCTION ARGS...: FUNCTION as job NAME of the pool.
pool_run() {
	local name=$1
	shift
	take_slot
	echo "check: $name: started in the guests' pool"
	(
		# shellcheck disable=SC2317 # called by the jobs
		pass() { echo "PASS $*"; }
		# shellcheck disable=SC2317
		fail() { echo "FAIL $*"; }
		start=$SECONDS
		"$@"
		echo "$((SECONDS - start))" >"$build/jobs/$name.secs"
	) >"$build/jobs/$name.out" 2>&1 &
	slot_of[$!]=$next_slot
	pooled+=("$name")
}
# replay NAME: job NAME's PASS and FAIL lines counted, the rest shown; a
# job that printed neither failed.
replay() {
	local line n=0
	while IFS= read -r line; do
		case $line in
		"PASS "*) pass "${line#PASS }" ;;
		"FAIL "*) fail "${line#FAIL }" ;;
		*) echo "$line" ;;
		esac
		[[ $line != PASS\ * && $line != FAIL\ * ]] || n=$((n + 1))
	done <"$build/jobs/$1.out"
	[ "$n" -gt 0 ] || fail "$1: the job reported nothing ($build/jobs/$1.out)"
}

# bench_job TARGET: the bench (scripts/bench.sh) on a stock target, as
# a smoke test: it must boot, count, and print its tables. With tiny
# sizes, and every configuration, its timings and counts unchecked (no
# timing is ever a test); on a target that tests/bench/budgets.conf names,
# the cost gate instead: that file's configurations (and pp-off, where a
# row is a ping-pong's), counted at a size
# where a boot's counts agree to an instruction, the median of three
# rounds, the interrupts left out, each against its budget
# (tests/bench/gate.py).
# shellcheck disable=SC2317 # run by pool_run
bench_job() {
	local t=$1 log=$build/bench-$1.log gate size=200 rounds=1 configs='' irq=0
	gate=$(awk -v t="$t" '!/^#/ && $1 == t { print $2 }' \
		"$src/tests/bench/budgets.conf" | tr '\n' ' ')
	if [ -n "$gate" ]; then
		size=20000 rounds=3 configs="untraced $gate" irq=1
		# Ping-pong rows count against the ping-pong alone.
		case " $gate" in *" pp-"*) configs="$configs pp-off" ;; esac
		echo "check: $t: bench cost gate ($gate)"
	else
		echo "check: $t: bench smoke test (tiny sizes)"
	fi
	if KSTATS_TARGETS=$t KSTATS_BUILD=$build/bench-smoke-$t KSTATS_BENCH_IRQ=$irq \
		KSTATS_BENCH_BPF=0 KSTATS_BENCH_SIZE=$size KSTATS_BENCH_ROUNDS=$rounds \
		KSTATS_BENCH_CLOCKS=50 KSTATS_GUEST_TIMEOUT=600 \
		KSTATS_BENCH_CONFIGS=$configs \
		"$KSTATS_SCRIPTS/bench.sh" >"$log" 2>&1 &&
		grep -Eq '^untraced \(bench-mark dd loop\) +\| +[0-9]' "$log" &&
		grep -q '^kstats trace vfs_read via kretprobe  *| *[0-9]' "$log" &&
		grep -q '^Experiment 4' "$log"; then
		pass "$t bench runs and prints its tables"
	else
		fail "$t bench runs and prints its tables ($log)"
		tail -n 20 "$log" | sed 's/^/    /'
	fi
	if [ -n "$gate" ]; then
		python3 "$src/tests/bench/gate.py" "$src/tests/bench/budgets.conf" \
			"$build/bench-smoke-$t/bench" "$t" ||
			fail "$t cost gate (tests/bench/gate.py)"
	fi
}

# capture_job: the capture that the host tests read (tests/capture.sh),
# recorded in the first x86-64 stock guest (the debug one last).
# shellcheck disable=SC2317 # run by pool_run
capture_job() {
	local t
	for t in $(grep -vx debug <<<"$targets") $(grep -x debug <<<"$targets"); do
		[ -e "$build/$t/modules/kstats_helper.ko" ] || continue
		[ "$(target_arch "$t")" = x86_64 ] || continue
		echo "check: host: recording a capture in a $t guest"
		if KSTATS_GUEST_TIMEOUT=600 "$KSTATS_REPO/tests/capture.sh" --modules \
			"$build/$t/modules" "$t" "$hostdir/capture" >"$hostdir/capture.log" 2>&1; then
			pass "host capture in a $t guest"
			touch "$hostdir/capture.ok"
		else
			fail "host capture in a $t guest ($hostdir/capture.log)"
			show "$hostdir/capture.log"
		fi
		break
	done
}

# host_builds_job: "dkms build" and "make install" for the stock kernels.
# shellcheck disable=SC2317 # run by pool_run
host_builds_job() {
	local t rel log stage got want left stock
	# DKMS as a user runs it: the sources registered under
	# /usr/src/kstats-VERSION, with a version of this run's own (nothing that
	# is installed is touched, and concurrent runs do not meet), "dkms build"
	# per stock kernel, and everything removed afterwards.
	dkms_ver=
	dkms_cleanup() {
		[ -n "$dkms_ver" ] || return 0
		dkms remove -m kstats -v "$dkms_ver" --all >/dev/null 2>&1 || true
		rm -rf "/usr/src/kstats-$dkms_ver" "/var/lib/dkms/kstats/$dkms_ver"
		rmdir /var/lib/dkms/kstats 2>/dev/null || true
		dkms_ver=
	}
	trap dkms_cleanup EXIT
	stock=$host_stock
	if [ -n "$stock" ]; then
		dkms_ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$KSTATS_REPO/dkms.conf")
		dkms_ver=${dkms_ver:-0}-check$$
		if ! "$KSTATS_SCRIPTS/dkms-sources.sh" "/usr/src/kstats-$dkms_ver" "$dkms_ver" \
			>"$hostdir/dkms-add.log" 2>&1 ||
			! dkms add -m kstats -v "$dkms_ver" >>"$hostdir/dkms-add.log" 2>&1; then
			fail "host dkms add ($hostdir/dkms-add.log)"
			show "$hostdir/dkms-add.log"
		else
			for t in $stock; do
				rel=$(target_release "$t")
				log=$hostdir/dkms-$t.log
				echo "check: $t: dkms build -k $rel"
				# kstats.ko and kstats_tramp.ko, or .ko.xz where the kernel
				# compresses modules.
				if dkms build -m kstats -v "$dkms_ver" -k "$rel" >"$log" 2>&1 &&
					compgen -G "/var/lib/dkms/kstats/$dkms_ver/$rel/*/module/kstats.ko*" \
						>/dev/null &&
					compgen -G "/var/lib/dkms/kstats/$dkms_ver/$rel/*/module/kstats_tramp.ko*" \
						>/dev/null; then
					pass "$t dkms build"
				else
					cp "/var/lib/dkms/kstats/$dkms_ver/build/make.log" \
						"$hostdir/dkms-$t-make.log" 2>/dev/null || true
					fail "$t dkms build ($log)"
					show "$log"
				fi
			done
		fi
		dkms_cleanup
	fi

	# "make install" into a staging DESTDIR, per stock kernel, from a copy of
	# the sources: kstats.ko (no test or example module) and the command.
	for t in $stock; do
		rel=$(target_release "$t")
		stage=$hostdir/install-$t
		log=$stage.log
		rm -rf "$stage"
		mkdir -p "$stage/src/scripts" "$stage/src/Documentation"
		if "$KSTATS_SCRIPTS/dkms-sources.sh" "$stage/src" >"$log" 2>&1 &&
			cp -r "$src/scripts/mkzipapp.sh" "$src/scripts/mkman.sh" "$src/scripts/systemd" \
				"$stage/src/scripts/" &&
			cp -r "$src/tool" "$stage/src/" &&
			cp "$src/Documentation/kstats-tool.rst" "$stage/src/Documentation/" &&
			make -C "$stage/src" install KDIR="$(target_kdir "$t")" \
				DESTDIR="$stage/root" >>"$log" 2>&1; then
			# Where and how compressed is the kernel's choice (Debian 6.12:
			# updates/kstats.ko.xz), but it must be kstats.ko and its
			# trampolines' kstats_tramp.ko alone.
			got=$(cd "$stage/root" && find . -name '*.ko*' -o -path './usr/*' -type f |
				sed 's|^\./lib/modules/[^/]*/.*/\(kstats\(_tramp\)\{0,1\}\.ko\).*|\1|' | sort)
			want=$(printf '%s\n' kstats.ko kstats_tramp.ko ./usr/local/bin/kstats \
				./usr/local/share/man/man1/kstats.1 \
				./usr/local/share/bash-completion/completions/kstats \
				./usr/local/share/zsh/site-functions/_kstats \
				./usr/local/lib/systemd/system/kstats-export.service \
				./usr/local/lib/systemd/system/kstats-export.timer | sort)
			# modprobe kstats loads kstats_tramp first: depmod says so.
			if [ "$got" = "$want" ] &&
				grep -q '/kstats\.ko[.a-z]*:.*/kstats_tramp\.ko' \
					"$stage/root/lib/modules/$rel/modules.dep"; then
				pass "$t make install (kstats.ko, kstats_tramp.ko, depmod, the command, its man page, completions, units)"
			else
				fail "$t make install: installed $(tr '\n' ' ' <<<"$got")"
			fi
			# make uninstall: no file of ours left, and depmod forgot them.
			left=
			if make -C "$stage/src" uninstall KDIR="$(target_kdir "$t")" \
				DESTDIR="$stage/root" >>"$log" 2>&1 &&
				left=$(cd "$stage/root" && find . -name '*.ko*' -o -path './usr/*' -type f) &&
				[ -z "$left" ] &&
				! grep -q kstats "$stage/root/lib/modules/$rel/modules.dep"; then
				pass "$t make uninstall"
			else
				fail "$t make uninstall ($log): left ${left:-?}"
			fi
		else
			fail "$t make install ($log)"
			show "$log"
		fi
	done
}

# demo_job: "make demo" as README gives it (deb61), with its own build:
# what a new user runs first must not break unseen.
# shellcheck disable=SC2317 # run by pool_run
demo_job() {
	local log=$hostdir/demo.log
	echo "check: host: make demo"
	if KSTATS_BUILD=$hostdir "$KSTATS_SCRIPTS/demo.sh" >"$log" 2>&1 &&
		grep -qx '# demo exited 0' "$log" &&
		grep -q '^count 20000 ' "$log" &&
		grep -q "refused: trace: no symbol no_such_function" "$log" &&
		grep -qx '/sys/kernel/debug/kstats is gone' "$log"; then
		pass "host make demo runs to its end"
	else
		fail "host make demo ($log)"
		show "$log"
	fi
}

# tool_job: the host side, the kstats command (tool/kstats) on a capture
# that a guest records now (capture_job) and on the fixtures of
# tests/fixtures, one check per pytest test.
# shellcheck disable=SC2317 # run by pool_run
tool_job() {
	local capture='' py collected results
	capture_job
	[ ! -e "$hostdir/capture.ok" ] || capture=$hostdir/capture
	# Debian's python3 has python3-pytest (setup.sh); the tool itself needs
	# nothing but the standard library.
	py=/usr/bin/python3
	[ -x "$py" ] || py=python3
	echo "check: host: pytest tests/host"
	PYTHONDONTWRITEBYTECODE=1 KSTATS_LIVE_CAPTURE=$capture \
		"$py" -m pytest -p no:cacheprovider -q -rfE --junitxml="$hostdir/pytest.xml" \
		"$KSTATS_REPO/tests/host" >"$hostdir/pytest.log" 2>&1 || true
	# The floor: every test that pytest collects has a result.
	collected=$(cd "$KSTATS_REPO" && PYTHONDONTWRITEBYTECODE=1 KSTATS_LIVE_CAPTURE=$capture \
		"$py" -m pytest -p no:cacheprovider -q --collect-only tests/host 2>/dev/null |
		sed -n 's/^\([0-9]*\) tests\{0,1\} collected.*/\1/p')
	results=$(grep -o '<testcase ' "$hostdir/pytest.xml" 2>/dev/null | wc -l)
	if [ -n "$collected" ] && [ "$collected" -gt 0 ] && [ "$results" -ge "$collected" ]; then
		pass "host pytest: each of the $collected tests collected has a result"
	else
		fail "host pytest: ${collected:-no} tests collected, $results results"
	fi
	if [ ! -s "$hostdir/pytest.xml" ]; then
		fail "host pytest (no results; $hostdir/pytest.log)"
		show "$hostdir/pytest.log"
	else
		# One line per test: "ok<TAB>file::test" or "not ok<TAB>...(why)". A
		# skipped test fails: setup.sh installs everything that they use.
		while IFS=$'\t' read -r res what; do
			if [ "$res" = ok ]; then
				pass "host $what"
			else
				fail "host $what ($hostdir/pytest.log)"
			fi
		done < <("$py" - "$hostdir/pytest.xml" <<'PYEOF'
import sys
import xml.etree.ElementTree as ET

n = 0
for tc in ET.parse(sys.argv[1]).getroot().iter('testcase'):
    n += 1
    what = '%s.py::%s' % (tc.get('classname', '').split('.')[-1], tc.get('name'))
    bad = [c for c in tc if c.tag in ('failure', 'error', 'skipped')]
    if bad:
        why = (bad[0].get('message') or bad[0].tag).strip().split('\n')[0][:100]
        print('not ok\t%s (%s: %s)' % (what, bad[0].tag, why))
    else:
        print('ok\t%s' % what)
if not n:
    print('not ok\tpytest (no test ran)')
PYEOF
		)
	fi
}

if [ "${KSTATS_BENCH:-1}" != 0 ]; then
	# The smoke test on the stock kernels, the cost gate where
	# tests/bench/budgets.conf names a target (arm612 too).
	benched=$(awk '!/^#/ && NF { print $1 }' "$src/tests/bench/budgets.conf" |
		grep -xF "$targets" | sort -u - <(echo "$host_stock") || true)
	for t in $benched; do
		pool_run "bench-$t" bench_job "$t"
	done
fi
# KSTATS_HOST=0: the guests only (to iterate faster; not for CI).
if [ "${KSTATS_HOST:-1}" != 0 ]; then
	pool_run host-tool tool_job
	pool_run host-builds host_builds_job
	if grep -qx deb61 <<<"$targets"; then
		pool_run host-demo demo_job
	fi
fi
wait

# TAP lines of a results file as "ok<TAB>script: description" or
# "not ok<TAB>...", leaving out the dmesg dump.
tap_lines() {
	tr -d '\r' <"$1" | awk '
		/^# DMESG BEGIN$/ { dmesg = 1; next }
		/^# DMESG END$/ { dmesg = 0; next }
		dmesg { next }
		/^# BEGIN / { script = $3; next }
		/^(not )?ok( [0-9]+)?( |$)/ {
			res = ($1 == "ok") ? "ok" : "not ok"
			desc = $0
			sub(/^(not )?ok( [0-9]+)?( - | |$)/, "", desc)
			printf "%s\t%s: %s\n", res, script ? script : "init", desc
		}'
}

# skip_allowed SCRIPT BOOT WHY: tests/guest/skips.conf lets SCRIPT skip
# in BOOT for reason WHY (the text after "# SKIP ").
skip_allowed() {
	local line script boots b why
	while IFS= read -r line; do
		[[ $line == *" : "* ]] || continue
		why=${line#* : }
		read -r script boots <<<"${line%% : *}"
		if [ "$script" != "$1" ] || [ "$why" != "$3" ]; then continue; fi
		for b in $boots; do
			# shellcheck disable=SC2053
			[[ $2 == $b ]] && return 0
		done
	done < <(grep -v '^#' "$src/tests/guest/skips.conf")
	return 1
}

# The guest scripts that the main boot of TARGET ($1) runs.
expected_scripts() {
	scripts_where runs_on "$1"
}

for t in $targets "${debug_boots[@]}" "${bpf_boots[@]}" "${variant_boots[@]}"; do
	[[ " ${guests[*]} ${debug_boots[*]} ${bpf_boots[*]} ${variant_boots[*]} " == *" $t "* ]] || continue
	out=$build/$t
	log=$out/log
	rc=$(cat "$out/guest.rc" 2>/dev/null || echo 1)
	secs=$(cat "$log/boot-seconds" 2>/dev/null || echo '?')
	if [ "$rc" = 0 ]; then
		pass "$t guest finished (${secs} s)"
	else
		fail "$t guest finished (${secs} s; $log/console.log)"
		show "$out/guest.err"
	fi
	# The guest's clock kept the host's time: its uptime at the last line
	# of its log is at most the host's time for the boot (and 20% more,
	# for rounding). A clock that ran fast expires the scripts' time
	# limits and every sleep early.
	up=$(tr -d '\r' <"$log/console.log" | sed -n 's/^\[ *\([0-9]*\)\.[0-9]*\].*/\1/p' | tail -n 1)
	if [ -z "$up" ] || [ "$secs" = '?' ]; then
		fail "$t guest clock: no uptime in $log/console.log"
	elif [ "$up" -le $((secs + secs / 5 + 2)) ]; then
		pass "$t guest clock kept the host's time"
	else
		fail "$t guest clock ran fast: $up s of uptime in $secs s on the host"
	fi

	while IFS=$'\t' read -r res what; do
		if [ "$res" != ok ]; then
			fail "$t $what ($log/results.tap)"
		elif [[ $what != *" # SKIP "* ]]; then
			pass "$t $what"
		elif skip_allowed "${what%%:*}" "$t" "${what#* # SKIP }"; then
			skip "$t $what"
		else
			fail "$t $what (a skip, or a reason, that tests/guest/skips.conf does not give for $t)"
		fi
	done < <(tap_lines "$log/results.tap")

	# Every script that ran printed results; on a target's main boot,
	# every selected script ran.
	# Every script printed its plan (lib.sh's plan), and as many results
	# as it counts: fewer means that a part of it did not run.
	counts=$(script_counts "$log/results.tap")
	planned=0 off=0
	while read -r name n p; do
		if [ "$n" -eq 0 ]; then
			fail "$t $name: ran, but printed no ok or not ok line"
			off=$((off + 1))
		elif [ "$p" = none ]; then
			fail "$t $name: printed no plan (lib.sh's plan)"
			off=$((off + 1))
		elif [ "$p" = many ]; then
			fail "$t $name: printed more than one plan"
			off=$((off + 1))
		elif [ "$n" != "$p" ]; then
			fail "$t $name: $n results, its plan counts $p"
			off=$((off + 1))
		else
			planned=$((planned + 1))
		fi
	done <<<"$counts"
	if [ "$planned" != 0 ] && [ "$off" = 0 ]; then
		pass "$t each of its $planned scripts printed the results its plan counts"
	fi
	if { grep -qx "$t" <<<"$targets" || [ -n "${boot_scripts[$t]:-}" ]; } && [ "$rc" = 0 ]; then
		want=$(if [ -n "${boot_scripts[$t]:-}" ]; then
			tr ' ' '\n' <<<"${boot_scripts[$t]}"
		else
			expected_scripts "$t"
		fi | sed '/^$/d' | sort)
		ran=$(awk '{ print $1 }' <<<"$counts" | sort)
		missing=$(comm -23 <(echo "$want") <(echo "$ran"))
		extra=$(comm -13 <(echo "$want") <(echo "$ran"))
		if [ -z "$missing" ]; then
			pass "$t every selected guest script ran"
		else
			fail "$t guest scripts that did not run: $(tr '\n' ' ' <<<"$missing")"
		fi
		# Time in a boot that was not meant for them (an extra boot's
		# prefix that took a second script, 94-uprobe.sh in the call
		# depth boot).
		if [ -n "$extra" ]; then
			fail "$t guest scripts that ran but were not selected: $(tr '\n' ' ' <<<"$extra")"
		fi
	fi

	if "$KSTATS_SCRIPTS/check-guest-log.sh" "$log" 2>"$out/logcheck.err"; then
		pass "$t kernel log clean"
	else
		fail "$t kernel log clean ($log/console.log)"
		show "$out/logcheck.err"
	fi

	# The debug kernel has KUnit: its main boot must run the suite.
	if [ "$t" = debug ] && [ ! -e "$out/modules/kstats_test.ko" ]; then
		fail "$t kunit (kstats_test.ko was not built)"
	fi
	if [ -e "$out/modules/kstats_test.ko" ]; then
		if "$KSTATS_SCRIPTS/kunit-results.sh" "$kernel_src" \
			"$log/console.log" "$out/kunit" >"$out/kunit.tap" 2>"$out/kunit.err"; then
			while IFS= read -r line; do
				case $line in
				# A skipped case proved nothing where KUnit runs.
				*" # SKIP"*) fail "$t kunit ${line#ok - } (skipped; $out/kunit.txt)" ;;
				"ok - "*) pass "$t kunit ${line#ok - }" ;;
				*) fail "$t kunit ${line#not ok - } ($out/kunit.txt)" ;;
				esac
			done <"$out/kunit.tap"
		else
			fail "$t kunit (no KTAP output; $out/kunit.txt)"
		fi
		# Every case that kstats_test.c lists ran, each once.
		want=$(grep -oE 'KUNIT_CASE(_[A-Z]+)*\([a-z_0-9]+' "$src/kstats_test.c" |
			sed 's/.*(//' | sort)
		got=$(sed -nE 's/^(not )?ok - [a-z_0-9]+\.([a-z_0-9]+).*/\2/p' "$out/kunit.tap" | sort)
		if [ -n "$want" ] && [ "$want" = "$got" ]; then
			pass "$t kunit: each of the $(wc -l <<<"$want") cases of kstats_test.c ran once"
		else
			fail "$t kunit: cases of kstats_test.c not run once: $(diff <(echo "$want") <(echo "$got") | sed -n 's/^[<>] //p' | tr '\n' ' ')"
		fi
	fi
done

phase "results of the host's jobs"
for name in "${pooled[@]}"; do
	replay "$name"
done
finish
