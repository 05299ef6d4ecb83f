# Part 3 of tests/udev/run.sh, sourced by `run.sh --inner` inside a private
# mount namespace (run.sh starts it with unshare -m): nothing mounted here is
# seen outside.  WORK (run.sh's temporary directory) and RULES come from run.sh.
set -u
for d in /sys /run /dev /etc/udev; do
	mount -t tmpfs rdnafix-test "$d" || { fail "mount tmpfs on $d"; exit 1; }
done
for d in /usr/lib/udev/rules.d /lib/udev/rules.d /etc/systemd/hwdb; do
	[ -d "$d" ] && mount -t tmpfs rdnafix-test "$d"
done
mkdir -p /etc/udev/rules.d /sys/bus/pci/devices /sys/class/drm /run/udev

# fake_pci BDF VENDOR DEVICE CLASS REVISION: a PCI function, as the kernel
# shows it in sysfs (uevent, vendor/device/class/revision, modalias), with
# card<N> and renderD<128+N> below it.  Returns its syspath in $dev.
ncard=0
fake_pci() {
	dev=/sys/devices/pci0000:00/0000:00:01.0/$1
	mkdir -p "$dev"
	ln -s ../../../bus/pci "$dev/subsystem"
	local ma
	ma=$(modalias "${2^^}" "${3^^}" "${4:0:4}")
	printf 'PCI_CLASS=%s\nPCI_ID=%s:%s\nPCI_SLOT_NAME=%s\nMODALIAS=%s\n' "${4#0}" "${2^^}" "${3^^}" "$1" "$ma" >"$dev/uevent"
	echo "0x${2,,}" >"$dev/vendor"
	echo "0x${3,,}" >"$dev/device"
	echo "0x$4" >"$dev/class"
	echo "0x$5" >"$dev/revision"
	echo "$ma" >"$dev/modalias"
	ln -s "../../../devices/pci0000:00/0000:00:01.0/$1" "/sys/bus/pci/devices/$1"
	local n
	for n in "card$ncard" "renderD$((128 + ncard))"; do
		mkdir -p "$dev/drm/$n"
		ln -s ../../../../../../class/drm "$dev/drm/$n/subsystem"
		printf 'MAJOR=226\nMINOR=%s\nDEVNAME=dri/%s\nDEVTYPE=drm_minor\n' "${n#renderD}" "$n" | sed 's/MINOR=card/MINOR=/' >"$dev/drm/$n/uevent"
		ln -s "../../devices/pci0000:00/0000:00:01.0/$1/drm/$n" "/sys/class/drm/$n"
	done
	ncard=$((ncard + 1))
}

# utest SYSPATH: the ID_RDNAFIX_ properties udevadm test would store, one line;
# the whole log in $WORK/udevadm.log.  udev refuses a syspath outside a real sysfs unless
# SYSTEMD_DEVICE_VERIFY_SYSFS=0 (src/libsystemd/sd-device/sd-device.c).
utest() {
	SYSTEMD_DEVICE_VERIFY_SYSFS=0 udevadm test --action=add "$1" >"$WORK/udevadm.log" 2>&1
	grep '^ID_RDNAFIX_' "$WORK/udevadm.log" | sort | tr '\n' ' '
}
# rules_complaints: what udev's rules parser said about our file in the last utest.
rules_complaints() {
	grep -E '70-rdnafix.rules:[0-9]+ ' "$WORK/udevadm.log" |
		grep -vE " Importing properties from results of builtin command | Failed to run builtin 'hwdb .*': No data available$"
}
expect() { # syspath label expected
	local got
	got=$(utest "$1")
	if [ "$got" = "$3" ]; then pass "udev $2: ${got:-no properties}"; else fail "udev $2: got '$got', want '$3'"; fi
	local c
	c=$(rules_complaints)
	[ -z "$c" ] || fail "udev $2: the rules parser complains: $c"
}

rdna2="ID_RDNAFIX_APU=0 ID_RDNAFIX_GENERATION=rdna2 ID_RDNAFIX_GFX_TARGET=gfx1031 "
apu="ID_RDNAFIX_APU=1 ID_RDNAFIX_GENERATION=rdna2 ID_RDNAFIX_GFX_TARGET=gfx1033 "
cp "$RULES" /etc/udev/rules.d/70-rdnafix.rules
cp "$WORK/root/etc/udev/hwdb.bin" /etc/udev/hwdb.bin

