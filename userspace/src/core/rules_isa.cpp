// ISA rules: LLVM's generic processor families and the verdict on an
// HSA_OVERRIDE_GFX_VERSION value for a GPU.  Every verdict names its evidence.
#include "core/rules.hpp"

#include "core/isadb.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace rdnafix::rules {

// ---- ISA families ------------------------------------------------------------
namespace {
// The upstream sources the printed verdicts cite.
constexpr std::string_view kGenericProcessors = "llvm/docs/AMDGPUUsage.rst: Generic processors";
constexpr std::string_view kRocrAgent = "ROCR-Runtime 6.4.3 runtime/hsa-runtime/core/runtime/amd_gpu_agent.cpp";
constexpr std::string_view kFeatureLists = "LLVM AMDGPU.td / GCNProcessors.td feature lists";
constexpr std::string_view kBaseInfo = "LLVM AMDGPU/Utils/AMDGPUBaseInfo.cpp";

constexpr GfxTarget kGfx10_1[] = {{10, 1, 0}, {10, 1, 1}, {10, 1, 2}, {10, 1, 3}};
constexpr GfxTarget kGfx10_3[] = {{10, 3, 0}, {10, 3, 1}, {10, 3, 2}, {10, 3, 3}, {10, 3, 4}, {10, 3, 5}, {10, 3, 6}};
constexpr GfxTarget kGfx11[] = {{11, 0, 0}, {11, 0, 1}, {11, 0, 2}, {11, 0, 3},
				{11, 5, 0}, {11, 5, 1}, {11, 5, 2}, {11, 5, 3}};
constexpr GfxTarget kGfx12[] = {{12, 0, 0}, {12, 0, 1}};

// LLVM AMDGPUUsage.rst "Generic processors" (docs/rocm-facts.md §4).
const IsaFamily kFamilies[] = {
	{"gfx10-1-generic", kGfx10_1, false,
	 "dot instructions (v_dot4_i32_i8, v_dot2_f32_f16, ...) differ between members; BVH ray tracing only on "
	 "gfx1013"},
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

// How safe a verdict is: a report may only keep or lower the derived one.
int safety(OverrideVerdict v)
{
	switch (v) {
	case OverrideVerdict::isa_safe:
		return 0;
	case OverrideVerdict::works_not_guaranteed:
		return 1;
	case OverrideVerdict::unsafe:
		return 2;
	default:
		return 3;
	}
}

std::optional<OverrideVerdict> verdict_from(std::string_view s)
{
	for (auto v : {OverrideVerdict::isa_safe, OverrideVerdict::works_not_guaranteed, OverrideVerdict::unsafe})
		if (to_string(v) == s)
			return v;
	return std::nullopt;
}

std::string list(const std::vector<std::string_view> &v)
{
	return fmt::format("{}", fmt::join(v, ", "));
}

// The verdict the LLVM facts alone support for running code built for `o`
// on `n` (both in one generic family): unsafe when that code may use an
// instruction `n` lacks; a caveat when it assumes a larger register file or
// lacks a hardware work-around `n` needs; safe otherwise.
OverrideAssessment derive_same_family(const isadb::IsaTarget &n, const isadb::IsaTarget &o)
{
	if (n.llvm_features == o.llvm_features)
		return {OverrideVerdict::isa_safe,
			fmt::format("{} and {} are both in {} and compile with the same LLVM feature set {}: the "
				    "code is identical ({})",
				    n.name, o.name, n.generic, n.llvm_features, kFeatureLists)};
	if (auto insts = isadb::missing(o.instructions, n.instructions); !insts.empty())
		return {OverrideVerdict::unsafe,
			fmt::format("code built for {} may use {} ({}), which {} does not have ({})", o.name,
				    list(insts), o.llvm_features, n.name, kFeatureLists)};
	std::vector<std::string> caveats;
	if (o.vgprs_wave32 > n.vgprs_wave32)
		caveats.push_back(fmt::format(
			"{} has {} VGPRs per SIMD lane, {} only {}: a {} kernel with 1024-work-item workgroups may "
			"use up to {} VGPRs per wave, and {} can hold at most {} per wave for such a workgroup, so "
			"the kernel needs registers the GPU does not have ({}: getTotalNumVGPRs, "
			"Feature1_5xVGPRs)",
			o.name, o.vgprs_wave32, n.name, n.vgprs_wave32, o.name, o.vgprs_wave32 / 8, n.name,
			n.vgprs_wave32 / 8, kBaseInfo));
	if (auto wa = isadb::missing(n.workarounds, o.workarounds); !wa.empty())
		caveats.push_back(fmt::format("code built for {} lacks the hardware work-around{} {} that {} "
					      "needs ({})",
					      o.name, wa.size() == 1 ? "" : "s", list(wa), n.name, kFeatureLists));
	if (caveats.empty())
		return {OverrideVerdict::isa_safe,
			fmt::format("code built for {} uses only instructions {} has, carries every hardware "
				    "work-around {} needs and assumes no more than its {} VGPRs per SIMD lane "
				    "({} vs {}, {})",
				    o.name, n.name, n.name, n.vgprs_wave32, o.llvm_features, n.llvm_features,
				    kFeatureLists)};
	return {OverrideVerdict::works_not_guaranteed, fmt::format("{}", fmt::join(caveats, "; "))};
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
					"RDNA2 override is safe on RDNA1: use libraries built for {} or "
					"gfx10-1-generic ({})",
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
	// Same LLVM generic family: the ISA table decides (derive_same_family), real
	// reports may lower the verdict (override-pairs.tsv).
	const isadb::IsaTarget *nt = isadb::target(n), *ot = isadb::target(o);
	if (nt == nullptr || ot == nullptr)
		return {OverrideVerdict::unknown,
			fmt::format("{} and {} share {} but rdnactl's ISA table lacks one of them; cannot judge "
				    "HSA_OVERRIDE_GFX_VERSION={}",
				    n, o, nf->generic_name, val)};
	OverrideAssessment a = derive_same_family(*nt, *ot);
	if (const isadb::ReportedPair *r = isadb::reported(n, o)) {
		auto v = verdict_from(r->verdict);
		if (v && safety(*v) > safety(a.verdict)) { // the reports decide: say them first
			a.verdict = *v;
			a.reason = fmt::format("reports: {} (LLVM's feature lists alone: {})", r->evidence, a.reason);
		} else {
			a.reason += fmt::format("; reports: {}", r->evidence);
		}
	}
	return a;
}

std::optional<GfxTarget> safe_override_for(const GfxTarget &native)
{
	const IsaFamily *f = isa_family_of(native);
	if (f == nullptr)
		return std::nullopt;
	// The lowest member below the GPU whose code it runs safely: the family's
	// base targets are what libraries ship (gfx1030, gfx1100, gfx1200...).
	std::optional<GfxTarget> best;
	for (const auto &m : f->members)
		if (m.kfd_version() < native.kfd_version() &&
		    assess_override(native, m).verdict == OverrideVerdict::isa_safe &&
		    (!best || m.kfd_version() < best->kfd_version()))
			best = m;
	return best;
}

} // namespace rdnafix::rules
