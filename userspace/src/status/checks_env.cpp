// Checks: HSA_OVERRIDE_GFX_VERSION, GPU ordering and *_VISIBLE_DEVICES, slow
// debug switches, HSA_XNACK and the PyTorch allocator configuration.
#include "checks.hpp"

#include "core/rules.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace rdnafix::status {

namespace detail {

void check_environment(Ctx &c)
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
					   : fmt::format("export {}={}   # for {}", o.name, safe, native));
			continue;
		}
		if (verdicts.empty() && amd.empty()) {
			c.add("RDNA-ENV-011", o.name,
			      fmt::format("{}={} is set but there is no AMD GPU", o.name, o.value),
			      "a leftover override is applied to whatever GPU appears later (an MI210 faulted with a "
			      "forgotten 10.3.0, ROCm/ROCm#5238)",
			      fmt::format("unset {}", o.name));
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
			if (v.verdict == rules::OverrideVerdict::pointless)
				c.add("RDNA-ENV-003", o.name + " @ " + v.device,
				      fmt::format("{}={} equals the native target {}", o.name, o.value, v.native),
				      "it changes nothing today, but stays in effect when the GPU or the libraries "
				      "change",
				      fmt::format("unset {}", o.name));
			else if (v.verdict == rules::OverrideVerdict::isa_safe)
				c.add("RDNA-ENV-004", o.name + " @ " + v.device,
				      fmt::format("{}={} runs {} code on {}: {}", o.name, o.value, gfx, v.native,
						  v.reason),
				      "this is the usual workaround when libraries lack code for the native target",
				      "none needed; prefer libraries with native or generic (gfx10-3-generic) code "
				      "objects "
				      "when available");
			else if (v.verdict == rules::OverrideVerdict::works_not_guaranteed)
				c.add("RDNA-ENV-012", o.name + " @ " + v.device,
				      fmt::format("{}={} runs {} code on {}: {}", o.name, o.value, gfx, v.native,
						  v.reason),
				      "the targets share a generic family with restrictions: most kernels run, some "
				      "can "
				      "fault or use resources the GPU does not have",
				      fmt::format(
					      "prefer libraries with native {} code objects; keep the override only if "
					      "your workload validates (rdnactl validate)",
					      v.native));
			else if (v.verdict == rules::OverrideVerdict::unsafe)
				c.add("RDNA-ENV-002", o.name + " @ " + v.device,
				      fmt::format("{}={} makes the runtime load {} code on a {}: {}", o.name, o.value,
						  gfx, v.native, v.reason),
				      "the instruction sets differ: kernels can trap (HSA_STATUS_ERROR_MEMORY_APERTURE_"
				      "VIOLATION, 'Memory access fault') or compute different results",
				      fmt::format("unset {} and use libraries built for {}", o.name, v.native));
			else
				c.add("RDNA-ENV-013", o.name + " @ " + v.device,
				      fmt::format("{}={} ({}) on {}: {}", o.name, o.value, gfx,
						  v.native.empty() ? "unknown native target" : v.native, v.reason),
				      "an ISA the runtime does not know makes agent creation fail ('The GPU node has "
				      "an "
				      "unrecognized id'); an unknown native target cannot be judged",
				      fmt::format("unset {} unless you know the target pair is compatible", o.name));
		}
	}

	// iGPU / dGPU ordering and *_VISIBLE_DEVICES.
	std::vector<const Device *> gpus; // in KFD GPU index order
	for (const Device *d : amd)
		if (d->kfd_gpu_index)
			gpus.push_back(d);
	std::sort(gpus.begin(), gpus.end(),
		  [](const Device *a, const Device *b) { return *a->kfd_gpu_index < *b->kfd_gpu_index; });
	auto is_igpu = [](const Device *d) { return d->apu && *d->apu; };
	auto is_dgpu = [](const Device *d) { return d->apu && !*d->apu; };
	bool mixed = std::any_of(gpus.begin(), gpus.end(), is_igpu) && std::any_of(gpus.begin(), gpus.end(), is_dgpu);
	std::string dgpu_list;
	for (const Device *d : gpus)
		if (is_dgpu(d))
			dgpu_list += (dgpu_list.empty() ? "" : ",") + std::to_string(*d->kfd_gpu_index);

	const VisibleVar *rocr = nullptr, *hip = nullptr, *cuda = nullptr;
	for (const auto &v : env.visible) {
		if (v.name == "ROCR_VISIBLE_DEVICES")
			rocr = &v;
		else if (v.name == "HIP_VISIBLE_DEVICES")
			hip = &v;
		else if (v.name == "CUDA_VISIBLE_DEVICES")
			cuda = &v;
	}
	if (!rocr && !hip && !cuda) {
		if (mixed && is_igpu(gpus.front()))
			c.add("RDNA-ENV-006", dev_label(*gpus.front()),
			      fmt::format("the iGPU is GPU index 0 and the dGPU index {}", dgpu_list),
			      "PyTorch's cuda:0 is then the iGPU: slow, little memory, often an unsupported gfx target "
			      "('shared object initialization failed')",
			      fmt::format("export ROCR_VISIBLE_DEVICES={}", dgpu_list));
	} else {
		// Apply ROCR first (indices into KFD GPUs), then HIP (else CUDA) into the ROCR result.
		std::vector<const Device *> seen = gpus;
		std::vector<std::string> problems;
		auto apply = [&](const VisibleVar *v) {
			if (!v)
				return;
			if (!v->parsed) {
				problems.push_back(fmt::format("{}='{}' not checked: {}", v->name, v->value, v->error));
				return;
			}
			std::vector<const Device *> next;
			for (int i : v->indices) {
				if (i < 0 || size_t(i) >= seen.size()) {
					problems.push_back(fmt::format(
						"{}={} names index {} but only {} GPU{} {} visible", v->name, v->value,
						i, seen.size(), seen.size() == 1 ? "" : "s",
						seen.size() == 1 ? "is" : "are"));
					break; // the runtime stops at the first invalid index
				}
				next.push_back(seen[size_t(i)]);
			}
			seen = next;
		};
		apply(rocr);
		if (hip && cuda && hip->value != cuda->value)
			problems.push_back(fmt::format("HIP_VISIBLE_DEVICES={} and CUDA_VISIBLE_DEVICES={} disagree",
						       hip->value, cuda->value));
		apply(hip ? hip : cuda);
		if (!gpus.empty() && seen.empty() && problems.empty())
			problems.push_back("the variables hide every GPU");
		if (mixed && !seen.empty() && is_igpu(seen.front()))
			problems.push_back(
				fmt::format("the first visible GPU is the iGPU {}", dev_label(*seen.front())));
		if (!problems.empty()) {
			std::string all;
			for (const auto &p : problems)
				all += (all.empty() ? "" : "; ") + p;
			c.add("RDNA-ENV-007", "*_VISIBLE_DEVICES", all,
			      "ROCR_VISIBLE_DEVICES indexes KFD GPU nodes; HIP/CUDA_VISIBLE_DEVICES index what ROCR "
			      "left "
			      "visible; a wrong value hides the GPU you meant or puts the iGPU first",
			      dgpu_list.empty() ? "unset the *_VISIBLE_DEVICES variables"
						: fmt::format("unset HIP_VISIBLE_DEVICES CUDA_VISIBLE_DEVICES; export "
							      "ROCR_VISIBLE_DEVICES={}",
							      dgpu_list));
		}
	}

	// Slow debug switches.
	std::vector<std::string> slow;
	for (std::string_view n :
	     {"HIP_LAUNCH_BLOCKING", "AMD_SERIALIZE_KERNEL", "AMD_SERIALIZE_COPY", "PYTORCH_NO_HIP_MEMORY_CACHING",
	      "PYTORCH_NO_CUDA_MEMORY_CACHING", "CUDA_LAUNCH_BLOCKING"}) {
		auto it = env.vars.find(std::string(n));
		if (it != env.vars.end() && !it->second.empty() && it->second != "0")
			slow.push_back(fmt::format("{}={}", n, it->second));
	}
	if (!slow.empty()) {
		std::string list, names;
		for (const auto &v : slow) {
			list += (list.empty() ? "" : " ") + v;
			names += " " + v.substr(0, v.find('='));
		}
		c.add("RDNA-ENV-008", "environment", "debug switches set: " + list,
		      "they serialise every kernel launch/copy or disable the caching allocator (about 5x slower); "
		      "useful for one debugging run, harmful when left in a profile",
		      "unset" + names);
	}
	if (auto it = env.vars.find("HSA_XNACK"); it != env.vars.end() && it->second == "1") {
		for (const Device *d : amd)
			if (d->generation == gpudb::Generation::rdna1 || d->generation == gpudb::Generation::rdna2)
				c.add("RDNA-ENV-009", "HSA_XNACK @ " + dev_label(*d), "HSA_XNACK=1 on a GFX10 GPU",
				      "KFD never enables XNACK (retry/page migration) on GFX10, whatever the variable "
				      "or "
				      "amdgpu.noretry say; xnack+ code objects cannot run there",
				      "unset HSA_XNACK");
	}
	for (std::string_view n : {"PYTORCH_HIP_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF"}) {
		auto it = env.vars.find(std::string(n));
		if (it == env.vars.end())
			continue;
		std::string v = it->second;
		std::string lower;
		for (char ch : v)
			lower += char(std::tolower(static_cast<unsigned char>(ch)));
		if (lower.find("expandable_segments:true") != std::string::npos)
			c.add("RDNA-ENV-010", std::string(n), fmt::format("{}={}", n, v),
			      "expandable_segments on ROCm is new (2026) and has produced crashes (pytorch#187343) and "
			      "uninterruptible hangs in hsaKmtMemoryVaMap (pytorch#192259)",
			      fmt::format("remove expandable_segments:True from {} unless you verified it on this "
					  "ROCm/PyTorch",
					  n));
	}
}

} // namespace detail

} // namespace rdnafix::status