fake_pci 0000:03:00.0 1002 73DF 030000 c1 # RX 6700 XT
p1=$dev
expect "$p1" "RDNA2 dGPU 1002:73df PCI function" "$rdna2"
# The DRM nodes take the keys from the parent's udev database (IMPORT{parent}),
# which the test run of the parent has just written under the namespace's /run.
expect "$p1/drm/card0" "its card0" "$rdna2"
expect "$p1/drm/renderD128" "its renderD128" "$rdna2"
fake_pci 0000:04:00.0 1002 163F 038000 ae # Van Gogh, display class 0x0380
expect "$dev" "APU 1002:163f (class 0x0380)" "$apu"
fake_pci 0000:05:00.0 1002 6798 030000 00 # Tahiti: AMD, not in the database
expect "$dev" "unlisted AMD GPU 1002:6798" ""
expect "$dev/drm/card2" "its card2" ""
fake_pci 0000:06:00.0 10DE 2684 030000 a1 # NVIDIA
expect "$dev" "NVIDIA GPU 10de:2684" ""
expect "$dev/drm/card3" "its card3" ""
fake_pci 0000:07:00.0 1002 73DF 040300 00 # AMD id of a GPU on an audio function
expect "$dev" "AMD non-display function (class 0x0403)" ""

# A revision-specific row (hwdb of run.sh's rev.tsv: 73DF rev C3 -> gfx1036,
# APU 1) overrides the any-revision row for that revision only.
cp "$WORK/rev/etc/udev/hwdb.bin" /etc/udev/hwdb.bin
fake_pci 0000:08:00.0 1002 73DF 030000 c3
expect "$dev" "revision-specific row 1002:73df rev c3" "ID_RDNAFIX_APU=1 ID_RDNAFIX_GENERATION=rdna2 ID_RDNAFIX_GFX_TARGET=gfx1036 "
expect "$p1" "same device, other revision c1" "$rdna2"

# rdnactl's live path (libudev) on this fake machine: the udev database the
# runs above wrote under /run/udev is what `rdnactl status` reads.
if [ -n "${RDNACTL:-}" ]; then
	SYSTEMD_DEVICE_VERIFY_SYSFS=0 "$RDNACTL" status --json --no-coverage >"$WORK/status.json" 2>"$WORK/status.err"
	"${PYTHON:-python3}" - "$WORK/status.json" <<'PY'
import json, sys
devs = {d["pci_bdf"]: d for d in json.load(open(sys.argv[1]))["devices"] if d.get("pci_bdf")}
def hw(bdf):
    return devs.get(bdf, {}).get("hwdb", "absent")
def verdict(ok, what):
    print(("PASS " if ok else "FAIL ") + what)
verdict(hw("0000:03:00.0") == {"gfx_target": "gfx1031", "generation": "rdna2", "apu": "0", "differs_from_builtin": []},
        f"rdnactl status --json: RDNA2 dGPU hwdb {hw('0000:03:00.0')}")
verdict(hw("0000:04:00.0") == {"gfx_target": "gfx1033", "generation": "rdna2", "apu": "1", "differs_from_builtin": []},
        f"rdnactl status --json: APU hwdb {hw('0000:04:00.0')}")
verdict(hw("0000:05:00.0") == "absent", f"rdnactl status --json: unlisted AMD GPU has no hwdb key ({hw('0000:05:00.0')})")
verdict(hw("0000:06:00.0") == "absent", f"rdnactl status --json: NVIDIA GPU has no hwdb key ({hw('0000:06:00.0')})")
diffs = hw("0000:08:00.0").get("differs_from_builtin") if isinstance(hw("0000:08:00.0"), dict) else None
verdict(diffs == [{"key": "gfx_target", "hwdb": "gfx1036", "builtin": "gfx1031"},
                  {"key": "apu", "hwdb": "1", "builtin": "0"}],
        f"rdnactl status --json: an hwdb that disagrees with rdnactl's database is named: {diffs}")
PY
	SYSTEMD_DEVICE_VERIFY_SYSFS=0 "$RDNACTL" status --no-coverage --verbose >"$WORK/status.txt" 2>&1
	if grep -q '^    udev hwdb       gfx1031 rdna2 apu 0$' "$WORK/status.txt" &&
		grep -q '^    hwdb differs    gfx_target: udev gfx1036, rdnactl gfx1031$' "$WORK/status.txt"; then
		pass "rdnactl status (text) shows the hwdb line and the difference"
	else
		fail "rdnactl status (text): $(grep -E 'hwdb' "$WORK/status.txt")"
	fi
fi

# The rules-parser check catches a broken rules file.
cp "$WORK/broken.rules" /etc/udev/rules.d/70-rdnafix.rules
utest "$p1" >/dev/null
c=$(rules_complaints)
if [ -n "$c" ]; then pass "a broken rules file is caught: $c"; else fail "a broken rules file went unnoticed"; fi
