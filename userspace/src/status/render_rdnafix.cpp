// The rdnafix section of `status --verbose`: each hook's state, then what the
// module counted for it (sys/kernel/rdnafix/calls, missing), the build-time
// evidence (evidence) and the reads of the swapped noretry (leaks).  The
// counter lines appear only when the module prints those files (ABI v1
// additions of issue 22).  Pure.
#include "render.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace rdnafix::status {

namespace {

std::string n(const std::optional<std::uint64_t> &x)
{
	return x ? std::to_string(*x) : std::string("?");
}

} // namespace

std::vector<std::string> rdnafix_hook_lines(const machine::Rdnafix &r)
{
	std::vector<std::string> out;
	for (const auto &[k, v] : r.hooks) {
		out.push_back(fmt::format("  hook {:<14} {}", k, v));
		auto it = r.hook_counts.find(k);
		if (it == r.hook_counts.end())
			continue;
		const auto &c = it->second;
		std::vector<std::string> parts;
		if (c.seen || c.refused)
			parts.push_back(fmt::format("calls seen={} refused={}", n(c.seen), n(c.refused)));
		if (c.missed_instance || c.missed_recursion)
			parts.push_back(fmt::format("missed instance={} recursion={}", n(c.missed_instance),
						    n(c.missed_recursion)));
		out.push_back(fmt::format("    {}", fmt::join(parts, "; ")));
	}
	for (const auto &[k, v] : r.evidence)
		out.push_back(fmt::format("  evidence {:<15} {}", k, v));
	if (r.leaks_total) {
		out.push_back(fmt::format("  noretry leaks   {}", *r.leaks_total));
		for (const auto &l : r.leaks)
			out.push_back("    " + l);
	}
	return out;
}

} // namespace rdnafix::status
