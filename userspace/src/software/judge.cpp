// Pure: per GPU x library, native / generic / only with an override /
// missing (docs/coverage.md "Verdicts").  Feature compatibility follows the
// LLVM target-id rules (AMDGPUUsage.rst "Target ID"): an xnack- object loads
// only where XNACK is off, xnack+ only where it is on, "any" on both.
#include "software/scan.hpp"

#include "software/libdirs.hpp"

#include "core/gpudb.hpp"
#include "core/parse.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace rdnafix::coverage {

using core::codeobj::Feature;
using core::codeobj::TargetId;

std::string_view to_string(Verdict v)
{
	switch (v) {
	case Verdict::native:
		return "native";
	case Verdict::generic:
		return "generic";
	case Verdict::override_only:
		return "override_only";
	case Verdict::missing:
		return "missing";
	case Verdict::no_code:
		return "no_code";
	}
	return "missing";
}

namespace {

std::string spell(const TargetId &t)
{
	return spelled(t);
}

// Why an object with these features does not load on the GPU ("" if it does).
std::string feature_clash(const TargetId &t, const Gpu &g)
{
	if (t.xnack == Feature::on && !g.xnack_on)
		return fmt::format("{} needs XNACK on; the GPU runs XNACK off", spell(t));
	if (t.xnack == Feature::off && g.xnack_on)
		return fmt::format("{} needs XNACK off; the GPU runs XNACK on", spell(t));
	if (g.sramecc && t.sramecc == Feature::on && !*g.sramecc)
		return fmt::format("{} needs SRAM ECC on; the GPU has none", spell(t));
	if (g.sramecc && t.sramecc == Feature::off && *g.sramecc)
		return fmt::format("{} needs SRAM ECC off; the GPU runs it on", spell(t));
	return "";
}

// "6.2.41133-dd7f95766" -> {6, 2}; nullopt when unknown.
std::optional<std::pair<unsigned, unsigned>> major_minor(std::string_view v)
{
	unsigned mj = 0, mn = 0;
	std::size_t i = 0;
	auto num = [&](unsigned &out) {
		std::size_t b = i;
		while (i < v.size() && i - b < 4 && v[i] >= '0' && v[i] <= '9')
			out = out * 10 + unsigned(v[i++] - '0');
		return i > b;
	};
	if (!num(mj) || i >= v.size() || v[i] != '.')
		return std::nullopt;
	++i;
	if (!num(mn))
		return std::nullopt;
	return std::pair{mj, mn};
}

int rank(Verdict v)
{
	switch (v) {
	case Verdict::native:
		return 0;
	case Verdict::generic:
		return 1;
	case Verdict::override_only:
		return 2;
	case Verdict::missing:
		return 3;
	case Verdict::no_code:
		return -1;
	}
	return 3;
}

int safety_rank(rules::OverrideVerdict v)
{
	switch (v) {
	case rules::OverrideVerdict::isa_safe:
		return 0;
	case rules::OverrideVerdict::works_not_guaranteed:
		return 1;
	case rules::OverrideVerdict::unsafe:
		return 2;
	default:
		return 3;
	}
}

std::string list_targets(const std::vector<TargetId> &ts)
{
	std::string s;
	for (const auto &t : ts)
		s += (s.empty() ? "" : " ") + spell(t);
	return s;
}

} // namespace

