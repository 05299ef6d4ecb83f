// The environment side of the advice: the HSA_OVERRIDE_GFX_VERSION proposal
// for a machine without one, and `rdnactl env` as a filter over the
// environment remedies of the findings.  No I/O.
#include "checks.hpp"

#include "core/parse.hpp"
#include "core/rules.hpp"
#include "core/text_safe.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <set>

namespace rdnafix::status {

namespace detail {

std::optional<OverrideAdvice> override_advice(const Snapshot &snap)
{
	// Only when no override is set: a set one is judged by the checks instead.
	if (!snap.environment.overrides.empty())
		return std::nullopt;
	std::string want;
	std::string why;
	const Device *from = nullptr;
	bool conflict = false;
	const bool have_dgpu = std::any_of(snap.devices.begin(), snap.devices.end(),
					   [](const Device &o) { return o.is_amd && o.apu && !*o.apu; });
	for (const auto &d : snap.devices) {
		if (!d.is_amd || !d.gfx_target)
			continue;
		// Only GPUs that stay visible matter; with a mixed system the iGPU is hidden
		// (RDNA-ENV-006).
		if (d.apu && *d.apu && have_dgpu)
			continue;
		std::string safe = safe_override_for(*d.gfx_target);
		if (safe.empty()) {
			if (rules::rocm_officially_supported(*d.gfx_target))
				continue;
			conflict = conflict || !want.empty();
			continue;
		}
		if (!want.empty() && want != safe)
			conflict = true;
		want = safe;
		why = fmt::format("{} runs {} code unchanged (same instructions, hardware work-arounds and register "
				  "file in LLVM's feature lists)",
				  *d.gfx_target,
				  core::parse_hsa_override(safe) ? core::parse_hsa_override(safe)->name() : safe);
		from = &d;
	}
	if (want.empty() || conflict)
		return std::nullopt;
	return OverrideAdvice{want, why, from};
}

} // namespace detail

std::vector<Export> env_changes(const std::vector<Finding> &findings, const machine::Environment &env)
{
	std::vector<Export> out;
	std::set<std::string> done;
	auto add = [&](Export e) {
		if (e.comment.size() > 160) // cut on a UTF-8 boundary
			e.comment = e.comment.substr(0, core::utf8_prefix_len(e.comment, 157)) + "...";
		if (done.insert(e.name).second)
			out.push_back(std::move(e));
	};
	for (const auto &f : findings)
		for (const auto &r : f.remedies) {
			if (const auto *set = std::get_if<SetEnv>(&r))
				add({set->name, set->value, false, set->note, f.id});
			else if (const auto *unset = std::get_if<UnsetEnv>(&r);
				 unset && (env.vars.count(unset->name) || env.locate.count(unset->name)))
				add({unset->name, "", true, unset->note, f.id});
		}
	return out;
}

std::vector<Export> recommend_env(const Snapshot &snap)
{
	return env_changes(evaluate(snap), snap.environment);
}

} // namespace rdnafix::status
