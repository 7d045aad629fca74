#!/bin/bash
# Stage Debian's Python into a guest initramfs, so that the kstats command
# (the zipapp of tool/kstats, standard library only) runs inside the guest
# against the live debugfs files: busybox has no Python.
#
# Copies /usr/bin/python3.11, the shared libraries it and its extension
# modules need, and the part of the standard library a command-line tool
# uses (no tests, GUI, network servers or packaging), precompiled with
# unchecked-hash .pyc files: gen_init_cpio stores every file with mtime 0,
# which would make timestamp-checked .pyc files stale and Python would
# compile the sources again in every guest, slowly under TCG.
#
# With ARM64ROOT (an unpacked arm64 Debian userspace: targets.sh's
# guest_arm64_root), the interpreter, its extension modules and shared
# libraries are that tree's (found by their ELF NEEDED entries, readelf,
# since the host's ldd cannot run them); the standard library's sources
# are still the host's (the same Python 3.11), compiled by the host's.
#
# Usage: guest-python.sh STAGEDIR [ARM64ROOT]
#   writes the tree under STAGEDIR/root and prints gen_init_cpio entries
#   for it on stdout (its directories, files and the python3 link)
set -euo pipefail
. "$(dirname "$0")/common.sh"

[ $# -eq 1 ] || [ $# -eq 2 ] || die "usage: ${0##*/} STAGEDIR [ARM64ROOT]"
stage=$1/root
# Where the binaries come from: / or the arm64 tree.
bin=${2:-}
py=/usr/bin/python3.11
lib=/usr/lib/python3.11
if [ ! -x "$py" ] || [ ! -d "$lib" ]; then
	die "$py missing: run scripts/setup.sh"
fi
[ -z "$bin" ] || [ -x "$bin$py" ] || die "no $py in $bin"

rm -rf "$stage"
mkdir -p "$stage$lib/lib-dynload" "$stage/usr/bin"

# The standard library: every top-level module, the packages and the C
# extensions a command-line tool may import (no SSL, databases, curses).
for f in "$lib"/*.py; do
	case ${f##*/} in
	# Big, and of no use to a command-line tool in a test guest.
	_pydecimal.py | _pyio.py | pydoc.py | turtle.py | doctest.py | pdb.py | \
		mailbox.py | imaplib.py | nntplib.py | smtplib.py | ftplib.py) ;;
	*) cp "$f" "$stage$lib/" ;;
	esac
done
# The codecs Python needs to start, in a C or UTF-8 locale.
mkdir -p "$stage$lib/encodings"
for f in __init__ aliases ascii latin_1 utf_8 utf_8_sig; do
	cp "$lib/encodings/$f.py" "$stage$lib/encodings/"
done
for pkg in collections concurrent importlib json logging re urllib; do
	[ -d "$lib/$pkg" ] || continue
	mkdir -p "$stage$lib/$pkg"
	(cd "$lib" && find "$pkg" -name '*.py' -print0) |
		(cd "$lib" && xargs -0 cp --parents -t "$stage$lib")
done
for mod in _contextvars _decimal _json _queue _typing mmap resource termios; do
	cp "$bin$lib/lib-dynload/$mod".cpython-311-*.so "$stage$lib/lib-dynload/"
done
"$py" -m compileall -q -j 0 --invalidation-mode unchecked-hash \
	-d "$lib" "$stage$lib" >/dev/null

# The interpreter and the shared libraries of everything that is loaded.
cp "$bin$py" "$stage/usr/bin/"
if [ -z "$bin" ]; then
	{
		ldd "$py"
		for so in "$stage$lib"/lib-dynload/*.so; do ldd "$so"; done
	} | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
		sort -u | while read -r l; do
		mkdir -p "$stage$(dirname "$l")"
		cp -L "$l" "$stage$l"
	done
else
	# needed ELF...: the guest paths of the libraries, and the program
	# interpreter, that ELF (host paths) needs, recursively.
	needed() {
		local f n d
		for f in "$@"; do
			LC_ALL=C readelf -lW "$f" 2>/dev/null |
				sed -n 's/.*Requesting program interpreter: \([^]]*\)\]/\1/p'
			for n in $(LC_ALL=C readelf -dW "$f" |
				sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
				for d in /lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu; do
					if [ -e "$bin$d/$n" ]; then
						echo "$d/$n"
						needed "$bin$d/$n"
						break
					fi
				done
			done
		done
	}
	needed "$bin$py" "$stage$lib"/lib-dynload/*.so | sort -u | while read -r l; do
		[ -e "$bin$l" ] || die "$l, which python3.11 needs, is not in $bin"
		mkdir -p "$stage$(dirname "$l")"
		cp -L "$bin$l" "$stage$l"
	done
fi

# gen_init_cpio entries; directories first, as cpio wants them.
(cd "$stage" && find . -mindepth 1 -type d | sort) | while read -r d; do
	echo "dir ${d#.} 0755 0 0"
done
(cd "$stage" && find . -type f | sort) | while read -r f; do
	echo "file ${f#.} $stage${f#.} $(stat -c %a "$stage${f#.}") 0 0"
done
echo "slink /usr/bin/python3 python3.11 0777 0 0"