DeviceVerdict judge_library(const Library &lib, const std::string &runtime_version, const Gpu &gpu)
{
	DeviceVerdict v;
	v.device = gpu.device;
	v.gfx = gpu.gfx;
	if (lib.targets.empty()) {
		// A file or bundle that was not read is never "no device code".
		if (lib.file && lib.file->kind == FileKind::unreadable) {
			v.verdict = Verdict::missing;
			v.reason = "could not be read: " + lib.file->unreadable;
		} else if (lib.file && lib.file->kind == FileKind::over_budget) {
			v.verdict = Verdict::missing;
			v.reason = lib.file->unreadable;
		} else if (!lib.problems.empty()) {
			v.verdict = Verdict::missing;
			const bool unread = !lib.file || any_bundle_unreadable(*lib.file);
			v.reason = (unread ? "could not be read: " : "no usable code object: ") + lib.problems.front();
		} else {
			v.verdict = Verdict::no_code;
			v.reason = "no device code";
		}
		return v;
	}
	auto native = gpudb::parse_gfx_name(gpu.gfx);
	std::string clash;
	// 1. Native code, feature-compatible.
	for (const auto &t : lib.targets) {
		if (t.processor != gpu.gfx)
			continue;
		std::string c = feature_clash(t, gpu);
		if (c.empty()) {
			v.verdict = Verdict::native;
			v.via = spell(t);
			v.reason = fmt::format("has {}", spell(t));
			return v;
		}
		if (clash.empty())
			clash = c;
	}
	// 2. The generic target of its family, if the runtime can load it.
	const rules::IsaFamily *fam = native ? rules::isa_family_of(*native) : nullptr;
	std::string generic_refused;
	if (fam)
		for (const auto &t : lib.targets) {
			if (t.processor != fam->generic_name)
				continue;
			std::string c = feature_clash(t, gpu);
			if (!c.empty()) {
				if (clash.empty())
					clash = c;
				continue;
			}
			auto rv = major_minor(runtime_version);
			if (rv && *rv < std::pair{6u, 4u}) {
				generic_refused =
					fmt::format("{} code needs a ROCm 6.4 or newer runtime (code object v6); "
						    "this installation's is {}",
						    spell(t), runtime_version);
				break;
			}
			v.verdict = Verdict::generic;
			v.via = spell(t);
			v.reason = fmt::format(
				"has {}, which the runtime loads for {} from ROCm 6.4 (code object v6){}", spell(t),
				gpu.gfx,
				fam->no_restrictions ? ""
						     : fmt::format("; LLVM lists restrictions: {}", fam->restrictions));
			return v;
		}
	// 3. Code for another target of the same generation: only with an override.
	std::optional<TargetId> best;
	std::optional<rules::OverrideAssessment> best_a;
	if (native)
		for (const auto &t : lib.targets) {
			if (t.processor.ends_with("-generic"))
				continue;
			auto other = gpudb::parse_gfx_name(t.processor);
			if (!other || other->major != native->major || *other == *native ||
			    !feature_clash(t, gpu).empty())
				continue;
			auto a = rules::assess_override(*native, *other);
			if (a.verdict == rules::OverrideVerdict::unknown ||
			    a.verdict == rules::OverrideVerdict::pointless)
				continue;
			// Equally safe: the lowest target, the family's base (gfx1030,
			// gfx1100, gfx1200): the value guides and the official wheels use.
			auto version = [](const TargetId &x) {
				return gpudb::parse_gfx_name(x.processor)->kfd_version();
			};
			if (!best || safety_rank(a.verdict) < safety_rank(best_a->verdict) ||
			    (safety_rank(a.verdict) == safety_rank(best_a->verdict) && version(t) < version(*best))) {
				best = t;
				best_a = a;
			}
		}
	if (best) {
		auto o = gpudb::parse_gfx_name(best->processor);
		v.verdict = Verdict::override_only;
		v.via = spell(*best);
		v.override_value = o->dotted();
		v.override_safety = best_a->verdict;
		v.override_reason = best_a->reason;
		v.reason = fmt::format("has {} but not {}{}", spell(*best), gpu.gfx,
				       fam ? " or " + std::string(fam->generic_name) : "");
		return v;
	}
	// 4. Missing.
	v.verdict = Verdict::missing;
	if (!generic_refused.empty())
		v.reason = generic_refused;
	else if (!clash.empty())
		v.reason = clash;
	else
		v.reason = fmt::format("has only {}: no code for {}{}", list_targets(lib.targets), gpu.gfx,
				       fam ? " or " + std::string(fam->generic_name) : "");
	return v;
}

std::vector<LibraryJudgement> judge(const std::vector<Install> &installs, const std::vector<Gpu> &gpus)
{
	std::vector<LibraryJudgement> out;
	for (std::size_t i = 0; i < installs.size(); ++i)
		for (std::size_t l = 0; l < installs[i].libraries.size(); ++l) {
			LibraryJudgement j{i, l, {}};
			for (const auto &g : gpus)
				j.devices.push_back(
					judge_library(installs[i].libraries[l], installs[i].runtime_version, g));
			out.push_back(std::move(j));
		}
	return out;
}

std::vector<LibraryJudgement> judge(const std::vector<Install> &installs, const machine::Snapshot &s)
{
	auto gpus = gpus_of(s, {});
	return judge(installs, gpus ? *gpus : std::vector<Gpu>{});
}

std::vector<InstallVerdict> summarize(const std::vector<Install> &installs, const std::vector<Gpu> &gpus,
				      const std::vector<LibraryJudgement> &judgements)
{
	std::vector<InstallVerdict> out;
	for (std::size_t i = 0; i < installs.size(); ++i)
		for (std::size_t g = 0; g < gpus.size(); ++g) {
			std::optional<InstallVerdict> worst;
			for (const auto &j : judgements) {
				if (j.install != i || g >= j.devices.size() || j.devices[g].verdict == Verdict::no_code)
					continue;
				// MIOpen's databases hold tuning results and precompiled kernels;
				// without them MIOpen searches and compiles at run time: they
				// speed it up, they do not decide whether it runs.
				if (installs[i].libraries[j.library].kind == LibraryKind::miopen_db)
					continue;
				const DeviceVerdict &d = j.devices[g];
				if (!worst || rank(d.verdict) > rank(worst->verdict.verdict) ||
				    (d.verdict == Verdict::override_only && worst->verdict.verdict == d.verdict &&
				     d.override_safety && worst->verdict.override_safety &&
				     safety_rank(*d.override_safety) > safety_rank(*worst->verdict.override_safety)))
					worst = InstallVerdict{i, d, installs[i].libraries[j.library].name};
			}
			if (worst) {
				if (worst->verdict.verdict == Verdict::native)
					worst->library.clear();
				out.push_back(std::move(*worst));
			}
		}
	return out;
}

int exit_code_for(const Report &r)
{
	for (const auto &s : r.summary)
		if (s.verdict.verdict != Verdict::native && s.verdict.verdict != Verdict::generic)
			return 1;
	return 0;
}

} // namespace rdnafix::coverage
