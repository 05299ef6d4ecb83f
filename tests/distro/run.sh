#!/usr/bin/env bash
# rdnactl on newer distributions: build only the `rdnactl` target in a Debian
# trixie and a Debian sid chroot (their CLI11, fmt, GCC, CMake; -O0, no debug
# info, no unit tests) and run it there:
#   --version; `--help` of every verb (the list: tests/golden/cli/help*.out),
#   each naming every option its golden names; two usage errors exit 2 (not an
#   abort); `status --root` of one fixture machine (text: every line of its
#   expected.txt and its exit code; --json: equal to expected.json but for
#   /root, /rdnactl_version, /environment/source); `explain` (the chroot's RE2
#   and toml++) on five real logs of tests/explain/corpus: exactly their ids.
# The chroots are made by tests/distro/make-chroot.sh (debootstrap + the [build]
# group of userspace/deps/packages.txt) and cached under /var/cache/rdnafix/;
# the build directory lives in the chroot, so a warm run compiles only what
# changed.  Nothing is installed into the host.
#
# Usage: tests/distro/run.sh [SUITE...]     (default: trixie sid)
# Environment:
#   RDNAFIX_DISTRO_SRC       the tree to build (default: this checkout); only its
#                            userspace/, kmod/ and udev/ files that git lists
#   RDNAFIX_DISTRO_CACHE     where the chroots live (default /var/cache/rdnafix)
#   RDNAFIX_DISTRO_SID_ROOT  the sid chroot (default $CACHE/build-sid; e.g.
#                            $CACHE/rocm-sid reuses the ROCm chroot, the build
#                            packages added in place)
#   RDNAFIX_DISTRO_JOBS      parallel compile jobs (default: nproc)
#   RDNAFIX_DISTRO_FIXTURE   the fixture machine (default rx6750xt-raphael)
# Output: PASS|FAIL [suite] name detail, CANNOT RUN [suite] reason, VERSIONS and
# TIME lines, "N passed, N failed".
# Exit: 0 all passed, 1 a failure, 2 cannot run here (not root, debootstrap
# missing, or no network to the mirror while a chroot must be made): loud, and
# `make test` treats it as a failure.
set -uo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
SRC=$(cd "${RDNAFIX_DISTRO_SRC:-$TOP}" && pwd)
CACHE=${RDNAFIX_DISTRO_CACHE:-${RDNAFIX_CACHE:-/var/cache/rdnafix}}
JOBS=${RDNAFIX_DISTRO_JOBS:-$(nproc)}
FIXTURE=${RDNAFIX_DISTRO_FIXTURE:-rx6750xt-raphael}
SUITES=("$@")
[ ${#SUITES[@]} -gt 0 ] || SUITES=(trixie sid)
# shellcheck source=../lib/verdicts.sh
. "$TOP/tests/lib/verdicts.sh"
# shellcheck source=tree.sh
. "$TOP/tests/distro/tree.sh"
cannot=0
cannot_run() {
	cannot=$((cannot + 1))
	echo "CANNOT RUN $*"
}

if [ "$(id -u)" != 0 ]; then
	echo "CANNOT RUN [setup] tests/distro/run.sh must run as root (chroot, mount)" >&2
	exit 2
fi
[ -d "$TOP/tests/fixtures/$FIXTURE/root" ] || {
	echo "CANNOT RUN [setup] no fixture machine tests/fixtures/$FIXTURE" >&2
	exit 2
}

root_of() {
	case $1 in
	sid) echo "${RDNAFIX_DISTRO_SID_ROOT:-$CACHE/build-sid}" ;;
	*) echo "$CACHE/build-$1" ;;
	esac
}
in_root() { # ROOT CMD...: run in the chroot with a clean environment
	local r=$1
	shift
	chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TERM=dumb "$@"
}
MOUNTS=()
WORK=$(mktemp -d /tmp/rdnafix-distro.XXXXXX)
cleanup() {
	local m
	for m in "${MOUNTS[@]}"; do umount "$m" 2>/dev/null || umount -l "$m"; done
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# check_help SUITE ROOT GOLDEN ARGS...: `ARGS --help` exits 0, says nothing on
# stderr and names every --option the golden help names.
check_help() {
	local s=$1 r=$2 golden=$3 out err rc missing o usage
	shift 3
	out=$WORK/help.out err=$WORK/help.err
	in_root "$r" /rdnafix/build/rdnactl "$@" --help >"$out" 2>"$err"
	rc=$?
	missing=""
	for o in $(grep -o -- '--[a-z][a-z-]*' "$golden" | sort -u); do
		grep -q -- "$o" "$out" || missing+=" $o"
	done
	# the usage line; CLI11 2.6 drops its "Usage:" label and prints argv[0] as it was given
	usage=$(grep -c -E -- "rdnactl ${*:+$* }\[OPTIONS\]" "$out")
	if [ $rc -eq 0 ] && [ ! -s "$err" ] && [ "$usage" -ge 1 ] && [ -z "$missing" ]; then
		pass "[$s] help: rdnactl ${*:+$* }--help"
	else
		fail "[$s] help: rdnactl ${*:+$* }--help: exit $rc, stderr '$(head -c 300 "$err")', usage lines $usage${missing:+, options missing:$missing}"
	fi
}

# check_usage_error SUITE ROOT ARGS...: a usage error is exit 2 with a message, not an abort.
check_usage_error() {
	local s=$1 r=$2 rc
	shift 2
	in_root "$r" /rdnafix/build/rdnactl "$@" >"$WORK/u.out" 2>"$WORK/u.err"
	rc=$?
	if [ $rc -eq 2 ] && [ -s "$WORK/u.err" ]; then
		pass "[$s] usage error: rdnactl $* -> exit 2: $(head -1 "$WORK/u.err")"
	else
		fail "[$s] usage error: rdnactl $* -> exit $rc (want 2), stderr '$(head -c 300 "$WORK/u.err")'"
	fi
}

# check_status SUITE ROOT: status --root of the fixture, text and JSON, against its goldens.
check_status() {
	local s=$1 r=$2 fx=$TOP/tests/fixtures/$FIXTURE want rc line n missing=0 diff
	local args=(status --root /rdnafix/fixture/root --env /rdnafix/fixture/env)
	read -ra extra <"$fx/args"
	args+=("${extra[@]}")
	want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["exit_code"])' "$fx/expected.json")
	in_root "$r" /rdnafix/build/rdnactl "${args[@]}" --color never --verbose >"$WORK/status.txt" 2>"$WORK/status.err"
	rc=$?
	n=0
	while IFS= read -r line; do # as tests/unit/status/test_fixtures.cpp: each line a substring of the output
		[[ -z $line || $line == \#* ]] && continue
		n=$((n + 1))
		grep -qF -- "$line" "$WORK/status.txt" || {
			missing=$((missing + 1))
			[ $missing -le 3 ] && echo "  missing line: $line"
		}
	done <"$fx/expected.txt"
	if [ "$rc" = "$want" ] && [ $missing = 0 ] && [ $n -gt 0 ]; then
		pass "[$s] status --root $FIXTURE (text): exit $rc, all $n lines of expected.txt"
	else
		fail "[$s] status --root $FIXTURE (text): exit $rc (want $want), $missing of $n lines of expected.txt missing; stderr '$(head -c 300 "$WORK/status.err")'"
	fi
	in_root "$r" /rdnafix/build/rdnactl "${args[@]}" --json >"$WORK/status.json" 2>"$WORK/status.jerr"
	rc=$?
	diff=$(python3 "$TOP/tests/distro/json_same.py" "$fx/expected.json" "$WORK/status.json" 2>&1)
	if [ "$rc" = "$want" ] && [ -z "$diff" ]; then
		pass "[$s] status --root $FIXTURE --json: exit $rc, equal to expected.json"
	else
		fail "[$s] status --root $FIXTURE --json: exit $rc (want $want); $(head -c 600 <<<"$diff")"
	fi
}

# check_explain SUITE ROOT: rdnactl explain in the chroot (its RE2 and toml++) on real logs of the corpus
# (tests/explain/corpus), one per family of the knowledge base: exactly the ids of each log's .expect.
check_explain() {
	local s=$1 r=$2 log want got n
	n=$(in_root "$r" /rdnafix/build/rdnactl explain --list --json --no-overlays 2>/dev/null |
		python3 -c 'import json,sys; print(len(json.load(sys.stdin)["entries"]))' 2>/dev/null || echo 0)
	if [[ $n -ge 60 ]]; then
		pass "[$s] explain --list --json: $n signatures"
	else
		fail "[$s] explain --list --json: $n signatures (expected 60 or more)"
	fi
	for log in RDNA-LOG-002/lamikr-rocm-sdk-builder-246 RDNA-LOG-007/rocm-therock-1271 \
		RDNA-LOG-014/kyuz0-amd-strix-halo-image-video-toolboxes-3 RDNA-LOG-016/lostruins-koboldcpp-676 \
		RDNA-LOG-040/ollama-ollama-12071; do
		want=$(grep -v '^#' "$TOP/tests/explain/corpus/$log.expect" | awk 'NF {print $1}' | sort -u | tr '\n' ' ')
		got=$(in_root "$r" /rdnafix/build/rdnactl explain --json --no-coverage --no-overlays \
			--root /rdnafix/fixture/root - <"$TOP/tests/explain/corpus/$log.log" 2>"$WORK/explain.err" |
			python3 -c 'import json,sys; d=json.load(sys.stdin); print(" ".join(sorted({e["id"] for e in d["explanations"]} | {o["id"] for o in d["omitted"]})))' 2>&1)
		if [[ "$got " == "$want" ]]; then
			pass "[$s] explain ${log#*/}.log: $got"
		else
			fail "[$s] explain ${log#*/}.log: got '$got', expected '$want' ($(head -c 300 "$WORK/explain.err"))"
		fi
	done
}

run_suite() {
	local s=$1 r t0 t1 t2 t3 rc v golden words lock
	r=$(root_of "$s")
	t0=$(date +%s)
	# one run at a time per chroot (another checkout's make test-distro, say)
	if ! mkdir -p "$(dirname "$r")" || ! exec {lock}>"$r.lock" || ! flock "$lock"; then
		fail "[$s] lock $r.lock"
		return
	fi
	"$TOP/tests/distro/make-chroot.sh" "$s" "$r"
	rc=$?
	if [ $rc = 2 ]; then
		cannot_run "[$s] the $s chroot $r could not be made here (above)"
		return
	elif [ $rc != 0 ]; then
		fail "[$s] chroot: tests/distro/make-chroot.sh $s $r exited $rc"
		return
	fi
	t1=$(date +%s)
	mkdir -p "$r/proc" "$r/rdnafix"
	if ! mountpoint -q "$r/proc"; then
		mount -t proc proc "$r/proc" || { fail "[$s] mount proc in $r"; return; }
		MOUNTS+=("$r/proc")
	fi
	sync_tree "$SRC" "$r/rdnafix/src" || { fail "[$s] copy the source tree into $r"; return; }
	rm -rf "$r/rdnafix/fixture"
	cp -a "$TOP/tests/fixtures/$FIXTURE" "$r/rdnafix/fixture"
	v=$(in_root "$r" dpkg-query -W -f '${Package} ${Version}\n' libcli11-dev libfmt-dev cmake 2>/dev/null | tr '\n' ' ')
	echo "VERSIONS [$s] $v; g++ $(in_root "$r" g++ -dumpfullversion)"
	if in_root "$r" cmake -S /rdnafix/src/userspace -B /rdnafix/build -G Ninja -DCMAKE_BUILD_TYPE= \
		-DCMAKE_CXX_FLAGS=-O0 -DRDNAFIX_TESTS=OFF >"$WORK/build-$s.log" 2>&1 &&
		in_root "$r" cmake --build /rdnafix/build -t rdnactl -j "$JOBS" >>"$WORK/build-$s.log" 2>&1; then
		pass "[$s] build rdnactl (-O0, -Werror) with $v"
	else
		tail -40 "$WORK/build-$s.log"
		fail "[$s] build rdnactl (-O0, -Werror): the log's tail is above"
		return
	fi
	t2=$(date +%s)
	if in_root "$r" /rdnafix/build/rdnactl --version >"$WORK/v.out" 2>"$WORK/v.err" && grep -q '^rdnactl ' "$WORK/v.out"; then
		pass "[$s] rdnactl --version: $(cat "$WORK/v.out")"
	else
		fail "[$s] rdnactl --version: '$(head -c 300 "$WORK/v.out")' stderr '$(head -c 300 "$WORK/v.err")'"
	fi
	for golden in "$TOP"/tests/golden/cli/help*.out; do
		# the verb path from the golden's own usage line: "Usage: rdnactl config set [OPTIONS] ..."
		read -ra words < <(sed -n 's/^Usage: rdnactl \(\([a-z-]* \)*\)\[OPTIONS\].*/\1/p' "$golden")
		check_help "$s" "$r" "$golden" "${words[@]}"
	done
	check_usage_error "$s" "$r" config set
	check_usage_error "$s" "$r" status --no-such-option
	check_status "$s" "$r"
	check_explain "$s" "$r"
	t3=$(date +%s)
	echo "TIME [$s] chroot $((t1 - t0)) s, copy+build $((t2 - t1)) s, checks $((t3 - t2)) s"
}

t_start=$(date +%s)
for s in "${SUITES[@]}"; do
	run_suite "$s"
done
echo "distro: $(($(date +%s) - t_start)) s in total"
echo "$npass passed, $nfail failed$([ $cannot = 0 ] || echo ", $cannot cannot run")"
[ $nfail = 0 ] || exit 1
if [ $cannot != 0 ]; then
	echo "CANNOT RUN: $cannot of ${#SUITES[@]} distributions were not tested (see above); this is not a pass" >&2
	exit 2
fi
exit 0
