// Check RDNA-MEM-010: amdgpu VM faults in this boot's kernel log on an
// RDNA1/RDNA2 GPU.  One line says that the kernel maps this memory NC or UC
// (so a ROCm rebuild "for MTYPE_NC" is not the cure) and what the evidence on
// this machine points at instead: an unsafe override, missing code objects,
// or a kernel/program bug shown by the decoded fault.
#include "checks.hpp"

#include "core/amdgpu_fault.hpp"

#include <fmt/format.h>

namespace rdnafix::status {

namespace detail {

namespace {

struct Evidence {
	std::string points_at, fix;
	std::vector<Remedy> remedies{NoChange{}};
};

Evidence evidence(const Ctx &c, const Device &d, const core::amdgpu_fault::VmFault *last)
{
	const auto &ov = c.s.environment.overrides;
	for (std::size_t k = 0; k < ov.size(); ++k)
		for (const auto &j : c.a.overrides[k])
			if (j.device == d.pci_bdf && j.verdict == rules::OverrideVerdict::unsafe)
				return {fmt::format("{}={}, which runs code of another ISA on {} (RDNA-ENV-002)",
						    ov[k].name, ov[k].value, d.gfx_target.value_or("it")),
					fmt::format("unset {} and use libraries built for {}", ov[k].name,
						    d.gfx_target.value_or("this GPU")),
					{UnsetEnv{ov[k].name, "not ISA-compatible with this GPU"}}};
	if (c.a.coverage)
		for (const auto &sv : c.a.coverage->summary)
			if (sv.verdict.device == d.pci_bdf && sv.verdict.verdict == coverage::Verdict::missing)
				return {fmt::format("missing code objects: {} has no code {} can run (RDNA-COV-001)",
						    c.a.coverage->installs[sv.install].label, sv.verdict.gfx),
					fmt::format("install libraries built for {} (RDNA-COV-001 names them)",
						    sv.verdict.gfx)};
	std::string decoded = last && last->status ? last->status->explain() : "";
	return {fmt::format("a bug in the kernel or the program{}",
			    decoded.empty() ? "" : ": the last fault " + decoded),
		"report it to the program or library (or amdgpu) with the decoded fault: rdnactl explain on the "
		"kernel log (journalctl -k -b) prints it"};
}

} // namespace

void check_gfx10_faults(Ctx &c)
{
	const auto &log = c.s.kernel_log.events;
	if (!log || log->vm_faults == 0)
		return;
	const auto amd = amd_devices(c.s);
	for (const Device *d : amd) {
		if (d->generation != gpudb::Generation::rdna1 && d->generation != gpudb::Generation::rdna2)
			continue;
		// The faults of this GPU; with one AMD GPU, every fault is its.
		const core::amdgpu_fault::VmFault *last = nullptr;
		std::size_t mine = 0;
		for (const auto &f : log->last_faults)
			if (f.device == d->pci_bdf || amd.size() == 1) {
				last = &f;
				++mine;
			}
		if (!mine && amd.size() > 1)
			continue;
		Evidence e = evidence(c, *d, last);
		c.add("RDNA-MEM-010", dev_label(*d),
		      fmt::format("{} amdgpu VM fault(s) this boot: {}; the evidence points at {}",
				  mine ? mine : log->vm_faults, core::amdgpu_fault::gfx10_mtype_fact(), e.points_at),
		      "seed scripts claim ROCm 6.2+ maps RDNA1/RDNA2 memory MTYPE_CC and rebuild ROCm for MTYPE_NC; "
		      "amdgpu chooses the memory type itself (NC by default, UC for fine-grained, coherent and "
		      "uncached buffers and the GART) and no ROCm build changes that (docs/amdgpu-facts.md, "
		      "section 9)",
		      e.fix, e.remedies);
	}
}

} // namespace detail

} // namespace rdnafix::status
