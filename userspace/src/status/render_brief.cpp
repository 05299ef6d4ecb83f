// The brief sections of `rdnactl status` (the default; --verbose prints every
// fact through render_text.cpp).  A section with one line prints it beside its
// heading; the parameters at their defaults, the rules behind noretry, the
// module's hooks and parameters, notes and the history paths are --verbose's.
#include "render.hpp"

#include "machine/facts.hpp"

#include "core/text_safe.hpp"

#include <fmt/format.h>

namespace rdnafix::status {

namespace {

std::string gib(std::optional<std::uint64_t> b)
{
	return b ? fmt::format("{:.2f} GiB", double(*b) / double(1ull << 30)) : std::string("unknown");
}

std::string join(const std::vector<std::string> &v, const char *sep)
{
	std::string out;
	for (const auto &x : v)
		out += (out.empty() ? "" : sep) + x;
	return out;
}

std::string_view noretry_from(rules::NoretryFrom f)
{
	switch (f) {
	case rules::NoretryFrom::kernel_default:
		return "kernel default";
	case rules::NoretryFrom::parameter:
		return "amdgpu.noretry";
	case rules::NoretryFrom::rdnafix:
		return "rdnafix";
	}
	return "";
}

class Brief {
public:
	Brief(const Snapshot &s, const Assessment &a, const TextStyle &st) : s_(s), a_(a), st_(st) {}
	std::string take() { return std::move(o_); }

	// One line: beside the heading; more: below it, as they are.
	void section(const std::string &head, const std::vector<std::string> &lines)
	{
		if (lines.size() == 1) {
			const auto &l = lines.front();
			o_ += st_.head(core::terminal_safe(head)) + ": " +
			      core::terminal_safe(l.substr(std::min(l.find_first_not_of(' '), l.size()))) + "\n";
			return;
		}
		o_ += st_.head(core::terminal_safe(head)) + "\n";
		for (const auto &l : lines)
			o_ += core::terminal_safe(l) + "\n";
	}

