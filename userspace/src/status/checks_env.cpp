// Checks: GPU ordering and *_VISIBLE_DEVICES, slow debug switches, HSA_XNACK
// and the PyTorch allocator configuration.
#include "checks.hpp"

#include "core/parse.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace rdnafix::status {

namespace detail {

void check_environment(Ctx &c)
{
	const auto &s = c.s;
	const auto &env = s.environment;
	auto amd = amd_devices(s);
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
			      fmt::format("export ROCR_VISIBLE_DEVICES={}", dgpu_list),
			      {SetEnv{"ROCR_VISIBLE_DEVICES", dgpu_list,
				      "select only the discrete GPU(s): " +
					      first_clause(fmt::format("the iGPU is GPU index 0 and the dGPU index {}",
								       dgpu_list))}});
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
			// Keep only ROCR_VISIBLE_DEVICES, selecting the discrete GPU(s); unset
			// only what is set.
			std::vector<Remedy> remedies;
			for (const auto &v : env.visible)
				if (v.name != "ROCR_VISIBLE_DEVICES")
					remedies.push_back(UnsetEnv{v.name, "conflicts with the dGPU selection"});
			if (!dgpu_list.empty())
				remedies.push_back(SetEnv{"ROCR_VISIBLE_DEVICES", dgpu_list,
							  "select only the discrete GPU(s): " + first_clause(all)});
			else if (rocr)
				remedies.push_back(UnsetEnv{"ROCR_VISIBLE_DEVICES", first_clause(all)});
			c.add("RDNA-ENV-007", "*_VISIBLE_DEVICES", all,
			      "ROCR_VISIBLE_DEVICES indexes KFD GPU nodes; HIP/CUDA_VISIBLE_DEVICES index what ROCR "
			      "left "
			      "visible; a wrong value hides the GPU you meant or puts the iGPU first",
			      dgpu_list.empty() ? "unset the *_VISIBLE_DEVICES variables"
						: fmt::format("unset HIP_VISIBLE_DEVICES CUDA_VISIBLE_DEVICES; export "
							      "ROCR_VISIBLE_DEVICES={}",
							      dgpu_list),
			      remedies);
		}
	}

	// Slow debug switches.
	// Slow debug switches: the debug-slow rows of the variables table at a
	// value that slows runs (AMD_LOG_LEVEL from 3, HIP_LAUNCH_BLOCKING=1 ...).
	std::vector<std::string> slow;
	std::vector<Remedy> unset_slow;
	for (const auto &j : judge_variables(env)) {
		if (j.verdict != VarVerdict::slow)
			continue;
		slow.push_back(fmt::format("{}={}", j.name, j.value));
		unset_slow.push_back(UnsetEnv{j.name, "slow debug switch (" + slow.back() + ")"});
	}
	if (!slow.empty()) {
		std::string list, names;
		for (const auto &v : slow) {
			list += (list.empty() ? "" : " ") + v;
			names += " " + v.substr(0, v.find('='));
		}
		c.add("RDNA-ENV-008", "environment", "debug switches set: " + list,
		      "they serialise every kernel launch/copy, disable the caching allocator (about 5x slower) or "
		      "log every API call; useful for one debugging run, harmful when left in a profile",
		      "unset" + names, unset_slow);
	}
	if (auto it = env.vars.find("HSA_XNACK"); it != env.vars.end() && it->second == "1") {
		for (const Device *d : amd)
			if (d->generation == gpudb::Generation::rdna1 || d->generation == gpudb::Generation::rdna2)
				c.add("RDNA-ENV-009", "HSA_XNACK @ " + dev_label(*d), "HSA_XNACK=1 on a GFX10 GPU",
				      "KFD never enables XNACK (retry/page migration) on GFX10, whatever the variable "
				      "or "
				      "amdgpu.noretry say; xnack+ code objects cannot run there",
				      "unset HSA_XNACK", {UnsetEnv{"HSA_XNACK", "KFD never enables XNACK on GFX10"}});
	}
	for (std::string_view n : {"PYTORCH_HIP_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF"}) {
		auto it = env.vars.find(std::string(n));
		if (it == env.vars.end())
			continue;
		const std::string &v = it->second;
		if (!core::alloc_conf_expandable(v))
			continue;
		// The same configuration without expandable_segments, or nothing.
		const std::string rest = check_alloc_conf(v).kept; // what RDNA-ENV-016 also keeps
		const std::string note = "expandable_segments has crashed and hung ROCm (pytorch#187343, #192259)";
		c.add("RDNA-ENV-010", std::string(n), fmt::format("{}={}", n, v),
		      "expandable_segments on ROCm is new (2026) and has produced crashes (pytorch#187343) and "
		      "uninterruptible hangs in hsaKmtMemoryVaMap (pytorch#192259)",
		      fmt::format("remove expandable_segments:True from {} unless you verified it on this "
				  "ROCm/PyTorch",
				  n),
		      {rest.empty() ? Remedy{UnsetEnv{std::string(n), note}}
				    : Remedy{SetEnv{std::string(n), rest, note}}});
	}
	check_copied_env(c);
	check_igpu_code(c);
}

} // namespace detail

} // namespace rdnafix::status
