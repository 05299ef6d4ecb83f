#!/usr/bin/env bash
# rdnactl report on fixture machines, then status on the unpacked archive:
# `rdnactl status --root <unpacked>/root --env <unpacked>/env $(cat args) --json`
# must equal the report's status.json, apart from the fields docs/rdnactl.md
# (REPORT) names: "root" and "environment.source".  Every fixture without
# installed software trees (the coverage fixtures' `software` file: those
# trees are installations, not machine state, and a report does not copy
# them) is reported anonymized and with --no-anonymize; the --no-anonymize
# archive's root/ must equal the fixture's root/ file for file (contents,
# symlink targets, directories: what tests/fixtures/capture.sh copies).
# usage: round-trip.sh RDNACTL
set -euo pipefail
rdnactl=$(realpath "${1:?usage: round-trip.sh RDNACTL}")
here=$(cd "$(dirname "$0")" && pwd)
fixtures=$here/../fixtures
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export RDNAFIX_KNOWLEDGE_DIRS=

compare() { # status.json replay.json
	"$py" - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    d.pop("root", None)
    d["environment"].pop("source", None)
if a != b:
    def walk(x, y, path):
        if type(x) != type(y):
            print(f"  {path}: {x!r} != {y!r}"); return
        if isinstance(x, dict):
            for k in sorted(set(x) | set(y)):
                walk(x.get(k), y.get(k), f"{path}.{k}")
        elif isinstance(x, list) and len(x) == len(y):
            for i, (p, q) in enumerate(zip(x, y)):
                walk(p, q, f"{path}[{i}]")
        elif x != y:
            print(f"  {path}: {json.dumps(x)[:200]} != {json.dumps(y)[:200]}")
    walk(a, b, "")
    sys.exit(1)
PY
}

fail=0 n=0
for fx in "$fixtures"/*/; do
	fx=${fx%/}
	name=${fx##*/}
	[ -d "$fx/root" ] && [ ! -e "$fx/software" ] || continue
	for mode in anon plain; do
		flag=()
		[ "$mode" = plain ] && flag=(--no-anonymize)
		out=$tmp/$name-$mode.tar.gz
		# shellcheck disable=SC2046
		"$rdnactl" report --root "$fx/root" --env "$fx/env" $(cat "$fx/args") --output "$out" "${flag[@]}" \
			> "$tmp/log" 2>&1 || { echo "FAIL $name $mode: report exited $?"; cat "$tmp/log"; fail=1; continue; }
		mkdir -p "$tmp/$name-$mode"
		tar -xzf "$out" -C "$tmp/$name-$mode"
		u=$tmp/$name-$mode/rdnafix-report
		for f in MANIFEST status.json versions.txt env args root/dev/.devnodes; do
			[ -e "$u/$f" ] || { echo "FAIL $name $mode: the archive lacks $f"; fail=1; }
		done
		if [ "$mode" = plain ] && ! "$py" - "$fixtures" "$fx/root" "$u/root" <<'PY'; then
import sys
sys.path.insert(0, sys.argv[1])
from check_fixtures import tree_listing
a, b = tree_listing(sys.argv[2]), tree_listing(sys.argv[3])
diff = sorted({p for p, _ in set(a.items()) ^ set(b.items())})
for d in diff[:20]:
    print(f"  {d}: {'fixture ' + str(a.get(d))[:80] if d in a else 'absent from the fixture'}; "
          f"{'archive ' + str(b.get(d))[:80] if d in b else 'absent from the archive'}")
sys.exit(1 if diff else 0)
PY
			echo "FAIL $name: the --no-anonymize archive's root/ differs from the fixture's root/ (above)"
			fail=1
		fi
		# shellcheck disable=SC2046
		"$rdnactl" status --root "$u/root" --env "$u/env" $(cat "$u/args") --json > "$tmp/replay.json" || true
		if compare "$u/status.json" "$tmp/replay.json"; then
			n=$((n + 1))
		else
			echo "FAIL $name $mode: status on the unpacked archive differs from its status.json (above)"
			fail=1
		fi
	done
done
[ "$n" -ge 28 ] || { echo "FAIL: only $n round trips ran (expected at least 28)"; fail=1; }
[ $fail = 0 ] && echo "report round trip: $n archives replayed to their status.json"
exit $fail
