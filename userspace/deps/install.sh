#!/usr/bin/env bash
# Install the Debian packages listed in packages.txt, idempotently.
# Does nothing (and needs no network) when everything is already installed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
list=$here/packages.txt

main_pkgs=()
bpo_pkgs=()
while read -r pkg suite _; do
	[[ -z "$pkg" || "$pkg" == \#* ]] && continue
	case "${suite:-bookworm}" in
	bookworm) main_pkgs+=("$pkg") ;;
	bookworm-backports) bpo_pkgs+=("$pkg") ;;
	*) echo "install.sh: $list: unknown suite '$suite' for $pkg (valid: bookworm, bookworm-backports)" >&2; exit 2 ;;
	esac
done <"$list"

missing() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || echo "$p"
	done
}

need_main=$(missing "${main_pkgs[@]}")
need_bpo=$(missing "${bpo_pkgs[@]}")
if [[ -z "$need_main" && -z "$need_bpo" ]]; then
	echo "deps: all $(( ${#main_pkgs[@]} + ${#bpo_pkgs[@]} )) packages already installed"
	exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
	echo "deps: missing packages: $need_main $need_bpo" >&2
	echo "deps: run 'make deps' as root (or install them with apt-get)" >&2
	exit 2
fi

if [[ -n "$need_bpo" ]]; then
	src=/etc/apt/sources.list.d/rdnafix-bookworm-backports.sources
	if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
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
	} >/etc/apt/preferences.d/rdnafix-bookworm-backports
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $need_main $need_bpo >/dev/null
echo "deps: installed:" $need_main $need_bpo
