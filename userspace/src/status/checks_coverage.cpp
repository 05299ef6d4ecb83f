// Checks: the code-object coverage of the installed libraries as facts
// (RDNA-COV-001..005), from the coverage report in the assessment.
#include "checks.hpp"

#include "software/words.hpp"

#include "core/gpudb.hpp"
#include "core/rules.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace rdnafix::status {

namespace detail {

namespace {

using coverage::Install;
using coverage::InstallKind;
using coverage::InstallVerdict;
using coverage::Verdict;

// The first official PyTorch wheel index whose libtorch_hip has native code
// for a target (pytorch/pytorch#164854 PYTORCH_ROCM_ARCH; astral-sh/uv#14086).
std::string wheel_index_for(std::string_view gfx)
{
	for (std::string_view t : {"gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1101",
				   "gfx1102", "gfx1200", "gfx1201"})
		if (gfx == t)
			return "rocm6.4";
	for (std::string_view t : {"gfx950", "gfx1150", "gfx1151"})
		if (gfx == t)
			return "rocm7.0";
	return "";
}

// The generic target of a GPU's family, "" when it has none.
std::string generic_of(const std::string &gfx)
{
	auto t = gpudb::parse_gfx_name(gfx);
	const rules::IsaFamily *f = t ? rules::isa_family_of(*t) : nullptr;
	return f ? std::string(f->generic_name) : "";
}

// Libraries with native (or generic) code for the GPU, for this kind of
// installation.
std::string native_alternative(const Install &in, const std::string &gfx)
{
	std::string gen = generic_of(gfx);
	std::string either = gen.empty() ? gfx : gfx + " or " + gen;
	switch (in.kind) {
	case InstallKind::pytorch:
		if (auto w = wheel_index_for(gfx); !w.empty())
			return fmt::format(
				"pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/{} "
				"(native {} code)",
				w, gfx);
		return fmt::format("a PyTorch built for {} (PYTORCH_ROCM_ARCH={}; no official wheel has {}, "
				   "pytorch/pytorch#132570)",
				   either, gfx, gfx);
	case InstallKind::consumer:
		return fmt::format("rebuild llama.cpp with -DGGML_HIP=ON -DAMDGPU_TARGETS={}", gfx);
	default:
		return fmt::format("ROCm libraries built for {}{}", either, gen.empty() ? "" : " (generic: ROCm 6.4+)");
	}
}

// The exact remedy for a GPU without usable code in an installation.
std::string remedy(const Install &in, const std::string &gfx)
{
	std::string safe = safe_override_for(gfx);
	auto t = gpudb::parse_gfx_name(gfx);
	auto base = t ? rules::safe_override_for(*t) : std::nullopt;
	if (in.kind == InstallKind::pytorch && base && !wheel_index_for(base->name()).empty() &&
	    wheel_index_for(gfx).empty())
		return fmt::format(
			"pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/{} "
			"(it has {} code), then export HSA_OVERRIDE_GFX_VERSION={} (ISA-safe for {}); or {}",
			wheel_index_for(base->name()), base->name(), safe, gfx, native_alternative(in, gfx));
	if (!safe.empty()) {
		auto t = gpudb::parse_gfx_name(gfx);
		auto o = t ? rules::safe_override_for(*t) : std::nullopt;
		return fmt::format("{}; or export HSA_OVERRIDE_GFX_VERSION={} with libraries that have {} code",
				   native_alternative(in, gfx), safe, o ? o->name() : "its");
	}
	return native_alternative(in, gfx) + (safe.empty() && !generic_of(gfx).empty() && gfx.starts_with("gfx101")
						      ? "; an override to another family is not ISA-safe"
						      : "");
}

// The override in effect for a device: "" when none.
struct Effective {
	std::string name, value;
};
Effective override_on(const Ctx &c, const std::string &bdf)
{
	const auto &ov = c.s.environment.overrides;
	for (std::size_t k = 0; k < ov.size(); ++k)
		for (const auto &v : c.a.overrides[k])
			if (v.device == bdf && ov[k].target)
				return {ov[k].name, ov[k].target->dotted()};
	return {};
}

std::string subject(const InstallVerdict &s, const Install &in)
{
	return fmt::format("{} / {}", s.verdict.device.empty() ? s.verdict.gfx : s.verdict.device, in.label);
}

} // namespace

void check_coverage(Ctx &c)
{
	if (!c.a.coverage)
		return;
	const coverage::Report &r = *c.a.coverage;
	const VisibleGpus visible = visible_gpus(c.s);
	for (const auto &s : r.summary) {
		const Install &in = r.installs[s.install];
		const auto &v = s.verdict;
		// A GPU *_VISIBLE_DEVICES hides runs nothing: its coverage does not matter (issue 21).
		const auto dev = std::find_if(c.s.devices.begin(), c.s.devices.end(),
					      [&](const Device &d) { return d.pci_bdf == v.device; });
		if (!v.device.empty() && dev != c.s.devices.end() && hidden(visible, *dev))
			continue;
		const std::string where = fmt::format("{} ({})", in.label, s.library);
		if (v.verdict == Verdict::missing ||
		    (v.verdict == Verdict::override_only && v.override_safety == rules::OverrideVerdict::unsafe)) {
			std::string finding =
				v.verdict == Verdict::missing
					? fmt::format("{}: no code {} can run ({})", where, v.gfx, v.reason)
					: fmt::format("{} has no {} code ({}); HSA_OVERRIDE_GFX_VERSION={} would run "
						      "{} code "
						      "on it, which is not ISA-safe: {}",
						      where, v.gfx, v.reason, v.override_value, v.via,
						      v.override_reason);
			c.add("RDNA-COV-001", subject(s, in), finding,
			      "its kernels fail with 'HIP error: invalid device function' / hipErrorNoBinaryForGpu "
			      "(or, with a cross-family override, fault)",
			      remedy(in, v.gfx));
		} else if (v.verdict == Verdict::override_only) {
			Effective e = override_on(c, v.device);
			std::string safety =
				v.override_safety ? std::string(rules::to_string(*v.override_safety)) : "unknown";
			if (e.value == v.override_value) {
				c.add("RDNA-COV-003", subject(s, in),
				      fmt::format("{} has {} but not {}: {}={} is what runs it ({})", where, v.via,
						  v.gfx, e.name, e.value, safety),
				      "the override is needed for this installation, not a leftover",
				      fmt::format(
					      "none needed; a build with native {} or generic code would not need it",
					      v.gfx));
				continue;
			}
			const bool safe = v.override_safety == rules::OverrideVerdict::isa_safe;
			std::string finding = fmt::format(
				"{} has {} but not {}: {}{}", where, v.via, v.gfx,
				safe ? fmt::format("HSA_OVERRIDE_GFX_VERSION={} is the ISA-safe way to run it",
						   v.override_value)
				     : fmt::format(
					       "HSA_OVERRIDE_GFX_VERSION={} runs it in practice, but not safely: {}",
					       v.override_value, v.override_reason),
				e.value.empty() ? "" : fmt::format("; {}={} is set instead", e.name, e.value));
			std::string fix =
				safe ? fmt::format("export HSA_OVERRIDE_GFX_VERSION={}; or {}", v.override_value,
						   native_alternative(in, v.gfx))
				     : fmt::format("{}; HSA_OVERRIDE_GFX_VERSION={} only if your workload validates "
						   "(rdnactl validate)",
						   native_alternative(in, v.gfx), v.override_value);
			c.add("RDNA-COV-002", subject(s, in), finding,
			      "without it the runtime finds no code object for the GPU: 'HIP error: invalid device "
			      "function' / hipErrorNoBinaryForGpu",
			      fix,
			      v.override_safety == rules::OverrideVerdict::isa_safe
				      ? std::vector<Remedy>{SetEnv{"HSA_OVERRIDE_GFX_VERSION", v.override_value,
								   fmt::format("{} has {} code only", in.label, v.via)}}
				      : std::vector<Remedy>{NoChange{}});
		}
	}
	// A set override where every installation has native or generic code.
	const auto &ov = c.s.environment.overrides;
	for (std::size_t k = 0; k < ov.size(); ++k) {
		if (!ov[k].target)
			continue;
		for (const auto &dv : c.a.overrides[k]) {
			std::string have;
			bool all_good = true, any = false;
			for (const auto &s : r.summary) {
				if (s.verdict.device != dv.device)
					continue;
				any = true;
				if (s.verdict.verdict != Verdict::native && s.verdict.verdict != Verdict::generic)
					all_good = false;
				else if (have.empty())
					have = fmt::format("{} has {} {} code", r.installs[s.install].label,
							   s.verdict.verdict == Verdict::native ? "native" : "generic",
							   s.verdict.via);
			}
			if (!any || !all_good || dv.native == ov[k].target->name())
				continue; // pointless overrides are RDNA-ENV-003
			std::string finding =
				fmt::format("{}={} is not needed on {}: {}; with it the runtime loads {} code instead",
					    ov[k].name, ov[k].value, dv.device, have, ov[k].target->name());
			c.add("RDNA-COV-004", ov[k].name + " @ " + dv.device, finding,
			      "the override hides the native code the libraries ship and runs code built for another "
			      "GPU",
			      fmt::format("unset {}", ov[k].name), {UnsetEnv{ov[k].name, first_clause(finding)}});
		}
	}
	for (const auto &in : r.installs)
		for (const auto &l : in.libraries)
			if (!l.problems.empty())
				c.add("RDNA-COV-005", "/" + l.path,
				      fmt::format("{}: {}{}", l.name, l.problems.front(),
						  l.problems.size() > 1
							  ? fmt::format(" (and {} more)", l.problems.size() - 1)
							  : ""),
				      "the runtime refuses a damaged bundle or an object whose header names another "
				      "target; its code for that target is not counted",
				      "reinstall the package that owns the file; run rdnactl coverage --json for every "
				      "entry");
}

} // namespace detail

} // namespace rdnafix::status
