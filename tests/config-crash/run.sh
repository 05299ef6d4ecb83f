#!/bin/bash
# The kill matrix of `rdnactl config` (docs/config.md section 7): `config set`,
# `fix` and `config undo` are killed (SIGKILL, by strace's fault injection)
# just before their N-th call of each syscall that changes the disk or takes
# the lock, for N = 1, 2, ... until the command runs to its end; after every
# kill `config undo` is run as a user would (again while it is refused or
# interrupted, at most 4 times, until it succeeds with an empty journal) and the tree must equal the original byte for
# byte (content, mode, type of every entry below the root, the journal and lock
# under var/lib/rdnafix/config aside) with an empty journal.  A kill before any
# other syscall (read, fstat, close, ...) leaves the disk as it is before the
# next one listed here, so these rounds cover every state the disk can be in.
#
# Scenarios on copies of tests/fixtures/rx6750xt-raphael/root:
#   set-2files  config set noretry=1 validate.user=alice (no generator: the
#               modprobe.d file and the service drop-in, 4 new directories)
#   set-gen     the same with an initramfs-tools generator inside the root
#               (a static busybox as /bin/sh, an update-initramfs that copies
#               the modprobe.d file into /boot/initrd.img-*): 3 files and
#               `chroot ROOT update-initramfs`; strace -f follows the
#               generator, so it is killed in the middle too
#   fix         rdnactl fix on tests/fixtures/rx5600xt-k614 (amdgpu.noretry=0 on the
#               command line) with /etc/default/grub and an update-grub (busybox
#               again): the GRUB drop-in and `chroot ROOT update-grub`
#   undo-2files, undo-gen, undo-fix   config undo of a complete set-2files /
#               set-gen / fix
#
# usage: run.sh RDNACTL   (root, strace and /bin/busybox (static) needed; else 77)
# Then SIGTERM and SIGINT to `config set` while its generator runs: exit 3,
# the original tree.  Prints one line per scenario and "rounds: R, stuck
# entries: S, half-changed trees: H"; exit 1 unless S and H are 0 and both
# signals were handled.
set -u
R=$(realpath "$1")
TOP=${RDNAFIX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)} # RDNAFIX_TOP: a checkout (to run a copy of this script)
FIX=$TOP/tests/fixtures/rx6750xt-raphael/root
FIX_GRUB=$TOP/tests/fixtures/rx5600xt-k614/root # amdgpu.noretry=0 on the command line: fix changes GRUB
SYSCALLS=(renameat renameat2 rename fsync fdatasync mkdirat mkdir flock unlinkat unlink rmdir openat write
	fchmod fchown)
MAX_N=3000 # a syscall called more often than this by one command is a bug here

command -v strace >/dev/null || { echo "SKIP: strace not installed"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (chroot for the generator)"; exit 77; }
file -L /bin/busybox 2>/dev/null | grep -q 'statically linked' || { echo "SKIP: no static /bin/busybox"; exit 77; }

W=$(mktemp -d /tmp/rdnafix-crash-XXXXXX)
trap 'rm -rf "$W"' EXIT
REL=6.1.0-crash-amd64

prepare() { # DIR KIND: a fresh copy of the fixture (gen: with the generator; grub: the RX 5600 XT with GRUB)
	rm -rf "$1"
	if [ "$2" = grub ]; then
		cp -a "$FIX_GRUB" "$1"
		mkdir -p "$1/bin" "$1/usr/sbin" "$1/etc/default" "$1/boot/grub"
		cp /bin/busybox "$1/bin/sh"
		echo 'GRUB_CMDLINE_LINUX_DEFAULT="quiet"' >"$1/etc/default/grub"
		: >"$1/boot/grub/grub.cfg"
		cat >"$1/usr/sbin/update-grub" <<-'EOF'
			#!/bin/sh
			# shell builtins only: grub.cfg holds the drop-in as update-grub saw it
			d=/etc/default/grub.d/rdnafix.cfg
			if [ -f $d ]; then
				while IFS= read -r l; do printf '%s\n' "$l"; done <$d >/boot/grub/grub.cfg || exit 1
			else
				: >/boot/grub/grub.cfg || exit 1
			fi
		EOF
		chmod 0755 "$1/usr/sbin/update-grub"
		return
	fi
	cp -a "$FIX" "$1"
	if [ "$2" = gen ]; then
		mkdir -p "$1/bin" "$1/usr/sbin" "$1/boot" "$1/lib/modules/$REL"
		cp /bin/busybox "$1/bin/sh"
		: >"$1/lib/modules/$REL/modules.dep"
		: >"$1/boot/initrd.img-$REL"
		cat >"$1/usr/sbin/update-initramfs" <<-'EOF'
			#!/bin/sh
			# shell builtins only: the image holds the modprobe.d file as the generator saw it
			img=/boot/initrd.img-$3
			if [ -f /etc/modprobe.d/rdnafix.conf ]; then
				while IFS= read -r l; do printf '%s\n' "$l"; done </etc/modprobe.d/rdnafix.conf >"$img" || exit 1
			else
				: >"$img" || exit 1
			fi
		EOF
		chmod 0755 "$1/usr/sbin/update-initramfs"
	fi
}

# The state that must come back: type, mode and content of every entry.
# CRASH_FILES_ONLY=1 leaves directories out (to measure a build whose undo leaves empty ones).
snapshot() {
	(cd "$1" && find . -path ./var/lib/rdnafix -prune -o -printf '%y %m %p\n' | grep -v -e '^d [0-9]* \./var$' \
		-e '^d [0-9]* \./var/lib$' | { if [ "${CRASH_FILES_ONLY:-0}" = 1 ]; then grep -v '^d '; else cat; fi; } |
		LC_ALL=C sort &&
		find . -path ./var/lib/rdnafix -prune -o -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
}

run_cmd() { # SCENARIO DIR: the command of the scenario (no strace)
	case $1 in
	set-*) "$R" config set --root "$2" noretry=1 validate.user=alice ;;
	fix) "$R" fix --root "$2" ;;
	undo-*) "$R" config undo --root "$2" ;;
	esac
}

