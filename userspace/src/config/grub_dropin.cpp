// The GRUB drop-in (config/grub_dropin.hpp).  What it relies on: grub-mkconfig
// sources /etc/default/grub, then /etc/default/grub.d/*.cfg (Debian's
// grub-mkconfig), and 10_linux joins "GRUB_CMDLINE_LINUX GRUB_CMDLINE_LINUX_DEFAULT"
// for normal entries but only GRUB_CMDLINE_LINUX for recovery entries
// (docs/boot-config-facts.md, GRUB).
#include "config/grub_dropin.hpp"

#include "config/cmdline_tokens.hpp"

#include <fmt/format.h>

namespace rdnafix::config::detail {

namespace {

constexpr std::string_view kStateTag = "# rdnactl-cmdline: ";

// The shell half of the drop-in: identical for every state.  Variables are
// prefixed rdnafix_ and unset at the end (the file is sourced, not run); word
// splitting is done with parameter expansion, so no glob or IFS is involved.
constexpr std::string_view kFunctions = R"(rdnafix_has() {
	rdnafix_rest=$1
	while :; do
		rdnafix_rest=${rdnafix_rest#"${rdnafix_rest%%[! 	]*}"}
		[ -n "$rdnafix_rest" ] || return 1
		rdnafix_word=${rdnafix_rest%%[ 	]*}
		rdnafix_rest=${rdnafix_rest#"$rdnafix_word"}
		case ${rdnafix_word%%=*} in
		$2) return 0 ;;
		esac
	done
}

rdnafix_drop() {
	rdnafix_out=
	rdnafix_rest=$1
	while :; do
		rdnafix_rest=${rdnafix_rest#"${rdnafix_rest%%[! 	]*}"}
		[ -n "$rdnafix_rest" ] || return 0
		rdnafix_word=${rdnafix_rest%%[ 	]*}
		rdnafix_rest=${rdnafix_rest#"$rdnafix_word"}
		case ${rdnafix_word%%=*} in
		$2) ;;
		*) rdnafix_out=${rdnafix_out:+$rdnafix_out }$rdnafix_word ;;
		esac
	done
}

rdnafix_param() {
	rdnafix_to=GRUB_CMDLINE_LINUX_DEFAULT
	if rdnafix_has "${GRUB_CMDLINE_LINUX-}" "$1"; then
		rdnafix_to=GRUB_CMDLINE_LINUX
		rdnafix_drop "$GRUB_CMDLINE_LINUX" "$1"
		GRUB_CMDLINE_LINUX=$rdnafix_out
	fi
	if rdnafix_has "${GRUB_CMDLINE_LINUX_DEFAULT-}" "$1"; then
		rdnafix_drop "$GRUB_CMDLINE_LINUX_DEFAULT" "$1"
		GRUB_CMDLINE_LINUX_DEFAULT=$rdnafix_out
	fi
	[ -n "$2" ] || return 0
	if [ "$rdnafix_to" = GRUB_CMDLINE_LINUX ]; then
		GRUB_CMDLINE_LINUX=${GRUB_CMDLINE_LINUX:+$GRUB_CMDLINE_LINUX }$2
	else
		GRUB_CMDLINE_LINUX_DEFAULT=${GRUB_CMDLINE_LINUX_DEFAULT:+$GRUB_CMDLINE_LINUX_DEFAULT }$2
	fi
}
)";

// Single-quoted shell word (the values are validated, this is a second guard).
std::string sh_quote(std::string_view s)
{
	std::string out = "'";
	for (char c : s) {
		if (c == '\'')
			out += "'\\''";
		else
			out += c;
	}
	out += '\'';
	return out;
}

} // namespace

std::string shell_name_pattern(std::string_view param)
{
	std::string out;
	for (char c : param) {
		if (c == '_' || c == '-')
			out += "[_-]";
		else
			out += c;
	}
	return out;
}

std::vector<CmdlineChange> grub_dropin_state(std::string_view content)
{
	std::vector<CmdlineChange> out;
	std::size_t pos = 0;
	while (pos <= content.size()) {
		std::size_t nl = content.find('\n', pos);
		std::string_view line =
			content.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
		pos = nl == std::string_view::npos ? content.size() + 1 : nl + 1;
		if (line.substr(0, kStateTag.size()) != kStateTag)
			continue;
		std::string_view rest = line.substr(kStateTag.size());
		CmdlineChange c;
		if (rest.substr(0, 4) == "set ") {
			std::string_view w = rest.substr(4);
			auto eq = w.find('=');
			if (eq == std::string_view::npos)
				continue;
			c.param = std::string(w.substr(0, eq));
			c.value = std::string(w.substr(eq + 1));
		} else if (rest.substr(0, 7) == "remove ") {
			c.param = std::string(rest.substr(7));
		} else {
			continue;
		}
		if (invalid_change(c).empty())
			out.push_back(std::move(c));
	}
	return out;
}

std::vector<CmdlineChange> merge_state(std::vector<CmdlineChange> state, const std::vector<CmdlineChange> &changes)
{
	for (const auto &c : changes) {
		bool found = false;
		for (auto &e : state)
			if (normalize_param(e.param) == normalize_param(c.param)) {
				e = c;
				found = true;
			}
		if (!found)
			state.push_back(c);
	}
	return state;
}

std::string render_grub_dropin(const std::vector<CmdlineChange> &state)
{
	std::string out = "# Managed by rdnactl (rdnafix). Edit with 'rdnactl config'.\n"
			  "#\n"
			  "# grub-mkconfig sources this file after /etc/default/grub. For each parameter\n"
			  "# below it takes the parameter's words out of GRUB_CMDLINE_LINUX and\n"
			  "# GRUB_CMDLINE_LINUX_DEFAULT; a set then appends the configured word to\n"
			  "# GRUB_CMDLINE_LINUX when that variable held the parameter (recovery entries\n"
			  "# use only that one), else to GRUB_CMDLINE_LINUX_DEFAULT. Other words keep\n"
			  "# their order; sourcing it twice gives the same result. /etc/default/grub\n"
			  "# itself is not changed: delete this file (or 'rdnactl config undo') and run\n"
			  "# update-grub to go back.\n"
			  "#\n";
	for (const auto &c : state)
		out += c.value ? fmt::format("{}set {}={}\n", kStateTag, c.param, *c.value)
			       : fmt::format("{}remove {}\n", kStateTag, c.param);
	out += "\n";
	out += kFunctions;
	out += "\n";
	for (const auto &c : state)
		out += fmt::format("rdnafix_param {} {}\n", sh_quote(shell_name_pattern(c.param)),
				   sh_quote(word_of(c)));
	out += "unset -f rdnafix_has rdnafix_drop rdnafix_param\n"
	       "unset rdnafix_rest rdnafix_word rdnafix_out rdnafix_to\n";
	return out;
}

} // namespace rdnafix::config::detail
