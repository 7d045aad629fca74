#!/bin/bash
# The kstats test suite ("make check", and CI):
#   1. install what is needed (setup.sh); build the debug kernel (cached)
#   2. checkpatch --strict on our C sources
#   3. per target: W=1 build, sparse, initramfs
#   4. boot the targets' guests (KSTATS_JOBS at a time), then per target:
#      did the guest finish, its TAP results, a clean kernel log and, where
#      kstats_test.ko was built, the KUnit results
# Each check prints "PASS <target> <what>" or "FAIL <target> <what>"; the
# last line is "N passed, N failed", and the exit status is non-zero iff a
# check failed. Logs and artifacts: build/<target>/ in the repository.
#
# Environment:
#   KSTATS_TARGETS        targets to test (default: deb61 deb612 debug)
#   KSTATS_GUEST_TIMEOUT  seconds a guest may run (default 900)
#   KSTATS_JOBS           guests booted at once (default 2)
#   KSTATS_BUILD          artifact directory (default: build/ in the repo)
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
t0=$SECONDS

pass() {
	echo "PASS $*"
	passed=$((passed + 1))
}

fail() {
	echo "FAIL $*"
	failed=$((failed + 1))
}

finish() {
	echo "check: done in $((SECONDS - t0)) s; logs in $build/"
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ] || exit 1
	exit 0
}

# Indent the diagnostics of a failed step ($1: file) into the output.
show() {
	[ -s "$1" ] && sed 's/^/    /' "$1" | head -n 60
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

# Each target's guest boots as soon as its modules and initramfs are
# ready, up to $jobs guests at once, the slow debug kernel first. Each
# records its exit status; results are read afterwards, in target order.
boot() {
	local out=$build/$1 rc=0
	"$KSTATS_SCRIPTS/run-guest.sh" "$1" "$out/initramfs.cpio.gz" "$out/log" \
		2>"$out/guest.err" || rc=$?
	echo "$rc" >"$out/guest.rc"
}

running=0
launch() {
	if [ "$running" -ge "$jobs" ]; then
		wait -n || true
		running=$((running - 1))
	fi
	echo "check: $1: booting the guest (up to ${KSTATS_GUEST_TIMEOUT:-900} s)"
	boot "$1" &
	running=$((running + 1))
}

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
	elif ! "$KSTATS_SCRIPTS/mkinitramfs.sh" "$t" "$out/modules" \
		"$out/initramfs.cpio.gz" 2>"$out/initramfs.err"; then
		fail "$t initramfs"
		show "$out/initramfs.err"
	else
		guests+=("$t")
		launch "$t"
	fi
	if "$KSTATS_SCRIPTS/build-modules.sh" "$t" "$out" sparse \
		>/dev/null 2>"$out/sparse.err"; then
		pass "$t sparse"
	else
		fail "$t sparse ($out/sparse.log)"
		show "$out/sparse.err"
	fi
done
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

for t in $targets; do
	[[ " ${guests[*]} " == *" $t "* ]] || continue
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

	while IFS=$'\t' read -r res what; do
		if [ "$res" = ok ]; then
			pass "$t $what"
		else
			fail "$t $what ($log/results.tap)"
		fi
	done < <(tap_lines "$log/results.tap")

	if "$KSTATS_SCRIPTS/check-guest-log.sh" "$log" 2>"$out/logcheck.err"; then
		pass "$t kernel log clean"
	else
		fail "$t kernel log clean ($log/console.log)"
		show "$out/logcheck.err"
	fi

	if [ -e "$out/modules/kstats_test.ko" ]; then
		if "$KSTATS_SCRIPTS/kunit-results.sh" "$kernel_src" \
			"$log/console.log" "$out/kunit" >"$out/kunit.tap" 2>"$out/kunit.err"; then
			while IFS= read -r line; do
				case $line in
				"ok - "*) pass "$t kunit ${line#ok - }" ;;
				*) fail "$t kunit ${line#not ok - } ($out/kunit.txt)" ;;
				esac
			done <"$out/kunit.tap"
		else
			fail "$t kunit (no KTAP output; $out/kunit.txt)"
		fi
	fi
done

finish
