// `rdnactl env`: the environment changes as sh or fish lines.  The output is
// meant for `eval`, so everything from the machine is made inert: comments are
// one line of terminal-safe text, values are single-quoted for the shell that
// reads them, and a name that is not a shell identifier is never emitted as code.
#include "render.hpp"

#include "core/text_safe.hpp"

#include <fmt/format.h>

namespace rdnafix::status {

namespace {

// A POSIX shell (and fish) variable name: [A-Za-z_][A-Za-z0-9_]*.
bool shell_name(std::string_view n)
{
	if (n.empty() || (n[0] >= '0' && n[0] <= '9'))
		return false;
	for (char ch : n)
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_'))
			return false;
	return true;
}

// One comment line: terminal_safe escapes every control character (a newline
// becomes the two characters "\n"), so nothing can end the comment.
std::string comment(std::string_view text)
{
	return "# " + core::terminal_safe(text) + "\n";
}

// sh: inside '...' nothing is special; a quote is closed, escaped and reopened.
std::string sh_quote(std::string_view v)
{
	std::string o = "'";
	for (char ch : v)
		o += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
	return o + "'";
}

// fish: inside '...' only \' and \\ are escapes.
std::string fish_quote(std::string_view v)
{
	std::string o = "'";
	for (char ch : v) {
		if (ch == '\'' || ch == '\\')
			o += '\\';
		o += ch;
	}
	return o + "'";
}

} // namespace

std::string export_line(const Export &e, Shell shell)
{
	if (!shell_name(e.name))
		return "";
	if (shell == Shell::fish)
		return e.unset ? fmt::format("set -e {}", e.name)
			       : fmt::format("set -gx {} {}", e.name, fish_quote(e.value));
	return e.unset ? fmt::format("unset {}", e.name) : fmt::format("export {}={}", e.name, sh_quote(e.value));
}

std::string render_env(const std::vector<Export> &exports, Shell shell)
{
	std::string o;
	if (exports.empty())
		return "# rdnactl env: nothing to set for this machine\n";
	for (const auto &e : exports) {
		o += comment(fmt::format("{} ({})", e.comment, e.check_id));
		if (!shell_name(e.name)) {
			o += comment(fmt::format("not emitted: '{}' is not a shell variable name; {} it with env(1)",
						 e.name, e.unset ? "remove" : "set"));
			continue;
		}
		o += export_line(e, shell) + "\n";
	}
	return o;
}

std::string render_env_sudo_note(const machine::Environment &env)
{
	if (env.sudo_user.empty())
		return "";
	std::string o = fmt::format("run under sudo: access judged for user {}; ", env.sudo_user);
	if (!env.sudo_environ_read)
		return comment(o + "the environment of the sudo call could not be read (this is sudo's reset one)");
	o += fmt::format("these lines are for {}'s environment (as sudo was called)", env.sudo_user);
	std::string out = comment(o);
	if (!env.sudo_dropped.empty()) {
		std::string names;
		for (const auto &d : env.sudo_dropped)
			names += (names.empty() ? "" : ",") + d;
		out += comment(fmt::format(
			"sudo dropped these variables: {}; pass them with sudo --preserve-env={} (or sudo -E)", names,
			names));
	}
	return out;
}

std::string_view verdict_word(VarVerdict v)
{
	switch (v) {
	case VarVerdict::in_effect:
		return "in effect";
	case VarVerdict::slow:
		return "slow debug switch";
	case VarVerdict::value_ignored:
		return "value ignored";
	case VarVerdict::value_rejected:
		return "value rejected";
	case VarVerdict::no_effect:
		return "no effect on ROCm";
	case VarVerdict::build_time_only:
		return "build time only";
	case VarVerdict::not_real:
		return "not a real variable";
	case VarVerdict::deprecated:
		return "deprecated";
	case VarVerdict::unverified:
		return "effect not verified";
	case VarVerdict::misspelt:
		return "misspelt: not read";
	case VarVerdict::unknown:
		return "unknown";
	}
	return "";
}

} // namespace rdnafix::status
