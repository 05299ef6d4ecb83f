# shellcheck shell=sh
# (d) `rdnactl status --json` in the VM, with rdnafix's real state (left by
# the mock suite).  The JSON and a dump of /sys/kernel/rdnafix go to ttyS1;
# the host runner compares them (RESULT rdnactl_status_json).
if [ ! -x /usr/bin/rdnactl ]; then
	result rdnactl_status_json SKIP "no rdnactl in the initramfs (set RDNACTL=/path/to/rdnactl)"
	return 0
fi
if ! is_loaded rdnafix; then
	result rdnactl_status_json FAIL "rdnafix is not loaded (mock suite failed?)"
	return 0
fi
out=/tmp/rdnactl.json
rdnactl status --json >$out 2>/tmp/rdnactl.err
rc=$?
{
	echo "RDNACTL-RC $rc"
	echo "RDNACTL-JSON-BEGIN"
	cat $out
	echo "RDNACTL-JSON-END"
	find $RF -type f | sort | while read -r f; do
		echo "SYSFS ${f#$RF/} $(cat "$f")"
	done
	echo "SYSFS-END"
} >/dev/ttyS1
echo "VM: rdnactl rc=$rc, $(wc -c <$out) bytes of JSON"
sed "s/^/RDNACTL-STDERR /" /tmp/rdnactl.err | head -20 >/dev/ttyS1
echo "RESULT-HOST rdnactl_status_json" >/dev/ttyS1
