#pragma once
// Internal to the checks: the context each check_<area> adds findings to, and
// the small helpers they share.  One checks_<area>.cpp per area.
#include "model.hpp"

#include "machine/facts.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::status::detail {

// The modprobe.d file rdnactl owns (`rdnactl config` writes it): where every
// module-option remedy that sets a value goes.
inline constexpr std::string_view kOwnedConf = "/etc/modprobe.d/rdnafix.conf";

// The ISA-safe override value for a native target name, "" if none.
std::string safe_override_for(std::string_view native);
// The LLVM generic target of a gfx target's family ("gfx11-generic"), "" when none.
std::string generic_name_of(std::string_view native);
// The catalogue severity of a check id.
Severity sev(std::string_view id);

struct Ctx {
	const Snapshot &s;
	const Assessment &a;
	std::vector<Finding> out;
	// The verdicts of a device / node of `s` (by its index in `s`).
	const rules::DeviceNoretry &noretry(const Device &d) const { return a.noretry[size_t(&d - s.devices.data())]; }
	const NodeAccess &access(const DevNode &n) const { return a.nodes[size_t(&n - s.access.nodes.data())]; }
	void add(std::string_view id, std::string subject, std::string finding, std::string why, std::string fix,
		 std::vector<Remedy> remedies = {NoChange{}}, std::optional<Severity> override_sev = std::nullopt)
	{
		out.push_back(Finding{std::string(id), override_sev ? *override_sev : sev(id), std::move(subject),
				      std::move(finding), std::move(why), std::move(fix), std::move(remedies)});
	}
};

std::vector<const Device *> amd_devices(const Snapshot &s);
// The first unreadable item named `item` (driver and access lists), nullptr if
// none.  Items of the device lists: "drm_devices", "pci_devices", "drm_node",
// "kfd_topology", "device_count", "dev_devnodes".
const machine::Unreadable *unreadable_item(const Snapshot &s, std::string_view item);
// RDNA-RDR-001: the check `what` cannot be answered because `u` is unreadable.
void add_unknown(Ctx &c, std::string subject, std::string_view what, const machine::Unreadable &u);
// "0000:03:00.0 (gfx1031)"
std::string dev_label(const Device &d);
// Where a parameter is set, for messages.
std::string where(const Param &p);
// How to change a parameter to `want` (`p` may be absent: not set anywhere),
// as text and as data: `rdnactl config set [--cmdline]`, i.e. the owned
// modprobe.d file, or the kernel command line where the value is set there.
std::string fix_param(const Param &p, std::string_view want);
Remedy set_param(const Param *p, std::string_view module, std::string_view name, std::string_view want);
// The change that removes a parameter where it is set.
Remedy remove_param(const Param &p);
// One short line for a comment: the text up to its first ": " (when that is
// past the 20th character).
std::string first_clause(std::string s);

// The HSA_OVERRIDE_GFX_VERSION that `env` proposes when none is set: the
// ISA-safe value of the visible GPUs, when they agree (env_advice.cpp).
struct OverrideAdvice {
	std::string value;    // "10.3.0"
	std::string why;      // the one-line reason
	const Device *device; // the GPU whose RDNA-GPU-002 finding carries it
};
std::optional<OverrideAdvice> override_advice(const Snapshot &s);

// Distribution-aware boot advice (advice_boot.cpp), from BootConfig.
// The command that rebuilds every installed kernel's initramfs ("" when
// there is no generator): update-initramfs -u -k all | dracut -f
// --regenerate-all | mkinitcpio -P.
std::string initramfs_command(const machine::BootConfig &b);
// "<initramfs command>, then reboot" when `regenerate` and there is a
// generator; else "reboot".
std::string regenerate_then_reboot(const machine::BootConfig &b, bool regenerate);
// How to install the headers of kernel `release` on this distribution, and the
// package as a remedy (nullopt when the distribution is not known).
std::string headers_command(const machine::BootConfig &b, const std::string &release);
std::optional<Remedy> headers_remedy(const machine::BootConfig &b, const std::string &release);
// The kernel that runs / that boots by default, nullptr when not installed.
const machine::InstalledKernel *running_kernel(const machine::BootConfig &b);
const machine::InstalledKernel *default_kernel(const machine::BootConfig &b);
// The image of `k` is older than the module configuration.
bool initramfs_stale(const machine::BootConfig &b, const machine::InstalledKernel &k);
// The module configuration (modprobe.d, owned files) is newer than this boot.
bool configured_after_boot(const machine::BootConfig &b);
// rdnafix is configured: an rdnafix option, or a softdep that loads it.
bool rdnafix_configured(const Snapshot &s, const std::vector<machine::Setting> &settings);
// Removes the findings `id` with `subject` (a finding another one explains).
void drop(Ctx &c, std::string_view id, std::string_view subject);