	std::vector<std::string> devices() const;
	std::vector<std::string> driver() const;
	std::vector<std::string> rdnafix() const;
	std::vector<std::string> access() const;
	std::vector<std::string> environment() const;

private:
	const Snapshot &s_;
	const Assessment &a_;
	const TextStyle &st_;
	std::string o_;
};

std::vector<std::string> Brief::devices() const
{
	std::vector<std::string> out;
	if (s_.devices.empty())
		out.push_back("  no DRM or display devices found");
	for (size_t i = 0; i < s_.devices.size(); ++i) {
		const Device &d = s_.devices[i];
		if (d.pci_bdf.empty()) {
			out.push_back(fmt::format("  {} (not a PCI device)", d.card.empty() ? d.render_node : d.card));
			continue;
		}
		const std::string name =
			d.marketing_name ? *d.marketing_name : (d.is_amd ? "AMD GPU" : "non-AMD device");
		const std::string id = machine::pci_id(d);
		out.push_back(fmt::format("  {}  {}  [{}] driver {}{}", d.pci_bdf, name, id.empty() ? "?" : id,
					  d.driver.empty() ? "none" : d.driver,
					  d.is_amd ? "" : " (not AMD: listed only)"));
		if (!d.is_amd)
			continue;
		out.push_back(fmt::format(
			"    {}{}, GC {}, {}{}{}, KFD node {}", d.gfx_target.value_or("gfx target unknown"),
			d.gfx_target_source == machine::GfxTargetSource::unknown
				? ""
				: fmt::format(" (from {})", to_string(d.gfx_target_source)),
			d.gc_version.value_or("unknown"), d.generation ? gpudb::to_string(*d.generation) : "unknown",
			d.apu ? (*d.apu ? " APU" : " discrete") : "", d.codename.empty() ? "" : " (" + d.codename + ")",
			d.kfd_node ? std::to_string(*d.kfd_node) : "none"));
		const auto &nr = a_.noretry[i];
		out.push_back(fmt::format("    VRAM {}, GTT {}{}", gib(d.vram_total_bytes), gib(d.gtt_total_bytes),
					  nr.value ? fmt::format(", noretry {} ({})", *nr.value, noretry_from(nr.from))
						   : ""));
		if (d.hwdb && !d.hwdb->differences.empty())
			out.push_back("    udev hwdb differs from rdnactl's database (--verbose shows how)");
		for (const auto &u : d.unreadable)
			out.push_back(fmt::format("    {:<15} {}", u.item, u.reason));
	}
	return out;
}

std::vector<std::string> Brief::driver() const
{
	const auto &dr = s_.driver;
	std::vector<std::string> out;
	out.push_back(fmt::format("  kernel {}, amdgpu {}{}", dr.kernel_release.empty() ? "unknown" : dr.kernel_release,
				  dr.amdgpu_loaded ? "loaded" : "not loaded",
				  dr.initstate ? " (initstate " + *dr.initstate + ")" : ""));
	size_t defaults = 0;
	for (const auto &p : dr.params) {
		if (p.source == machine::ParamSource::default_value) {
			++defaults;
			continue;
		}
		std::string src = p.source == machine::ParamSource::cmdline
					  ? "kernel command line"
					  : fmt::format("{}:{}", p.source_file, p.source_line);
		std::string live = p.live_value ? *p.live_value : p.root_only ? "root only" : "not loaded";
		out.push_back(fmt::format("  {}.{}={} ({}{})", p.module, p.name, p.configured_value, src,
					  live == p.configured_value ? "" : "; running: " + live));
		if (!p.overridden_file.empty())
			out.push_back(fmt::format("    overrides {}:{} ({})", p.overridden_file, p.overridden_line,
						  p.overridden_value));
	}
	out.push_back(fmt::format("  {} parameter(s) at their defaults; TTM limit {}, RAM {}", defaults,
				  gib(dr.ttm_limit_bytes), gib(dr.mem_total_bytes)));
	for (const auto &u : dr.unreadable)
		out.push_back(fmt::format("  {:<15} {}: {}", u.item, u.path, u.reason));
	return out;
}

std::vector<std::string> Brief::rdnafix() const
{
	const auto &r = s_.rdnafix;
	std::vector<std::string> out;
	if (!r.installed && !r.loaded)
		out.push_back("  not installed");
	else if (!r.loaded)
		out.push_back(fmt::format("  installed ({}), not loaded", r.installed_paths.front()));
	else
		out.push_back(fmt::format("  loaded ({}){}{}, {} device(s); --verbose lists hooks and parameters",
					  to_string(r.loaded_evidence), r.version ? ", version " + *r.version : "",
					  r.dry_run ? ", dry_run " + *r.dry_run : "", r.devices.size()));
	for (const auto &u : r.unreadable)
		out.push_back(fmt::format("  {:<15} {}: {}", u.item, u.path, u.reason));
	return out;
}

std::vector<std::string> Brief::access() const
{
	const auto &acc = s_.access;
	std::vector<std::string> out;
	std::vector<std::string> ok;
	for (size_t i = 0; i < acc.nodes.size(); ++i) {
		const DevNode &n = acc.nodes[i];
		const NodeAccess &v = a_.nodes[i];
		if (n.exists && v.can_open && !v.unknown)
			ok.push_back(n.path);
		else
			out.push_back(fmt::format("  {}: {}", n.path,
						  !n.exists   ? "missing"
						  : v.unknown ? "open unknown: " + v.verdict
							      : "CANNOT open: " + v.verdict));
	}
	const std::string who = acc.subject == machine::AccessSubject::user ? "user " + acc.user : "this process";
	out.insert(out.begin(), fmt::format("  {}: {}", who,
					    ok.empty() ? "no GPU node can be opened" : "can open " + join(ok, ", ")));
	if (!acc.relogin_groups.empty())
		out.push_back(fmt::format("  not yet active: {} (log in again)", join(acc.relogin_groups, ",")));
	if (acc.container.detected())
		out.push_back(fmt::format(
			"  container {}{}", machine::to_string(acc.container.kind),
			acc.container.rootless ? (*acc.container.rootless ? ", rootless" : ", rootful") : ""));
	if (s_.wsl.kind != machine::WslKind::none)
		out.push_back(fmt::format("  WSL {}, /dev/dxg {}", machine::to_string(s_.wsl.kind),
					  s_.wsl.dxg_exists ? "present" : "missing"));
	for (const auto &u : acc.unreadable)
		out.push_back(fmt::format("  {:<15} {}: {}", u.item, u.path, u.reason));
	return out;
}

std::vector<std::string> Brief::environment() const
{
	const auto &e = s_.environment;
	std::vector<std::string> out;
	for (const auto &j : a_.variables)
		out.push_back(fmt::format("  {}={}  [{}{}]", j.name, j.value, verdict_word(j.verdict),
					  j.near.empty() ? "" : ", meant " + j.near));
	for (size_t i = 0; i < e.overrides.size(); ++i) {
		const OverrideVar &ov = e.overrides[i];
		if (!ov.target)
			out.push_back(fmt::format("  {}: invalid (see its finding)", ov.name));
		for (const auto &v : a_.overrides[i])
			out.push_back(fmt::format("  {} on {}: {}", ov.name, v.device, rules::to_string(v.verdict)));
	}
	if (out.empty())
		out.push_back("  no relevant variables set (" + e.source + ")");
	for (const auto &u : e.unreadable)
		out.push_back(fmt::format("  {:<15} {}: {}", u.item, u.path, u.reason));
	return out;
}

// The lines of a section that --verbose prints in full, without its notes.
std::vector<std::string> without_notes(std::vector<std::string> lines)
{
	std::erase_if(lines, [](const std::string &l) { return l.starts_with("  note: "); });
	return lines;
}

} // namespace

std::string render_brief(const Snapshot &s, const Assessment &a, const LastValidation &v, const TextStyle &st)
{
	Brief b(s, a, st);
	b.section("Devices", b.devices());
	b.section("Driver", b.driver());
	b.section("rdnafix module", b.rdnafix());
	b.section("Configuration", configuration_brief_lines(s, a));
	b.section("Access", b.access());
	b.section("Environment", b.environment());
	b.section("Code objects", without_notes(coverage_lines(a)));
	if (s.kernel_log.source != machine::KernelLogSource::none) {
		auto kl = kernel_log_lines(s);
		const size_t n = kl.size();
		if (n > 4) {
			kl.resize(4);
			kl.push_back(fmt::format("{} more line(s): --verbose", n - 4));
		}
		for (auto &l : kl)
			l = "  " + l;
		b.section("Kernel log (this boot) (" + s.kernel_log.path + ")", kl);
	}
	auto val = validation_lines(v);
	if (!val.empty()) {
		// The first line; "never"/"unknown" without the paths it read ("never (no history database at ...)").
		std::string first = val.front();
		if (auto p = first.find(" ("); p != std::string::npos && (v.result == ValidationResult::never ||
									  v.result == ValidationResult::unreadable))
			first.resize(p);
		b.section("Validation", {first});
	}
	return b.take();
}

} // namespace rdnafix::status
