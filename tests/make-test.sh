#!/usr/bin/env bash
# `make test`: every stage of the test suite, ordered so that nothing skips
# for want of something the same run fetches, overlapped so that a cold run
# fits CI's budget on a 2-core machine, with a time table at the end.
#
#   tests/make-test.sh          (as root, from `make test`; exit 0 all passed, 1 a stage failed)
#
# Order (tests/README.md, section "make test", has the why and the measured times):
#   fetch   in the background from the start: the kernels of the VM suite and
#           their headers (tests/vm/fetch-kernels.sh, kmod/scripts/build-all.sh
#           --prepare), the e2e Debian image (tests/e2e/build-image.sh), the
#           ROCm sid chroot (tests/rocm/make-chroot.sh) and the Debian 13 and
#           sid build chroots (tests/distro/make-chroot.sh): network and dpkg,
#           beside the compile
#   build   rdnactl and the unit tests, one CMake tree, through ccache
#   style   the repository checks
#   then two lanes, each a chain of stages; one QEMU/TCG boot takes one core:
#     lane A  kernel (VM suite) -> e2e (booted system; waits for the .debs of
#             lane B) -> distro (rdnactl built and run in Debian 13 and sid)
#     lane B  deb-build (make deb) -> unit (ctest; after the kernels, headers
#             and the ROCm chroot) -> deb (package life cycle) -> fuzz ->
#             kmod-style -> dkms
# A stage's output is printed whole when it ends (lanes never interleave
# lines); every stage runs even when an earlier one failed.  A ctest test that
# skips fails the unit stage: on a fresh machine nothing may skip silently.
#
# Environment: BUILD (default build), RDNAFIX_CACHE (default /var/cache/rdnafix;
# ccache's cache is RDNAFIX_CACHE/ccache), RDNAFIX_TEST_STAGES (a space-separated
# subset of the stage names, for a partial run; default all).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
BUILD=${BUILD:-build}
CACHE=${RDNAFIX_CACHE:-/var/cache/rdnafix}
export RDNAFIX_CACHE=$CACHE
LOGS=$top/$BUILD/test-logs
STAGES=${RDNAFIX_TEST_STAGES:-fetch build style kernel e2e distro deb-build unit deb fuzz kmod-style dkms}
rm -rf "$LOGS"
mkdir -p "$LOGS" "$CACHE"
T0=$(date +%s)
TIMES=$LOGS/times.tsv
: >"$TIMES"
if command -v ccache >/dev/null; then
	export CCACHE_DIR=$CACHE/ccache CCACHE_BASEDIR=$top CCACHE_NOHASHDIR=1
	mkdir -p "$CCACHE_DIR"
	ccache -z >/dev/null 2>&1 || true
fi

want() { [[ " $STAGES " == *" $1 "* ]]; }

# stage NAME LANE CMD...: run CMD with its output in $LOGS/NAME.log; print the
# log whole (under a lock) and a summary line; record the times.
stage() {
	local name=$1 lane=$2 s e rc
	shift 2
	if ! want "$name" && ! { [[ $lane == fetch ]] && want fetch; }; then
		printf '%s\t%s\t-\t-\tnot selected\n' "$name" "$lane" >>"$TIMES"
		return 0
	fi
	s=$(date +%s)
	"$@" >"$LOGS/$name.log" 2>&1 </dev/null
	rc=$?
	e=$(date +%s)
	printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$lane" "$((s - T0))" "$((e - s))" "$rc" >>"$TIMES"
	{
		flock 9
		echo "==== stage $name (lane $lane): $( ((rc == 0)) && echo passed || echo "FAILED (exit $rc)") in $((e - s)) s ===="
		cat "$LOGS/$name.log"
		echo "==== end of stage $name ===="
	} 9>"$LOGS/.print-lock"
	return "$rc"
}

# A background job that others wait for: its exit status in $LOGS/NAME.rc.
job() {
	local name=$1
	shift
	(
		stage "$name" fetch "$@"
		echo $? >"$LOGS/$name.rc"
	) &
}
await() { # NAME...: wait until each job has finished
	local n
	for n in "$@"; do
		want fetch || return 0
		while [[ ! -f $LOGS/$n.rc ]]; do sleep 2; done
	done
}

