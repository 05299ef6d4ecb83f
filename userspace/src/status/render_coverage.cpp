// The Code objects part of `rdnactl status`: the text section's lines and the
// `coverage` JSON object (the scan's own JSON, coverage/render_json.cpp).
#include "render.hpp"

#include "software/words.hpp"

#include <fmt/format.h>

namespace rdnafix::status {

std::vector<std::string> coverage_lines(const Assessment &a)
{
	std::vector<std::string> out;
	if (!a.coverage) {
		out.push_back("  not scanned (--no-coverage)");
		return out;
	}
	const coverage::Report &r = *a.coverage;
	if (r.installs.empty())
		out.push_back("  no PyTorch, ROCm or llama.cpp/ollama library with GPU code found");
	for (std::size_t i = 0; i < r.installs.size(); ++i) {
		const auto &in = r.installs[i];
		out.push_back(fmt::format("  {}  /{}", in.label, in.path));
		bool any = false;
		for (const auto &s : r.summary) {
			if (s.install != i)
				continue;
			any = true;
			std::string l =
				fmt::format("    {}: {}",
					    s.verdict.device.empty() ? s.verdict.gfx
								     : s.verdict.device + " (" + s.verdict.gfx + ")",
					    coverage::verdict_phrase(s.verdict));
			if (s.verdict.verdict == coverage::Verdict::native ||
			    s.verdict.verdict == coverage::Verdict::generic)
				l += fmt::format(" ({})", s.verdict.via);
			else
				l += fmt::format(" — {}: {}", s.library, s.verdict.reason);
			out.push_back(std::move(l));
		}
		if (!any)
			out.push_back(r.gpus.empty() ? "    no GPU to judge" : "    no GPU code in its libraries");
	}
	for (const auto &n : r.notes)
		out.push_back("  note: " + n);
	return out;
}

nlohmann::ordered_json coverage_json(const Assessment &a)
{
	if (!a.coverage)
		return nullptr;
	return coverage::to_json(*a.coverage, false);
}

} // namespace rdnafix::status
