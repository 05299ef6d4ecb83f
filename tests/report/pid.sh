#!/usr/bin/env bash
# status --pid, env --pid and --env /proc/PID/environ against real processes:
# a child started as `env -i FOO=1 HSA_OVERRIDE_GFX_VERSION=gfx1031 sleep 30`
# is judged by its own environment (not rdnactl's); a pid that has exited is
# "process N does not exist" (exit 2); a process of another user that this
# one may not read names its owner (exit 2; needs root and setpriv: then
# rdnactl runs as nobody against a root process); --pid with --env is refused;
# under --root DIR the environ file is DIR/proc/PID/environ.
# usage: pid.sh RDNACTL
set -uo pipefail
rdnactl=$(realpath "${1:?usage: pid.sh RDNACTL}")
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
tmp=$(mktemp -d)
chmod 755 "$tmp"
child=
trap '[ -n "$child" ] && kill "$child" 2>/dev/null; rm -rf "$tmp"' EXIT
export RDNAFIX_KNOWLEDGE_DIRS=
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# the environment rdnactl itself runs with must not be the one judged
export HSA_OVERRIDE_GFX_VERSION=10.3.0

env -i FOO=1 HSA_OVERRIDE_GFX_VERSION=gfx1031 sleep 30 &
child=$!
sleep 0.2
"$rdnactl" status --pid "$child" --json --no-coverage > "$tmp/s.json" 2> "$tmp/err"
rc=$?
[ $rc != 2 ] || bad "status --pid $child: exit 2: $(cat "$tmp/err")"
"$py" - "$tmp/s.json" "$child" <<'PY' || fail=1
import json, sys
e = json.load(open(sys.argv[1]))["environment"]
want = {"source": f"pid {sys.argv[2]}", "HSA_OVERRIDE_GFX_VERSION": "gfx1031"}
got = {"source": e["source"], "HSA_OVERRIDE_GFX_VERSION": e["variables"].get("HSA_OVERRIDE_GFX_VERSION")}
if got != want:
    print(f"FAIL: status --pid judged {got}, not {want}")
    sys.exit(1)
PY
"$rdnactl" env --pid "$child" > "$tmp/env.out" 2> "$tmp/err"
rc=$?
[ $rc = 0 ] || bad "env --pid: exit $rc: $(cat "$tmp/err")"
grep -q 'HSA_OVERRIDE_GFX_VERSION' "$tmp/env.out" || bad "env --pid did not act on the child's invalid override: $(cat "$tmp/env.out")"
# --env /proc/PID/environ: NUL-separated input is an environ file
"$rdnactl" status --env "/proc/$child/environ" --json --no-coverage > "$tmp/e.json" 2> "$tmp/err"
rc=$?
[ $rc != 2 ] || bad "--env /proc/$child/environ refused: $(cat "$tmp/err")"
"$py" -c 'import json,sys; v=json.load(open(sys.argv[1]))["environment"]["variables"]; sys.exit(v.get("HSA_OVERRIDE_GFX_VERSION") != "gfx1031")' "$tmp/e.json" ||
	bad "--env /proc/PID/environ did not judge the child's variables"
# --pid with --env
"$rdnactl" status --pid "$child" --env /dev/null > /dev/null 2> "$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q "give one environment to audit, not both" "$tmp/err" || bad "--pid with --env: exit $rc, $(cat "$tmp/err")"
# not a pid
"$rdnactl" status --pid abc > /dev/null 2> "$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q "not a process id" "$tmp/err" || bad "--pid abc: exit $rc, $(cat "$tmp/err")"
# a process that has exited
true &
gone=$!
wait "$gone"
while [ -e "/proc/$gone" ]; do sleep 0.05; done
for verb in status env; do
	"$rdnactl" $verb --pid "$gone" > /dev/null 2> "$tmp/err"
	rc=$?
	[ $rc = 2 ] && grep -q "process $gone does not exist" "$tmp/err" || bad "$verb --pid <exited>: exit $rc, $(cat "$tmp/err")"
done
# another user's process
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$rdnactl" status --pid "$child" > /dev/null 2> "$tmp/err"
	rc=$?
	[ $rc = 2 ] && grep -q "cannot read the environment of $child (owned by user root): run as that user or root" "$tmp/err" ||
		bad "unreadable --pid: exit $rc, $(cat "$tmp/err")"
else
	echo "note: not root or no setpriv: the permission case is not run"
fi
# under --root: DIR/proc/PID/environ
cp -a "$here/../fixtures/rx6750xt-raphael" "$tmp/fx"
mkdir -p "$tmp/fx/root/proc/4242"
printf 'HSA_OVERRIDE_GFX_VERSION=10.3.1\0HOME=/home/alice\0' > "$tmp/fx/root/proc/4242/environ"
"$rdnactl" status --root "$tmp/fx/root" --user alice --pid 4242 --json > "$tmp/r.json" 2> "$tmp/err"
"$py" -c 'import json,sys; e=json.load(open(sys.argv[1]))["environment"]; sys.exit(not (e["source"]=="pid 4242" and e["variables"].get("HSA_OVERRIDE_GFX_VERSION")=="10.3.1"))' "$tmp/r.json" ||
	bad "--root DIR --pid 4242 did not read DIR/proc/4242/environ: $(cat "$tmp/err")"
"$rdnactl" status --root "$tmp/fx/root" --pid 4243 > /dev/null 2> "$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q "process 4243 does not exist below $tmp/fx/root" "$tmp/err" || bad "--root --pid <absent>: exit $rc, $(cat "$tmp/err")"
[ $fail = 0 ] && echo "status/env --pid: ok"
exit $fail
