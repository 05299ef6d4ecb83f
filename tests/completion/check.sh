#!/usr/bin/env bash
# The bash completion of rdnactl, driven the way bash drives it: COMP_LINE and
# COMP_POINT as typed, COMP_WORDS split on blanks and on COMP_WORDBREAKS
# (which holds '=' by default), with and without bash-completion's helpers.
# With RDNACTL, also: the options completed for every subcommand are exactly
# the ones its --help lists (so neither can go stale), the subcommands are
# those of rdnactl --help, and validate case names and explain ids come from
# rdnactl's own --list.
#   tests/completion/check.sh [RDNACTL]   (exit 0 pass, 1 fail)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
rdnactl=${1:+$(realpath "$1")}
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# "rdnactl" on PATH is the binary under test (the completion runs it for --list).
if [[ -n $rdnactl ]]; then
	mkdir -p "$tmp/bin"
	ln -s "$rdnactl" "$tmp/bin/rdnactl"
	export PATH="$tmp/bin:$PATH"
fi
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
run "text json prometheus" "rdnactl status --format "
run "prometheus" "rdnactl status --format p"
run "--output" "rdnactl status --ou"
run "explain" "rdnactl expl"
run "--pid" "rdnactl explain --pi"
run "--env" "rdnactl fix --e"
run "hip cuda" "rdnactl validate --api "
run "--history-db" "rdnactl history --hi"
run "--case --capacity-fraction" "rdnactl validate --ca"
run "--if-stack-changed" "rdnactl validate --if"
run "validate.user=" "rdnactl config set valid"
run "root" "rdnactl config set validate.user=roo"
run "status" "rdnactl help st"
run "set" "rdnactl help config se"
run "help" "rdnactl hel"
if [[ -n $rdnactl ]]; then
	ids=$(rdnactl explain --list --json | python3 -c 'import json,sys; print(" ".join(e["id"] for e in json.load(sys.stdin)["entries"] if e["id"].startswith("RDNA-LOG-01")))')
	run "$ids" "rdnactl explain RDNA-LOG-01"
	cases=$(rdnactl validate --list | grep -o '^conv\.resnet50-conv1[^ ]*' | tr '\n' ' ')
	cases=${cases% }
	[[ -n $cases ]] || echo "FAIL validate --list names no conv.resnet50-conv1 case"
	run "$cases" "rdnactl validate --case conv.resnet50-conv1"
	# every signature id of explain --list, and the ids beside the files when nothing is typed
	all_ids=$(rdnactl explain --list | awk '/^RDNA-LOG-/ { print $1 }' | tr '\n' ' ')
	all_ids=${all_ids% }
	[[ $(wc -w <<<"$all_ids") -ge 15 ]] || echo "FAIL explain --list names fewer than 15 RDNA-LOG ids: '$all_ids'"
	run "$all_ids" "rdnactl explain RDNA-LOG-"
	run "$all_ids" "rdnactl explain --root / RDNA-"
	mkdir -p "$tmp/empty" && (cd "$tmp/empty" && run "$all_ids" "rdnactl explain ") # no files here: only the ids
	# kernel-check RELEASE: the kernels below --root DIR (its lib/modules), else /lib/modules
	roots=$top/tests/unit/config/roots
	run "6.1.0-18-amd64 6.12.57+deb13-amd64" "rdnactl kernel-check --root $roots/debian-grub "
	run "6.12.57+deb13-amd64" "rdnactl kernel-check --json --root $roots/debian-grub 6.12"
	run "6.12.1-arch1-1" "rdnactl kernel-check --root $roots/arch-sdboot 6"
	run "$(command ls /lib/modules 2>/dev/null | tr '\n' ' ' | sed 's/ $//')" "rdnactl kernel-check "
fi
run "sh bash zsh fish" "rdnactl env --shell "
run "zsh" "rdnactl env --shell z"
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
	echo "FAIL $bc missing (package bash-completion, make deps-test)"
	fails=$((fails + 1))
fi

# Every subcommand's options, as --help lists them, against the completion's.
help_options() { # the --long names of the Options: section of `rdnactl ARGS --help`
	rdnactl "$@" --help | awk '/^Options:/ { on = 1; next } /^[^ ]/ { on = 0 }
		on && match($0, /^  (-[A-Za-z],)?--[a-z0-9-]+/) { s = substr($0, RSTART, RLENGTH); sub(/^ *(-[A-Za-z],)?/, "", s); print s }' | sort
}
completed() { # the words the completion offers after LINE
	bash --norc --noprofile -c "$driver" _ "$top/userspace/completion/rdnactl.bash" "$1" | tr ' ' '\n' | grep . | sort
}
if [[ -n $rdnactl ]]; then
	echo "options of every subcommand against its --help ($rdnactl):"
	subs=$(rdnactl --help | awk '/^Subcommands:/ { on = 1; next } /^[^ ]/ { on = 0 } on && NF { print $1 }')
	got=$(completed "rdnactl " | grep -v '^-')
	if [[ $(sort <<<"$subs") == "$got" ]]; then echo "PASS subcommands: $(echo $subs)"; else
		echo "FAIL subcommands: --help lists '$(echo $subs)', completion offers '$(echo $got)'"
		fails=$((fails + 1))
	fi
	for path in "" $subs "config show" "config set" "config unset" "config undo"; do
		[[ $path == help ]] && continue
		# shellcheck disable=SC2086
		want=$(help_options $path)
		got=$(completed "rdnactl${path:+ $path} --")
		if [[ -n $want && $want == "$got" ]]; then
			echo "PASS rdnactl $path: $(echo $want)"
		else
			echo "FAIL rdnactl $path: --help lists '$(echo $want)', completion offers '$(echo $got)'"
			fails=$((fails + 1))
		fi
	done
fi
[[ $fails -eq 0 ]]
