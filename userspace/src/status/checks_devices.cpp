// Checks: which GPUs are there and whether ROCm supports their gfx target.
#include "checks.hpp"

#include "coverage/render.hpp"

#include "core/rules.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace rdnafix::status {

namespace detail {

void check_devices(Ctx &c)
{
	auto amd = amd_devices(c.s);
	if (amd.empty()) {
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
		std::string fix =
			!safe.empty() ? fmt::format("use libraries built for {} or gfx10-3-generic; otherwise export "
						    "HSA_OVERRIDE_GFX_VERSION={} (ISA-compatible)",
						    *d->gfx_target, safe)
			: rdna1       ? "use libraries built natively for gfx101x (Debian's ROCm packages, a "
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
		c.add("RDNA-GPU-002", dev_label(*d),
		      fmt::format("{} is not on ROCm's official Linux support list{}", *d->gfx_target,
				  rdna1 ? " (RDNA1: no ISA-compatible override exists)" : ""),
		      installed.empty() ? "official ROCm and PyTorch wheels may contain no code objects for it: 'HIP "
					  "error: invalid device function' / hipErrorNoBinaryForGpu"
					: "what is installed has, for it: " + installed + " (RDNA-COV findings)",
		      fix,
		      advice && advice->device == d && installed.empty()
			      ? std::vector<Remedy>{SetEnv{"HSA_OVERRIDE_GFX_VERSION", advice->value, advice->why}}
			      : std::vector<Remedy>{NoChange{}},
		      rdna1 || safe.empty() ? Severity::warn : Severity::info);
	}
}

} // namespace detail

} // namespace rdnafix::status
