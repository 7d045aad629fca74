#!/bin/bash
# Show kstats at work: boot a target's kernel (default: Debian's stock
# deb61) with the modules built for it and run tests/demo-guest.sh inside
# instead of the tests, printing what it prints.
#
# Usage: demo.sh [TARGET]
set -euo pipefail
. "$(dirname "$0")/targets.sh"

target=${1:-deb61}
src=${KSTATS_SRC:-$KSTATS_REPO}
export KSTATS_SRC=$src
out=${KSTATS_BUILD:-$KSTATS_REPO/build}/demo-$target
demo=${KSTATS_DEMO_SCRIPT:-$src/tests/demo-guest.sh}
[ -r "$demo" ] || die "no $demo"

# Only the debug target needs the debug kernel built; the stock ones need
# neither its tree nor its tools (mkinitramfs.sh uses Debian's cpio,
# vmlinux-extract.py unpacks the image), so their packages are a subset.
case $target in
deb61) "$KSTATS_SCRIPTS/setup.sh" --demo >/dev/null ;;
*) "$KSTATS_SCRIPTS/setup.sh" >/dev/null ;;
esac
if [ "$target" = debug ]; then
	"$KSTATS_SCRIPTS/build-debug-kernel.sh" >/dev/null
fi
# The build directory stays: build-modules.sh then rebuilds only what
# changed since the last demo.
rm -rf "$out/log" "$out/modules" "$out/initramfs.cpio"
mkdir -p "$out"
echo "demo: building the modules for $(target_describe "$target")" >&2
KSTATS_DEMO_ONLY=1 "$KSTATS_SCRIPTS/build-modules.sh" "$target" "$out" build >/dev/null
"$KSTATS_SCRIPTS/mkinitramfs.sh" --demo "$demo" "$target" "$out/modules" \
	"$out/initramfs.cpio"

echo "demo: booting $target; kernel messages go to $out/log/console.log" >&2
KSTATS_GUEST_TIMEOUT=${KSTATS_GUEST_TIMEOUT:-300} \
	"$KSTATS_SCRIPTS/run-guest.sh" "$target" "$out/initramfs.cpio" \
	"$out/log" &
guest=$!
# Follow the guest's output port while it runs.
mkdir -p "$out/log"
touch "$out/log/results.tap"
tail -n +1 -f --pid="$guest" "$out/log/results.tap" | grep -vx '# GUEST DONE'
wait "$guest"
