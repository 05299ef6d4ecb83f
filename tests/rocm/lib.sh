# Shared by tests/rocm/run.sh and tests/coverage/run.sh (sourced): PASS/FAIL
# lines and counts (tests/lib/verdicts.sh), and the skips (exit 77) of the
# chroot tests.
# shellcheck source=../lib/verdicts.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/verdicts.sh"
skip() { echo "SKIP $*"; exit 77; }
# Exit 77 unless the chroot tests can run here: enabled and root.
require_chroot_tests() {
	[ "${RDNAFIX_ROCM_TESTS:-1}" = 0 ] && skip "RDNAFIX_ROCM_TESTS=0"
	[ "$(id -u)" = 0 ] || skip "needs root for chroot (run as root, e.g. through make test in CI)"
}
