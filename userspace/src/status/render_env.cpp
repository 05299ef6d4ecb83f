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

} // namespace rdnafix::status
