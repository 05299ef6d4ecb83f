# Shared by the shell test drivers (sourced): the PASS/FAIL lines they print
# and the counts of both.
npass=0 nfail=0
pass() { npass=$((npass + 1)); echo "PASS $*"; }
fail() { nfail=$((nfail + 1)); echo "FAIL $*"; }
# count_verdicts TEXT: add the PASS and FAIL lines that a checker printed
# (check-boot.py, check-e2e.py, a guest suite) to the counts.
count_verdicts() {
	npass=$((npass + $(grep -c '^PASS' <<<"$1")))
	nfail=$((nfail + $(grep -c '^FAIL' <<<"$1")))
}
