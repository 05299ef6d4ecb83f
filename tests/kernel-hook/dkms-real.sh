#!/usr/bin/env bash
# The kernel hook against what the host's real dkms writes: rdnafix added to a
# DKMS tree inside a temporary root (dkms --dkmstree/--sourcetree, so
# /var/lib/dkms and /usr/src are never touched) and built for a kernel whose
# headers are installed, with a compile error injected into a copy of kmod/:
# dkms leaves its make.log in <dkmstree>/rdnafix/<ver>/build/.  The hook
# (run by the real run-parts) must show that log's compiler error and the
# signing key dkms generated (mok_signing_key/mok_certificate pointed into the
# root), and still exit 0.
# With RDNAFIX_DKMS_FULL=1 also a real successful build and `dkms install
# --installtree <root>/lib/modules --no-depmod` (minutes): the hook is quiet and
# `rdnactl kernel-check` reports the version and the DKMS signature.
#   tests/kernel-hook/dkms-real.sh RDNACTL HOOK   (exit 0 pass, 1 fail, 77 skipped: not root, no dkms, no headers)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/verdicts.sh"
rdnactl=$(realpath "${1:?usage: dkms-real.sh RDNACTL HOOK}")
hook=${2:?usage: dkms-real.sh RDNACTL HOOK}
skip() { echo "kernel-hook-dkms: skipped: $*"; exit 77; }
[[ $(id -u) == 0 ]] || skip "not root (dkms refuses to build otherwise)"
command -v dkms >/dev/null || skip "dkms missing (make deps-module)"
command -v run-parts >/dev/null || skip "run-parts missing"
k=""
for b in /lib/modules/*/build; do
	[[ -f $b/Makefile && -f $b/.config ]] && { k=$(basename "$(dirname "$b")"); break; }
done
[[ -n $k ]] || skip "no kernel headers installed (/lib/modules/*/build)"
ver=$(cat "$top/kmod/VERSION")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root
dk=$root/var/lib/dkms src=$root/usr/src/rdnafix-$ver
mkdir -p "$dk" "$src" "$root/proc/sys/kernel" "$root/etc" "$root/usr/lib/modprobe.d" "$root/boot" "$root/lib/modules/$k/build"
echo "$k" >"$root/proc/sys/kernel/osrelease"
printf 'ID=debian\nVERSION_ID="12"\n' >"$root/etc/os-release"
echo "softdep amdgpu pre: rdnafix" >"$root/usr/lib/modprobe.d/rdnafix.conf"
echo image >"$root/boot/vmlinuz-$k"
: >"$root/lib/modules/$k/modules.dep"
: >"$root/lib/modules/$k/build/Makefile"
# The files `make dkms-install` installs, plus kmod/scripts (the conftest the Makefile runs).
install -m 0644 "$top"/kmod/Kbuild "$top"/kmod/Makefile "$top"/kmod/VERSION "$top"/kmod/*.c "$top"/kmod/*.h "$src/"
cp -r "$top/kmod/scripts" "$src/"
sed "s/#VERSION#/$ver/" "$top/dkms.conf" >"$src/dkms.conf"
cp "$src/rdnafix_hooks.c" "$tmp/rdnafix_hooks.c.orig"
echo '#error rdnafix test: injected build failure' >>"$src/rdnafix_hooks.c"
export mok_signing_key=$dk/mok.key mok_certificate=$dk/mok.pub
dk_args=(-m rdnafix -v "$ver" --dkmstree "$dk" --sourcetree "$root/usr/src")
dkms add "${dk_args[@]}" >"$tmp/add.log" 2>&1 && pass "dkms add into $dk" || fail "dkms add: $(tail -3 "$tmp/add.log")"
nice dkms build "${dk_args[@]}" -k "$k" >"$tmp/build.log" 2>&1
rc=$?
[[ $rc != 0 ]] && pass "dkms build fails on the injected error (exit $rc)" || fail "dkms build succeeded despite the injected error"
log=$dk/rdnafix/$ver/build/make.log
[[ -f $log ]] && head -1 "$log" | grep -qx "DKMS make.log for rdnafix-$ver for kernel $k ($(uname -m))" &&
	pass "dkms left build/make.log with its header line" || fail "no make.log as expected: $(ls -R "$dk" | head -20)"

hooks=$tmp/postinst.d
mkdir -p "$hooks"
cp "$hook" "$hooks/zz-rdnafix" && chmod +x "$hooks/zz-rdnafix"
RDNAFIX_RDNACTL=$rdnactl RDNAFIX_HOOK_ROOT=$root run-parts --report --exit-on-error --arg="$k" "$hooks" >"$tmp/hook.out" 2>"$tmp/hook.err"
rc=$?
[[ $rc == 0 && ! -s $tmp/hook.out ]] && pass "hook: exit 0, nothing on stdout" || fail "hook: rc $rc, stdout $(cat "$tmp/hook.out")"
sed 's/^/  hook stderr: /' "$tmp/hook.err"
for want in "rdnafix is configured but NOT BUILT for kernel $k" \
	"DKMS's build of rdnafix $ver failed (/var/lib/dkms/rdnafix/$ver/build/make.log)" \
	"error: #error rdnafix test: injected build failure" \
	"signing: DKMS signs with /var/lib/dkms/mok.pub" \
	"fix: dkms autoinstall -k $k"; do
	grep -qF -- "$want" "$tmp/hook.err" && pass "hook banner: '$want'" || fail "hook banner lacks '$want': $(cat "$tmp/hook.err")"
done

if [[ ${RDNAFIX_DKMS_FULL:-0} == 1 ]]; then
	cp "$tmp/rdnafix_hooks.c.orig" "$src/rdnafix_hooks.c"
	rm -rf "$dk/rdnafix/$ver/build"
	nice dkms build "${dk_args[@]}" -k "$k" >"$tmp/build2.log" 2>&1 && pass "dkms build (full)" || fail "dkms build: $(tail -5 "$tmp/build2.log")"
	nice dkms install "${dk_args[@]}" -k "$k" --installtree "$root/lib/modules" --no-depmod >"$tmp/install.log" 2>&1 &&
		pass "dkms install into $root/lib/modules" || fail "dkms install: $(tail -5 "$tmp/install.log")"
	RDNAFIX_RDNACTL=$rdnactl RDNAFIX_HOOK_ROOT=$root run-parts --report --exit-on-error --arg="$k" "$hooks" >"$tmp/hook2.out" 2>&1
	[[ $? == 0 && ! -s $tmp/hook2.out ]] && pass "hook after a real build: quiet" || fail "hook after a real build: $(cat "$tmp/hook2.out")"
	"$rdnactl" kernel-check --json --root "$root" "$k" >"$tmp/kc.json"
	python3 - "$tmp/kc.json" "$ver" "$k" <<'PY' && pass "kernel-check --json: built, version, DKMS record" || fail "kernel-check --json: $(cat "$tmp/kc.json")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["verdict"] == "built", j["verdict"]
assert j["module"]["version"] == sys.argv[2] and j["module"]["built_for"] == sys.argv[3], j["module"]
assert any(d["module"] and d["installed"] for d in j["dkms"]), j["dkms"]
print("module", j["module"]["path"], j["module"]["signature"], j["module"]["signer"])
PY
fi
echo "kernel-hook-dkms ($k): $npass passed, $nfail failed"
[[ $nfail == 0 ]]