# After a kill: undo as a user would; "ok", "stuck: <why>".
recover() {
	local dir=$1 out rc last=""
	for _ in 1 2 3 4; do
		out=$("$R" config undo --root "$dir" 2>&1)
		rc=$?
		# Done when undo succeeded and no entry is left (dot-names are not entries).
		if [ $rc = 0 ] && [ -z "$(ls "$dir/var/lib/rdnafix/config/journal" 2>/dev/null)" ]; then
			echo ok
			return
		fi
		[ $rc = 0 ] || last="undo exit $rc: $(tr '\n' ' ' <<<"$out" | cut -c1-300)"
	done
	echo "stuck: ${last:-entries left: $(ls "$dir/var/lib/rdnafix/config/journal")}"
}

ROUNDS=0 STUCK=0 HALF=0 MAIN_FAIL_DETAIL=""
matrix() { # SCENARIO KIND
	local sc=$1 kind=$2 base=$W/base-$1 dir=$W/r-$1 rounds=0 stuck=0 half=0 sys n rc res before
	prepare "$base" "$kind"
	case $sc in
	undo-fix) run_cmd fix "$base" >/dev/null 2>&1 ;;
	undo-*) run_cmd set-x "$base" >/dev/null 2>&1 ;;
	esac
	before=$(snapshot "$base")
	[[ $sc == undo-* ]] && { prepare "$W/orig" "$kind"; before=$(snapshot "$W/orig"); }
	case $sc in
	set-*) args=(config set --root "$dir" noretry=1 validate.user=alice) ;;
	fix) args=(fix --root "$dir") ;;
	undo-*) args=(config undo --root "$dir") ;;
	esac
	# The candidates this command really calls (a traced run first); each gets its rounds.
	rm -rf "$dir"
	cp -a "$base" "$dir"
	strace -qq -o "$W/trace" -e trace="$(IFS=,; echo "${SYSCALLS[*]}")" "$R" "${args[@]}" >/dev/null 2>&1
	local used=()
	for sys in "${SYSCALLS[@]}"; do
		grep -q "^$sys(" "$W/trace" && used+=("$sys")
	done
	for sys in "${used[@]}"; do
		# openat: only the calls that can create a file (O_CREAT), found by a traced run; the
		# others open what exists, and a kill before them is a kill before the next call listed.
		local only=""
		if [ "$sys" = openat ]; then
			rm -rf "$dir"
			cp -a "$base" "$dir"
			strace -qq -o "$W/trace" -e trace=openat "$R" "${args[@]}" >/dev/null 2>&1
			only=" $(grep -n O_CREAT "$W/trace" | cut -d: -f1 | tr '\n' ' ')$(($(wc -l <"$W/trace") + 1)) "
		fi
		for ((n = 1; n <= MAX_N; n++)); do
			[ -z "$only" ] || [[ $only == *" $n "* ]] || continue
			rm -rf "$dir"
			cp -a "$base" "$dir"
			# (in a subshell of two commands, so that bash does not report "Killed")
			(
				strace -f -qq -o /dev/null -e trace="$sys" -e inject="$sys":signal=KILL:when=$n "$R" "${args[@]}"
				exit $?
			) >/dev/null 2>&1
			rc=$?
			rounds=$((rounds + 1))
			res=$(recover "$dir")
			if [ "$res" != ok ]; then
				stuck=$((stuck + 1))
				[ -n "$MAIN_FAIL_DETAIL" ] || MAIN_FAIL_DETAIL="$sc $sys:$n: $res"
			elif [ "$(snapshot "$dir")" != "$before" ]; then
				half=$((half + 1))
				[ -n "$MAIN_FAIL_DETAIL" ] ||
					MAIN_FAIL_DETAIL="$sc $sys:$n: tree differs: $(diff <(echo "$before") <(snapshot "$dir") | head -5 | tr '\n' ' ')"
			fi
			[ $rc = 137 ] || break # ran to its end: no N-th call of $sys
		done
		[ $n -le $MAX_N ] || { echo "FAIL: $sc calls $sys more than $MAX_N times"; exit 1; }
	done
	printf '%-12s rounds %4d  stuck entries %3d  half-changed trees %3d  (%s)\n' "$sc" $rounds $stuck $half \
		"${used[*]}"
	ROUNDS=$((ROUNDS + rounds)) STUCK=$((STUCK + stuck)) HALF=$((HALF + half))
}

