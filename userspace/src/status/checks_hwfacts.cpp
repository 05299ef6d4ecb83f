// RDNA-GPU-004 (no PCIe atomics for a discrete GPU), RDNA-DRV-008 (kernel
// without KFD), RDNA-DRV-009 (kernel without SVM): judged from the hardware
// facts (machine/hwfacts.hpp; docs/hwfacts.md has the sources).
#include "checks.hpp"

#include "core/hwfacts.hpp"

#include <fmt/format.h>

namespace rdnafix::status::detail {

void check_hwfacts(Ctx &c)
{
	const auto &s = c.s;
	for (const auto *d : amd_devices(s)) {
		if (d->apu.value_or(true))
			continue; // APUs reach memory without PCIe
		for (const auto &l : d->hw.io_links) {
			if (!(l.flags & (core::kIolinkNoAtomics32 | core::kIolinkNoAtomics64)))
				continue;
			c.add("RDNA-GPU-004", dev_label(*d),
			      fmt::format("the KFD link of node {} to node {} has flags {:#x}: no 32/64-bit PCIe "
					  "atomics ({})",
					  l.node_from, l.node_to, l.flags, l.path),
			      "KFD sets these flags when the PCIe path to the CPU did not grant AtomicOps to the "
			      "GPU; ROCm's queues and signals use atomic read-modify-write across PCIe, and GPUs "
			      "whose firmware has no fallback are left out or misbehave",
			      "put the GPU in a slot wired to the CPU (not through the chipset, a riser or a PCIe "
			      "switch without AtomicOps routing), and update the board firmware; lspci -vvv shows "
			      "AtomicOpsCap/AtomicOpsCtl on the root port and the GPU",
			      {BiosSetting{"PCIe AtomicOps", "routed to the GPU's slot (a CPU-attached slot)"}});
			break;
		}
	}
	const auto &cfg = s.hw.kernel_config;
	if (cfg.path.empty())
		return;
	const auto val = [&](const char *k) -> std::string {
		const auto it = cfg.values.find(k);
		return it == cfg.values.end() ? "" : it->second;
	};
	const bool amdgpu = val("CONFIG_DRM_AMDGPU") == "y" || val("CONFIG_DRM_AMDGPU") == "m";
	const std::string hsa = val("CONFIG_HSA_AMD");
	if (amdgpu && hsa != "y") {
		c.add("RDNA-DRV-008", "",
		      fmt::format("{}: CONFIG_HSA_AMD is {}", cfg.path, hsa.empty() ? "absent" : "not set"),
		      "without it amdgpu has no KFD: there is no /dev/kfd and ROCm sees no GPU, whatever the "
		      "permissions",
		      "boot a kernel built with CONFIG_HSA_AMD=y (the distribution's generic kernel has it)",
		      {NoChange{}});
		return;
	}
	const std::string svm = val("CONFIG_HSA_AMD_SVM");
	if (hsa == "y" && svm != "y")
		c.add("RDNA-DRV-009", "",
		      fmt::format("{}: CONFIG_HSA_AMD_SVM is {}", cfg.path, svm.empty() ? "absent" : "not set"),
		      "KFD then has no SVM memory manager, which HIP's unified and managed memory "
		      "(hipMallocManaged) use (the option's Kconfig help)",
		      "boot a kernel built with CONFIG_HSA_AMD_SVM=y", {NoChange{}});
}

} // namespace rdnafix::status::detail
