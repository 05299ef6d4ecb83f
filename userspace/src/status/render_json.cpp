// `rdnactl status --json`: the report as JSON (schema_version 1).
#include "render.hpp"
#include "render_common.hpp"

#include "rdnafix_version.hpp"

#include <fmt/format.h>

namespace rdnafix::status {

using detail::count;
using detail::pci_id;
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

} // namespace rdnafix::status