# --- fetch: the downloads, beside the compile --------------------------------
# every kernel the kernel stage uses: booted (6.1 6.12 7.2, 6.12-rt) or only
# audited (6.1-rt 7.2-rt sid); headers for those rdnafix is built for
fetch_kernels() {
	local s s_
	tests/vm/fetch-kernels.sh 6.1 6.12 7.2 6.1-rt 6.12-rt 7.2-rt sid || return
	for s in 6.1 6.12 7.2 6.12-rt; do
		s_=${s//./_}
		export "RDNAFIX_KVER_${s_//-/_}=$(cat "$CACHE/kernels/$s.kver")"
	done
	kmod/scripts/build-all.sh --prepare 6.1 6.12 7.2 6.12-rt
}
if want fetch; then
	job fetch-kernels fetch_kernels
	job fetch-e2e-image tests/e2e/build-image.sh 6.1
	job fetch-rocm-chroot tests/rocm/make-chroot.sh
	# tests/distro's own chroots, not the ROCm one: the distro stage (lane A)
	# may build while the unit stage (lane B) runs the ROCm tests in theirs
	job fetch-distro-chroots bash -c 'tests/distro/make-chroot.sh trixie "$RDNAFIX_CACHE/build-trixie" &&
		tests/distro/make-chroot.sh sid "$RDNAFIX_CACHE/build-sid"'
fi

# --- build, style ------------------------------------------------------------
build() {
	local launcher=()
	command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
	cmake -S userspace -B "$BUILD/userspace" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DRDNAFIX_TESTS=ON "${launcher[@]}" && cmake --build "$BUILD/userspace"
}
stage build main build
build_rc=$?
stage style main make --no-print-directory test-style

# --- the lanes ---------------------------------------------------------------
# ctest, and a gate on skips: a skipped test is a failure here.
unit() {
	await fetch-kernels fetch-rocm-chroot
	local rc
	ctest --test-dir "$BUILD/userspace" --output-on-failure -j2
	rc=$?
	if grep -E '\*\*\*Skipped|Not Run' "$LOGS/unit.log" >/dev/null; then
		echo "make test: these tests skipped; in make test a skip is a failure (the stages before them fetch what they need):"
		grep -E '\*\*\*Skipped|Not Run' "$LOGS/unit.log"
		return 1
	fi
	return "$rc"
}
deb_build() {
	await fetch-e2e-image
	make --no-print-directory deb
}
e2e() {
	await fetch-e2e-image
	while [[ ! -f $LOGS/deb-build.rc ]] && want deb-build; do sleep 5; done
	bash tests/e2e/run.sh
}
distro() {
	await fetch-distro-chroots
	tests/distro/run.sh
}
lane_a() {
	stage kernel A env RDNACTL="$top/$BUILD/userspace/rdnactl" RDNAFIX_VM_WORK="$top/$BUILD/vm" \
		tests/kernel/run.sh
	stage e2e A e2e
	stage distro A distro
}
lane_b() {
	stage deb-build B deb_build
	echo $? >"$LOGS/deb-build.rc"
	stage unit B unit
	stage deb B bash tests/deb/run.sh
	if grep -q '^test-fuzz:' Makefile; then
		stage fuzz B make --no-print-directory test-fuzz
	fi
	stage kmod-style B make --no-print-directory test-kmod-style
	stage dkms B make --no-print-directory test-dkms
}
if [[ $build_rc -eq 0 ]]; then
	await fetch-kernels
	lane_a &
	lane_a_pid=$!
	lane_b
	wait "$lane_a_pid"
fi
wait # the fetch jobs

# --- the table -----------------------------------------------------------------
total=$(($(date +%s) - T0))
echo
echo "make test: stage times (start = seconds after the start of make test)"
printf '  %-20s %-5s %7s %9s  %s\n' stage lane start seconds result
failed=0
while IFS=$'\t' read -r name lane start secs rc; do
	case $rc in
	0) res=passed ;;
	"not selected") res="not selected" ;;
	*) res="FAILED (exit $rc)"; failed=$((failed + 1)) ;;
	esac
	printf '  %-20s %-5s %7s %9s  %s\n' "$name" "$lane" "$start" "$secs" "$res"
done < <(sort -t$'\t' -k3,3n "$TIMES")
[[ $build_rc -eq 0 ]] || { echo "  (the build failed: no test stage ran)"; failed=$((failed + 1)); }
if command -v ccache >/dev/null; then
	echo "  ccache: $(ccache -s 2>/dev/null | grep -E '^ *(Hits|Misses):' | tr -s ' ' | paste -sd';')"
fi
echo "make test: $total s in total ($((total / 60)) min $((total % 60)) s); $failed stage(s) failed; logs in $LOGS"
[[ $failed -eq 0 ]]
