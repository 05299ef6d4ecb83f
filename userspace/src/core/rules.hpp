// rdnafix rules: pure knowledge about amdgpu / ROCm behaviour, each with its
// citation.  Inputs are values (versions, parameters); outputs are a verdict
// plus a one-line explanation naming the rule that was applied.  No I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/types.hpp"

namespace rdnafix::rules {

using core::GcVersion;
using core::GfxTarget;
using core::KernelVersion;

// ---- amdgpu noretry ------------------------------------------------------
// amdgpu_gmc_noretry_set(): gmc.noretry = (amdgpu.noretry == -1) ?
// noretry_default : amdgpu.noretry.  The default depends on the kernel
// version and the GC version (docs/amdgpu-facts.md §4, whole history table):
//   <= 5.17           1 only for GC 9.0.1, 9.4.0, 9.4.1, 9.4.2
//   5.18 - 6.0        1 for GC 9.0.1, 9.3.0, 9.4.x, 10.3.3 - 10.3.7
//   6.1 - 6.17, 6.18.0  1 for GC >= 10.3.0 (plus the 9.x list)
//   6.18.y, 7.0.y stable (mid-2026), 7.1+   1 for GC >= 10.1.0
struct NoretryDecision {
	int value = 0;               // the effective gmc.noretry: 0 (retry on) or 1
	bool from_parameter = false; // an explicit amdgpu.noretry (0/1) decided it
	// false where our sources cannot pin the exact point release (6.18.y /
	// 7.0.y backport)
	bool certain = true;
	// one line naming the rule applied, e.g. "kernel 6.12: default 1 only for
	// GC >= 10.3.0 (drivers/gpu/drm/amd/amdgpu/amdgpu_gmc.c: amdgpu_gmc_noretry_set,
	// Linux 6.1 and 6.12); GC 10.1.10 -> 0"
	std::string explanation;
};
// `param` is the amdgpu.noretry module parameter as the kernel holds it (-1 =
// auto).  Any value other than -1 wins; the kernel treats every non-zero value
// as 1 (it is stored in a bool-like field).
NoretryDecision effective_noretry(const KernelVersion &kernel, const GcVersion &gc, int param = -1);

// The effective noretry of one AMD device from what a snapshot holds: the
// kernel version (/proc/version, else the release string), the device's GC
// version, the amdgpu.noretry value the kernel prints, and the value rdnafix
// applied to the device (which wins).  No value when amdgpu does not drive
// the device or a version is unknown.
struct DeviceNoretryFacts {
	std::string_view kernel_version_line;          // /proc/version
	std::string_view kernel_release;               // /proc/sys/kernel/osrelease
	std::optional<std::string_view> gc_version;    // "10.1.10"
	std::optional<std::string_view> noretry_param; // /sys/module/amdgpu/parameters/noretry
	bool amdgpu_loaded = false;
	bool bound_to_amdgpu = false;       // the device's driver is amdgpu
	std::optional<int> rdnafix_applied; // rdnafix's noretry_applied for the device
};
// Where the effective value comes from.
enum class NoretryFrom { kernel_default, parameter, rdnafix };
struct DeviceNoretry {
	std::optional<int> value;
	NoretryFrom from = NoretryFrom::kernel_default;
	std::string explanation; // the rule applied (NoretryDecision::explanation), "" without a value
};
DeviceNoretry device_noretry(const DeviceNoretryFacts &facts);

// KFD never enables XNACK (retry-fault recoverable mode) for GC >= 10.1.1
// (kfd_process_xnack_mode(); 7.2 again allows GC >= 12.1.0), whatever noretry
// is (docs/amdgpu-facts.md §4).
bool kfd_xnack_possible(const KernelVersion &kernel, const GcVersion &gc);

// ---- ISA families --------------------------------------------------------
// LLVM generic processors (AMDGPUUsage.rst "Generic processors",
// docs/rocm-facts.md §4): gfx10-1-generic, gfx10-3-generic, gfx11-generic,
// gfx12-generic.
struct IsaFamily {
	std::string_view generic_name; // "gfx10-3-generic"
	std::span<const GfxTarget> members;
	bool no_restrictions;          // LLVM: "No restrictions" (10-3, 12)
	std::string_view restrictions; // LLVM's summary otherwise
};
std::span<const IsaFamily> isa_families();
// The generic family of a target, nullptr when it has none (gfx90a, gfx942...).
const IsaFamily *isa_family_of(const GfxTarget &t);
// Targets ROCr's ISA registry knows (rdnactl's list, used to call an override
// value "unknown"): GCN5/CDNA gfx9xx plus every member of the families above.
bool is_known_rocm_target(const GfxTarget &t);

// ---- HSA_OVERRIDE_GFX_VERSION verdict ---------------------------------------
enum class OverrideVerdict {
	pointless,            // override == native: remove it
	isa_safe,             // same ISA ("No restrictions" family, e.g. gfx1031 -> 10.3.0): working workaround
	works_not_guaranteed, // same generic family with restrictions (gfx1101/1102/1103 -> 11.0.0,
	// within RDNA1): used in practice, not guaranteed
	unsafe,  // different ISA (gfx1010 -> 10.3.0, gfx1151 -> 11.0.0): wrong code, faults
	unknown, // native or override not in our tables / not a ROCm target
};
std::string_view to_string(OverrideVerdict v); // "pointless", "isa_safe", ...

struct OverrideAssessment {
	OverrideVerdict verdict = OverrideVerdict::unknown;
	std::string reason; // one line with the evidence and its upstream source (docs/rocm-facts.md §5)
};
OverrideAssessment assess_override(const GfxTarget &native, const GfxTarget &override_target);

// The override value that is ISA-safe for `native` ("No restrictions"
// families only): gfx1031..gfx1036 -> 10.3.0; gfx1030 -> nullopt (it is the
// base); gfx1200 -> 12.0.1 and gfx1201 -> 12.0.0 (identical ISA); RDNA1,
// RDNA3, RDNA3.5, GCN/CDNA -> nullopt (none is safe or none is known safe).
// Whether an override is NEEDED depends on the libraries (not decided here).
std::optional<GfxTarget> safe_override_for(const GfxTarget &native);

// ---- TTM --------------------------------------------------------------------
// ttm.pages_limit (and amdttm.pages_limit) count 4 KiB pages: the ceiling of
// GPU-mappable system memory (GTT) in bytes.  0 means "kernel default" ->
// nullopt (the caller reports it as default).  Saturates instead of
// overflowing.
inline constexpr std::uint64_t kTtmPageSize = 4096;
std::optional<std::uint64_t> ttm_pages_limit_bytes(std::uint64_t pages_limit);

// ---- ROCm support ------------------------------------------------------------
// Is this gfx target on an official ROCm Linux support list?
bool rocm_officially_supported(std::string_view gfx);

// ---- module parameter values ---------------------------------------------------
// Compare a configured module-parameter value with the value the kernel prints
// in /sys/module/<m>/parameters/<name>: numbers numerically, booleans Y/N vs
// 1/0/y/n.  nullopt when the two cannot be compared (e.g. string parameters).
std::optional<bool> param_values_equal(std::string_view configured, std::string_view live);

} // namespace rdnafix::rules
