#!/usr/bin/env bash
# `make deb`: build the Debian packages of this tree into OUT (default
# build/deb): rdnactl_<ver>_amd64.deb, rdnactl-dbgsym_<ver>_amd64.deb,
# rdnafix-dkms_<ver>_all.deb, the .changes and .buildinfo.
#
#   debian/make-deb.sh [OUT]
#
# dpkg-buildpackage -us -uc -b runs on an exported copy of the tree (the
# files `git ls-files -co --exclude-standard` names) in OUT/src, so that
# nothing is built or cleaned in the working tree.  Idempotent: OUT/.stamp
# holds a hash of those files (names and contents); when it matches and the
# packages are there, nothing is done.  Compiles with 2 jobs, at low
# priority, through ccache when it is installed.  The full log is
# OUT/build.log.  Exit 0 built or up to date, 1 build failed, 2 cannot run.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build/deb}
log() { echo "make deb: $*" >&2; }

command -v dpkg-buildpackage >/dev/null || { log "dpkg-buildpackage missing (make deps-test)"; exit 2; }
cd "$top"
mkdir -p "$out"
out=$(cd "$out" && pwd)

# The exported files: tracked and untracked-not-ignored, those that exist.
list=$out/.files
git ls-files -co --exclude-standard -z | while IFS= read -r -d '' f; do
	[[ -e $f || -L $f ]] && printf '%s\0' "$f"
done | sort -z -u >"$list"
# names, symbolic links' targets (the fixtures' sysfs trees have links), contents
key=$(python3 - "$list" <<'PY'
import hashlib, os, sys
h = hashlib.sha256()
for name in open(sys.argv[1], "rb").read().split(b"\0"):
    if not name:
        continue
    h.update(name + b"\0")
    if os.path.islink(name):
        h.update(b"L" + os.readlink(name) + b"\0")
    else:
        with open(name, "rb") as f:
            h.update(b"F" + hashlib.sha256(f.read()).digest())
print(h.hexdigest()[:16])
PY
)

ver=$(dpkg-parsechangelog -l debian/changelog -SVersion)
arch=$(dpkg --print-architecture)
debs=("$out/rdnactl_${ver}_$arch.deb" "$out/rdnactl-dbgsym_${ver}_$arch.deb" "$out/rdnafix-dkms_${ver}_all.deb")
have_all() { local d; for d in "${debs[@]}" "$out/rdnafix_${ver}_$arch.changes"; do [[ -f $d ]] || return 1; done; }
if [[ -f $out/.stamp && $(cat "$out/.stamp") == "$key" ]] && have_all; then
	log "up to date (tree $key): $out"
	exit 0
fi

rm -f "$out/.stamp" "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
rm -rf "$out/src"
mkdir -p "$out/src"
tar -C "$top" --null -T "$list" -cf - | tar -C "$out/src" -xf -

env=(DEB_BUILD_OPTIONS="nocheck parallel=2")
if command -v ccache >/dev/null; then
	# debhelper (compat 13) points HOME into the build tree: keep the user's cache
	env+=(CCACHE_DIR="$(ccache -k cache_dir)" CCACHE_BASEDIR="$out/src")
fi
log "dpkg-buildpackage -us -uc -b in $out/src (version $ver, log $out/build.log)"
t0=$(date +%s)
if ! (cd "$out/src" && env "${env[@]}" nice dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1; then
	tail -30 "$out/build.log" >&2
	log "FAILED after $(($(date +%s) - t0)) s; full log $out/build.log"
	exit 1
fi
have_all || { log "dpkg-buildpackage left no ${debs[*]##*/}"; exit 1; }
echo "$key" >"$out/.stamp"
log "built in $(($(date +%s) - t0)) s: ${debs[*]##*/}"
