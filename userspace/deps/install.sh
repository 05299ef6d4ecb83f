#!/usr/bin/env bash
# Install the Debian packages of the named groups of packages.txt, idempotently.
#   userspace/deps/install.sh [GROUP...]     (default: build; groups: build, module, test)
# Does nothing (and needs no network) when everything is already installed.
# Debian 12: packages marked bookworm-backports come from Debian's own
# bookworm-backports suite (added and pinned if missing).  Later Debian
# releases: every package from the release itself.  Any other distribution:
# prints the packages to install and changes nothing (no foreign repository is
# ever added).
# Test hooks: RDNAFIX_OS_RELEASE (default /etc/os-release), RDNAFIX_APT_ETC
# (default /etc/apt).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
list=$here/packages.txt
os_release=${RDNAFIX_OS_RELEASE:-/etc/os-release}
apt_etc=${RDNAFIX_APT_ETC:-/etc/apt}
groups=("$@")
[[ ${#groups[@]} -gt 0 ]] || groups=(build)

known_groups=$(sed -n 's/^\[\(.*\)\]$/\1/p' "$list" | tr '\n' ' ')
for g in "${groups[@]}"; do
	[[ " $known_groups" == *" $g "* ]] || {
		echo "install.sh: unknown group '$g' (valid: ${known_groups% })" >&2
		exit 2
	}
done

# The distribution: ID and VERSION_ID of os-release.
ID="" VERSION_ID="" PRETTY_NAME="" ID_LIKE=""
if [[ -r $os_release ]]; then
	# shellcheck disable=SC1090
	eval "$(grep -E '^(ID|VERSION_ID|PRETTY_NAME|ID_LIKE)=' "$os_release")"
fi

main_pkgs=()
bpo_pkgs=()
group=""
while read -r pkg suite _; do
	[[ -z "$pkg" || "$pkg" == \#* ]] && continue
	if [[ $pkg == \[*\] ]]; then
		group=${pkg:1:-1}
		continue
	fi
	[[ " ${groups[*]} " == *" $group "* ]] || continue
	case "${suite:-}" in
	"") main_pkgs+=("$pkg") ;;
	bookworm-backports)
		# Only Debian 12 needs backports; later releases carry the package themselves.
		if [[ $ID == debian && $VERSION_ID == 12 ]]; then bpo_pkgs+=("$pkg"); else main_pkgs+=("$pkg"); fi ;;
	*) echo "install.sh: $list: unknown suite '$suite' for $pkg (valid: bookworm-backports)" >&2; exit 2 ;;
	esac
done <"$list"
all=("${main_pkgs[@]}" "${bpo_pkgs[@]}")

if [[ $ID != debian ]]; then
	echo "deps: this system is ${PRETTY_NAME:-unknown (no $os_release)}, not Debian: nothing is installed automatically." >&2
	echo "deps: install the equivalents of these Debian packages (group ${groups[*]}) with your package manager:" >&2
	echo "  ${all[*]}" >&2
	if [[ " $ID_LIKE " == *" debian "* ]]; then
		echo "deps: on $ID the same names usually work: sudo apt-get install ${all[*]}" >&2
	fi
	# Go on when the build tools are there: CMake then names any missing library.
	for t in cmake ninja pkg-config c++ python3; do
		command -v "$t" >/dev/null || {
			echo "deps: '$t' is missing; install it (and the packages above), then run make again" >&2
			exit 2
		}
	done
	exit 0
fi

missing() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || echo "$p"
	done
}

need_main=$(missing "${main_pkgs[@]}")
need_bpo=$(missing "${bpo_pkgs[@]}")
if [[ -z "$need_main" && -z "$need_bpo" ]]; then
	echo "deps: all ${#all[@]} packages of group ${groups[*]} already installed"
	exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
	echo "deps: missing packages:" $need_main $need_bpo >&2
	echo "deps: run 'make deps' as root (or: sudo apt-get install" $need_main $need_bpo")" >&2
	exit 2
fi

if [[ -n "$need_bpo" ]]; then
	src=$apt_etc/sources.list.d/rdnafix-bookworm-backports.sources
	if ! grep -rqs 'bookworm-backports' "$apt_etc/sources.list" "$apt_etc/sources.list.d/"; then
		cat >"$src" <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	fi
	# Pin: nothing comes from backports unless named below.
	{
		echo "Package: *"
		echo "Pin: release n=bookworm-backports"
		echo "Pin-Priority: 1"
		echo
		echo "Package: ${bpo_pkgs[*]}"
		echo "Pin: release n=bookworm-backports"
		echo "Pin-Priority: 990"
	} >"$apt_etc/preferences.d/rdnafix-bookworm-backports"
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $need_main $need_bpo >/dev/null
echo "deps: installed:" $need_main $need_bpo
