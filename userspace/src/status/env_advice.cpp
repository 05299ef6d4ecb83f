// recommend_env(): the environment changes of `rdnactl env`.
#include "checks.hpp"

#include "core/rules.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <set>

namespace rdnafix::status {

std::vector<Export> recommend_env(const Snapshot &snap)
{
	std::vector<Export> out;
	std::set<std::string> done;
	auto add = [&](Export e) {
		if (e.comment.size() > 160)
			e.comment = e.comment.substr(0, 157) + "...";
		if (done.insert(e.name).second)
			out.push_back(std::move(e));
	};
	// One short line: the first clause of a finding.
	auto clause = [](std::string s) {
		auto cut = s.find(": ");
		if (cut != std::string::npos && cut > 20)
			s.resize(cut);
		return s;
	};
	const auto &env = snap.environment;
	auto findings = evaluate(snap);
	for (const auto &f : findings) {
		if (f.id == "RDNA-ENV-001" || f.id == "RDNA-ENV-002" || f.id == "RDNA-ENV-003" ||
		    f.id == "RDNA-ENV-011") {
			std::string var = f.subject.substr(0, f.subject.find(' '));
			// An invalid value with a safe replacement is replaced, not unset.
			if (f.id == "RDNA-ENV-001" && f.fix.rfind("export ", 0) == 0) {
				auto eq = f.fix.find('=');
				auto sp = f.fix.find(' ', eq);
				add({var, f.fix.substr(eq + 1, sp - eq - 1), false,
				     clause(f.finding) + "; this is the ISA-safe value", f.id});
			} else {
				add({var, "", true, clause(f.finding), f.id});
			}
		} else if (f.id == "RDNA-ENV-008") {
			for (std::string_view n : {"HIP_LAUNCH_BLOCKING", "AMD_SERIALIZE_KERNEL", "AMD_SERIALIZE_COPY",
						   "PYTORCH_NO_HIP_MEMORY_CACHING", "PYTORCH_NO_CUDA_MEMORY_CACHING",
						   "CUDA_LAUNCH_BLOCKING"})
				if (auto it = env.vars.find(std::string(n));
				    it != env.vars.end() && !it->second.empty() && it->second != "0")
					add({std::string(n), "", true,
					     "slow debug switch (" + std::string(n) + "=" + it->second + ")", f.id});
		} else if (f.id == "RDNA-ENV-009") {
			add({"HSA_XNACK", "", true, "KFD never enables XNACK on GFX10", f.id});
		} else if (f.id == "RDNA-ENV-006" || f.id == "RDNA-ENV-007") {
			auto pos = f.fix.find("ROCR_VISIBLE_DEVICES=");
			if (f.id == "RDNA-ENV-007") {
				for (const auto &v : env.visible)
					if (v.name != "ROCR_VISIBLE_DEVICES")
						add({v.name, "", true, "conflicts with the dGPU selection", f.id});
			}
			if (pos != std::string::npos)
				add({"ROCR_VISIBLE_DEVICES", f.fix.substr(pos + 21), false,
				     "select only the discrete GPU(s): " + clause(f.finding), f.id});
			else if (f.id == "RDNA-ENV-007")
				add({"ROCR_VISIBLE_DEVICES", "", true, clause(f.finding), f.id});
		}
	}
	// Needed override: a gfx103x GPU other than gfx1030 and no valid override set.
	bool have_override = !env.overrides.empty();
	if (!have_override) {
		std::string want;
		std::string why;
		bool conflict = false;
		for (const auto &d : snap.devices) {
			if (!d.is_amd || !d.gfx_target)
				continue;
			// Only GPUs that stay visible matter; with a mixed system we hide the iGPU above.
			std::string safe = detail::safe_override_for(*d.gfx_target);
			if (d.apu && *d.apu &&
			    std::any_of(snap.devices.begin(), snap.devices.end(),
					[](const Device &o) { return o.is_amd && o.apu && !*o.apu; }))
				continue;
			if (safe.empty()) {
				if (rules::rocm_officially_supported(*d.gfx_target))
					continue;
				conflict = conflict || !want.empty();
				continue;
			}
			if (!want.empty() && want != safe)
				conflict = true;
			want = safe;
			why = fmt::format("{} runs gfx1030 code unchanged; wheels ship gfx1030 only", *d.gfx_target);
		}
		if (!want.empty() && !conflict)
			add({"HSA_OVERRIDE_GFX_VERSION", want, false, why, "RDNA-GPU-002"});
	}
	return out;
}

} // namespace rdnafix::status
