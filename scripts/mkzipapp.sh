#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The kstats command as one file: a zipapp (python3 -m zipapp) of the
# package tool/kstats, with its __main__.py at the top so that an early
# Ctrl-C is quiet before any module loads. make install, the guests'
# initramfs and the host tests run this file; from the checkout,
# "PYTHONPATH=tool python3 -m kstats" runs the same code.
#
# Usage: mkzipapp.sh OUT [PACKAGE_DIR]   (default: this tree's tool/kstats)
#   PYTHON: the interpreter that compiles it (default python3); best the
#   one that will run it.
set -eu
py=${PYTHON:-python3}
[ $# -eq 1 ] || [ $# -eq 2 ] || { echo "usage: ${0##*/} OUT [PACKAGE_DIR]" >&2; exit 2; }
out=$1
pkg=${2:-$(dirname "$0")/../tool/kstats}
[ -e "$pkg/__main__.py" ] || { echo "${0##*/}: no package in $pkg" >&2; exit 1; }
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/kstats"
cp "$pkg"/*.py "$stage/kstats/"
cp "$pkg/__main__.py" "$stage/__main__.py"
# Byte code beside the sources (zipimport reads X.pyc before X.py): the
# command starts as fast as the one-file script did. Another Python
# version ignores it and compiles the sources.
"$py" -m compileall -q -b --invalidation-mode unchecked-hash "$stage/kstats"
"$py" -m zipapp "$stage" -p '/usr/bin/env python3' -o "$out.tmp"
chmod 0755 "$out.tmp"
mv "$out.tmp" "$out"
