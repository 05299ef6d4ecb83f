// `rdnactl env`: the environment changes as sh or fish lines.
#include "render.hpp"

#include <fmt/format.h>

namespace rdnafix::status {

std::string render_env(const std::vector<Export> &exports, Shell shell)
{
	std::string o;
	if (exports.empty())
		return "# rdnactl env: nothing to set for this machine\n";
	for (const auto &e : exports) {
		o += fmt::format("# {} ({})\n", e.comment, e.check_id);
		if (shell == Shell::fish)
			o += e.unset ? fmt::format("set -e {}\n", e.name)
				     : fmt::format("set -gx {} '{}'\n", e.name, e.value);
		else
			o += e.unset ? fmt::format("unset {}\n", e.name)
				     : fmt::format("export {}='{}'\n", e.name, e.value);
	}
	return o;
}

std::string render_env_sudo_note(const machine::Environment &env)
{
	if (env.sudo_user.empty())
		return "";
	std::string o = fmt::format("# run under sudo: access judged for user {}; ", env.sudo_user);
	if (!env.sudo_environ_read)
		return o + "the environment of the sudo call could not be read (this is sudo's reset one)\n";
	o += fmt::format("these lines are for {}'s environment (as sudo was called)\n", env.sudo_user);
	if (!env.sudo_dropped.empty()) {
		std::string names;
		for (const auto &d : env.sudo_dropped)
			names += (names.empty() ? "" : ",") + d;
		o += fmt::format(
			"# sudo dropped these variables: {}; pass them with sudo --preserve-env={} (or sudo -E)\n",
			names, names);
	}
	return o;
}

} // namespace rdnafix::status
