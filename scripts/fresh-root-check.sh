#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/fresh-root-check.sh [REPO [ROOT]]: what CI would see on a fresh
# machine of this kind, on this one: a Debian 12 root made by debootstrap
# (minbase: no compiler, make, git or Python), with this machine's package
# sources and, where it has them, its extra CA certificates and the
# settings that point programs at them (an egress proxy's), runs
# "bash .ci/run" on a clone of REPO (default: this checkout's HEAD) with
# nothing installed or cached. ROOT (default /var/tmp/kstats-fresh) is
# made anew. The root is a mount point of its own, as a machine's is
# (unshare, which the build chroots use, needs one); /proc, /sys and /dev
# are the machine's. Prints .ci/run's output, then its status and time.
# The guests' QEMU runs inside; no module is loaded into this kernel.
set -euo pipefail

repo=$(realpath "${1:-$(dirname "$0")/..}")
root=${2:-/var/tmp/kstats-fresh}
mirror=http://deb.debian.org/debian

umount_all() {
	umount -R "$root/tmp" "$root/proc" 2>/dev/null || true
	umount -R "$root/sys" "$root/dev" 2>/dev/null || umount -lR "$root/sys" "$root/dev" 2>/dev/null || true
	umount "$root" 2>/dev/null || true
}

[ "$(id -u)" = 0 ] || { echo "fresh-root-check.sh: run as root" >&2; exit 2; }
command -v debootstrap >/dev/null ||
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap </dev/null
umount_all
rm -rf "$root"
debootstrap --variant=minbase bookworm "$root" "$mirror" >/dev/null
trap umount_all EXIT

# This machine's package sources, and its extra CAs if it has any.
if [ -e /etc/apt/sources.list.d/debian.sources ]; then
	cp /etc/apt/sources.list.d/debian.sources "$root/etc/apt/sources.list.d/"
	rm -f "$root/etc/apt/sources.list"
fi
cp /etc/resolv.conf "$root/etc/"
if compgen -G '/usr/local/share/ca-certificates/*' >/dev/null; then
	mkdir -p "$root/usr/local/share/ca-certificates" "$root/etc/ssl/certs"
	cp /usr/local/share/ca-certificates/* "$root/usr/local/share/ca-certificates/"
	cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"
fi
[ ! -e /etc/pip.conf ] || cp /etc/pip.conf "$root/etc/"

mount --bind "$root" "$root"
mount --make-private "$root"
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --make-rslave "$root/sys"
mount --rbind /dev "$root/dev"
mount --make-rslave "$root/dev"
mount -t tmpfs tmpfs "$root/tmp"
git clone -q "$repo" "$root/root/kstats"

# The environment of a login on this machine, less what a fresh one lacks.
env=(HOME=/root TERM=dumb PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin)
for v in SSL_CERT_FILE SSL_CERT_DIR PIP_CERT REQUESTS_CA_BUNDLE CURL_CA_BUNDLE \
	GIT_SSL_CAINFO PIP_DEFAULT_TIMEOUT PIP_DISABLE_PIP_VERSION_CHECK; do
	[ -z "${!v:-}" ] || env+=("$v=${!v}")
done
start=$(date +%s)
rc=0
env -i "${env[@]}" chroot "$root" /bin/bash -c 'cd /root/kstats && bash .ci/run' || rc=$?
echo "fresh-root-check.sh: .ci/run exited $rc after $(($(date +%s) - start)) s"
exit "$rc"
