// The hipErrorNoBinaryForGpu report's lists (Devices:, Bundled Code
// Objects:), read line by line.  Pure.
#include "explain/match_lines.hpp"

#include "core/parse.hpp"

#include <algorithm>

namespace rdnafix::explain {

namespace {

bool has(std::string_view hay, std::string_view needle)
{
	return hay.find(needle) != std::string_view::npos;
}

} // namespace

std::string target_of(std::string_view s)
{
	const auto at = s.find("amdgcn-amd-amdhsa-");
	if (at == std::string_view::npos)
		return "";
	std::string_view rest = s.substr(at + 18);
	while (!rest.empty() && rest.front() == '-')
		rest.remove_prefix(1);
	rest = rest.substr(0, rest.find_first_of(" \t]"));
	if (!rest.starts_with("gfx"))
		return "";
	return std::string(rest);
}

bool parse_nobinary_line(std::string_view line, NoBinaryDecode *d, int *section_state)
{
	const std::string_view t = core::trim(line);
	int &section = *section_state;
	if (t == "Devices:") {
		section = 1;
		return true;
	}
	if (t == "Bundled Code Objects:") {
		section = 2;
		return true;
	}
	if (section == 0)
		return false;
	if (t.starts_with("host-") && section == 2)
		return true;
	const std::string target = target_of(t);
	if (target.empty()) {
		section = 0;
		return false;
	}
	// A real list names a few dozen targets; a longer one is read, not kept.
	constexpr std::size_t kMaxTargets = 256;
	if (section == 1) {
		if (d->devices.size() >= kMaxTargets)
			return true;
		d->devices.push_back(target);
		if (has(t, "[Not Found]"))
			d->missing.push_back(target);
	} else if (d->bundled.size() < kMaxTargets) {
		d->bundled.push_back(target);
	}
	return true;
}

void finish_nobinary(NoBinaryDecode *d)
{
	// a device whose processor no bundled object names lacks code even when not marked
	for (const auto &dev : d->devices) {
		const std::string proc = dev.substr(0, dev.find(':'));
		const bool found = std::any_of(d->bundled.begin(), d->bundled.end(),
					       [&](const std::string &b) { return b.substr(0, b.find(':')) == proc; });
		if (!found && std::find(d->missing.begin(), d->missing.end(), dev) == d->missing.end())
			d->missing.push_back(dev);
	}
}

} // namespace rdnafix::explain
