// The code-object fixes of one match, merged over the GPUs: one export line
// per override value, one install line per kind (see judge_support.hpp).
#include "explain/judge_support.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace rdnafix::explain::detail {

namespace {

std::string and_list(const std::vector<std::string> &v)
{
	if (v.size() <= 1)
		return v.empty() ? "" : v.front();
	return fmt::format("{} and {}", fmt::join(v.begin(), v.end() - 1, ", "), v.back());
}

} // namespace

// The pending fixes as lines: the exports (one per value), then the builds
// to install (one line for the targets with an export, one for the rest).
void flush_code_fixes(std::vector<CodeFix> &pending, Explanation *e)
{
	std::vector<bool> done(pending.size(), false);
	for (std::size_t i = 0; i < pending.size(); ++i) {
		if (done[i] || pending[i].safe_dotted.empty())
			continue;
		std::vector<std::string> targets;
		for (std::size_t k = i; k < pending.size(); ++k)
			if (!done[k] && pending[k].safe_dotted == pending[i].safe_dotted &&
			    pending[k].safe_name == pending[i].safe_name && pending[k].generic == pending[i].generic &&
			    pending[k].here == pending[i].here) {
				done[k] = true;
				if (std::find(targets.begin(), targets.end(), pending[k].gfx) == targets.end())
					targets.push_back(pending[k].gfx);
			}
		e->fix.push_back(fmt::format("export HSA_OVERRIDE_GFX_VERSION={}   # {} run{} {} code: ISA-safe "
					     "(LLVM feature lists, generic processor {})",
					     pending[i].safe_dotted, and_list(targets), targets.size() == 1 ? "s" : "",
					     pending[i].safe_name, pending[i].generic));
	}
	// the install lines, one per (offered, here) kind, in the order the kinds first appear
	std::vector<std::pair<bool, bool>> kinds;
	for (const auto &p : pending)
		if (std::find(kinds.begin(), kinds.end(), std::pair(p.offered, p.here)) == kinds.end())
			kinds.emplace_back(p.offered, p.here);
	std::stable_partition(kinds.begin(), kinds.end(), [](const auto &k) { return k.first; });
	for (const auto &[offered, here] : kinds) {
		std::vector<std::string> targets;
		for (const auto &p : pending)
			if (p.offered == offered && p.here == here &&
			    std::find(targets.begin(), targets.end(), p.gfx) == targets.end())
				targets.push_back(p.gfx);
		const bool one = targets.size() == 1;
		e->fix.push_back(
			fmt::format("{}nstall a build that contains {} (or {} generic famil{}): e.g. a "
				    "PyTorch wheel / ROCm built with PYTORCH_ROCM_ARCH / GPU_TARGETS including {}",
				    offered ? "or i" : "i", and_list(targets), one ? "its" : "their", one ? "y" : "ies",
				    fmt::join(targets, ";")));
	}
	pending.clear();
}

} // namespace rdnafix::explain::detail
