// RDNA-VER-001..005: the known-bad versions table (known-bad.toml, in
// Assessment::known_bad) matched per AMD GPU against the facts of the
// snapshot and of the code-object scan.  ROCm and PyTorch versions come from
// the scan's installations (none with --no-coverage: those entries then
// cannot match).
#include "checks.hpp"

#include "core/hwfacts.hpp"
#include "core/parse.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace rdnafix::status::detail {

namespace {

std::string_view id_for(knowledge::VersionKind k)
{
	switch (k) {
	case knowledge::VersionKind::firmware:
		return "RDNA-VER-001";
	case knowledge::VersionKind::kernel:
		return "RDNA-VER-002";
	case knowledge::VersionKind::drm:
		return "RDNA-VER-003";
	case knowledge::VersionKind::rocm:
		return "RDNA-VER-004";
	case knowledge::VersionKind::pytorch:
		return "RDNA-VER-005";
	}
	return "RDNA-VER-001";
}

// What the machine says, as the table's facts (knowledge/known_bad.hpp).
knowledge::Facts machine_facts(const Ctx &c)
{
	knowledge::Facts f;
	const auto &s = c.s;
	if (!s.driver.kernel_release.empty())
		f["kernel"] = s.driver.kernel_release;
	bool expandable = false;
	for (const char *n : {"PYTORCH_HIP_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF"})
		if (const auto it = s.environment.vars.find(n); it != s.environment.vars.end())
			expandable = expandable || core::alloc_conf_expandable(it->second);
	f["env.expandable_segments"] = expandable ? "true" : "false";
	if (c.a.coverage)
		for (const auto &i : c.a.coverage->installs) {
			if (i.kind == coverage::InstallKind::pytorch && !i.version.empty() && !f.count("pytorch")) {
				f["pytorch"] = i.version;
				if (!i.runtime_version.empty() && !f.count("rocm"))
					f["rocm"] = i.runtime_version;
			}
			if ((i.kind == coverage::InstallKind::rocm_system ||
			     i.kind == coverage::InstallKind::rocm_debian) &&
			    !i.version.empty() && !f.count("rocm"))
				f["rocm"] = i.version;
		}
	return f;
}

std::string fact_text(const knowledge::VersionCondition &w, const knowledge::Facts &f)
{
	if (const auto it = f.find(w.fact); it != f.end())
		return fmt::format("{} {}", w.fact, it->second);
	const auto lo = f.find(w.fact + ".min"), hi = f.find(w.fact + ".max");
	return fmt::format("{} between {} and {} (derived)", w.fact, lo == f.end() ? "?" : lo->second,
			   hi == f.end() ? "?" : hi->second);
}

} // namespace

void check_versions(Ctx &c)
{
	if (c.a.known_bad.empty())
		return;
	const auto base = machine_facts(c);
	for (const auto *d : amd_devices(c.s)) {
		auto f = base;
		for (const auto &[name, v] : d->hw.firmware)
			f["firmware." + name] = v;
		const auto &v = d->hw.drm_version;
		if (v.source == machine::DrmVersionSource::ioctl || v.source == machine::DrmVersionSource::file)
			f["drm"] = fmt::format("{}.{}.{}", v.major, v.minor, v.patch);
		else if (v.source == machine::DrmVersionSource::derived) {
			if (v.minor_at_least)
				f["drm.min"] = fmt::format("3.{}", *v.minor_at_least);
			if (v.minor_at_most)
				f["drm.max"] = fmt::format("3.{}", *v.minor_at_most);
		}
		for (const auto *e : knowledge::match_known_bad(c.a.known_bad, f, d->gfx_target.value_or(""))) {
			std::string seen;
			for (const auto &w : e->when)
				if (!w.fact.starts_with("env."))
					seen += (seen.empty() ? "" : ", ") + fact_text(w, f);
			c.add(id_for(e->kind), dev_label(*d),
			      fmt::format("{} ({}: {})", e->title, e->id, seen.empty() ? "matched" : seen),
			      e->symptom + (e->sources.empty() ? "" : " (" + e->sources.front() + ")"), e->workaround,
			      {NoChange{}}, e->error ? Severity::error : Severity::warn);
		}
	}
}

} // namespace rdnafix::status::detail
