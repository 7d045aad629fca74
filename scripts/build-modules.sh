#!/bin/bash
# Build the kstats modules out of tree for one target.
#   build   make W=1 in OUTDIR/build; any compiler warning fails. The .ko
#           files are then collected, by basename, into OUTDIR/modules.
#   sparse  make C=2 CHECK=sparse in OUTDIR/sparse; any sparse diagnostic
#           on our own sources fails (headers of the kernel are not ours).
# Kbuild writes objects beside the sources, so each step of each target
# builds its own copy of them. KSTATS_SRC overrides the source directory
# (default: the repository). Every module of Kbuild is built (the test,
# bench and example ones too: KSTATS_TEST_MODULES=1, which a plain "make"
# leaves out); KSTATS_DEMO_ONLY=1 builds kstats.ko and the
# example only, for "make demo", and keeps OUTDIR/build's objects from
# the last run: only changed sources are copied (their mtime then tells
# kbuild), so a second demo rebuilds nothing that did not change. Checks
# keep building from scratch: a warning must show on every run. The arm64
# targets cross-build (ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-, which
# their headers' .kernelvariables set anyway) with the amd64 linux-kbuild's
# tools; their sparse pass runs in the sid chroot with its aarch64 gcc-14.
# A step that passed is cached in KSTATS_CACHE/builds under a hash of
# everything its result depends on (the sources, the kernel's .config and
# Module.symvers, the compilers and sparse, this script): the same inputs
# give the same objects and the same diagnostics, so a hit restores the
# modules (build) or the pass (sparse) without compiling. A failure is
# never cached; KSTATS_BUILD_CACHE=0 turns the cache off.
# KSTATS_BUILD_DEFINES="NAME...": a test build with each NAME defined
# (Kbuild's KSTATS_DEFINES; check.sh's variant boots).
#
# Usage: build-modules.sh TARGET OUTDIR [build|sparse|all]
set -euo pipefail
. "$(dirname "$0")/targets.sh"

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: ${0##*/} TARGET OUTDIR [build|sparse|all]" >&2
	exit 2
fi
target=$1
outdir=$(realpath -m "$2")
step=${3:-all}
src=${KSTATS_SRC:-$KSTATS_REPO}
kdir=$(target_kdir "$target")
# Targets pinned in debian-kernels.conf build in a chroot that has the
# compiler which built their kernel (chroot-run.sh), their sparse pass in
# the sparse chroot; the others on the host, but for the debug kernel's
# sparse pass: it is 7.x, whose headers the host's sparse cannot parse.
# A pinned target without a suite (arm612) builds on the host, in the
# tree that debian-kernel.sh unpacked.
suite=$(target_suite "$target")
ktree=
if target_pinned "$target"; then
	"$KSTATS_SCRIPTS/debian-kernel.sh" "$target" >&2
	ktree=$(target_ktree "$target")
fi
if [ -n "$suite" ]; then
	[ -e "$ktree$kdir/Makefile" ] || die "no kernel build tree at $kdir in $ktree"
else
	[ -e "$kdir/Makefile" ] || die "no kernel build tree at $kdir"
fi
cross=() strip=strip
if [ "$(target_arch "$target")" = arm64 ]; then
	cross=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
	strip=aarch64-linux-gnu-strip
fi

# kmake ROOT ARGS...: make in kdir, in chroot ROOT if not empty.
kmake() {
	local root=$1
	shift
	if [ -n "$root" ]; then
		"$KSTATS_SCRIPTS/chroot-run.sh" "$root" "$ktree" "$outdir" \
			make -C "$kdir" ${cross[@]+"${cross[@]}"} "$@"
	else
		make -C "$kdir" ${cross[@]+"${cross[@]}"} "$@"
	fi
}

# Fresh copy of the module sources in $1: the same set that DKMS gets.
copy_sources() {
	rm -rf "$1"
	KSTATS_SRC=$src "$KSTATS_SCRIPTS/dkms-sources.sh" "$1" >/dev/null
}

# The same sources in $1, keeping its objects: a file is copied only if
# it changed, and sources the set no longer has are deleted.
update_sources() {
	local dir=$1 stage=$1.new f
	rm -rf "$stage"
	KSTATS_SRC=$src "$KSTATS_SCRIPTS/dkms-sources.sh" "$stage" >/dev/null
	while IFS= read -r -d '' f; do
		cmp -s "$stage/$f" "$dir/$f" && continue
		mkdir -p "$(dirname "$dir/$f")"
		cp "$stage/$f" "$dir/$f"
	done < <(cd "$stage" && find . -type f -print0)
	while IFS= read -r -d '' f; do
		[ -e "$stage/$f" ] || rm -f "$dir/$f"
	done < <(cd "$dir" && find . -type f \( -name '*.[chS]' -o -name Kbuild \
		-o -name Makefile -o -name dkms.conf \) ! -name '*.mod.c' -print0)
	rm -rf "$stage"
}

# cache_key STEP ROOT: the hash of what STEP's result depends on, with
# the sources copied into $outdir/STEP; ROOT is the chroot it runs in.
cache_key() {
	local step=$1 root=$2 tree=$ktree
	# The debug kernel's sparse pass sets ktree to kdir itself.
	[ -e "$tree$kdir/.config" ] || tree=
	{
		echo "$step $target $kdir $ktree $root ${cross[*]:-} ${force[*]:-} ${KSTATS_BUILD_DEFINES:-}"
		sha256sum "$0" "$tree$kdir/.config" "$tree$kdir/Module.symvers" | cut -d' ' -f1
		(cd "$outdir/$step" && find . -type f ! -name '*.o' -print0 | sort -z |
			xargs -0 sha256sum)
		if [ -n "$root" ]; then
			ls -id "$root"
		else
			gcc --version | head -n 1
			sparse --version 2>/dev/null || true
		fi
	} | sha256sum | cut -c1-32
}

# cache_get STEP KEY: restore STEP's passed result of KEY; fails on a miss.
cache_get() {
	local c=$KSTATS_CACHE/builds/$2
	[ "${KSTATS_BUILD_CACHE:-1}" != 0 ] && [ -e "$c/.passed" ] || return 1
	cp "$c/$1.log" "$outdir/$1.log"
	if [ "$1" = build ]; then
		rm -rf "$outdir/modules"
		cp -r "$c/modules" "$outdir/modules"
		(cd "$outdir/modules" && for ko in *.ko; do echo "$target: built $ko (cached)"; done)
	fi
	echo "${0##*/}: $target: $1 passed with these inputs before (cache $c)" >&2
}

# cache_put STEP KEY: keep STEP's passed result under KEY.
cache_put() {
	local c=$KSTATS_CACHE/builds/$2
	[ "${KSTATS_BUILD_CACHE:-1}" != 0 ] || return 0
	rm -rf "$c"
	mkdir -p "$c"
	cp "$outdir/$1.log" "$c/"
	[ "$1" != build ] || cp -r "$outdir/modules" "$c/modules"
	touch "$c/.passed"
}

# Show the lines of log $1 matching $2; fail if there are any.
no_lines() {
	local log=$1 re=$2
	if grep -E "$re" "$log" >"$log.bad"; then
		echo "${0##*/}: $target: $(wc -l <"$log.bad") diagnostic line(s), from $log:" >&2
		sed 's/^/  /' "$log.bad" >&2
		return 1
	fi
	rm -f "$log.bad"
}

# Sign module $1 with the kernel tree's own key, where the tree has one
# (the debug kernel: module signing, so that its guests can raise lockdown).
sign() {
	local key=$kdir/certs/signing_key.pem
	[ -r "$key" ] && [ -x "$kdir/scripts/sign-file" ] || return 0
	"$kdir/scripts/sign-file" sha256 "$key" "$kdir/certs/signing_key.x509" "$1"
}

step_build() {
	local dir=$outdir/build log=$outdir/build.log ko name ok=0 root=
	[ -z "$suite" ] || root=$(target_chroot "$target")
	if [ -n "${KSTATS_DEMO_ONLY:-}" ]; then
		update_sources "$dir"
	else
		copy_sources "$dir"
	fi
	local which=KSTATS_TEST_MODULES=1 key=
	[ -z "${KSTATS_DEMO_ONLY:-}" ] || which=KSTATS_DEMO_ONLY=1
	if [ -z "${KSTATS_DEMO_ONLY:-}" ]; then
		key=$(cache_key build "$root")
		cache_get build "$key" && return 0
	fi
	if ! kmake "$root" M="$dir" -j"$(nproc)" W=1 "$which" \
		${KSTATS_BUILD_DEFINES:+KSTATS_DEFINES="$KSTATS_BUILD_DEFINES"} modules >"$log" 2>&1; then
		echo "${0##*/}: $target: make failed; tail of $log:" >&2
		tail -n 30 "$log" >&2
		ok=1
	fi
	no_lines "$log" 'warning:' || ok=1

	rm -rf "$outdir/modules"
	mkdir -p "$outdir/modules"
	while IFS= read -r ko; do
		name=${ko##*/}
		[ ! -e "$outdir/modules/$name" ] ||
			die "two modules named $name: the guest keeps basenames only"
		# The guests' copy without its DWARF, which every boot would
		# unpack (kstats.ko: 12 of its 14 MB under the debug kernel;
		# under KASAN, unpacking takes most of a boot): its symbols and
		# BTF stay. $dir keeps the module as built, for a debugger.
		cp "$ko" "$outdir/modules/$name"
		"$strip" --strip-debug "$outdir/modules/$name" || ok=1
		sign "$outdir/modules/$name" || ok=1
		echo "$target: built ${ko#"$dir"/}"
	done < <(find "$dir" -name '*.ko' | sort)
	[ $ok != 0 ] || [ -z "$key" ] || cache_put build "$key"
	return $ok
}

step_sparse() {
	local dir=$outdir/sparse log=$outdir/sparse.log root='' force=() ok=0
	copy_sources "$dir"
	# Kbuild turns C=2 off, saying only "not available or not up to date",
	# where scripts/checker-valid.sh (7.x) fails, and Debian's headers lack
	# that script. Keep it on; what the script checks (sparse parses the
	# headers without an error) is checked below on the log itself.
	if [ ${#cross[@]} != 0 ]; then
		# sid's aarch64 gcc-14 compiles the objects sparse checks.
		root=$(sparse_chroot arm64)
		force=(CC=aarch64-linux-gnu-gcc-14 KBUILD_CHECKSRC=2)
	elif [ -n "$suite" ]; then
		root=$(sparse_chroot)
		force=(KBUILD_CHECKSRC=2)
	elif [ "$target" = debug ]; then
		# Built by the host's gcc-12; the chroot's gcc-14 compiles
		# the objects that sparse checks.
		root=$(sparse_chroot)
		ktree=$kdir
		force=(CC=gcc-14 KBUILD_CHECKSRC=2)
	fi
	local key
	key=$(cache_key sparse "$root")
	cache_get sparse "$key" && return 0
	if ! kmake "$root" M="$dir" -j"$(nproc)" C=2 CHECK=sparse "${force[@]}" \
		KSTATS_TEST_MODULES=1 modules >"$log" 2>&1; then
		echo "${0##*/}: $target: sparse build failed; tail of $log:" >&2
		tail -n 30 "$log" >&2
		return 1
	fi
	# Sparse must have checked every C source compiled (Kbuild's own
	# generated ones aside); paths are absolute or relative to $dir.
	local cc checked missing
	cc=$(sed -n 's|^ *CC \[M\] *\(.*\)\.o$|\1.c|p' "$log" | sed "s|^$dir/||" |
		grep -v '^\.\|/\.\|\.mod\.c$' | sort -u)
	checked=$(sed -n 's|^ *CHECK *\(.*\.c\)$|\1|p' "$log" | sed "s|^$dir/||" | sort -u)
	missing=$(comm -23 <(echo "$cc") <(echo "$checked"))
	if [ -z "$cc" ] || [ -n "$missing" ]; then
		echo "${0##*/}: $target: sparse did not check: ${missing:-any source}" >&2
		grep -m1 'not available or not up to date' "$log" >&2 || true
		ok=1
	fi
	# Any sparse error, in our sources or the kernel's headers: a sparse
	# too old for them (checker-valid.sh's test).
	no_lines "$log" '^[^ ]+:[0-9]+:[0-9]+: error: ' || ok=1
	# Diagnostics are "path:line:col: kind: text", the path absolute or
	# (newer Kbuild) relative to $dir: ours are the files in $dir.
	local line f
	while IFS= read -r line; do
		f=${line%%:*}
		f=${f#"$dir"/}
		[ "${f:0:1}" != / ] && [ -f "$dir/$f" ] && echo "$line"
	done < <(grep -E '^[^ :]+:[0-9]+:([0-9]+:)? ' "$log") >"$log.ours"
	no_lines "$log.ours" . || ok=1
	[ $ok != 0 ] || cache_put sparse "$key"
	return $ok
}

case $step in
build) step_build ;;
sparse) step_sparse ;;
all)
	rc=0
	step_build || rc=1
	step_sparse || rc=1
	exit $rc
	;;
*) die "unknown step '$step'" ;;
esac
