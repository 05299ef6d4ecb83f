#!/bin/bash
# `cmake --install BUILD` into a DESTDIR, with /usr and /usr/local prefixes:
# every docs/schema/*.json is installed byte for byte as
# $PREFIX/share/rdnafix/schema/<name>.json, and nothing else is put there.
# usage: install.sh BUILD_DIR   exit 0 pass, 1 fail
set -u
build=${1:?usage: install.sh BUILD_DIR}
top=$(cd "$(dirname "$0")/../.." && pwd)
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
fail=0
for prefix in /usr /usr/local; do
	DESTDIR=$d/root cmake --install "$build" --prefix "$prefix" >"$d/log" 2>&1 || {
		echo "FAIL: cmake --install --prefix $prefix: $(tail -3 "$d/log")"
		exit 1
	}
	dir=$d/root$prefix/share/rdnafix/schema
	want=$(cd "$top/docs/schema" && ls *.json)
	got=$(cd "$dir" 2>/dev/null && ls)
	if [[ -z $want || $want != "$got" ]]; then
		echo "FAIL: $prefix/share/rdnafix/schema holds [${got//$'\n'/ }], expected [${want//$'\n'/ }]"
		fail=1
	fi
	for f in $want; do
		cmp -s "$top/docs/schema/$f" "$dir/$f" || {
			echo "FAIL: $prefix/share/rdnafix/schema/$f differs from docs/schema/$f"
			fail=1
		}
	done
	[[ $fail == 0 ]] && echo "ok: $(echo "$want" | wc -l) schemas in $prefix/share/rdnafix/schema"
	rm -rf "$d/root"
done
exit $fail
