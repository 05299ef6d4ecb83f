#!/usr/bin/env bash
# The man page and docs/rdnactl.md describe the rdnactl that exists:
#   - every subcommand of `rdnactl --help` (and of `rdnactl config --help`) is in
#     the man page's SYNOPSIS and in docs/rdnactl.md's synopsis block;
#   - every --option of every subcommand's --help is in both;
#   - every file docs/rdnactl.md and the man page point to exists in the tree.
#   tests/unit/app/docs_match_help.sh RDNACTL   (exit 0 pass, 1 fail)
set -uo pipefail
rdnactl=$(realpath "$1")
top=$(cd "$(dirname "$0")/../../.." && pwd)
man=$top/userspace/man/rdnactl.1
md=$top/docs/rdnactl.md
fails=0
pass() { echo "PASS $*"; }
fail() {
	echo "FAIL $*"
	fails=$((fails + 1))
}
section() { # SECTION ARGS...: the first words of the lines of a --help section
	local s=$1
	shift
	"$rdnactl" "$@" --help | awk -v s="$s:" '$0 == s { on = 1; next } /^[^ ]/ { on = 0 } on && NF { print $1 }'
}
options() { # ARGS...: the --long options of `rdnactl ARGS --help`
	section Options "$@" | sed -n 's/^\(-[A-Za-z],\)\{0,1\}\(--[a-z0-9-]*\).*/\2/p' | grep -vx -- --help
}
synopsis_md=$(awk '/^```/ { n++; next } n == 1' "$md")
synopsis_man=$(awk '/^\.SH SYNOPSIS/ { on = 1; next } /^\.SH/ { on = 0 } on' "$man" | sed 's/\\-/-/g')

paths=("")
for v in $(section Subcommands); do
	paths+=("$v")
	[[ $v == help ]] && continue # rdnactl help --help is rdnactl --help
	for a in $(section Subcommands "$v" 2>/dev/null); do paths+=("$v $a"); done
done
for p in "${paths[@]}"; do
	[[ -z $p ]] && continue
	if grep -q "^\.B rdnactl $p\b" <<<"$synopsis_man"; then pass "man SYNOPSIS: rdnactl $p"; else fail "man SYNOPSIS lacks 'rdnactl $p'"; fi
	if grep -q "^rdnactl $p\b" <<<"$synopsis_md"; then pass "docs/rdnactl.md synopsis: rdnactl $p"; else fail "docs/rdnactl.md synopsis lacks 'rdnactl $p'"; fi
	[[ $p == help ]] && continue # its --help is rdnactl --help
	# This command's own synopsis: man from ".B rdnactl P" to the next ".br"; the doc's line and its
	# indented continuation lines.
	man_p=$(awk -v p=".B rdnactl $p" '$0 == p { on = 1; next } /^\.br/ { on = 0 } on' <<<"$synopsis_man")
	md_p=$(awk -v p="rdnactl $p " 'index($0, p) == 1 { on = 1; print; next } /^[^ ]/ { on = 0 } on' <<<"$synopsis_md")
	# shellcheck disable=SC2086
	for o in $(options $p); do
		grep -q -- "$o\b" <<<"$man_p" || fail "man SYNOPSIS: rdnactl $p lacks $o"
		grep -q -- "$o\b" <<<"$md_p" || fail "docs/rdnactl.md synopsis: rdnactl $p lacks $o"
	done
done
for o in $(options); do grep -q -- "$o" <<<"$synopsis_man" || fail "man SYNOPSIS lacks rdnactl $o"; done

# Files pointed to: links and docs/ paths in docs/rdnactl.md, repository paths in both.
while read -r f; do
	[[ -e $top/docs/$f || -e $top/$f ]] && pass "docs/rdnactl.md points to $f: exists" || fail "docs/rdnactl.md points to $f: missing"
done < <(grep -o '([a-z0-9_-]*\.md)' "$md" | tr -d '()' | sort -u)
while read -r f; do
	[[ -e $top/$f ]] && pass "points to $f: exists" || fail "points to $f: missing"
done < <(cat "$md" "$man" | sed 's/\\-/-/g' | grep -oE '\b(docs|userspace|tests|kmod)/[A-Za-z0-9_./-]*[A-Za-z0-9_]' |
	grep -v '<' | sort -u)
while read -r f; do
	[[ -n $(find "$top/userspace/src" -name "$f") ]] && pass "source file $f exists" || fail "source file $f: missing"
done < <(grep -oE '`[a-z_]+\.(cpp|hpp)`' "$md" | tr -d '`' | sort -u)
[[ $fails -eq 0 ]] && echo "all passed" || echo "$fails failed"
[[ $fails -eq 0 ]]
