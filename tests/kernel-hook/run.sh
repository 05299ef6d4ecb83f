#!/usr/bin/env bash
# The kernel postinst hook (userspace/kernel/postinst.d/zz-rdnafix, as CMake
# configured it) run the way Debian's kernel packages run it: by the real
# run-parts, after a stand-in for DKMS's own hook, against fixture roots laid
# out as Debian 12 with DKMS 3.0.10 (a real rdnafix module from
# tests/unit/core/data/modsig, built from kmod/ for 6.1.0-56-amd64).
#   tests/kernel-hook/run.sh RDNACTL HOOK     (exit 0 pass, 1 fail, 2 could not run)
# Asserts: run-parts' order (dkms, initramfs-tools, zz-rdnafix) and name rule
# (no dots); built -> quiet; missing -> the banner with the make.log tail;
# not configured -> quiet; rdnactl missing or failing -> quiet; every run
# exits 0 and writes nothing to stdout (debconf's).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/verdicts.sh"
rdnactl=${1:?usage: run.sh RDNACTL HOOK}
hook=${2:?usage: run.sh RDNACTL HOOK}
command -v run-parts >/dev/null || { echo "kernel-hook: run-parts missing (debianutils)"; exit 2; }
[[ -x $rdnactl && -f $hook ]] || { echo "kernel-hook: $rdnactl or $hook missing"; exit 2; }
rdnactl=$(realpath "$rdnactl")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ko=$top/tests/unit/core/data/modsig/rdnafix-0.1.0-6.1.0-56-amd64.ko
ko_new=$top/tests/unit/core/data/modsig/rdnafix-0.1.0-6.12.117+deb12-amd64.ko.xz
built=6.1.0-56-amd64 new=6.12.117+deb12-amd64

# The hook directory: a stand-in DKMS hook that records it ran and, when
# $FAKE_DKMS_BUILDS is set, installs the module as dkms would; a no-op
# initramfs-tools; the hook under test.
hooks=$tmp/postinst.d
mkdir -p "$hooks"
cat >"$hooks/dkms" <<'SH'
#!/bin/sh
echo "dkms $1" >>"$RDNAFIX_HOOK_ROOT/../order"
if [ -n "${FAKE_DKMS_BUILDS:-}" ]; then
	mkdir -p "$RDNAFIX_HOOK_ROOT/lib/modules/$1/updates/dkms"
	cp "$FAKE_DKMS_BUILDS" "$RDNAFIX_HOOK_ROOT/lib/modules/$1/updates/dkms/rdnafix.ko.xz"
	rm -f "$RDNAFIX_HOOK_ROOT/var/lib/dkms/rdnafix/0.1.0/build/make.log"
