#!/bin/bash
# Build the kstats debug kernel (KASAN, lockdep, kmemleak, KUnit, tracing)
# from the newest Debian kernel source in reach, linux-source-7.x, pinned
# in debian-kernels.conf and taken from Debian's pool (its SHA256
# checked), once per pin and config fragment, with the host's toolchain.
# Prints the kernel tree's path on stdout; everything else goes to stderr
# or to the build log in that tree.
set -euo pipefail
. "$(dirname "$0")/targets.sh"

FRAGMENT=$KSTATS_SCRIPTS/debug-kernel.config
MIRROR=${KSTATS_DEBIAN_MIRROR:-http://deb.debian.org/debian}
dir=$(debug_kernel_dir)
stamp=$dir/.kstats-built
log=$dir/build.log

if [ -e "$stamp" ]; then
	echo "$dir"
	exit 0
fi

read -r ver path sum < <(debug_source_pin)
mkdir -p "$(dirname "$dir")"
# Two concurrent check runs must not build into the same tree.
exec 9>"$dir.lock"
flock 9
if [ -e "$stamp" ]; then
	echo "$dir"
	exit 0
fi

# No stamp: whatever is there is a failed or interrupted build. Start over.
rm -rf "$dir"
mkdir -p "$dir"
deb=$dir.deb
echo "debug kernel: fetching ${path##*/}" >&2
curl -fsS --retry 3 -o "$deb" "$MIRROR/$path" || die "cannot fetch $MIRROR/$path"
echo "$sum  $deb" | sha256sum -c --quiet - ||
	die "${path##*/}: SHA256 differs from the pin in debian-kernels.conf"
echo "debug kernel: extracting linux-source $ver into $dir" >&2
dpkg-deb --fsys-tarfile "$deb" | tar -xOf - --wildcards './usr/src/linux-source-*.tar.xz' |
	tar -xJf - -C "$dir" --strip-components=1
rm -f "$deb"
[ -e "$dir/Makefile" ] || die "no kernel source in ${path##*/}"

kmake() {
	make -C "$dir" ARCH=x86_64 "$@" >>"$log" 2>&1 || {
		echo "debug kernel: 'make $*' failed; tail of $log:" >&2
		tail -n 40 "$log" >&2
		exit 1
	}
}

echo "debug kernel: configuring" >&2
kmake tinyconfig
(cd "$dir" && ./scripts/kconfig/merge_config.sh -m .config "$FRAGMENT") \
	>>"$log" 2>&1 || die "merge_config.sh failed, see $log"
kmake olddefconfig

# Kconfig silently drops what it cannot satisfy: check every line of the
# fragment against the result.
bad=()
while IFS= read -r line; do
	case $line in
	CONFIG_*=*)
		grep -qxF "$line" "$dir/.config" || bad+=("$line")
		;;
	"# CONFIG_"*" is not set")
		sym=${line#\# }
		sym=${sym%% *}
		! grep -qE "^$sym=[ym]" "$dir/.config" || bad+=("$line")
		;;
	esac
done <"$FRAGMENT"
if [ ${#bad[@]} -gt 0 ]; then
	echo "debug kernel: these fragment options did not survive olddefconfig:" >&2
	printf '  %s\n' "${bad[@]}" >&2
	echo "debug kernel: check their dependencies in $dir (make menuconfig)" >&2
	exit 1
fi

echo "debug kernel: building bzImage and modules (log: $log)" >&2
start=$SECONDS
# "modules" also writes Module.symvers, which out-of-tree builds need.
kmake -j"$(nproc)" bzImage modules
# The extra modules of the guests (null_blk), signed by modules_install
# as the kernel's own are, into target_extra_dir.
rm -rf "$dir/kstats-modules"
kmake INSTALL_MOD_PATH="$dir/kstats-modules" modules_install
make_extra_modules "$(target_extra_dir debug)" \
	"$dir/kstats-modules/lib/modules/$(make -s -C "$dir" kernelrelease)" ||
	die "no extra modules in the debug kernel's build"
echo "debug kernel: built in $((SECONDS - start)) s" >&2
touch "$stamp"

# Keep only this tree: those of other source versions or fragments are
# stale and take about 2 GB each. Skip any that another run is building.
for old in "$(dirname "$dir")"/*/; do
	old=${old%/}
	[ "$old" = "$dir" ] && continue
	if (flock -n 8 && rm -rf "$old") 8>"$old.lock"; then
		rm -f "$old.lock"
	fi
done
echo "$dir"
