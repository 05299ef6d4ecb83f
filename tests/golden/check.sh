#!/usr/bin/env bash
# Compares rdnactl's output with the committed byte-exact snapshot in
# tests/golden/cli/ (see README.md).  UPDATE=1 rewrites the snapshot instead;
# review `git diff tests/golden/cli` before committing it.
set -euo pipefail
rdnactl=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$here/cli-snapshot.sh" "$rdnactl" "$tmp/cli"
if [ "${UPDATE:-0}" = 1 ]; then
	rm -rf "$here/cli"
	cp -r "$tmp/cli" "$here/cli"
	echo "cli snapshot rewritten: $(find "$here/cli" -type f | wc -l) files"
	exit 0
fi
if diff -ru "$here/cli" "$tmp/cli"; then
	echo "cli snapshot: $(find "$here/cli" -type f | wc -l) files identical"
else
	echo "cli snapshot differs (above). If the change is intended: UPDATE=1 $0 $rdnactl" >&2
	exit 1
fi
