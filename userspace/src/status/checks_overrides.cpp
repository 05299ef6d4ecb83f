// Checks: HSA_OVERRIDE_GFX_VERSION and its per-node form, judged per device
// (the verdicts come from assess(); see core::rules::assess_override).
#include "checks.hpp"

#include "core/parse.hpp"
#include "core/rules.hpp"

#include <fmt/format.h>

namespace rdnafix::status {

namespace detail {

namespace {

// What to do instead of an override with a caveat: the ISA-safe value when
// there is one, else native or generic code.
std::string safe_fix(const std::string &name, const std::string &native)
{
	std::string safe = safe_override_for(native), generic = generic_name_of(native);
	std::string code =
		fmt::format("libraries with native {}{} code objects", native, generic.empty() ? "" : " or " + generic);
	auto safe_target = core::parse_hsa_override(safe);
	if (safe_target)
		return fmt::format("export {}={} (ISA-safe for {}) if the libraries have {} code; else {}; keep "
				   "the override only if your workload validates (rdnactl validate)",
				   name, safe, native, safe_target->name(), code);
	return fmt::format("prefer {}; keep the override only if your workload validates (rdnactl validate)", code);
}

} // namespace

void check_overrides(Ctx &c)
{
	const auto &s = c.s;
	const auto &env = s.environment;
	auto amd = amd_devices(s);
	for (size_t k = 0; k < env.overrides.size(); ++k) {
		const OverrideVar &o = env.overrides[k];
		const std::vector<OverrideJudgement> &verdicts = c.a.overrides[k];
		if (!o.target) {
			// The replacement: the safe value of the GPU it applies to, a
			// discrete GPU first.
			std::string native, safe;
			for (int pass = 0; pass < 2 && safe.empty(); ++pass)
				for (const Device *d : amd)
					if (d->gfx_target && (!o.node || d->kfd_node == o.node) &&
					    (pass == 1 || (d->apu && !*d->apu)) && safe.empty()) {
						native = *d->gfx_target;
						safe = safe_override_for(native);
					}
			c.add("RDNA-ENV-001", o.name, o.error,
			      "the runtime expects three decimal numbers major.minor.stepping (e.g. 10.3.0); an "
			      "invalid "
			      "value is ignored with 'HSA_OVERRIDE_GFX_VERSION ... is invalid', so the workaround you "
			      "think is active is not",
			      safe.empty() ? fmt::format("unset {}", o.name)
					   : fmt::format("export {}={}   # for {}", o.name, safe, native),
			      {safe.empty() ? Remedy{UnsetEnv{o.name, first_clause(o.error)}}
					    : Remedy{SetEnv{o.name, safe,
							    first_clause(o.error) + "; this is the ISA-safe value"}}});
			continue;
		}
		if (verdicts.empty() && amd.empty()) {
			std::string finding = fmt::format("{}={} is set but there is no AMD GPU", o.name, o.value);
			c.add("RDNA-ENV-011", o.name, finding,
			      "a leftover override is applied to whatever GPU appears later (an MI210 faulted with a "
			      "forgotten 10.3.0, ROCm/ROCm#5238)",
			      fmt::format("unset {}", o.name), {UnsetEnv{o.name, first_clause(finding)}});
			continue;
		}
		if (verdicts.empty() && o.node) {
			c.add("RDNA-ENV-005", o.name,
			      fmt::format("{} names KFD node {}, which is not an AMD GPU", o.name, *o.node),
			      "the per-node override applies to the KFD topology node id (node 0 is normally the CPU); "
			      "this one affects nothing",
			      "use the node id shown under Devices ('KFD node'), or unset it");
			continue;
		}
		const std::string gfx = o.target->name();
		for (const auto &v : verdicts) {
			if (v.verdict == rules::OverrideVerdict::pointless) {
				std::string finding =
					fmt::format("{}={} equals the native target {}", o.name, o.value, v.native);
				c.add("RDNA-ENV-003", o.name + " @ " + v.device, finding,
				      "it changes nothing today, but stays in effect when the GPU or the libraries "
				      "change",
				      fmt::format("unset {}", o.name), {UnsetEnv{o.name, first_clause(finding)}});
			} else if (v.verdict == rules::OverrideVerdict::isa_safe)
				c.add("RDNA-ENV-004", o.name + " @ " + v.device,
				      fmt::format("{}={} runs {} code on {}: {}", o.name, o.value, gfx, v.native,
						  v.reason),
				      "this is the usual workaround when libraries lack code for the native target",
				      fmt::format("none needed; prefer libraries with native or generic ({}) code "
						  "objects when available",
						  generic_name_of(v.native)));
			else if (v.verdict == rules::OverrideVerdict::works_not_guaranteed)
				c.add("RDNA-ENV-012", o.name + " @ " + v.device,
				      fmt::format("{}={} runs {} code on {}: {}", o.name, o.value, gfx, v.native,
						  v.reason),
				      "the code was built for a GPU with more registers or without a hardware "
				      "work-around this one needs: most kernels run, some can fault, hang or need "
				      "registers the GPU does not have",
				      safe_fix(o.name, v.native));
			else if (v.verdict == rules::OverrideVerdict::unsafe) {
				std::string finding = fmt::format("{}={} makes the runtime load {} code on a {}: {}",
								  o.name, o.value, gfx, v.native, v.reason);
				c.add("RDNA-ENV-002", o.name + " @ " + v.device, finding,
				      "the instruction sets differ: kernels can trap (HSA_STATUS_ERROR_MEMORY_APERTURE_"
				      "VIOLATION, 'Memory access fault') or compute different results",
				      fmt::format("unset {} and use libraries built for {}", o.name, v.native),
				      {UnsetEnv{o.name, first_clause(finding)}});
			} else
				c.add("RDNA-ENV-013", o.name + " @ " + v.device,
				      fmt::format("{}={} ({}) on {}: {}", o.name, o.value, gfx,
						  v.native.empty() ? "unknown native target" : v.native, v.reason),
				      "an ISA the runtime does not know makes agent creation fail ('The GPU node has "
				      "an "
				      "unrecognized id'); an unknown native target cannot be judged",
				      fmt::format("unset {} unless you know the target pair is compatible", o.name));
		}
	}
}

} // namespace detail

} // namespace rdnafix::status
