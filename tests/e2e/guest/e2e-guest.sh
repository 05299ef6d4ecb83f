#!/bin/bash
# rdnafix end-to-end test, guest side: run by rdnafix-e2e.service (a oneshot
# unit of the booted Debian image) once the system is up.  Reads the phase
# from /etc/rdnafix-e2e/phase (written by tests/e2e/run.sh on the host, or by
# the previous boot of this script), checks what this phase must show, and
# prints on ttyS1 (the result channel, read by tests/e2e/check-e2e.py):
#   E2E START <phase> <uptime>          first line (the host's retry rule keys on it)
#   E2E PASS|FAIL <name> <detail>       assertions made here
#   E2E-BEGIN <tag> / E2E-END <tag> rc=<n>   raw output the host judges
#                                       (status-json, fix, dmesg)
#   E2E DONE <phase> <uptime>           last line
# then powers the machine off (cleanly, so the host can read the disk back).
set -uo pipefail

conf=/etc/rdnafix-e2e
chan=/dev/ttyS1
phase=$(cat "$conf/phase" 2>/dev/null || echo none)
kver=$(uname -r)
rdnactl=/usr/local/bin/rdnactl
# the upgrade phase installs the project from its .debs (/usr/bin)
[[ $phase == upgrade-* ]] && rdnactl=/usr/bin/rdnactl

emit() { echo "$*" >"$chan"; }
up() { cut -d' ' -f1 /proc/uptime; }
pass() { emit "E2E PASS $*"; }
fail() { emit "E2E FAIL $*"; }
# check NAME DETAIL-IF-TRUE DETAIL-IF-FALSE -- test...
check() {
	local name=$1 ok=$2 ko=$3
	shift 4
	if "$@"; then pass "$name $ok"; else fail "$name $ko"; fi
}
# block TAG CMD...: the output of CMD between markers, with its exit code
block() {
	local tag=$1 rc
	shift
	emit "E2E-BEGIN $tag"
	"$@" >"$chan" 2>&1
	rc=$?
	emit "E2E-END $tag rc=$rc"
	return $rc
}

emit "E2E START $phase $(up)"
echo "E2E START $phase $(up) (results on ttyS1)"

# first line number (in `dmesg` order) matching an extended regex; empty if none
kline() { dmesg | grep -n -m1 -E "$1" | cut -d: -f1; }

# rdnafix loaded from the initramfs, before amdgpu
assert_loaded_early() {
	local rf amd sd state
	rf=$(kline 'rdnafix: version [^ ]+ loaded')
	# amdgpu's own first message: "[drm] amdgpu kernel modesetting enabled." (6.1)
	# or KFD's "amdgpu: Virtual CRAT table created for CPU" (6.12, no GPU needed)
	amd=$(kline '^\[ *[0-9.]+\] (\[drm\] )?amdgpu[ :]')
	sd=$(kline 'systemd\[1\]: ')
	state=$(dmesg | grep -m1 -oE 'rdnafix: version [^ ]+ loaded, amdgpu [a-z]+' | awk '{print $NF}')
	check rdnafix_loaded "/sys/module/rdnafix present" "/sys/module/rdnafix missing" -- test -d /sys/module/rdnafix
	check amdgpu_loaded "/sys/module/amdgpu present" "/sys/module/amdgpu missing" -- test -d /sys/module/amdgpu
	if [[ -z $rf ]]; then
		fail "rdnafix_before_amdgpu no 'rdnafix: version ... loaded' line in the kernel log"
	elif [[ $state != absent ]]; then
		fail "rdnafix_before_amdgpu rdnafix's load line says amdgpu '$state' (absent expected: amdgpu was there first)"
	elif [[ -z $amd ]]; then
		fail "rdnafix_before_amdgpu no line of amdgpu's in the kernel log"
	elif [[ $amd -lt $rf ]]; then
		fail "rdnafix_before_amdgpu amdgpu's first line (kernel log line $amd) precedes rdnafix's (line $rf)"
	else
		pass "rdnafix_before_amdgpu rdnafix loaded (log line $rf) while amdgpu was absent;" \
			"amdgpu's first line at $amd; amdgpu now $(cat /sys/kernel/rdnafix/amdgpu 2>/dev/null)"
	fi
	if [[ -z $sd ]]; then
		fail "rdnafix_from_initramfs no 'systemd[1]:' line in the kernel log to place switch_root"
	elif [[ -n $rf && -n $amd && $rf -lt $sd && $amd -lt $sd ]]; then
		pass "rdnafix_from_initramfs rdnafix (line $rf) and amdgpu (line $amd) before systemd's first line ($sd), i.e. before switch_root"
	else
		fail "rdnafix_from_initramfs rdnafix line '${rf:-none}', amdgpu line '${amd:-none}', first systemd[1] line $sd"
	fi
}

