#!/usr/bin/env bash
# rdnactl report replaces user names, host names, home paths and serial
# numbers: a copy of a fixture given a user "zoltan" (home /srv/people/zoltan,
# full name in etc/passwd), a host name "zoltans-rig", a GPU unique_id serial
# and an environment naming all of them; no file of the archive (paths,
# contents, symlink targets) may contain any of them, while with
# --no-anonymize they are all there.  Also: the output contract (refuses an
# existing file without --force, a missing directory, an unwritable one;
# the MANIFEST lists every file).
# usage: anonymize.sh RDNACTL
set -euo pipefail
rdnactl=$(realpath "${1:?usage: anonymize.sh RDNACTL}")
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
export RDNAFIX_KNOWLEDGE_DIRS=
fail=0
bad() { echo "FAIL: $*"; fail=1; }

fx=$tmp/fx
cp -a "$here/../fixtures/rx6750xt-raphael" "$fx"
r=$fx/root
echo 'zoltan:x:1042:1042:Zoltan Kovacs,,,:/srv/people/zoltan:/bin/bash' >> "$r/etc/passwd"
echo 'zoltan:x:1042:' >> "$r/etc/group"
sed -i 's/^\(render:.*\)$/\1,zoltan/; s/^\(render:x:[0-9]*:\),/\1/' "$r/etc/group"
mkdir -p "$r/proc/sys/kernel" "$r/etc"
echo zoltans-rig > "$r/proc/sys/kernel/hostname"
echo zoltans-rig > "$r/etc/hostname"
dev=$(find "$r/sys/devices" -name vendor -path '*0000:03:00.0/vendor' | head -1)
echo 5f3c21a9d4e8b7c6 > "$(dirname "$dev")/unique_id"
mkdir -p "$r/var/log"
cat > "$r/var/log/rdnafix-dmesg" <<'LOG'
Nov 28 10:00:01 zoltans-rig kernel: amdgpu 0000:03:00.0: amdgpu: SMU is initialized successfully!
Nov 28 10:00:01 zoltans-rig kernel: usb 1-1: new high-speed USB device number 2 using xhci_hcd
LOG
cat > "$fx/env" <<'ENV'
HSA_OVERRIDE_GFX_VERSION=10.3.0
HOME=/srv/people/zoltan
USER=zoltan
PATH=/srv/people/zoltan/venv/bin:/usr/bin:/bin
VIRTUAL_ENV=/srv/people/zoltan/venv
ENV

report() { # OUT [flags...]
	local out=$1
	shift
	"$rdnactl" report --root "$r" --env "$fx/env" --user zoltan --output "$out" "$@" > "$tmp/log" 2>&1
}
secrets='zoltan|Zoltan|Kovacs|zoltans-rig|5f3c21a9d4e8b7c6|/srv/people'

report "$tmp/a.tar.gz" || bad "report exited $?: $(cat "$tmp/log")"
grep -q "wrote $tmp/a.tar.gz" "$tmp/log" || bad "report does not say where it wrote: $(cat "$tmp/log")"
mkdir "$tmp/a" && tar -xzf "$tmp/a.tar.gz" -C "$tmp/a"
hits=$( (cd "$tmp/a" && find . -print; grep -rEl "$secrets" "$tmp/a" || true; find "$tmp/a" -type l -exec readlink {} \;) |
	grep -E "$secrets" || true)
[ -z "$hits" ] || bad "personal values survived anonymization: $hits"
m=$tmp/a/rdnafix-report/MANIFEST
# the fixture's own alice (uid 1000) is user1, zoltan (uid 1042) user2
grep -q 'user names: 2 replaced by user1, user2 ' "$m" || bad "MANIFEST does not list the users: $(grep -A5 Anonymized "$m")"
grep -q 'host names: 1 replaced by host1 (1 occurrences)' "$m" || bad "MANIFEST does not list the host"
grep -q 'serial numbers: 1 replaced by serial1 (1 occurrences)' "$m" || bad "MANIFEST does not list the serial"
grep -q 'home directories: 2 replaced by /home/user1, /home/user2 ' "$m" || bad "MANIFEST does not list the homes"
grep -q '^user2:x:1042:1042::/home/user2:/bin/bash$' "$tmp/a/rdnafix-report/root/etc/passwd" ||
	bad "etc/passwd's user line is not the pseudonym's"
