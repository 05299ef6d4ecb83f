// Which GPUs a ROCm process sees, and RDNA-ENV-018: a visible iGPU whose target
// has no code objects makes every fat binary fail to load, at any HIP index.
//
// Order (docs/rocm-facts.md §5 "GPU order"): ROCr makes one GPU agent per KFD
// topology node with compute cores, in node order; ROCR_VISIBLE_DEVICES indexes
// that list (ROCm/ROCR-Runtime rocm-6.2.4 src/core/runtime/amd_topology.cpp:
// BuildTopology, src/core/inc/amd_filter_device.h: RvdFilter); HIP numbers what
// ROCr surfaces and HIP_VISIBLE_DEVICES (else CUDA_VISIBLE_DEVICES) indexes that.
// The HIP runtime extracts a fat binary's code object for every HIP device and
// fails with "hipErrorNoBinaryForGpu: Unable to find code object for all current
// devices!" when one device has none (ROCm/clr rocm-6.2.2
// hipamd/src/hip_code_object.cpp: CodeObject::extractCodeObjectFromFatBinary).
#include "checks.hpp"

#include "core/rules.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace rdnafix::status {

namespace detail {

namespace {

bool is_igpu(const Device *d)
{
	return d->apu && *d->apu;
}
bool is_dgpu(const Device *d)
{
	return d->apu && !*d->apu;
}

const VisibleVar *var(const machine::Environment &env, std::string_view name)
{
	for (const auto &v : env.visible)
		if (v.name == name)
			return &v;
	return nullptr;
}

// Applies one variable (indices into `list`); false when it cannot be judged.
bool apply(const VisibleVar *v, std::vector<const Device *> &list)
{
	if (!v)
		return true;
	if (!v->parsed)
		return false;
	std::vector<const Device *> next;
	for (int i : v->indices) {
		if (i < 0 || size_t(i) >= list.size())
			break; // the runtime stops at the first invalid index
		next.push_back(list[size_t(i)]);
	}
	list = next;
	return true;
}

std::string join(const std::vector<std::size_t> &v)
{
	std::string o;
	for (auto i : v)
		o += (o.empty() ? "" : ",") + std::to_string(i);
	return o;
}

} // namespace

VisibleGpus visible_gpus(const Snapshot &s)
{
	VisibleGpus out;
	for (const Device *d : amd_devices(s))
		if (d->kfd_gpu_index)
			out.kfd_order.push_back(d);
	std::sort(out.kfd_order.begin(), out.kfd_order.end(),
		  [](const Device *a, const Device *b) { return *a->kfd_gpu_index < *b->kfd_gpu_index; });
	out.after_rocr = out.kfd_order;
	const auto &env = s.environment;
	const VisibleVar *hip = var(env, "HIP_VISIBLE_DEVICES");
	out.hip_var = hip ? hip : var(env, "CUDA_VISIBLE_DEVICES");
	out.known = apply(var(env, "ROCR_VISIBLE_DEVICES"), out.after_rocr);
	out.hip_order = out.after_rocr;
	out.known = out.known && apply(out.hip_var, out.hip_order);
	if (!out.known)
		out.hip_order = out.kfd_order; // cannot tell: every GPU may be visible
	return out;
}

bool hidden(const VisibleGpus &v, const Device &d)
{
	// A GPU without a KFD node is in no order: it is missing, not hidden (issue 21).
	return v.known && d.kfd_gpu_index && std::find(v.hip_order.begin(), v.hip_order.end(), &d) == v.hip_order.end();
}

// The target the runtime loads code for on `d`: the override's, when one that
// is ISA-compatible applies to it, else its own.
std::string effective_target(const Ctx &c, const Device &d)
{
	const auto &env = c.s.environment;
	for (size_t k = 0; k < env.overrides.size(); ++k)
		for (const auto &j : c.a.overrides[k])
			if (j.device == d.pci_bdf && env.overrides[k].target &&
			    (j.verdict == rules::OverrideVerdict::isa_safe ||
			     j.verdict == rules::OverrideVerdict::works_not_guaranteed ||
			     j.verdict == rules::OverrideVerdict::pointless))
				return env.overrides[k].target->name();
	return d.gfx_target.value_or("");
}

void check_igpu_code(Ctx &c)
{
	const VisibleGpus v = visible_gpus(c.s);
	const auto &order = v.hip_order;
	if (!std::any_of(v.kfd_order.begin(), v.kfd_order.end(), is_dgpu))
		return; // nothing else to run on: RDNA-GPU-002 speaks for the iGPU
	for (std::size_t i = 0; i < order.size(); ++i) {
		const Device *d = order[i];
		// At index 0 RDNA-ENV-006/007 already flag the iGPU (it is cuda:0 then).
		if (!is_igpu(d) || i == 0 || !d->gfx_target)
			continue;
		const std::string target = effective_target(c, *d);
		if (rules::rocm_officially_supported(target))
			continue;
		// Keep every visible GPU except the iGPUs without code, in their order.
		std::vector<std::size_t> keep_kfd, keep_hip;
		for (const Device *o : order)
			if (!is_igpu(o) || rules::rocm_officially_supported(effective_target(c, *o))) {
				keep_kfd.push_back(std::size_t(*o->kfd_gpu_index));
				auto at = std::find(v.after_rocr.begin(), v.after_rocr.end(), o);
				keep_hip.push_back(std::size_t(at - v.after_rocr.begin()));
			}
		const bool use_hip = v.hip_var != nullptr;
		const std::string name = use_hip ? v.hip_var->name : "ROCR_VISIBLE_DEVICES";
		const std::string value = use_hip ? join(keep_hip) : join(keep_kfd);
		std::string finding =
			fmt::format("the iGPU {} is HIP device {} (KFD node {}) and {} has no code objects in official "
				    "ROCm/PyTorch builds",
				    dev_label(*d), i, d->kfd_node.value_or(-1), target);
		std::string safe = safe_override_for(*d->gfx_target);
		c.add("RDNA-ENV-018", dev_label(*d), finding,
		      "the HIP runtime loads each fat binary for every visible device and fails with "
		      "'hipErrorNoBinaryForGpu: Unable to find code object for all current devices!' when one "
		      "device has none, whatever its index (ROCm/clr hipamd/src/hip_code_object.cpp: "
		      "CodeObject::extractCodeObjectFromFatBinary)",
		      fmt::format("export {}={}   # hides the iGPU{}", name, value,
				  safe.empty()
					  ? ""
					  : fmt::format("; or give it code with HSA_OVERRIDE_GFX_VERSION={}", safe)),
		      {SetEnv{name, value, "hide the iGPU: " + first_clause(finding)}});
	}
}

} // namespace detail

} // namespace rdnafix::status
