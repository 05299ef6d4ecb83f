# shellcheck shell=sh
# Boot with lockdown=integrity (tests/kernel/run.sh, one series): the kernel
# refuses the unsigned rdnafix.ko cleanly (LOCKDOWN_MODULE_SIGNATURE, checked
# by module_sig_check when the module carries no valid signature), amdgpu
# and its dependencies (signed by Debian) still load, and
# `rdnactl status --json` reports the lockdown state and finding RDNA-CFG-005
# for an rdnafix.ko installed where DKMS puts it.
unload_all >/dev/null
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
expect_eq lockdown "$(rd /sys/kernel/security/lockdown)" "none [integrity] confidentiality"
report lockdown_state "$(rd /sys/kernel/security/lockdown)"

n0=$(dmesg | wc -l)
if insmod /mod/rdnafix.ko 2>/tmp/insmod.err; then
	FAILS="$FAILS insmod-rdnafix-succeeded"
	rmmod rdnafix
fi
is_loaded rdnafix && FAILS="$FAILS rdnafix-loaded"
[ -e /sys/module/rdnafix ] && FAILS="$FAILS /sys/module/rdnafix-left"
[ -e "$RF" ] && FAILS="$FAILS $RF-left"
grep -q 'Operation not permitted' /tmp/insmod.err || FAILS="$FAILS insmod-error=[$(cat /tmp/insmod.err)]"
msg=$(dmesg | tail -n +$((n0 + 1)) | grep -m1 'Lockdown: insmod: unsigned module loading is restricted')
[ -n "$msg" ] || FAILS="$FAILS no-lockdown-message-in-dmesg"
report lockdown_rdnafix_refused "insmod: $(tr -d '\n' </tmp/insmod.err); dmesg: ${msg#*] }"

if load_deps && insmod /mod/amdgpu.ko && is_loaded amdgpu; then
	t=$(rd /sys/module/amdgpu/taint)
	case $t in *E*) FAILS="$FAILS amdgpu-taint-E(unsigned)=[$t]" ;; esac
	rmmod amdgpu || FAILS="$FAILS rmmod-amdgpu"
else
	FAILS="$FAILS amdgpu-refused:$(dmesg | grep -m1 Lockdown)"
fi
report lockdown_amdgpu_loads "Debian-signed amdgpu and its dependencies load and unload"

if [ ! -x /usr/bin/rdnactl ]; then
	result lockdown_rdnactl_status SKIP "no rdnactl in the initramfs (set RDNACTL=/path/to/rdnactl)"
else
	# rdnafix.ko installed where DKMS puts it, as on a real machine
	rel=$(uname -r)
	mkdir -p "/lib/modules/$rel/updates/dkms"
	cp /mod/rdnafix.ko "/lib/modules/$rel/updates/dkms/rdnafix.ko"
	: >"/lib/modules/$rel/modules.dep"
	rdnactl status --json >/tmp/status.json 2>/tmp/status.err
	rc=$?
	[ "$rc" = 1 ] || FAILS="$FAILS rc=$rc(1-expected:an-error-finding)"
	grep -qE '"lockdown": ?"integrity"' /tmp/status.json || FAILS="$FAILS no-lockdown-integrity-in-json"
	grep -q '"RDNA-CFG-005"' /tmp/status.json || FAILS="$FAILS no-RDNA-CFG-005"
	grep -q "updates/dkms/rdnafix.ko" /tmp/status.json || FAILS="$FAILS module-path-not-named"
	[ -n "$FAILS" ] && head -c 2000 /tmp/status.json | sed 's/^/VM: status: /'
	report lockdown_rdnactl_status "rc=$rc, configuration.lockdown=integrity, RDNA-CFG-005 names the unsigned rdnafix.ko"
	rm -rf "/lib/modules/$rel"
fi
dmesg_check lockdown
