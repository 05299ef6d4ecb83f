// ISA rules: LLVM's generic processor families and the verdict on an
// HSA_OVERRIDE_GFX_VERSION value for a GPU.  Every verdict names its evidence.
#include "core/rules.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace rdnafix::rules {

// ---- ISA families ------------------------------------------------------------
namespace {
// The upstream sources the printed verdicts cite.
constexpr std::string_view kGenericProcessors = "llvm/docs/AMDGPUUsage.rst: Generic processors";
constexpr std::string_view kRocrAgent = "ROCR-Runtime 6.4.3 runtime/hsa-runtime/core/runtime/amd_gpu_agent.cpp";

constexpr GfxTarget kGfx10_1[] = {{10, 1, 0}, {10, 1, 1}, {10, 1, 2}, {10, 1, 3}};
constexpr GfxTarget kGfx10_3[] = {{10, 3, 0}, {10, 3, 1}, {10, 3, 2}, {10, 3, 3}, {10, 3, 4}, {10, 3, 5}, {10, 3, 6}};
constexpr GfxTarget kGfx11[] = {{11, 0, 0}, {11, 0, 1}, {11, 0, 2}, {11, 0, 3},
				{11, 5, 0}, {11, 5, 1}, {11, 5, 2}, {11, 5, 3}};
constexpr GfxTarget kGfx12[] = {{12, 0, 0}, {12, 0, 1}};

// LLVM AMDGPUUsage.rst "Generic processors" (docs/rocm-facts.md §4).
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
			fmt::format(
				"HSA_OVERRIDE_GFX_VERSION={} names {}, which is not a ROCm ISA rdnactl knows; ROCr "
				"fails agent creation for unknown ISAs ('The GPU node has an unrecognized id.', {})",
				val, o, kRocrAgent)};
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
					"override is safe on RDNA1: use libraries built for {} or gfx10-1-generic ({})",
					n, o, n, kGenericProcessors)};
		if (native.major == 9 && ov.major >= 10)
			return {OverrideVerdict::unsafe,
				fmt::format("{} (GCN/CDNA) and {} (RDNA) are different ISAs; a forgotten "
					    "HSA_OVERRIDE_GFX_VERSION=10.3.0 made an MI210 fault with 'Memory access "
					    "fault' "
					    "(ROCm/ROCm#5238)",
					    n, o)};
		return {OverrideVerdict::unsafe,
			fmt::format("{} and {} are in different ISA families ({} vs {}): code compiled for {} can "
				    "trap or compute wrong results on {} ({})",
				    n, o, nf ? nf->generic_name : std::string_view("no generic family"),
				    of ? of->generic_name : std::string_view("no generic family"), o, n,
				    kGenericProcessors)};
	}
	// Same LLVM generic family.
	if (nf->no_restrictions)
		return {OverrideVerdict::isa_safe,
			fmt::format("{} and {} are both in {}, which LLVM lists with no restrictions; the compiled "
				    "code is identical ({}), so HSA_OVERRIDE_GFX_VERSION={} is a "
				    "working workaround for libraries without {} code (library bugs remain possible, "
				    "e.g. ROCm/MIOpen#3540)",
				    n, o, nf->generic_name, kGenericProcessors, val, n)};
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
				    "({}, gfx11-generic restrictions)",
				    o, n, kGenericProcessors)};
	return {OverrideVerdict::works_not_guaranteed,
		fmt::format("{} and {} share {} but LLVM lists restrictions ({}); HSA_OVERRIDE_GFX_VERSION={} is "
			    "used in practice but not guaranteed ({})",
			    n, o, nf->generic_name, nf->restrictions, val, kGenericProcessors)};
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

} // namespace rdnafix::rules
