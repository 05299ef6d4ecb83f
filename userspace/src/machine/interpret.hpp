#pragma once
// Raw strings -> snapshot records.  Shared by both collectors so that the
// live path and the --root path parse identically.  No I/O.
#include "machine/raw.hpp"
#include "machine/snapshot.hpp"

#include "core/parse.hpp"
#include "core/types.hpp"

#include <optional>
#include <string>
#include <vector>

namespace rdnafix::machine {

// One KFD topology node as read from nodes/<N>/properties (+ mem_banks).
struct KfdNodeInfo {
	int node_id = 0;
	core::KfdNode props;
	std::optional<std::uint32_t> gpu_id;
	std::optional<std::uint64_t> local_mem_bytes; // sum of FB heaps (heap_type 1/2)
};

// A PCI/DRM raw record -> Device (identity, gfx target and its source,
// generation, APU, names, memory).  `kfd` are all KFD nodes (CPU ones too);
// `ids` is libdrm's amdgpu.ids (may be null).
Device build_device(const RawPciDevice &raw, const std::vector<KfdNodeInfo> &kfd, const core::AmdgpuIds *ids);

// Every device, sorted by BDF (non-PCI DRM devices last).
std::vector<Device> build_devices(const std::vector<RawPciDevice> &raws, const std::vector<KfdNodeInfo> &kfd,
				  const core::AmdgpuIds *ids);

// The effective noretry of each AMD device from the kernel version, the GC
// version and the live amdgpu.noretry value (core rules); also takes
// rdnafix's applied value when present.
void apply_noretry(std::vector<Device> &devices, const Driver &driver, const Rdnafix &rdnafix);

// The parameters that matter, with provenance.  `live` maps "module.name" to
// the sysfs value (absent = module not loaded or no such parameter).
struct ModprobeFile {
	std::string path; // root-relative, e.g. "etc/modprobe.d/amdgpu.conf"
	core::ModprobeConfig config;
};
std::vector<Param> build_params(const core::KernelCmdline &cmdline, const std::vector<ModprobeFile> &modprobe,
				const std::map<std::string, std::optional<std::string>> &live);
// Parameter names reported even when nobody set them.
const std::vector<std::pair<std::string, std::string>> &reported_params();

// The environment section: relevant variables, overrides judged against the
// devices, *_VISIBLE_DEVICES parsed.
Environment build_environment(const core::Environment &env, std::string source, const std::vector<Device> &devices);
bool is_relevant_env(std::string_view name);

// Permission judgement for one node and one subject (pure).
struct Subject {
	std::optional<unsigned> uid;
	std::string user;
	std::vector<unsigned> gids;      // session (or configured, for --user) gids
	std::vector<std::string> groups; // names of those gids
};
// Fills can_open, verdict, missing_group of `node` (read+write needed).
void judge_node(DevNode &node, const Subject &who);

} // namespace rdnafix::machine
