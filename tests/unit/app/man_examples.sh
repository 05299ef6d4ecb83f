#!/usr/bin/env bash
# The man page's EXAMPLES and the scope statement (issue 21):
#   - every verb of rdnactl has an example; every example's verb, --options,
#     RDNA-LOG ids and validate case names exist (rdnactl's --help and --list);
#   - no example names a path of this repository (the man page is installed);
#   - no advice to append to ~/.profile (non-login shells never read it);
#     env's persistence advice names ~/.bashrc, ~/.zshrc and environment.d;
#   - README.md, the man page and docs/rdnactl.md state the scope: Linux only,
#     WSL2, not Windows' HIP SDK.
#   tests/unit/app/man_examples.sh RDNACTL   (exit 0 pass, 1 fail)
set -uo pipefail
rdnactl=$(realpath "$1")
top=$(cd "$(dirname "$0")/../../.." && pwd)
man=$top/userspace/man/rdnactl.1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=../../lib/verdicts.sh
. "$top/tests/lib/verdicts.sh"

# The EXAMPLES lines, roff escapes undone.
awk '/^\.SH EXAMPLES/ { on = 1; next } /^\.SH/ { on = 0 } on && !/^\./' "$man" |
	sed -e 's/\\-/-/g' -e "s/\\\\(aq/'/g" -e 's/\\(dq/"/g' >"$tmp/examples"
[[ -s $tmp/examples ]] || fail "the man page has no EXAMPLES lines"
"$rdnactl" --help | awk '/^Subcommands:/ { on = 1; next } /^[^ ]/ { on = 0 } on && NF { print $1 }' |
	grep -vx help >"$tmp/verbs"
"$rdnactl" explain --list | awk '/^RDNA-LOG-/ { print $1 }' >"$tmp/ids"
"$rdnactl" validate --list | awk '/^[^ ]/ { print $1 }' >"$tmp/cases"
while read -r verb; do
	grep -q "rdnactl $verb\b" "$tmp/examples" && pass "EXAMPLES has rdnactl $verb" || fail "EXAMPLES has no rdnactl $verb"
done <"$tmp/verbs"
while read -r line; do
	# the words after "rdnactl" (a pipe or redirection ends the command)
	cmd=$(sed -e 's/.*rdnactl //' -e 's/ *[|>].*//' <<<"$line")
	read -r -a w <<<"$cmd"
	verb=${w[0]}
	[[ $verb == config ]] && verb="config ${w[1]}"
	# shellcheck disable=SC2086
	"$rdnactl" $verb --help >"$tmp/help" 2>&1 || { fail "example '$line': no verb '$verb'"; continue; }
	ok=1
	for x in "${w[@]}"; do
		case $x in
		--*) grep -q -- "^ *\(-[a-z],\)\?${x%%=*}\b" "$tmp/help" || { fail "example '$line': $verb has no $x"; ok=0; } ;;
		RDNA-LOG-*) grep -qx "$x" "$tmp/ids" || { fail "example '$line': no signature $x"; ok=0; } ;;
		conv.* | mem.* | capacity.* | stream.* | torch.* | transfer.*) grep -qx "$x" "$tmp/cases" || { fail "example '$line': no case $x"; ok=0; } ;;
		esac
	done
	[[ $ok -eq 1 ]] && pass "example: $line"
done < <(grep "rdnactl " "$tmp/examples")
if grep -nE '(^| )(\./)?(tests|userspace|build|docs|kmod)/' "$tmp/examples"; then
	fail "an example names a path of the repository (above)"
else
	pass "no example names a path of the repository"
fi
if sed 's/\\-/-/g' "$man" "$top/docs/rdnactl.md" | grep -nE '>>? *~/\.profile'; then
	fail "the man page advises ~/.profile (above)"
else
	pass "no advice to append to ~/.profile"
fi
for want in '~/.bashrc' '~/.zshrc' 'environment.d' 'conf.d/rdnafix.fish'; do
	grep -qF -- "$want" "$man" && grep -qF -- "$want" "$top/docs/rdnactl.md" && pass "env advice names $want (man, docs)" ||
		fail "env advice: $want missing in the man page or docs/rdnactl.md"
done
for f in "$top/README.md" "$man" "$top/docs/rdnactl.md"; do
	t=$(sed 's/\\-/-/g' "$f" | tr '\n' ' ')
	if [[ $t == *"Scope: Linux only."* && $t == *WSL2* && $t == *"HIP SDK for Windows"*"is not supported"* ]]; then
		pass "${f#"$top"/}: scope statement"
	else
		fail "${f#"$top"/}: no scope statement (Linux only; WSL2; not the HIP SDK for Windows)"
	fi
done
[[ $nfail -eq 0 ]] && echo "all passed" || echo "$nfail failed"
[[ $nfail -eq 0 ]]