fi
SH
printf '#!/bin/sh\necho "initramfs-tools $1" >>"$RDNAFIX_HOOK_ROOT/../order"\n' >"$hooks/initramfs-tools"
cp "$hook" "$hooks/zz-rdnafix"
chmod +x "$hooks"/*

# make_root DIR CONFIGURED: Debian 12 with rdnafix built by DKMS for $built
# and a failed DKMS build for $new (make.log left in build/, as dkms leaves it).
make_root() {
	local r=$1 configured=$2 k
	mkdir -p "$r/proc/sys/kernel" "$r/etc" "$r/usr/lib/modprobe.d"
	echo "$built" >"$r/proc/sys/kernel/osrelease"
	printf 'ID=debian\nVERSION_ID="12"\n' >"$r/etc/os-release"
	[[ $configured == yes ]] && echo "softdep amdgpu pre: rdnafix" >"$r/usr/lib/modprobe.d/rdnafix.conf"
	for k in "$built" "$new"; do
		mkdir -p "$r/boot" "$r/lib/modules/$k/build"
		echo image >"$r/boot/vmlinuz-$k"
		: >"$r/lib/modules/$k/modules.dep"
		: >"$r/lib/modules/$k/build/Makefile"
	done
	local d=$r/var/lib/dkms/rdnafix/0.1.0
	mkdir -p "$d/$built/x86_64/module" "$d/$built/x86_64/log" "$d/build" "$r/lib/modules/$built/updates/dkms"
	cp "$ko" "$d/$built/x86_64/module/rdnafix.ko"
	cp "$ko" "$r/lib/modules/$built/updates/dkms/rdnafix.ko"
	ln -s "0.1.0/$built/x86_64" "$r/var/lib/dkms/rdnafix/kernel-$built-x86_64"
	{
		echo "DKMS make.log for rdnafix-0.1.0 for kernel $new (x86_64)"
		echo "Tue Nov 24 10:00:00 UTC 2026"
		for i in $(seq 1 30); do echo "  CC [M]  /var/lib/dkms/rdnafix/0.1.0/build/step$i.o"; done
		echo "rdnafix_hooks.c:41:10: fatal error: linux/kprobes.h: No such file or directory"
		echo "make[2]: *** [scripts/Makefile.build:250: rdnafix_hooks.o] Error 1"
	} >"$d/build/make.log"
}

# run_hooks NAME RELEASE [VAR=VALUE...]: run-parts as linux-image's postinst
# runs it; out/err/rc kept in $tmp/NAME.{out,err,rc}.
run_hooks() {
	local name=$1 rel=$2
	shift 2
	env RDNAFIX_RDNACTL="$rdnactl" "$@" \
		run-parts --report --exit-on-error --arg="$rel" --arg="/boot/vmlinuz-$rel" "$hooks" \
		>"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
}
expect_quiet() { # NAME
	local name=$1
	if [[ $(cat "$tmp/$name.rc") == 0 && ! -s $tmp/$name.out && ! -s $tmp/$name.err ]]; then
		pass "$name: exit 0, nothing printed"
	else
		fail "$name: rc $(cat "$tmp/$name.rc"), stdout '$(head -c 300 "$tmp/$name.out")', stderr '$(head -c 600 "$tmp/$name.err")'"
	fi
}
expect_in_err() { # NAME TEXT
	if grep -qF -- "$2" "$tmp/$1.err"; then pass "$1: stderr has '$2'"; else fail "$1: stderr lacks '$2': $(head -c 800 "$tmp/$1.err")"; fi
}

# run-parts' order and name rule, with the real run-parts.
order=$(run-parts --test --arg=x "$hooks" | xargs -n1 basename | tr '\n' ' ')
[[ $order == "dkms initramfs-tools zz-rdnafix " ]] && pass "run-parts order: $order" || fail "run-parts order: '$order'"
cp "$hook" "$hooks/zz-rdnafix.sh" && chmod +x "$hooks/zz-rdnafix.sh"
run-parts --test "$hooks" | grep -q 'zz-rdnafix\.sh$' && fail "run-parts runs a name with a dot (the rule changed?)" \
	|| pass "run-parts skips 'zz-rdnafix.sh': the hook's name must have no dot"
rm "$hooks/zz-rdnafix.sh"
grep -q '@' "$hook" && fail "the hook still has an unsubstituted @VARIABLE@" || pass "the hook names the installed rdnactl"
sh -n "$hook" && pass "sh -n: the hook is valid POSIX sh syntax" || fail "sh -n rejects the hook"

make_root "$tmp/conf/root" yes
make_root "$tmp/plain/root" no

# built -> quiet, after DKMS's hook ran
run_hooks built "$built" RDNAFIX_HOOK_ROOT="$tmp/conf/root"
expect_quiet built
[[ $(head -2 "$tmp/conf/order" | tr '\n' ' ') == "dkms $built initramfs-tools $built " ]] \
	&& pass "built: dkms and initramfs-tools ran first" || fail "built: order file: $(cat "$tmp/conf/order")"

# missing -> loud, with the make.log tail and the Secure Boot / signing state; still exit 0
run_hooks missing "$new" RDNAFIX_HOOK_ROOT="$tmp/conf/root"
[[ $(cat "$tmp/missing.rc") == 0 ]] && pass "missing: exit 0" || fail "missing: rc $(cat "$tmp/missing.rc")"
[[ ! -s $tmp/missing.out ]] && pass "missing: nothing on stdout" || fail "missing: stdout: $(cat "$tmp/missing.out")"
expect_in_err missing "rdnafix is configured but NOT BUILT for kernel $new"
expect_in_err missing "after a reboot into $new rdnafix will not load"
expect_in_err missing "last 20 lines of /var/lib/dkms/rdnafix/0.1.0/build/make.log:"
expect_in_err missing "  | make[2]: *** [scripts/Makefile.build:250: rdnafix_hooks.o] Error 1"
expect_in_err missing "Secure Boot: unknown"
expect_in_err missing "signing: no DKMS signing key"
expect_in_err missing "fix: dkms autoinstall -k $new"
n=$(grep -c '^rdnactl:   | ' "$tmp/missing.err")
[[ $n == 20 ]] && pass "missing: 20 log lines" || fail "missing: $n log lines"
grep -q 'step10\.o' "$tmp/missing.err" && fail "missing: more than the tail shown" || pass "missing: only the tail shown"

# DKMS builds it in its hook (sorted before ours) -> the check sees it: quiet
cp -a "$tmp/conf" "$tmp/dkmsok"
run_hooks dkms_builds "$new" RDNAFIX_HOOK_ROOT="$tmp/dkmsok/root" FAKE_DKMS_BUILDS="$ko_new"
expect_quiet dkms_builds
# ... but a module built for another kernel (the 6.1 one) is not rdnafix for this one: loud
cp -a "$tmp/conf" "$tmp/wrong"
run_hooks dkms_wrong "$new" RDNAFIX_HOOK_ROOT="$tmp/wrong/root" FAKE_DKMS_BUILDS="$ko"
expect_in_err dkms_wrong "was built for $built, not for $new"

# not configured -> quiet, whatever is built
run_hooks plain "$new" RDNAFIX_HOOK_ROOT="$tmp/plain/root"
expect_quiet plain

# rdnactl removed (the conffile left behind), or failing -> quiet, exit 0
run_hooks removed "$new" RDNAFIX_HOOK_ROOT="$tmp/conf/root" RDNAFIX_RDNACTL=/nonexistent/rdnactl
expect_quiet removed
run_hooks failing "$new" RDNAFIX_HOOK_ROOT="$tmp/conf/root" RDNAFIX_RDNACTL=/bin/false
expect_quiet failing

# hostile or absent arguments -> exit 0
run_hooks hostile "../../etc" RDNAFIX_HOOK_ROOT="$tmp/conf/root"
[[ $(cat "$tmp/hostile.rc") == 0 ]] && pass "hostile release: exit 0" || fail "hostile release: rc $(cat "$tmp/hostile.rc")"
env RDNAFIX_RDNACTL="$rdnactl" sh "$hooks/zz-rdnafix" >"$tmp/noarg.out" 2>&1
[[ $? == 0 && ! -s $tmp/noarg.out ]] && pass "no release argument: exit 0, quiet" || fail "no release argument: $(cat "$tmp/noarg.out")"
run_hooks dash "-h" RDNAFIX_HOOK_ROOT="$tmp/conf/root"
[[ $(cat "$tmp/dash.rc") == 0 ]] && ! grep -q "Usage\|OPTIONS" "$tmp/dash.err" \
	&& pass "a release starting with '-' is not taken as an option" || fail "release '-h': $(head -c 400 "$tmp/dash.err")"

echo "kernel-hook: $npass passed, $nfail failed"
[[ $nfail == 0 ]]
