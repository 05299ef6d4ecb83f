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

// Copies rdnafix's per-device noretry_applied (when 0 or more) onto the
// device with the same PCI address.
void attach_rdnafix(std::vector<Device> &devices, const Rdnafix &rdnafix);

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

// The environment section: the relevant variables, the override variables
// parsed (not judged), *_VISIBLE_DEVICES parsed.  Relevant: a name the
// variables table has (core::find_var), one that looks relevant by its prefix
// (core::looks_relevant), a per-node override or a near miss of a table name.
// `table` (the variables of the knowledge base) is kept in the result for the
// checks; nullptr: an empty table (only prefixes and override names).
Environment build_environment(const core::Environment &env, std::string source,
			      std::shared_ptr<const core::VarTable> table = nullptr);
bool is_relevant_env(std::string_view name, const core::VarTable &table);
// Under sudo: the environment of the sudo call (`invoking`; nullptr when it
// could not be read, then this process's `process` is audited), with
// sudo_user set and sudo_dropped = the relevant variables set there that
// `process` lacks or has with another value.
Environment build_sudo_environment(const std::string &user, const core::Environment *invoking,
				   const core::Environment &process,
				   std::shared_ptr<const core::VarTable> table = nullptr);

} // namespace rdnafix::machine