# /sys/module/rdnafix/parameters/<k> equals v for each k=v of $1
assert_params() {
	local kv k v got bad=
	for kv in $1; do
		k=${kv%%=*} v=${kv#*=}
		got=$(cat "/sys/module/rdnafix/parameters/$k" 2>/dev/null || echo '<unreadable>')
		[[ $got == "$v" ]] || bad="$bad $k=[$got]!=[$v]"
	done
	if [[ -z $bad ]]; then pass "rdnafix_params $1"; else fail "rdnafix_params$bad"; fi
}

assert_not_loaded() {
	check rdnafix_not_loaded "no /sys/module/rdnafix" "rdnafix is loaded ($(cat /sys/module/rdnafix/version 2>/dev/null))" \
		-- test ! -d /sys/module/rdnafix
	# amdgpu is there (from the initramfs): rdnafix had its chance to load first
	check amdgpu_loaded "/sys/module/amdgpu present" "/sys/module/amdgpu missing" -- test -d /sys/module/amdgpu
}

status_json() { block "status-json${1:+-$1}" "$rdnactl" status --json; }

# --- the upgrade phase (installed from the .debs, validation service) -------

# the rdnactl and rdnafix-dkms packages are installed, /usr/bin/rdnactl is rdnactl's
assert_packages() {
	local st owner
	st=$(dpkg-query -W -f '${Package} ${Version} ${db:Status-Abbrev};' rdnactl rdnafix-dkms 2>&1)
	owner=$(dpkg -S /usr/bin/rdnactl 2>&1)
	if [[ $st == *"rdnactl "*"ii ;"* && $st == *"rdnafix-dkms "*"ii ;"* && $owner == "rdnactl: /usr/bin/rdnactl" ]]; then
		pass "packages_installed $st $owner"
	else
		fail "packages_installed dpkg-query: $st; dpkg -S: $owner"
	fi
}

# wait (at most 240 s) until rdnafix-validate.service has run in this boot and
# is no longer activating; its journal, unit state and exit status as blocks
wait_validate() {
	local i state res
	for ((i = 0; i < 240; i++)); do
		state=$(systemctl show -P ActiveState rdnafix-validate.service 2>/dev/null)
		res=$(systemctl show -P ExecMainExitTimestampMonotonic rdnafix-validate.service 2>/dev/null)
		[[ $state != activating && $state != reloading && ${res:-0} != 0 ]] && break
		sleep 1
	done
	emit "E2E-INFO validate-wait ${i}s state=$state"
	block validate-show systemctl show -p ActiveState,Result,ExecMainStatus,User,ConditionResult,ExecMainExitTimestampMonotonic \
		rdnafix-validate.service
	block validate-journal journalctl -b -u rdnafix-validate.service --no-pager -o cat
}

# the unit's verdict line (rdnactl validate --brief): in this boot's journal,
# from the unit; EXPECT is an extended regex, LITERAL (optional) a text the
# line must also hold.  The run was the configured user's: the unit's User=
# and the owner of the history database it wrote (journald records the
# stdout stream of any unit with _UID=0, so the journal cannot tell).
assert_validate_line() {
	local expect=$1 literal=${2:-} line user db owner
	line=$(journalctl -b -u rdnafix-validate.service --no-pager -o cat | grep -E '^rdnafix validate: ' | tail -1)
	if [[ -z $line ]]; then
		fail "validate_journal no 'rdnafix validate: ' line from rdnafix-validate.service in this boot's journal"
	elif [[ $line =~ $expect && $line == *"$literal"* ]]; then
		pass "validate_journal $line"
	else
		fail "validate_journal '$line' does not match /$expect/${literal:+ and hold '$literal'}"
	fi
	user=$(systemctl show -P User rdnafix-validate.service)
	db=$(history_db)
	owner=$(stat -c %U "$db" 2>/dev/null)
	check validate_user "User=$user; $db owned by $owner" "User='$user', $db owned by '${owner:-nobody: missing}' (gpuuser expected)" \
		-- test "$user" = gpuuser -a "$owner" = gpuuser
}

# the history database the unit's ExecStart names (--history-db)
history_db() {
	local db
	db=$(systemctl show -P ExecStart rdnafix-validate.service | grep -oE -- '--history-db [^ ;]+' | cut -d' ' -f2)
	echo "${db:-/var/lib/rdnafix/history.db}"
}

# history and status as blocks the host judges; the history database is the
# one the unit's ExecStart names (--history-db)
history_blocks() {
	local db
	db=$(history_db)
	emit "E2E-INFO history-db $db (from the unit's ExecStart)"
	block history-json "$rdnactl" history --history-db "$db" --json
	block history-text "$rdnactl" history --history-db "$db"
	block status-text "$rdnactl" status
	status_json
}

case $phase in
config)
	assert_loaded_early
	assert_params "$(cat "$conf/params")"
	status_json
	;;
