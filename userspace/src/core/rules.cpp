// Knowledge rules.  Every rule cites where it comes from; the explanations
// are what rdnactl prints, so they name the rule and the evidence.
#include "core/rules.hpp"

#include <algorithm>
#include <array>
#include <limits>

#include <fmt/format.h>

namespace rdnafix::rules {

namespace {

// ---- noretry ---------------------------------------------------------------
// amdgpu-internals.md §4 "Older kernels" table and the 6.1 / 6.12 / 7.2 source
// reading (amdgpu_gmc.c amdgpu_gmc_noretry_set).
enum class NoretryEra {
	upto_5_17,   // 1 only for Vega10, Vega20, Arcturus, Aldebaran
	v5_18_6_0,   // 1 for 9.0.1, 9.3.0, 9.4.x, 10.3.3-10.3.7
	v6_1_6_18_0, // 1 for GC >= 10.3.0 (plus the 9.x list)
	v2026,       // 1 for GC >= 10.1.0 (e47b0056a08d: 7.1+, 6.18.y / 7.0.y stable)
};

bool gc9_list_5_18(const GcVersion &gc)
{
	return gc == GcVersion{9, 0, 1} || gc == GcVersion{9, 3, 0} || (gc.major == 9 && gc.minor == 4);
}

int default_in_era(NoretryEra era, const GcVersion &gc)
{
	switch (era) {
	case NoretryEra::upto_5_17:
		return (gc == GcVersion{9, 0, 1} || gc == GcVersion{9, 4, 0} || gc == GcVersion{9, 4, 1} ||
			gc == GcVersion{9, 4, 2})
			       ? 1
			       : 0;
	case NoretryEra::v5_18_6_0:
		return (gc9_list_5_18(gc) || (gc >= GcVersion{10, 3, 3} && gc <= GcVersion{10, 3, 7})) ? 1 : 0;
	case NoretryEra::v6_1_6_18_0:
		return (gc9_list_5_18(gc) || gc >= GcVersion{10, 3, 0}) ? 1 : 0;
	case NoretryEra::v2026:
		return (gc9_list_5_18(gc) || gc >= GcVersion{10, 1, 0}) ? 1 : 0;
	}
	return 0;
}

std::string_view era_rule(NoretryEra era)
{
	switch (era) {
	case NoretryEra::upto_5_17:
		return "kernels <= 5.17 default noretry=1 only for Vega10/Vega20/Arcturus/Aldebaran "
		       "(GC 9.0.1, 9.4.0-9.4.2), 0 for every Navi";
	case NoretryEra::v5_18_6_0:
		return "kernels 5.18-6.0 default noretry=1 for GC 9.0.1, 9.3.0, 9.4.x and 10.3.3-10.3.7, "
		       "0 otherwise (Navi21/22 and RDNA1 still 0)";
	case NoretryEra::v6_1_6_18_0:
		return "kernels 6.1-6.17 and 6.18.0 default noretry=1 for GC >= 10.3.0 (RDNA2+) and the "
		       "GC 9 list, 0 for RDNA1 (GC 10.1.x)";
	case NoretryEra::v2026:
		return "kernels 7.1+ and the 6.18.y/7.0.y stable backports (mid-2026, upstream "
		       "e47b0056a08d) default noretry=1 for every GC >= 10.1.0";
	}
	return "";
}

std::string gc_str(const GcVersion &gc)
{
	return gc.to_string();
}

} // namespace

NoretryDecision effective_noretry(const KernelVersion &kernel, const GcVersion &gc, int param)
{
	NoretryDecision d;
	if (param != -1) {
		// gmc.noretry = (amdgpu_noretry == -1) ? default : amdgpu_noretry; any
		// non-zero value is true.
		NoretryDecision def = effective_noretry(kernel, gc, -1);
		d.value = param != 0 ? 1 : 0;
		d.from_parameter = true;
		d.explanation =
			fmt::format("amdgpu.noretry={} is set explicitly, which overrides the kernel default "
				    "(amdgpu_gmc_noretry_set; amdgpu-internals.md §4); the default for GC {} on kernel "
				    "{} would be {}{}",
				    param, gc_str(gc), kernel.numeric(), def.value, def.certain ? "" : " (uncertain)");
		return d;
	}
	NoretryEra era;
	bool backport_window = false; // 6.18.y / 7.0.y with y > 0: point release not recorded
	if (!kernel.at_least(5, 18)) {
		era = NoretryEra::upto_5_17;
	} else if (!kernel.at_least(6, 1)) {
		era = NoretryEra::v5_18_6_0;
	} else if (!kernel.at_least(6, 18, 1)) {
		era = NoretryEra::v6_1_6_18_0;
	} else if (kernel.major == 6 && kernel.minor == 18) {
		era = NoretryEra::v2026;
		backport_window = true;
	} else if (kernel.major == 7 && kernel.minor == 0) {
		if (kernel.patch == 0) {
			era = NoretryEra::v6_1_6_18_0;
		} else {
			era = NoretryEra::v2026;
			backport_window = true;
		}
	} else if (kernel.major == 6) {
		era = NoretryEra::v6_1_6_18_0; // 6.19+ was never released (7.0 followed 6.18)
	} else {
		era = NoretryEra::v2026; // 7.1+
	}
	d.value = default_in_era(era, gc);
	const std::string kv = kernel.numeric();
	if (backport_window) {
		int before = default_in_era(NoretryEra::v6_1_6_18_0, gc);
		if (before != d.value) {
			d.certain = false;
			d.explanation = fmt::format(
				"kernel {}: {}; whether this {}.{}.y point release already carries the backport is "
				"not recorded in our sources (older builds default to {}); GC {} -> {} assumed "
				"(amdgpu-internals.md §4)",
				kv, era_rule(era), kernel.major, kernel.minor, before, gc_str(gc), d.value);
			return d;
		}
	}
	d.explanation = fmt::format("kernel {}: {} (amdgpu-internals.md §4); GC {} -> {}", kv, era_rule(era),
				    gc_str(gc), d.value == 1 ? "1 (retry faults off)" : "0 (retry faults on)");
	return d;
}

bool kfd_xnack_possible(const KernelVersion &kernel, const GcVersion &gc)
{
	// kfd_process_xnack_mode(): false for every GC >= 10.1.1 (6.1, 6.12);
	// 7.2 limits that to GC < 12.1.0 (amdgpu-internals.md §4).
	if (gc >= GcVersion{12, 1, 0} && kernel.at_least(7, 2))
		return true;
	return gc < GcVersion{10, 1, 1};
}

// ---- ISA families ------------------------------------------------------------
namespace {
constexpr GfxTarget kGfx10_1[] = {{10, 1, 0}, {10, 1, 1}, {10, 1, 2}, {10, 1, 3}};
constexpr GfxTarget kGfx10_3[] = {{10, 3, 0}, {10, 3, 1}, {10, 3, 2}, {10, 3, 3}, {10, 3, 4}, {10, 3, 5}, {10, 3, 6}};
constexpr GfxTarget kGfx11[] = {{11, 0, 0}, {11, 0, 1}, {11, 0, 2}, {11, 0, 3},
				{11, 5, 0}, {11, 5, 1}, {11, 5, 2}, {11, 5, 3}};
constexpr GfxTarget kGfx12[] = {{12, 0, 0}, {12, 0, 1}};

// LLVM AMDGPUUsage.rst "Generic processors" (rocm-userspace.md §4).
const IsaFamily kFamilies[] = {
	{"gfx10-1-generic", kGfx10_1, false,
	 "dot instructions (v_dot4_i32_i8, v_dot2_f32_f16, ...) differ between members; BVH not on gfx1013"},
	{"gfx10-3-generic", kGfx10_3, true, ""},
	{"gfx11-generic", kGfx11, false,
	 "hazard pessimizations; not all VGPRs usable on gfx1100/1101/1151; SALU float not on gfx1100-1103; "
	 "no SGPR src1 in DPP on gfx1100-1103"},
	{"gfx12-generic", kGfx12, true, ""},
};

// GCN5 / CDNA targets in ROCr's ISA registry (not in a generic family here).
constexpr GfxTarget kOtherRocm[] = {{9, 0, 0}, {9, 0, 2},  {9, 0, 4},  {9, 0, 6}, {9, 0, 8},
				    {9, 0, 9}, {9, 0, 10}, {9, 0, 12}, {9, 4, 2}, {9, 5, 0}};

bool in(std::span<const GfxTarget> s, const GfxTarget &t)
{
	return std::find(s.begin(), s.end(), t) != s.end();
}
bool is_gfx110x(const GfxTarget &t)
{
	return t.major == 11 && t.minor == 0;
}
bool is_gfx115x(const GfxTarget &t)
{
	return t.major == 11 && t.minor == 5;
}
} // namespace

std::span<const IsaFamily> isa_families()
{
	return kFamilies;
}

const IsaFamily *isa_family_of(const GfxTarget &t)
{
	for (const auto &f : kFamilies)
		if (in(f.members, t))
			return &f;
	return nullptr;
}

bool is_known_rocm_target(const GfxTarget &t)
{
	return isa_family_of(t) != nullptr || in(kOtherRocm, t);
}

std::string_view to_string(OverrideVerdict v)
{
	switch (v) {
	case OverrideVerdict::pointless:
		return "pointless";
	case OverrideVerdict::isa_safe:
		return "isa_safe";
	case OverrideVerdict::works_not_guaranteed:
		return "works_not_guaranteed";
	case OverrideVerdict::unsafe:
		return "unsafe";
	case OverrideVerdict::unknown:
		return "unknown";
	}
	return "unknown";
}

OverrideAssessment assess_override(const GfxTarget &native, const GfxTarget &ov)
{
	const std::string n = native.name();
	const std::string o = ov.name();
	const std::string val = ov.dotted();
	if (native == ov)
		return {OverrideVerdict::pointless,
			fmt::format("HSA_OVERRIDE_GFX_VERSION={} names the GPU's own target {}: it changes nothing; "
				    "remove it",
				    val, n)};
	if (!is_known_rocm_target(ov))
		return {OverrideVerdict::unknown,
			fmt::format("HSA_OVERRIDE_GFX_VERSION={} names {}, which is not a ROCm ISA rdnactl knows; ROCr "
				    "fails agent creation for unknown ISAs ('The GPU node has an unrecognized id.', "
				    "rocm-userspace.md §5)",
				    val, o)};
	const IsaFamily *nf = isa_family_of(native);
	const IsaFamily *of = isa_family_of(ov);
	if (nf == nullptr && !is_known_rocm_target(native))
		return {OverrideVerdict::unknown,
			fmt::format("no ISA compatibility data for the GPU's target {}; cannot judge "
				    "HSA_OVERRIDE_GFX_VERSION={} ({})",
				    n, val, o)};
	if (nf == nullptr || of == nullptr || nf != of) {
		if (nf != nullptr && std::string_view(nf->generic_name) == "gfx10-1-generic" && of != nullptr &&
		    std::string_view(of->generic_name) == "gfx10-3-generic")
			return {OverrideVerdict::unsafe,
				fmt::format(
					"{} (RDNA1) and {} (RDNA2) are different ISAs: the same instruction word is "
					"v_mac_legacy_f32 on gfx1010 and v_fmac_legacy_f32 on gfx1030 (different "
					"rounding) and gfx1030 code uses v_cmpx forms GFX10.1 avoids; users report "
					"HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION (AUTOMATIC1111 #9283, #11942). No "
					"override is safe on RDNA1: use libraries built for {} or gfx10-1-generic "
					"(rocm-userspace.md §5)",
					n, o, n)};
		if (native.major == 9 && ov.major >= 10)
			return {OverrideVerdict::unsafe,
				fmt::format("{} (GCN/CDNA) and {} (RDNA) are different ISAs; a forgotten "
					    "HSA_OVERRIDE_GFX_VERSION=10.3.0 made an MI210 fault with 'Memory access "
					    "fault' "
					    "(ROCm/ROCm#5238, prior-art.md §4.1)",
					    n, o)};
		return {OverrideVerdict::unsafe,
			fmt::format("{} and {} are in different ISA families ({} vs {}): code compiled for {} can "
				    "trap or compute wrong results on {} (rocm-userspace.md §4-5)",
				    n, o, nf ? nf->generic_name : std::string_view("no generic family"),
				    of ? of->generic_name : std::string_view("no generic family"), o, n)};
	}
	// Same LLVM generic family.
	if (nf->no_restrictions)
		return {OverrideVerdict::isa_safe,
			fmt::format("{} and {} are both in {}, which LLVM lists with no restrictions; the compiled "
				    "code is identical (rocm-userspace.md §5), so HSA_OVERRIDE_GFX_VERSION={} is a "
				    "working workaround for libraries without {} code (library bugs remain possible, "
				    "e.g. ROCm/MIOpen#3540)",
				    n, o, nf->generic_name, val, n)};
	if (is_gfx115x(native) && is_gfx110x(ov)) {
		if (native == GfxTarget{11, 5, 1})
			return {OverrideVerdict::unsafe,
				fmt::format(
					"gfx1151 (Strix Halo) code differs from {} code (236 of the lines of one test "
					"kernel differ) and gfx1151 hazards are handled only in gfx1151/generic code; "
					"memory access faults are reported with 11.0.0 on Strix Halo (ROCm/ROCm#5824). "
					"Use native gfx1151 builds (ROCm 6.4.4+, PyTorch ROCm 7.0+ wheels)",
					o)};
		return {OverrideVerdict::unsafe,
			fmt::format("{} (RDNA3.5) is not {} (RDNA3): gfx1150 with 11.0.0 fails with "
				    "HSA_STATUS_ERROR_INVALID_ISA (likelovewant/ROCmLibs-for-gfx1103-AMD780M-APU#37); "
				    "use native {} builds (ROCm 7.0.2+)",
				    n, o, n)};
	}
	if (is_gfx110x(native) && is_gfx115x(ov))
		return {OverrideVerdict::unsafe,
			fmt::format("{} code may use SALU float instructions, which {} does not have "
				    "(LLVM gfx11-generic restrictions, rocm-userspace.md §4)",
				    o, n)};
	return {OverrideVerdict::works_not_guaranteed,
		fmt::format("{} and {} share {} but LLVM lists restrictions ({}); HSA_OVERRIDE_GFX_VERSION={} is "
			    "used in practice but not guaranteed (rocm-userspace.md §5)",
			    n, o, nf->generic_name, nf->restrictions, val)};
}

std::optional<GfxTarget> safe_override_for(const GfxTarget &native)
{
	const IsaFamily *f = isa_family_of(native);
	if (f == nullptr || !f->no_restrictions)
		return std::nullopt;
	if (native.major == 10) {
		GfxTarget base{10, 3, 0};
		if (native == base)
			return std::nullopt;
		return base;
	}
	if (native.major == 12)
		return native == GfxTarget{12, 0, 1} ? GfxTarget{12, 0, 0} : GfxTarget{12, 0, 1};
	return std::nullopt;
}

std::optional<std::uint64_t> ttm_pages_limit_bytes(std::uint64_t pages_limit)
{
	if (pages_limit == 0)
		return std::nullopt;
	if (pages_limit > std::numeric_limits<std::uint64_t>::max() / kTtmPageSize)
		return std::numeric_limits<std::uint64_t>::max();
	return pages_limit * kTtmPageSize;
}

} // namespace rdnafix::rules
