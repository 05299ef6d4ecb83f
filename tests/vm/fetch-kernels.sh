#!/usr/bin/env bash
# Fetch the Debian kernel image packages the VM suite boots, into a cache.
#
#   tests/vm/fetch-kernels.sh [series...]      series: 6.1 6.12 7.2 (default), the PREEMPT_RT
#                                              flavours 6.1-rt 6.12-rt 7.2-rt, and sid (the newest
#                                              kernel in sid, any series)
#
# Uses a PRIVATE apt configuration per suite (own sources.list, lists and
# archive cache under $RDNAFIX_CACHE/apt/<suite>) so that nothing is ever
# installed on the host and the host's apt state is not touched.  Only
# Debian's archive is needed.  Each kernel is unpacked with `dpkg -x` into
# $RDNAFIX_CACHE/kernels/<kver>/ and the chosen release is written to
# $RDNAFIX_CACHE/kernels/<series>.kver (package version in <series>.pkgver).
set -euo pipefail

CACHE=${RDNAFIX_CACHE:-/var/cache/rdnafix}
KDIR=$CACHE/kernels
MIRROR=${RDNAFIX_MIRROR:-http://deb.debian.org/debian}
SECMIRROR=${RDNAFIX_SECMIRROR:-http://deb.debian.org/debian-security}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
# Re-run `apt-get update` in the private dirs when lists are older than this.
MAXAGE_MIN=${RDNAFIX_APT_MAXAGE_MIN:-720}

log() { echo "fetch-kernels: $*" >&2; }
die() { log "ERROR: $*"; exit 2; }

[[ -r $KEYRING ]] || die "$KEYRING missing (install debian-archive-keyring)"
mkdir -p "$KDIR"

# apt_priv <suite-tag> <apt-get|apt-cache> args...
apt_priv() {
	local tag=$1 tool=$2; shift 2
	local d=$CACHE/apt/$tag
	"$tool" -q -o Dir::Etc::SourceList="$d/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$d/lists" -o Dir::Cache="$d/cache" \
		-o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null \
		-o APT::Architecture=amd64 -o APT::Architectures::=amd64 \
		-o Acquire::Languages=none -o APT::Sandbox::User=root -o APT::Get::List-Cleanup=1 "$@"
}

setup_suite() {
	local tag=$1; shift
	local d=$CACHE/apt/$tag
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
	printf '%s\n' "$@" >"$d/sources.list.new"
	if ! cmp -s "$d/sources.list.new" "$d/sources.list" 2>/dev/null ||
		[[ -z $(find "$d/.updated" -mmin -"$MAXAGE_MIN" 2>/dev/null) ]]; then
		mv "$d/sources.list.new" "$d/sources.list"
		log "apt-get update ($tag)"
		apt_priv "$tag" apt-get update >/dev/null || die "apt-get update failed for $tag"
		touch "$d/.updated"
	else
		rm -f "$d/sources.list.new"
	fi
}

# newest version of a package name matching a regex, within a suite tag
pick_pkg() {
	local tag=$1 re=$2
	apt_priv "$tag" apt-cache pkgnames linux-image- | grep -E "^${re}\$" | grep -v -- '-dbg$' |
		sort -V | tail -1
}

fetch_one() {
	local series=$1 tag pkg
	case $series in
	6.1)
		setup_suite bookworm "deb [signed-by=$KEYRING] $MIRROR bookworm main" \
			"deb [signed-by=$KEYRING] $SECMIRROR bookworm-security main" \
			"deb [signed-by=$KEYRING] $MIRROR bookworm-updates main"
		tag=bookworm
		pkg=$(pick_pkg "$tag" 'linux-image-6\.1\.0-[0-9]+-amd64') ;;
	6.12)
		setup_suite bookworm "deb [signed-by=$KEYRING] $MIRROR bookworm main" \
			"deb [signed-by=$KEYRING] $SECMIRROR bookworm-security main" \
			"deb [signed-by=$KEYRING] $MIRROR bookworm-updates main"
		tag=bookworm
		pkg=$(pick_pkg "$tag" 'linux-image-6\.12\.[0-9]+\+deb12-amd64')
		if [[ -z $pkg ]]; then
			setup_suite bookworm-bpo "deb [signed-by=$KEYRING] $MIRROR bookworm-backports main"
			tag=bookworm-bpo
			pkg=$(pick_pkg "$tag" 'linux-image-6\.12\.[0-9]+\+bpo-amd64')
		fi ;;
	6.1-rt)
		setup_suite bookworm "deb [signed-by=$KEYRING] $MIRROR bookworm main" \
			"deb [signed-by=$KEYRING] $SECMIRROR bookworm-security main" \
			"deb [signed-by=$KEYRING] $MIRROR bookworm-updates main"
		tag=bookworm
		pkg=$(pick_pkg "$tag" 'linux-image-6\.1\.0-[0-9]+-rt-amd64') ;;
	6.12-rt)
		setup_suite bookworm "deb [signed-by=$KEYRING] $MIRROR bookworm main" \
			"deb [signed-by=$KEYRING] $SECMIRROR bookworm-security main" \
			"deb [signed-by=$KEYRING] $MIRROR bookworm-updates main"
		tag=bookworm
		pkg=$(pick_pkg "$tag" 'linux-image-6\.12\.[0-9]+\+deb12-rt-amd64') ;;
	7.2)
		setup_suite sid "deb [signed-by=$KEYRING] $MIRROR sid main"
		tag=sid
		pkg=$(pick_pkg "$tag" 'linux-image-7\.2\.[0-9]+\+deb[0-9]+-amd64') ;;
	7.2-rt)
		setup_suite sid "deb [signed-by=$KEYRING] $MIRROR sid main"
		tag=sid
		pkg=$(pick_pkg "$tag" 'linux-image-7\.2\.[0-9]+\+deb[0-9]+-rt-amd64') ;;
	sid)
		# the newest kernel in sid, whatever its series: the early warning of
		# an amdgpu rdnafix has not been tested against
		setup_suite sid "deb [signed-by=$KEYRING] $MIRROR sid main"
		tag=sid
		pkg=$(pick_pkg "$tag" 'linux-image-[0-9]+\.[0-9]+\.[0-9]+\+deb[0-9]+-amd64') ;;
	*) die "unknown series '$series' (valid: 6.1 6.12 7.2 6.1-rt 6.12-rt 7.2-rt sid)" ;;
	esac
	[[ -n $pkg ]] || die "no linux-image package found for series $series"
	local kver=${pkg#linux-image-}
	local ver
	ver=$(apt_priv "$tag" apt-cache show --no-all-versions "$pkg" | sed -n 's/^Version: //p' | head -1)
	local dest=$KDIR/$kver
	if [[ -f $dest/.complete && $(cat "$dest/.complete") == "$ver" ]]; then
		log "$series: $pkg $ver (cached)"
	else
		log "$series: downloading $pkg $ver"
		local tmp; tmp=$(mktemp -d "$KDIR/.dl.XXXXXX")
		# Newer (sid) kernels split the image into linux-binary-/linux-modules-/
		# linux-base-<kver>: fetch every same-kver package the image depends on.
		local extra
		extra=$(apt_priv "$tag" apt-cache show --no-all-versions "$pkg" | sed -n 's/^Depends: //p' |
			tr ',' '\n' | sed -n "s/^ *\(linux-[a-z]*-${kver//+/[+]}\) *(= \(.*\))\$/\1=\2/p")
		# shellcheck disable=SC2086
		(cd "$tmp" && apt_priv "$tag" apt-get download "$pkg=$ver" $extra >/dev/null) ||
			{ rm -rf "$tmp"; die "download of $pkg=$ver $extra failed"; }
		rm -rf "$dest.new"; mkdir -p "$dest.new"
		local deb
		for deb in "$tmp"/*.deb; do dpkg -x "$deb" "$dest.new"; done
		# the .debs are not kept (version recorded in .complete)
		rm -rf "$tmp"
		# Normalise: <dest>/vmlinuz and <dest>/lib/modules/<kver> for every
		# layout (bookworm: /boot + /lib; sid: merged /usr/lib/modules/<kver>/vmlinuz).
		if [[ ! -e $dest.new/lib && -d $dest.new/usr/lib/modules ]]; then
			ln -s usr/lib "$dest.new/lib"
		fi
		local vmlinuz
		for vmlinuz in "$dest.new/boot/vmlinuz-$kver" "$dest.new/lib/modules/$kver/vmlinuz" ""; do
			[[ -z $vmlinuz || -f $vmlinuz ]] && break
		done
		[[ -n $vmlinuz ]] || die "$pkg: no vmlinuz found in the unpacked packages"
		ln -sf "${vmlinuz#"$dest.new/"}" "$dest.new/vmlinuz"
		[[ -d $dest.new/lib/modules/$kver/kernel ]] || die "$pkg: no modules found"
		# sid packages ship no modules.dep (made at install time): build it here
		[[ -f $dest.new/lib/modules/$kver/modules.dep ]] ||
			depmod -b "$dest.new" "$kver"
		echo "$ver" >"$dest.new/.complete"
		rm -rf "$dest"; mv "$dest.new" "$dest"
	fi
	echo "$kver" >"$KDIR/$series.kver"
	echo "$ver" >"$KDIR/$series.pkgver"
	echo "$series $kver $ver"
}

series=("$@")
[[ ${#series[@]} -gt 0 ]] || series=(6.1 6.12 7.2)
for s in "${series[@]}"; do fetch_one "$s"; done