grep -q 'VIRTUAL_ENV=/home/user2/venv' "$tmp/a/rdnafix-report/env" || bad "env lacks the home's pseudonym"
grep -q 'host1 kernel: amdgpu 0000:03:00.0' "$tmp/a/rdnafix-report/root/var/log/rdnafix-dmesg" ||
	bad "the kernel log's amdgpu line is missing or not anonymized"
grep -q 'usb 1-1' "$tmp/a/rdnafix-report/root/var/log/rdnafix-dmesg" && bad "the kernel log kept a line that is not amdgpu's"
[ "$(cat "$tmp/a/rdnafix-report/root/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:00.0/0000:03:00.0/unique_id" 2>/dev/null)" = serial1 ] ||
	[ "$(find "$tmp/a" -name unique_id -exec cat {} \;)" = serial1 ] || bad "unique_id is not serial1"
# every file of the archive is in the MANIFEST's list
(cd "$tmp/a/rdnafix-report" && find . -mindepth 1 \( -type f -o -type l \) ! -name MANIFEST | sed 's|^\./||') |
	while read -r f; do
		grep -qF "  $f " "$m" || { echo "FAIL: MANIFEST does not list $f"; exit 1; }
	done || fail=1

report "$tmp/b.tar.gz" --no-anonymize || bad "report --no-anonymize exited $?"
mkdir "$tmp/b" && tar -xzf "$tmp/b.tar.gz" -C "$tmp/b"
for s in zoltan 'Zoltan Kovacs' zoltans-rig 5f3c21a9d4e8b7c6 /srv/people/zoltan; do
	grep -rqF "$s" "$tmp/b" || bad "--no-anonymize lost '$s'"
done

# the output contract
rc=0
report "$tmp/a.tar.gz" || rc=$?
[ $rc = 2 ] || bad "an existing output without --force: exit $rc, not 2"
grep -q 'exists; give another name, or --force' "$tmp/log" || bad "no clear error for an existing output: $(cat "$tmp/log")"
report "$tmp/a.tar.gz" --force || bad "--force did not replace the output: $(cat "$tmp/log")"
rc=0
report "$tmp/nodir/x.tar.gz" || rc=$?
[ $rc = 2 ] && grep -q "directory $tmp/nodir does not exist" "$tmp/log" || bad "missing directory: exit $rc, $(cat "$tmp/log")"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	mkdir -m 755 "$tmp/ro"
	set +e
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$rdnactl" report --root "$r" --env "$fx/env" \
		--output "$tmp/ro/x.tar.gz" > "$tmp/log" 2>&1
	rc=$?
	set -e
	[ $rc = 3 ] && grep -q "cannot write: permission denied (EACCES)" "$tmp/log" ||
		bad "unwritable directory: exit $rc, $(cat "$tmp/log")"
	[ -z "$(ls -A "$tmp/ro")" ] || bad "an unwritable directory got a file: $(ls -A "$tmp/ro")"
fi
# killed before the rename: no file under the output's name (never half an archive)
if command -v strace >/dev/null; then
	mkdir "$tmp/k"
	(
		strace -f -o /dev/null -e trace=rename,renameat,renameat2 -e inject=rename,renameat,renameat2:signal=KILL \
			"$rdnactl" report --root "$r" --env "$fx/env" --output "$tmp/k/killed.tar.gz" > /dev/null 2>&1 || true
		true
	) 2>/dev/null
	[ ! -e "$tmp/k/killed.tar.gz" ] || bad "a report killed at its rename left $tmp/k/killed.tar.gz"
	# the kill came at the rename: the whole archive was in its temporary file
	ls -A "$tmp/k" | grep -q '^\.killed\.tar\.gz\.rdnactl-tmp-' || bad "strace did not stop the report at its rename: $(ls -A "$tmp/k")"
fi
[ $fail = 0 ] && echo "report anonymization and output: ok"
exit $fail
