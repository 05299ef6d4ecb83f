#include "render.hpp"

#include "rdnafix_version.hpp"

#include <fmt/format.h>

namespace rdnafix::status {

using nlohmann::ordered_json;

namespace {

template <class T> ordered_json opt(const std::optional<T> &v)
{
	return v ? ordered_json(*v) : ordered_json(nullptr);
}

ordered_json str_or_null(const std::string &s)
{
	return s.empty() ? ordered_json(nullptr) : ordered_json(s);
}

ordered_json unreadable_json(const std::vector<Unreadable> &u)
{
	ordered_json a = ordered_json::array();
	for (const auto &x : u)
		a.push_back({{"item", x.item}, {"path", x.path}, {"reason", x.reason}});
	return a;
}

std::string pci_id(const Device &d)
{
	if (!d.vendor_id || !d.device_id)
		return "";
	return fmt::format("{:04x}:{:04x}", *d.vendor_id, *d.device_id);
}

std::string gib(std::optional<std::uint64_t> b)
{
	if (!b)
		return "unknown";
	return fmt::format("{:.2f} GiB ({} bytes)", double(*b) / double(1ull << 30), *b);
}

struct Counts {
	int errors = 0, warnings = 0, info = 0;
};
Counts count(const std::vector<Finding> &f)
{
	Counts c;
	for (const auto &x : f)
		(x.severity == Severity::error ? c.errors : x.severity == Severity::warn ? c.warnings : c.info)++;
	return c;
}

} // namespace

ordered_json to_json(const Snapshot &s, const std::vector<Finding> &findings)
{
	ordered_json j;
	j["schema_version"] = kSchemaVersion;
	j["rdnactl_version"] = RDNAFIX_VERSION;
	j["root"] = s.root;
	j["collector"] = str_or_null(s.collector); // null when nothing could be read
	auto c = count(findings);
	j["exit_code"] = s.nothing_readable ? 2 : exit_code_for(findings);
	j["summary"] = {{"errors", c.errors}, {"warnings", c.warnings}, {"info", c.info}};
	if (s.nothing_readable)
		j["error"] = s.nothing_readable_reason;

	ordered_json devs = ordered_json::array();
	for (const auto &d : s.devices) {
		ordered_json o;
		o["pci_bdf"] = str_or_null(d.pci_bdf);
		o["pci_id"] = str_or_null(pci_id(d));
		o["vendor_id"] = opt(d.vendor_id);
		o["device_id"] = opt(d.device_id);
		o["subsystem_vendor_id"] = opt(d.subsystem_vendor_id);
		o["subsystem_device_id"] = opt(d.subsystem_device_id);
		o["revision"] = opt(d.revision);
		o["pci_class"] = opt(d.pci_class);
		o["driver"] = str_or_null(d.driver);
		o["card"] = str_or_null(d.card);
		o["render_node"] = str_or_null(d.render_node);
		o["is_amd"] = d.is_amd;
		o["gfx_target"] = opt(d.gfx_target);
		o["gfx_target_source"] = str_or_null(d.gfx_target_source);
		o["gc_version"] = opt(d.gc_version);
		o["generation"] = str_or_null(d.generation);
		o["apu"] = opt(d.apu);
		o["codename"] = str_or_null(d.codename);
		o["marketing_name"] = opt(d.marketing_name);
		o["marketing_name_source"] = str_or_null(d.marketing_name_source);
		o["vram_total_bytes"] = opt(d.vram_total_bytes);
		o["gtt_total_bytes"] = opt(d.gtt_total_bytes);
		o["kfd_node"] = opt(d.kfd_node);
		o["kfd_gpu_index"] = opt(d.kfd_gpu_index);
		o["kfd_gpu_id"] = opt(d.kfd_gpu_id);
		o["kfd_gfx_target_version"] = opt(d.kfd_gfx_target_version);
		o["libdrm_family_id"] = opt(d.libdrm_family_id);
		o["libdrm_external_rev"] = opt(d.libdrm_external_rev);
		o["noretry_effective"] = opt(d.noretry_effective);
		o["noretry_rule"] = str_or_null(d.noretry_rule);
		o["unreadable"] = unreadable_json(d.unreadable);
		devs.push_back(o);
	}
	j["devices"] = devs;

	const auto &dr = s.driver;
	ordered_json params = ordered_json::array();
	for (const auto &p : dr.params) {
		ordered_json o;
		o["module"] = p.module;
		o["name"] = p.name;
		o["value"] = opt(p.live_value);
		o["source"] = p.source;
		o["configured_value"] =
			p.source == "default" ? ordered_json(nullptr) : ordered_json(p.configured_value);
		o["source_file"] = str_or_null(p.source_file);
		o["source_line"] = p.source_line ? ordered_json(p.source_line) : ordered_json(nullptr);
		if (!p.overridden_file.empty())
			o["overridden"] = {{"value", p.overridden_value},
					   {"source_file", p.overridden_file},
					   {"source_line", p.overridden_line}};
		else
			o["overridden"] = nullptr;
		params.push_back(o);
	}
	j["driver"] = {{"amdgpu_loaded", dr.amdgpu_loaded},
		       {"initstate", opt(dr.initstate)},
		       {"kernel_release", str_or_null(dr.kernel_release)},
		       {"kernel_version", str_or_null(dr.kernel_version_line)},
		       {"cmdline", dr.cmdline},
		       {"params", params},
		       {"ttm_pages_limit", opt(dr.ttm_pages_limit)},
		       {"amdttm_pages_limit", opt(dr.amdttm_pages_limit)},
		       {"ttm_limit_bytes", opt(dr.ttm_limit_bytes)},
		       {"mem_total_bytes", opt(dr.mem_total_bytes)},
		       {"unreadable", unreadable_json(dr.unreadable)}};

	const auto &r = s.rdnafix;
	ordered_json rdevs = ordered_json::array();
	for (const auto &d : r.devices) {
		ordered_json o;
		o["pci_bdf"] = d.pci_bdf;
		for (const auto &[k, v] : d.values) {
			// Counters and numeric settings as numbers, the rest as text.
			bool numeric = !v.empty() && (std::isdigit(static_cast<unsigned char>(v[0])) || v[0] == '-') &&
				       v.find_first_not_of("-0123456789") == std::string::npos && k != "pci_id";
			if (numeric) {
				try {
					o[k] = std::stoll(v);
					continue;
				} catch (...) {
				}
			}
			o[k] = v;
		}
		rdevs.push_back(o);
	}
	ordered_json installed = ordered_json::array();
	for (const auto &p : r.installed_paths)
		installed.push_back(p);
	j["rdnafix"] = {{"installed", r.installed},
			{"installed_paths", installed},
			{"loaded", r.loaded},
			{"loaded_evidence", str_or_null(r.loaded_evidence)},
			{"version", opt(r.version)},
			{"abi_version", opt(r.abi_version)},
			{"amdgpu_state", opt(r.amdgpu_state)},
			{"dry_run", opt(r.dry_run)},
			{"hooks", r.hooks},
			{"parameters", r.params},
			{"devices", rdevs},
			{"unreadable", unreadable_json(r.unreadable)}};

	const auto &a = s.access;
	ordered_json nodes = ordered_json::array();
	for (const auto &n : a.nodes) {
		ordered_json o;
		o["path"] = n.path;
		o["exists"] = n.exists;
		o["stat_source"] = str_or_null(n.stat_source);
		o["type"] = n.type ? ordered_json(std::string(1, n.type)) : ordered_json(nullptr);
		o["major"] = opt(n.major);
		o["minor"] = opt(n.minor);
		o["mode"] = n.mode ? ordered_json(fmt::format("{:04o}", *n.mode)) : ordered_json(nullptr);
		o["owner"] = str_or_null(n.owner);
		o["group"] = str_or_null(n.group);
		o["can_open"] = n.can_open;
		o["verdict"] = n.verdict;
		o["missing_group"] = str_or_null(n.missing_group);
		nodes.push_back(o);
	}
	j["access"] = {{"subject", a.subject},
		       {"user", str_or_null(a.user)},
		       {"uid", opt(a.uid)},
		       {"session_groups", a.session_groups},
		       {"configured_groups", a.configured_groups},
		       {"relogin_groups", a.relogin_groups},
		       {"container", a.container},
		       {"container_evidence", str_or_null(a.container_evidence)},
		       {"nodes", nodes},
		       {"unreadable", unreadable_json(a.unreadable)}};

	const auto &e = s.environment;
	ordered_json ov = ordered_json::array();
	for (const auto &o : e.overrides) {
		ordered_json x;
		x["name"] = o.name;
		x["value"] = o.value;
		x["node"] = opt(o.node);
		x["valid"] = o.valid;
		x["error"] = str_or_null(o.error);
		x["gfx_target"] = str_or_null(o.gfx);
		ordered_json vs = ordered_json::array();
		for (const auto &v : o.verdicts)
			vs.push_back({{"pci_bdf", v.device},
				      {"native_gfx_target", str_or_null(v.native)},
				      {"verdict", v.verdict},
				      {"reason", v.reason}});
		x["verdicts"] = vs;
		ov.push_back(x);
	}
	ordered_json vis = ordered_json::array();
	for (const auto &v : e.visible)
		vis.push_back({{"name", v.name},
			       {"value", v.value},
			       {"indices", v.indices},
			       {"parsed", v.parsed},
			       {"error", str_or_null(v.error)}});
	j["environment"] = {{"source", e.source},
			    {"variables", e.vars},
			    {"overrides", ov},
			    {"visible_devices", vis},
			    {"unreadable", unreadable_json(e.unreadable)}};

	ordered_json fs = ordered_json::array();
	for (const auto &f : findings)
		fs.push_back({{"id", f.id},
			      {"severity", std::string(severity_name(f.severity))},
			      {"subject", f.subject},
			      {"finding", f.finding},
			      {"why", f.why},
			      {"fix", f.fix}});
	j["findings"] = fs;
	return j;
}

namespace {
struct Style {
	bool on;
	std::string head(const std::string &s) const { return on ? "\033[1m" + s + "\033[0m" : s; }
	std::string sev(Severity v, const std::string &s) const
	{
		if (!on)
			return s;
		const char *c = v == Severity::error ? "\033[1;31m" : v == Severity::warn ? "\033[1;33m" : "\033[36m";
		return c + s + "\033[0m";
	}
};

std::string unread_for(const std::vector<Unreadable> &u, const std::string &item)
{
	for (const auto &x : u)
		if (x.item == item)
			return x.reason;
	return "";
}

template <class T>
std::string show(const std::optional<T> &v, const std::vector<Unreadable> &u, const std::string &item,
		 const std::string &absent = "unknown")
{
	if (v)
		return fmt::format("{}", *v);
	std::string r = unread_for(u, item);
	return r.empty() ? absent : r;
}
} // namespace

std::string render_text(const Snapshot &s, const std::vector<Finding> &findings, bool colour)
{
	Style st{colour};
	std::string o;
	auto line = [&](const std::string &l) { o += l + "\n"; };
	line(st.head(fmt::format("rdnactl {} status", RDNAFIX_VERSION)) +
	     fmt::format(" — root {}{}", s.root, s.collector.empty() ? "" : " (" + s.collector + " collector)"));
	if (s.nothing_readable) {
		line("error: " + s.nothing_readable_reason);
		return o;
	}

	line("");
	line(st.head("Devices"));
	if (s.devices.empty())
		line("  no DRM or display devices found");
	for (const auto &d : s.devices) {
		if (d.pci_bdf.empty()) {
			line(fmt::format("  {} (not a PCI device)", d.card.empty() ? d.render_node : d.card));
			continue;
		}
		std::string name = d.marketing_name ? *d.marketing_name : (d.is_amd ? "AMD GPU" : "non-AMD device");
		line(fmt::format(
			"  {}  {}  [{}] rev {} class {} driver {}", d.pci_bdf, name,
			pci_id(d).empty() ? "?" : pci_id(d), d.revision ? fmt::format("{:02x}", *d.revision) : "?",
			d.pci_class ? fmt::format("{:06x}", *d.pci_class) : "?", d.driver.empty() ? "none" : d.driver));
		if (d.subsystem_vendor_id && d.subsystem_device_id)
			line(fmt::format("    subsystem       {:04x}:{:04x}", *d.subsystem_vendor_id,
					 *d.subsystem_device_id));
		line(fmt::format("    nodes           {} {}", d.card.empty() ? "-" : d.card,
				 d.render_node.empty() ? "-" : d.render_node));
		if (!d.is_amd) {
			line("    vendor          not AMD (listed only)");
			for (const auto &u : d.unreadable)
				line(fmt::format("    {:<15} {}", u.item, u.reason));
			continue;
		}
		line(fmt::format("    gfx target      {}{}", d.gfx_target.value_or("unknown"),
				 d.gfx_target_source.empty() ? "" : " (from " + d.gfx_target_source + ")"));
		line(fmt::format("    GC version      {}", show(d.gc_version, d.unreadable, "gc_version")));
		line(fmt::format("    generation      {}{}{}", d.generation.empty() ? "unknown" : d.generation,
				 d.apu ? (*d.apu ? ", APU" : ", discrete") : "",
				 d.codename.empty() ? "" : " (" + d.codename + ")"));
		if (d.marketing_name)
			line(fmt::format("    name source     {}", d.marketing_name_source));
		line(fmt::format("    VRAM total      {}",
				 d.vram_total_bytes ? gib(d.vram_total_bytes)
						    : show(d.vram_total_bytes, d.unreadable, "vram_total_bytes")));
		line(fmt::format("    GTT total       {}",
				 d.gtt_total_bytes ? gib(d.gtt_total_bytes)
						   : show(d.gtt_total_bytes, d.unreadable, "gtt_total_bytes")));
		line(fmt::format("    KFD node        {}",
				 d.kfd_node ? fmt::format("{} (GPU index {})", *d.kfd_node, *d.kfd_gpu_index)
					    : "none"));
		if (d.noretry_effective)
			line(fmt::format("    noretry         {} ({})", *d.noretry_effective, d.noretry_rule));
		for (const auto &u : d.unreadable)
			if (u.item != "vram_total_bytes" && u.item != "gtt_total_bytes" && u.item != "gc_version")
				line(fmt::format("    {:<15} {}", u.item, u.reason));
	}

	const auto &dr = s.driver;
	line("");
	line(st.head("Driver"));
	line(fmt::format("  kernel          {}", dr.kernel_release.empty() ? "unknown" : dr.kernel_release));
	line(fmt::format("  amdgpu          {}{}", dr.amdgpu_loaded ? "loaded" : "not loaded",
			 dr.initstate ? " (initstate " + *dr.initstate + ")" : ""));
	for (const auto &p : dr.params) {
		std::string src = p.source == "cmdline"      ? "kernel command line"
				  : p.source == "modprobe.d" ? fmt::format("{}:{}", p.source_file, p.source_line)
							     : "default";
		std::string val = p.live_value ? *p.live_value : (p.source == "default" ? "-" : "(not loaded)");
		std::string cfg = p.source == "default" ? "" : fmt::format(" set to {}", p.configured_value);
		line(fmt::format("  {:<28} {:<12} {}{}", p.module + "." + p.name, val, src, cfg));
		if (!p.overridden_file.empty())
			line(fmt::format("  {:<28} {:<12} overrides {}:{} ({})", "", "", p.overridden_file,
					 p.overridden_line, p.overridden_value));
	}
	line(fmt::format("  TTM limit       {}{}", gib(dr.ttm_limit_bytes),
			 dr.amdttm_pages_limit ? fmt::format(" (amdttm.pages_limit {})", *dr.amdttm_pages_limit)
			 : dr.ttm_pages_limit  ? fmt::format(" (ttm.pages_limit {})", *dr.ttm_pages_limit)
					       : ""));
	line(fmt::format("  RAM total       {}", gib(dr.mem_total_bytes)));
	for (const auto &u : dr.unreadable)
		line(fmt::format("  {:<15} {}: {}", u.item, u.path, u.reason));

	const auto &r = s.rdnafix;
	line("");
	line(st.head("rdnafix module"));
	line(fmt::format("  installed       {}", r.installed ? r.installed_paths.front() : "no"));
	line(fmt::format("  loaded          {}", r.loaded ? "yes (" + r.loaded_evidence + ")" : "no"));
	if (r.version)
		line(fmt::format("  version         {} (ABI {})", *r.version, r.abi_version.value_or("?")));
	if (r.amdgpu_state)
		line(fmt::format("  amdgpu state    {}", *r.amdgpu_state));
	if (r.dry_run)
		line(fmt::format("  dry_run         {}", *r.dry_run));
	for (const auto &[k, v] : r.hooks)
		line(fmt::format("  hook {:<14} {}", k, v));
	for (const auto &[k, v] : r.params)
		line(fmt::format("  param {:<13} {}", k, v));
	for (const auto &d : r.devices) {
		line(fmt::format("  device {}", d.pci_bdf));
		// Beside amdgpu's own view of the same device.
		const Device *ad = nullptr;
		for (const auto &x : s.devices)
			if (x.pci_bdf == d.pci_bdf)
				ad = &x;
		for (const auto &[k, v] : d.values) {
			std::string amd;
			if (ad && k == "gfx_target" && ad->gfx_target)
				amd = " (amdgpu/KFD: " + *ad->gfx_target + ")";
			if (ad && k == "noretry_applied" && ad->noretry_effective)
				amd = fmt::format(" (effective: {})", *ad->noretry_effective);
			if (ad && k == "generation" && !ad->generation.empty())
				amd = " (database: " + ad->generation + ")";
			line(fmt::format("    {:<24} {}{}", k, v, amd));
		}
	}
	for (const auto &u : r.unreadable)
		line(fmt::format("  {:<15} {}: {}", u.item, u.path, u.reason));

	const auto &a = s.access;
	line("");
	line(st.head("Access"));
	line(fmt::format("  judged for      {}{}", a.subject == "user" ? "user " + a.user : "this process",
			 a.subject == "process" && !a.user.empty() ? " (" + a.user + ")" : ""));
	auto join = [](const std::vector<std::string> &v) {
		std::string s;
		for (const auto &x : v)
			s += (s.empty() ? "" : ",") + x;
		return s.empty() ? std::string("-") : s;
	};
	line(fmt::format("  groups          {}", join(a.session_groups)));
	if (!a.relogin_groups.empty())
		line(fmt::format("  not yet active  {} (in /etc/group, not in this session: log in again)",
				 join(a.relogin_groups)));
	if (a.container)
		line(fmt::format("  container       yes ({})", a.container_evidence));
	for (const auto &n : a.nodes) {
		if (!n.exists) {
			line(fmt::format("  {:<20} missing", n.path));
			continue;
		}
		line(fmt::format("  {:<20} {} {}:{} {}  {}: {}", n.path, n.mode ? fmt::format("{:04o}", *n.mode) : "?",
				 n.owner.empty() ? "?" : n.owner, n.group.empty() ? "?" : n.group,
				 n.stat_source == "manifest" ? "(manifest)" : "",
				 n.can_open ? "can open" : "CANNOT open", n.verdict));
	}
	for (const auto &u : a.unreadable)
		line(fmt::format("  {:<15} {}: {}", u.item, u.path, u.reason));

	const auto &e = s.environment;
	line("");
	line(st.head("Environment") + " (" + e.source + ")");
	if (e.vars.empty())
		line("  no relevant variables set");
	for (const auto &[k, v] : e.vars)
		line(fmt::format("  {}={}", k, v));
	for (const auto &ov : e.overrides) {
		if (!ov.valid)
			line(fmt::format("  {}: invalid: {}", ov.name, ov.error));
		for (const auto &v : ov.verdicts)
			line(fmt::format("  {} on {} ({}): {} — {}", ov.name, v.device,
					 v.native.empty() ? "?" : v.native, v.verdict, v.reason));
	}
	for (const auto &u : e.unreadable)
		line(fmt::format("  {:<15} {}: {}", u.item, u.path, u.reason));

	line("");
	line(st.head("Findings"));
	if (findings.empty())
		line("  none");
	for (const auto &f : findings) {
		line(fmt::format("  {} {}{}: {}", st.sev(f.severity, fmt::format("[{}]", severity_name(f.severity))),
				 f.id, f.subject.empty() ? "" : " " + f.subject, f.finding));
		line(fmt::format("      why: {}", f.why));
		line(fmt::format("      fix: {}", f.fix));
	}
	auto c = count(findings);
	line("");
	line(fmt::format("{} error(s), {} warning(s), {} info — exit code {}", c.errors, c.warnings, c.info,
			 exit_code_for(findings)));
	return o;
}

std::string render_env(const std::vector<Export> &exports, const std::string &shell)
{
	std::string o;
	if (exports.empty())
		return "# rdnactl env: nothing to set for this machine\n";
	for (const auto &e : exports) {
		o += fmt::format("# {} ({})\n", e.comment, e.check_id);
		if (shell == "fish")
			o += e.unset ? fmt::format("set -e {}\n", e.name)
				     : fmt::format("set -gx {} '{}'\n", e.name, e.value);
		else
			o += e.unset ? fmt::format("unset {}\n", e.name)
				     : fmt::format("export {}='{}'\n", e.name, e.value);
	}
	return o;
}

} // namespace rdnafix::status