undo)
	assert_not_loaded
	check modprobe_conf_gone "/etc/modprobe.d/rdnafix.conf absent" "/etc/modprobe.d/rdnafix.conf still there" \
		-- test ! -e /etc/modprobe.d/rdnafix.conf
	status_json
	;;
stale)
	assert_not_loaded
	check modprobe_conf_present "/etc/modprobe.d/rdnafix.conf present" "/etc/modprobe.d/rdnafix.conf missing" \
		-- test -f /etc/modprobe.d/rdnafix.conf
	status_json
	;;
cmdline-fix)
	# booted with GRUB's command line, which holds amdgpu.noretry=0
	check cmdline_has_noretry0 "$(cat /proc/cmdline)" "no amdgpu.noretry=0 in $(cat /proc/cmdline)" \
		-- grep -qw 'amdgpu.noretry=0' /proc/cmdline
	status_json before
	block fix "$rdnactl" fix
	check grub_cfg_written "/boot/grub/grub.cfg has amdgpu.noretry=1" "/boot/grub/grub.cfg lacks amdgpu.noretry=1" \
		-- grep -q 'amdgpu.noretry=1' /boot/grub/grub.cfg
	# the next boot (the host boots GRUB's first entry) checks the result
	echo cmdline-grub >"$conf/phase"
	;;
cmdline-grub)
	check cmdline_noretry1 "/proc/cmdline has amdgpu.noretry=1 and not =0" "/proc/cmdline: $(cat /proc/cmdline)" \
		-- bash -c 'grep -qw amdgpu.noretry=1 /proc/cmdline && ! grep -qw amdgpu.noretry=0 /proc/cmdline'
	got=$(cat /sys/module/amdgpu/parameters/noretry 2>/dev/null || echo '<unreadable>')
	check amdgpu_param_noretry "/sys/module/amdgpu/parameters/noretry=$got" \
		"/sys/module/amdgpu/parameters/noretry=$got (1 expected)" -- test "$got" = 1
	status_json after
	;;
upgrade-6.1 | upgrade-6.12)
	assert_packages
	check kernel_booted "uname -r $kver" "uname -r $kver, $(cat "$conf/kver") expected" -- test "$kver" = "$(cat "$conf/kver")"
	assert_loaded_early
	assert_params "$(cat "$conf/params")"
	wait_validate
	if [[ $phase == upgrade-6.1 ]]; then
		assert_validate_line "(first recorded stack|new stack).*: not run: no GPU runtime; recorded as run 1\$"
	else
		assert_validate_line "new stack \(.*\).*not run: no GPU runtime; recorded as run 2\$" \
			"kernel $(cat "$conf/kver-old") → $kver"
	fi
	history_blocks
	if [[ $phase == upgrade-6.12 ]]; then
		# the DKMS build for the running (newest) kernel removed by hand:
		# the kernel hook and status must both say so
		ver=$(cat "$conf/modver")
		block dkms-remove dkms remove "rdnafix/$ver" -k "$kver"
		ko=$(find "/lib/modules/$kver/updates" -name 'rdnafix.ko*' 2>/dev/null | head -1)
		check dkms_removed "no rdnafix.ko below /lib/modules/$kver/updates" "still there: $ko" -- test -z "$ko"
		block hook-after-remove /etc/kernel/postinst.d/zz-rdnafix "$kver" "/boot/vmlinuz-$kver"
		# the verdict line the hook discards (it shows only its banner)
		block kernel-check-removed "$rdnactl" kernel-check -- "$kver"
		block status-text-removed "$rdnactl" status
		status_json removed
	fi
	;;
*)
	fail "phase unknown phase '$phase' in $conf/phase"
	;;
esac

block dmesg dmesg
emit "E2E DONE $phase $(up) kernel $kver"
sync
systemctl --no-block poweroff
