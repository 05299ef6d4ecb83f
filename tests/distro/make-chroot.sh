#!/usr/bin/env bash
# Create (once, cached) a Debian chroot that can build rdnactl: debootstrap
# --variant=minbase SUITE, then the [build] group of userspace/deps/packages.txt
# (the one package list) installed by the chroot's own apt.  Used by
# tests/distro/run.sh; never installs anything into the host.
#
# Usage: tests/distro/make-chroot.sh SUITE ROOT
#   SUITE  a Debian suite (trixie, sid)
#   ROOT   the chroot, e.g. /var/cache/rdnafix/build-trixie
#
# The stamp ROOT/.rdnafix-distro-ready holds the suite and the package list:
#  - stamp matches: the cached chroot is used (no network);
#  - stamp differs (the [build] list changed) or is missing in a chroot this
#    script created: the chroot is rebuilt from scratch, so that a package
#    dropped from the list cannot hide a missing dependency;
#  - ROOT is a chroot made by someone else (no ROOT/.rdnafix-distro-owned, e.g.
#    tests/rocm's /var/cache/rdnafix/rocm-sid): the packages are added in place
#    with apt and the stamp is written; that chroot is never deleted here;
#  - the stamp is older than RDNAFIX_DISTRO_REFRESH_DAYS (default 30): the
#    chroot is upgraded in place (apt-get dist-upgrade), so that sid's compiler
#    and libraries move on (only a chroot this script created); without network
#    the cached one is used, with a NOTE.
# Exit: 0 ready, 1 failed although the mirror was reachable, 2 cannot run here
# (not root, no debootstrap, or no network to the mirror).
set -euo pipefail

SUITE=${1:?usage: make-chroot.sh SUITE ROOT}
ROOT=${2:?usage: make-chroot.sh SUITE ROOT}
MIRROR=${RDNAFIX_DEBIAN_MIRROR:-http://deb.debian.org/debian}
REFRESH_DAYS=${RDNAFIX_DISTRO_REFRESH_DAYS:-30}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
LIST=$TOP/userspace/deps/packages.txt
STAMP=$ROOT/.rdnafix-distro-ready
OWNED=$ROOT/.rdnafix-distro-owned

# The [build] group of packages.txt, in file order, one line.
PKGS=$(awk '/^\[/ { g = $0; next } /^[[:space:]]*(#|$)/ { next } g == "[build]" { print $1 }' "$LIST" | tr '\n' ' ')
PKGS=${PKGS% }
[ -n "$PKGS" ] || { echo "make-chroot: no [build] group in $LIST" >&2; exit 1; }
STAMP_CONTENT="v1 suite=$SUITE packages=$PKGS"

say() { echo "make-chroot[$SUITE]: $*"; }
# The mirror reachable? (DNS and a TCP connection within 10 s.)  Decides
# whether a failed download is a failure (1) or "cannot run here" (2).
mirror_reachable() {
	local hostport host port
	hostport=${MIRROR#*://}
	hostport=${hostport%%/*}
	host=${hostport%%:*}
	port=80
	[[ $MIRROR == https://* ]] && port=443
	[[ $hostport == *:* ]] && port=${hostport##*:}
	getent hosts "$host" >/dev/null 2>&1 || return 1
	timeout 10 bash -c "exec 3<>/dev/tcp/$host/$port" 2>/dev/null
}
# failed WHAT: exit 2 when the network is absent, else 1.
failed() {
	if mirror_reachable; then
		echo "make-chroot[$SUITE]: FAILED: $1 (the mirror $MIRROR is reachable)" >&2
		exit 1
	fi
	echo "make-chroot[$SUITE]: CANNOT RUN: $1: no network to $MIRROR (DNS or TCP failed)" >&2
	exit 2
}
in_root() { # ROOT CMD...: run in the chroot with a clean environment
	local r=$1
	shift
	chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive "$@"
}
# apt in ROOT, quietly; the output goes to LOG and its tail to stderr on failure.
apt_in() { # ROOT LOG ARGS...
	local r=$1 log=$2
	shift 2
	in_root "$r" apt-get -q -y -o Dpkg::Use-Pty=0 -o Acquire::Check-Valid-Until=false "$@" >>"$log" 2>&1 || {
		tail -20 "$log" >&2
		return 1
	}
}
install_pkgs() { # ROOT LOG
	# shellcheck disable=SC2086
	apt_in "$1" "$2" update && apt_in "$1" "$2" install --no-install-recommends $PKGS && apt_in "$1" "$2" clean
}

stamp_ok() { [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$STAMP_CONTENT" ]; }
# Only a chroot this script made is refreshed; another's is left as its owner keeps it.
if stamp_ok && { [ ! -e "$OWNED" ] || [ -z "$(find "$STAMP" -mtime +"$REFRESH_DAYS")" ]; }; then
	say "using cached $ROOT"
	exit 0
fi
[ "$(id -u)" = 0 ] || { echo "make-chroot[$SUITE]: CANNOT RUN: must be root to create or update $ROOT" >&2; exit 2; }
LOG=$(mktemp /tmp/rdnafix-distro-chroot.XXXXXX)
trap 'rm -f "$LOG"' EXIT
t0=$(date +%s)

if stamp_ok; then # older than REFRESH_DAYS: upgrade in place
	if apt_in "$ROOT" "$LOG" update && apt_in "$ROOT" "$LOG" dist-upgrade && apt_in "$ROOT" "$LOG" clean; then
		touch "$STAMP"
		say "upgraded $ROOT in place ($(($(date +%s) - t0)) s)"
	else
		say "NOTE: upgrading $ROOT failed (offline?); using the cached chroot of $(date -r "$STAMP" +%F)"
	fi
	exit 0
fi

if [ -x "$ROOT/usr/bin/apt-get" ] && [ ! -e "$OWNED" ]; then # someone else's chroot: add in place
	install_pkgs "$ROOT" "$LOG" || failed "apt-get install of the [build] group into $ROOT"
	echo "$STAMP_CONTENT" >"$STAMP"
	say "added the [build] group to $ROOT ($(($(date +%s) - t0)) s)"
	exit 0
fi

command -v debootstrap >/dev/null || {
	echo "make-chroot[$SUITE]: CANNOT RUN: debootstrap missing (make deps-test)" >&2
	exit 2
}
TMP=$ROOT.tmp.$$
trap 'rm -f "$LOG"; rm -rf --one-file-system "$TMP"' EXIT
mkdir -p "$(dirname "$ROOT")"
debootstrap --variant=minbase "$SUITE" "$TMP" "$MIRROR" >>"$LOG" 2>&1 || {
	tail -20 "$LOG" >&2
	failed "debootstrap --variant=minbase $SUITE"
}
t1=$(date +%s)
install_pkgs "$TMP" "$LOG" || failed "apt-get install of the [build] group into the $SUITE chroot"
t2=$(date +%s)
touch "$TMP/.rdnafix-distro-owned"
echo "$STAMP_CONTENT" >"$TMP/.rdnafix-distro-ready"
rm -rf --one-file-system "$ROOT"
mv "$TMP" "$ROOT"
say "created $ROOT (debootstrap $((t1 - t0)) s, packages $((t2 - t1)) s, $(du -sm "$ROOT" | cut -f1) MiB)"
