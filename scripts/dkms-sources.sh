#!/bin/bash
# Copy what DKMS needs to build kstats (dkms.conf, the Makefile, Kbuild and
# the C sources, with the test helper and example modules that Kbuild
# names) into DEST, e.g. /usr/src/kstats-VERSION for "dkms add". With a
# second argument, DEST's dkms.conf gets that PACKAGE_VERSION instead.
#
# Usage: dkms-sources.sh DEST [VERSION]
set -euo pipefail
. "$(dirname "$0")/common.sh"

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: ${0##*/} DEST [VERSION]" >&2
	exit 2
fi
dest=$1
src=${KSTATS_SRC:-$KSTATS_REPO}
[ -r "$src/dkms.conf" ] || die "no $src/dkms.conf"
mkdir -p "$dest/tests" "$dest/examples"
cp "$src/dkms.conf" "$src/Makefile" "$src/Kbuild" "$dest/"
cp "$src"/*.c "$src"/*.h "$src"/*.S "$dest/"
for f in "$src"/tests/*.c "$src"/tests/*.h "$src"/examples/*.c; do
	[ -e "$f" ] && cp "$f" "$dest/${f#"$src"/}"
done
if [ $# -eq 2 ]; then
	sed -i "s/^PACKAGE_VERSION=.*/PACKAGE_VERSION=\"$2\"/" "$dest/dkms.conf"
fi