void check_devices(Ctx &c);
void check_driver(Ctx &c);
void check_memory(Ctx &c);
void check_gfx10_faults(Ctx &c); // RDNA-MEM-010 (checks_faults.cpp)
void check_access(Ctx &c);
void check_overrides(Ctx &c);
void check_environment(Ctx &c);
void check_copied_env(Ctx &c); // RDNA-ENV-015..017 (checks_env_copied.cpp), run by check_environment
// RDNA-ENV-014, 019..022 from the variables table (checks_env_vars.cpp), run by check_environment
void check_table_vars(Ctx &c);
void check_igpu_code(Ctx &c); // RDNA-ENV-018 (checks_env_visible.cpp), run by check_environment
// The GPUs a ROCm process sees (checks_env_visible.cpp): KFD GPU order, what
// ROCR_VISIBLE_DEVICES leaves, and HIP's order after HIP/CUDA_VISIBLE_DEVICES.
struct VisibleGpus {
	std::vector<const Device *> kfd_order, after_rocr, hip_order;
	const VisibleVar *hip_var = nullptr; // HIP_VISIBLE_DEVICES, else CUDA_VISIBLE_DEVICES
	bool known = true;                   // false: a variable could not be parsed
};
VisibleGpus visible_gpus(const Snapshot &s);
// `d` is known to be hidden by the *_VISIBLE_DEVICES variables.
bool hidden(const VisibleGpus &v, const Device &d);
// The target the runtime loads code for on `d` (an ISA-compatible override's).
std::string effective_target(const Ctx &c, const Device &d);
// An allocator configuration as PyTorch reads it: what it rejects, and the
// options it accepts (booleans spelt True/False) without expandable_segments:True.
struct AllocConfCheck {
	std::vector<std::string> problems;
	std::string kept;
};
AllocConfCheck check_alloc_conf(std::string_view value);
void check_rdnafix(Ctx &c);
void check_rdnafix_health(Ctx &c); // RDNA-MOD-008..011 (checks_rdnafix_health.cpp)
// The version DKMS knows rdnafix by: the loaded module's, else the newest
// added to DKMS, else "<version>".
std::string rdnafix_version(const Snapshot &s);
void check_amdgpu_module(Ctx &c); // RDNA-DRV-010..012 (checks_amdgpu_module.cpp)
void check_unreadable(Ctx &c);
void check_config(Ctx &c);   // RDNA-CFG-001..003 (checks_config.cpp)
void check_security(Ctx &c); // RDNA-CFG-004..006 (checks_security.cpp)
void check_builds(Ctx &c);   // RDNA-MOD-007 (checks_builds.cpp), after check_config
void check_coverage(Ctx &c); // RDNA-COV-001..005 (checks_coverage.cpp)
void check_hwfacts(Ctx &c);  // RDNA-GPU-004, RDNA-DRV-008..009 (checks_hwfacts.cpp)
void check_versions(Ctx &c); // RDNA-VER-001..005: known-bad versions (checks_versions.cpp)
void check_libload(Ctx &c);  // RDNA-LIB-001..003 (checks_libload.cpp)
// RDNA-WSL-001..007, RDNA-ACC-006..008 (checks_platform.cpp); on WSL it drops the
// module and boot-configuration findings, so it runs after them.
void check_platform(Ctx &c);

} // namespace rdnafix::status::detail
