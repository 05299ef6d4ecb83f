// Knowledge rules.  Every rule cites where it comes from; the explanations
// are what rdnactl prints, so they name the rule and the evidence.
#include "core/rules.hpp"

#include <algorithm>
#include <array>
#include <limits>

#include "core/parse.hpp"

#include <fmt/format.h>

namespace rdnafix::rules {

namespace {

// ---- noretry ---------------------------------------------------------------
// docs/amdgpu-facts.md §4: the "Older kernels" table (upstream history of
// drivers/gpu/drm/amd/amdgpu/amdgpu_gmc.c: amdgpu_gmc_noretry_set) and its
// source in Linux 6.1, 6.12 and 7.2.
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

// Where each era's default is written: the printed citation.
constexpr std::string_view kNoretrySet = "drivers/gpu/drm/amd/amdgpu/amdgpu_gmc.c: amdgpu_gmc_noretry_set";

std::string era_source(NoretryEra era)
{
	switch (era) {
	case NoretryEra::upto_5_17:
		return fmt::format("{}, Linux 5.17", kNoretrySet);
	case NoretryEra::v5_18_6_0:
		return fmt::format("{}, Linux 6.0", kNoretrySet);
	case NoretryEra::v6_1_6_18_0:
		return fmt::format("{}, Linux 6.1 and 6.12", kNoretrySet);
	case NoretryEra::v2026:
		return fmt::format("{}, Linux 7.2", kNoretrySet);
	}
	return std::string(kNoretrySet);
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
		d.explanation = fmt::format(
			"amdgpu.noretry={} is set explicitly, which overrides the kernel default "
			"({}, Linux 6.1, 6.12 and 7.2); the default for GC {} on kernel {} would be {}{}",
			param, kNoretrySet, gc_str(gc), kernel.numeric(), def.value, def.certain ? "" : " (uncertain)");
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
				"not recorded in our sources (older builds default to {}); GC {} -> {} assumed ({})",
				kv, era_rule(era), kernel.major, kernel.minor, before, gc_str(gc), d.value,
				era_source(era));
			return d;
		}
	}
	d.explanation = fmt::format("kernel {}: {} ({}); GC {} -> {}", kv, era_rule(era), era_source(era), gc_str(gc),
				    d.value == 1 ? "1 (retry faults off)" : "0 (retry faults on)");
	return d;
}

DeviceNoretry device_noretry(const DeviceNoretryFacts &f)
{
	DeviceNoretry out;
	std::optional<KernelVersion> kv;
	if (auto pv = core::parse_proc_version(f.kernel_version_line); pv)
		kv = pv->upstream ? *pv->upstream : pv->release;
	else if (auto r = core::parse_kernel_release(f.kernel_release); r)
		kv = *r;
	int param = -1;
	if (f.noretry_param)
		if (auto v = core::parse_i64(*f.noretry_param); v)
			param = int(*v);
	if (!f.gc_version || !kv || !f.amdgpu_loaded || !f.bound_to_amdgpu)
		return out;
	auto gc = core::parse_gc_version(*f.gc_version);
	if (!gc)
		return out;
	auto dec = effective_noretry(*kv, *gc, param);
	out.value = dec.value;
	out.explanation = dec.explanation;
	out.from = dec.from_parameter ? NoretryFrom::parameter : NoretryFrom::kernel_default;
	if (f.rdnafix_applied) {
		out.value = *f.rdnafix_applied;
		out.from = NoretryFrom::rdnafix;
		out.explanation = fmt::format("rdnafix applied noretry={} to this device (amdgpu alone: {})",
					      *f.rdnafix_applied, dec.explanation);
	}
	return out;
}

bool kfd_xnack_possible(const KernelVersion &kernel, const GcVersion &gc)
{
	// kfd_process_xnack_mode(): false for every GC >= 10.1.1 (6.1, 6.12);
	// 7.2 limits that to GC < 12.1.0 (docs/amdgpu-facts.md §4).
	if (gc >= GcVersion{12, 1, 0} && kernel.at_least(7, 2))
		return true;
	return gc < GcVersion{10, 1, 1};
}

std::optional<std::uint64_t> ttm_pages_limit_bytes(std::uint64_t pages_limit)
{
	if (pages_limit == 0)
		return std::nullopt;
	if (pages_limit > std::numeric_limits<std::uint64_t>::max() / kTtmPageSize)
		return std::numeric_limits<std::uint64_t>::max();
	return pages_limit * kTtmPageSize;
}

namespace {

// A decimal integer with optional surrounding white space and one leading
// '+' ("+5", " -1\n"); hex is not decimal.
std::optional<std::int64_t> decimal(std::string_view s)
{
	s = core::trim(s);
	if (!s.empty() && s.front() == '+')
		s.remove_prefix(1);
	std::string_view digits = !s.empty() && s.front() == '-' ? s.substr(1) : s;
	if (digits.size() > 1 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X'))
		return std::nullopt;
	auto v = core::parse_i64(s);
	if (!v)
		return std::nullopt;
	return *v;
}

// "0x..." exactly (no white space): the kernel prints some masks in hex.
std::optional<std::uint64_t> hex(std::string_view s)
{
	if (s.size() <= 2 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || core::trim(s).size() != s.size())
		return std::nullopt;
	auto v = core::parse_u64(s);
	if (!v)
		return std::nullopt;
	return *v;
}

} // namespace

bool rocm_officially_supported(std::string_view gfx)
{
	// docs/rocm-facts.md §5 "Official support status": Linux matrices 6.0-6.3
	// (gfx908 gfx90a gfx942 gfx1030 gfx1100), RX 7000 (gfx1101/1102) in the
	// Radeon tables, RDNA4 from 6.4.1, gfx1151 from 6.4.4, gfx1150 from 7.0.2,
	// Radeon VII/PRO VII (gfx906, deprecated).
	static constexpr std::array<std::string_view, 13> list{"gfx906",  "gfx908",  "gfx90a",  "gfx942",  "gfx950",
							       "gfx1030", "gfx1100", "gfx1101", "gfx1102", "gfx1150",
							       "gfx1151", "gfx1200", "gfx1201"};
	return std::find(list.begin(), list.end(), gfx) != list.end();
}

std::optional<bool> param_values_equal(std::string_view a, std::string_view b)
{
	auto boolish = [](std::string_view s) -> std::optional<bool> {
		if (s == "Y" || s == "y" || s == "1" || s == "on" || s == "true")
			return true;
		if (s == "N" || s == "n" || s == "0" || s == "off" || s == "false")
			return false;
		return std::nullopt;
	};
	auto ia = decimal(a), ib = decimal(b);
	if (ia && ib)
		return *ia == *ib;
	// Booleans: the kernel prints Y/N.
	if ((b == "Y" || b == "N") && boolish(a))
		return *boolish(a) == (b == "Y");
	// Hex values such as ppfeaturemask=0xfff7bfff are printed in decimal... or hex.
	auto ha = hex(a), hb = hex(b);
	if (ha && (hb || ib))
		return *ha == (hb ? *hb : static_cast<std::uint64_t>(*ib));
	if (hb && ia)
		return *hb == static_cast<std::uint64_t>(*ia);
	if (a == b)
		return true;
	return std::nullopt;
}

} // namespace rdnafix::rules
