#!/usr/bin/env bash
# The bash completion of rdnactl, driven the way bash drives it: COMP_LINE and
# COMP_POINT as typed, COMP_WORDS split on blanks and on COMP_WORDBREAKS
# (which holds '=' by default), with and without bash-completion's helpers.
#   tests/completion/check.sh   (exit 0 pass, 1 fail)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
fails=0
# One completion in a fresh bash (no bash-completion helpers loaded); bash's
# default COMP_WORDBREAKS holds '=', so "a=b" arrives as three COMP_WORDS.
driver='
[[ -n ${RDNAFIX_BASH_COMPLETION:-} ]] && source "$RDNAFIX_BASH_COMPLETION"
source "$1"
COMP_LINE=$2 COMP_POINT=${#2}
read -r -a COMP_WORDS <<<"${2//=/ = }"
[[ $2 == *[[:space:]] ]] && COMP_WORDS+=("")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
_rdnactl
echo "${COMPREPLY[*]}"
'
run() { # expected-reply, typed line
	local want=$1 line=$2 got
	got=$(bash --norc --noprofile -c "$driver" _ "$top/userspace/completion/rdnactl.bash" "$line")
	if [[ $got == "$want" ]]; then
		echo "PASS completion '$line' -> '$got'"
	else
		echo "FAIL completion '$line' -> '$got' (expected '$want')"
		fails=$((fails + 1))
	fi
}
cases() {
run "config coverage" "rdnactl co"
run "coverage" "rdnactl cov"
run "--no-system" "rdnactl coverage --no"
run "gfx1030 gfx1031 gfx1032 gfx1033 gfx1034 gfx1035 gfx1036" "rdnactl coverage --gfx gfx103"
run "--no-coverage" "rdnactl status --no"
run "show set" "rdnactl config s"
run "mtype_sysmem= mtype_vram=" "rdnactl config set mtype_"
run "nc" "rdnactl config set mtype_sysmem=n"
run "rdna1 rdna2 rdna1,rdna2" "rdnactl config set noretry=1 targets=rd"
run "amdgpu.noretry" "rdnactl config unset amdgpu.n"
run "--dry-run" "rdnactl fix --d"
run "--dry-run" "rdnactl config undo --d"
run "--json" "rdnactl status --j"
run "explain" "rdnactl expl"
run "--pid" "rdnactl explain --pi"
run "RDNA-LOG-010 RDNA-LOG-011 RDNA-LOG-012 RDNA-LOG-013 RDNA-LOG-014 RDNA-LOG-015" "rdnactl explain RDNA-LOG-01"
}
echo "without bash-completion's helpers:"
export RDNAFIX_BASH_COMPLETION=
cases
bc=/usr/share/bash-completion/bash_completion
if [[ -r $bc ]]; then
	echo "with $bc:"
	RDNAFIX_BASH_COMPLETION=$bc
	cases
else
	echo "FAIL $bc missing (package bash-completion, make deps)"
	fails=$((fails + 1))
fi
[[ $fails -eq 0 ]]
