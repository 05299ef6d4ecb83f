#!/usr/bin/env bash
# Run the kernel's checkpatch.pl --no-tree --strict on every rdnafix kernel
# source file; exit 1 on any ERROR/WARNING/CHECK.
#
#   kmod/scripts/checkpatch.sh [files...]     (default: kmod/*.c kmod/*.h)
#
# checkpatch.pl, spelling.txt and const_structs.checkpatch come from the
# Debian linux-source-6.1 package (no Debian package ships checkpatch on
# its own), fetched once with `apt-get download` and cached in
# RDNAFIX_CACHE/checkpatch (default /var/cache/rdnafix).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
kmod=$(cd "$here/.." && pwd)
CACHE=${RDNAFIX_CACHE:-/var/cache/rdnafix}
CP=$CACHE/checkpatch

log() { echo "checkpatch: $*" >&2; }
die() { log "ERROR: $*"; exit 2; }

fetch() {
	local tmp deb tarball
	[[ -x $CP/scripts/checkpatch.pl && -f $CP/scripts/spelling.txt &&
		-f $CP/scripts/const_structs.checkpatch ]] && return 0
	command -v perl >/dev/null || die "perl missing"
	tmp=$(mktemp -d)
	log "fetching linux-source-6.1 (about 140 MB, once) for checkpatch.pl"
	(cd "$tmp" && apt-get download -q linux-source-6.1 >&2) ||
		{ rm -rf "$tmp"; die "apt-get download linux-source-6.1 failed (apt-get update?)"; }
	deb=$(ls "$tmp"/linux-source-6.1_*.deb)
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" --wildcards './usr/src/linux-source-6.1.tar.*'
	tarball=$(ls "$tmp"/usr/src/linux-source-6.1.tar.*)
	mkdir -p "$tmp/src"
	tar -x -C "$tmp/src" -f "$tarball" --wildcards \
		'linux-source-6.1/scripts/checkpatch.pl' \
		'linux-source-6.1/scripts/spelling.txt' \
		'linux-source-6.1/scripts/const_structs.checkpatch'
	mkdir -p "$CP/scripts"
	cp "$tmp"/src/linux-source-6.1/scripts/{checkpatch.pl,spelling.txt,const_structs.checkpatch} \
		"$CP/scripts/"
	basename "$deb" >"$CP/SOURCE"
	chmod +x "$CP/scripts/checkpatch.pl"
	rm -rf "$tmp"
}

fetch
files=("$@")
if [[ ${#files[@]} -eq 0 ]]; then
	files=("$kmod"/*.c "$kmod"/*.h)
fi
log "checkpatch.pl from $(cat "$CP/SOURCE"), --no-tree --strict on ${#files[@]} files"
out=$(perl "$CP/scripts/checkpatch.pl" --no-tree --strict --terse --show-types \
	-f "${files[@]}" 2>&1) || true
echo "$out"
errors=$(grep -c ': ERROR:' <<<"$out" || true)
warnings=$(grep -c ': WARNING:' <<<"$out" || true)
checks=$(grep -c ': CHECK:' <<<"$out" || true)
echo "checkpatch: total ${errors} errors, ${warnings} warnings, ${checks} checks in ${#files[@]} files"
[[ $((errors + warnings + checks)) -eq 0 ]]
