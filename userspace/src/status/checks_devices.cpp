// Checks: which GPUs are there and whether ROCm supports their gfx target.
#include "checks.hpp"

#include "software/words.hpp"

#include "core/parse.hpp"
#include "core/rules.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace rdnafix::status {

namespace detail {

namespace {

// The HSA_OVERRIDE_GFX_VERSION variable that applies to `d` (ROCr: the _<N>
// form for KFD node N before the plain one), valid or not; null when none is set.
const machine::OverrideVar *override_for(const Snapshot &s, const Device &d)
{
	const machine::OverrideVar *plain = nullptr;
	for (const auto &o : s.environment.overrides) {
		if (o.node && d.kfd_node && *o.node == *d.kfd_node)
			return &o;
		if (!o.node)
			plain = &o;
	}
	return plain;
}

} // namespace

void check_devices(Ctx &c)
{
	auto amd = amd_devices(c.s);
	if (amd.empty()) {
		if (c.s.wsl.kind != machine::WslKind::none)
			return; // WSL has no DRM device: RDNA-WSL-001..003 say what is there
		for (const char *item : {"drm_devices", "pci_devices", "drm_node", "device_count"})
			if (const auto *u = unreadable_item(c.s, item)) {
				add_unknown(c, "", "whether this machine has an AMD GPU", *u);
				return;
			}
		c.add("RDNA-GPU-001", "", "no AMD GPU among the DRM/PCI devices",
		      "ROCm and PyTorch-ROCm need an AMD GPU; everything else in this report is informational",
		      "none needed on a machine without an AMD GPU; in a container, pass the host's /dev/dri and "
		      "/dev/kfd and bind-mount /sys");
		return;
	}
	const auto advice = override_advice(c.s);
	const VisibleGpus visible = visible_gpus(c.s);
	const bool have_dgpu = std::any_of(amd.begin(), amd.end(), [](const Device *d) { return d->apu && !*d->apu; });
	for (const Device *d : amd) {
		if (!d->gfx_target) {
			c.add("RDNA-GPU-003", dev_label(*d),
			      fmt::format("gfx target unknown for PCI {:04x}:{:04x}", d->vendor_id.value_or(0),
					  d->device_id.value_or(0)),
			      "without the gfx target neither the override nor library coverage can be judged",
			      "load amdgpu (KFD reports gfx_target_version) or report the PCI id to rdnafix so the GPU "
			      "database can be extended");
			continue;
		}
		if (rules::rocm_officially_supported(*d->gfx_target))
			continue;
		std::string safe = safe_override_for(*d->gfx_target);
		bool rdna1 = d->generation == gpudb::Generation::rdna1;
		// The target the runtime loads code for: an ISA-compatible override that is
		// set decides (RDNA-ENV-004/012 report it).
		const std::string runs_as = effective_target(c, *d);
		const bool override_covers = runs_as != *d->gfx_target && rules::rocm_officially_supported(runs_as);
		const bool is_hidden = hidden(visible, *d);
		const bool mixed_igpu = d->apu && *d->apu && have_dgpu; // RDNA-ENV-006/007/018 speak for it
		const machine::OverrideVar *set = override_for(c.s, *d);
		std::string fix =
			override_covers && set
				? fmt::format("none while {}={} stays set where the GPU is used; or use libraries "
					      "built for {} or {}",
					      set->name, set->value, *d->gfx_target, generic_name_of(*d->gfx_target))
			: !safe.empty()
				? fmt::format("export HSA_OVERRIDE_GFX_VERSION={} (ISA-compatible: {} runs {} "
					      "code unchanged), or use libraries built for {} or {}",
					      safe, *d->gfx_target,
					      core::parse_hsa_override(safe) ? core::parse_hsa_override(safe)->name()
									     : safe,
					      *d->gfx_target, generic_name_of(*d->gfx_target))
			: rdna1 ? "use libraries built natively for gfx101x (Debian's ROCm packages, a "
				  "self-built PyTorch) and do NOT set HSA_OVERRIDE_GFX_VERSION=10.3.0"
				: fmt::format("use libraries that contain {} code objects", *d->gfx_target);
		// With a coverage scan the "may" becomes what the installed libraries
		// contain (RDNA-COV-00x carry the remedies).
		std::string installed;
		if (c.a.coverage)
			for (const auto &sv : c.a.coverage->summary)
				if (sv.verdict.device == d->pci_bdf)
					installed += fmt::format("{}{}: {}", installed.empty() ? "" : "; ",
								 c.a.coverage->installs[sv.install].label,
								 coverage::verdict_phrase(sv.verdict));
		// A warning unless something already gives it code (a safe override that is
		// set, a scan whose RDNA-COV findings judge it) or it is not in use (hidden,
		// or an iGPU next to a dGPU, which the RDNA-ENV checks handle).
		const bool warn =
			rdna1 || safe.empty() || (installed.empty() && !override_covers && !is_hidden && !mixed_igpu);
		std::string state =
			override_covers ? fmt::format("; the override set runs {} code on it", runs_as)
			: is_hidden     ? "; hidden by *_VISIBLE_DEVICES"
			: mixed_igpu    ? "; an iGPU next to a discrete GPU"
			: safe.empty()  ? ""
			: !set          ? "; no HSA_OVERRIDE_GFX_VERSION is set for it"
			: !set->target
				? fmt::format("; the {} set is invalid ('{}', RDNA-ENV-001)", set->name, set->value)
				: fmt::format("; {}={} does not give it code it can run", set->name, set->value);
		c.add("RDNA-GPU-002", dev_label(*d),
		      fmt::format("{} is not on ROCm's official Linux support list{}{}", *d->gfx_target,
				  rdna1 && safe.empty() ? " (RDNA1: no ISA-compatible override exists)" : "", state),
		      installed.empty() ? "official ROCm and PyTorch wheels contain no code objects for it: 'HIP "
					  "error: invalid device function' / hipErrorNoBinaryForGpu"
					: "what is installed has, for it: " + installed + " (RDNA-COV findings)",
		      fix,
		      advice && advice->device == d && installed.empty()
			      ? std::vector<Remedy>{SetEnv{"HSA_OVERRIDE_GFX_VERSION", advice->value, advice->why}}
			      : std::vector<Remedy>{NoChange{}},
		      warn ? Severity::warn : Severity::info);
	}
}

} // namespace detail

} // namespace rdnafix::status