t0=$SECONDS
# fix must change something on this fixture, or its rounds prove nothing.
prepare "$W/probe" grub
run_cmd fix "$W/probe" >/dev/null 2>&1
[ -n "$(ls -A "$W/probe/var/lib/rdnafix/config/journal" 2>/dev/null)" ] || {
	echo "FAIL: rdnactl fix wrote no transaction on the fixture"
	exit 1
}
if [ "${CRASH_MATRIX:-1}" = 1 ]; then # CRASH_MATRIX=0: only the signal checks below
	matrix set-2files plain
	matrix set-gen gen
	matrix fix grub
	matrix undo-2files plain
	matrix undo-gen gen
	matrix undo-fix grub
fi

# SIGTERM and SIGINT while the generator runs (N14): the generator blocks on a FIFO while the new
# file is in place; rdnactl must kill it, put the files back, run it again on them (it does not
# block then), say so and exit 3, leaving the original tree and an empty journal.
SIGFAIL=0
for sig in TERM INT; do
	d=$W/sig-$sig
	prepare "$d" gen
	before=$(snapshot "$d")
	mkfifo "$d/wait.fifo"
	cp -a "$d/usr/sbin/update-initramfs" "$W/update-initramfs.orig"
	cat >"$d/usr/sbin/update-initramfs" <<-'EOF'
		#!/bin/sh
		img=/boot/initrd.img-$3
		while IFS= read -r l; do
			case $l in *noretry=1*) : >/started; read -r x </wait.fifo ;; esac
		done </etc/modprobe.d/rdnafix.conf
		: >"$img"
	EOF
	set -m # a background job of a shell without job control would ignore SIGINT
	"$R" config set --root "$d" noretry=1 >"$W/sig.out" 2>&1 &
	pid=$!
	set +m
	for _ in $(seq 100); do [ -e "$d/started" ] && break; sleep 0.1; done
	kill -"$sig" "$pid"
	wait "$pid"
	rc=$?
	rm -f "$d/started" "$d/wait.fifo"
	cp -a "$W/update-initramfs.orig" "$d/usr/sbin/update-initramfs"
	if [ $rc = 3 ] && grep -q "rdnactl received SIG$sig.* while 'update-initramfs" "$W/sig.out" &&
		grep -q 'every file was put back' "$W/sig.out" && [ "$(snapshot "$d")" = "$before" ] &&
		[ -z "$(ls "$d/var/lib/rdnafix/config/journal" 2>/dev/null)" ]; then
		echo "SIG$sig during the generator: exit 3, rolled back"
	else
		echo "FAIL: SIG$sig during the generator: exit $rc; output:"
		cat "$W/sig.out"
		diff <(echo "$before") <(snapshot "$d") | head -5
		SIGFAIL=1
	fi
done

echo "rounds: $ROUNDS, stuck entries: $STUCK, half-changed trees: $HALF ($((SECONDS - t0)) s)"
[ -z "$MAIN_FAIL_DETAIL" ] || echo "first failure: $MAIN_FAIL_DETAIL"
[ "$STUCK" = 0 ] && [ "$HALF" = 0 ] && [ "$SIGFAIL" = 0 ]
