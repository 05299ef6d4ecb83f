// JSON of the snapshot's records (see snapshot_json.hpp).  An unknown or
// absent value is null; "unreadable" is the last key of a record.
#include "machine/snapshot_json.hpp"

#include "machine/facts.hpp"

#include "core/parse.hpp"

#include <cctype>
#include <fmt/format.h>

namespace rdnafix::machine {

using nlohmann::ordered_json;

ordered_json json_str_or_null(std::string_view s)
{
	return s.empty() ? ordered_json(nullptr) : ordered_json(std::string(s));
}

void to_json(ordered_json &j, const Unreadable &u)
{
	j = {{"item", u.item}, {"path", u.path}, {"reason", u.reason}};
}

void to_json(ordered_json &o, const Device &d)
{
	o = ordered_json::object();
	o["pci_bdf"] = json_str_or_null(d.pci_bdf);
	o["pci_id"] = json_str_or_null(pci_id(d));
	o["vendor_id"] = json_opt(d.vendor_id);
	o["device_id"] = json_opt(d.device_id);
	o["subsystem_vendor_id"] = json_opt(d.subsystem_vendor_id);
	o["subsystem_device_id"] = json_opt(d.subsystem_device_id);
	o["revision"] = json_opt(d.revision);
	o["pci_class"] = json_opt(d.pci_class);
	o["driver"] = json_str_or_null(d.driver);
	o["card"] = json_str_or_null(d.card);
	o["render_node"] = json_str_or_null(d.render_node);
	o["is_amd"] = d.is_amd;
	o["gfx_target"] = json_opt(d.gfx_target);
	o["gfx_target_source"] = json_str_or_null(to_string(d.gfx_target_source));
	o["gc_version"] = json_opt(d.gc_version);
	o["generation"] =
		d.generation ? ordered_json(std::string(gpudb::to_string(*d.generation))) : ordered_json(nullptr);
	o["apu"] = json_opt(d.apu);
	o["codename"] = json_str_or_null(d.codename);
	o["marketing_name"] = json_opt(d.marketing_name);
	o["marketing_name_source"] = json_str_or_null(to_string(d.marketing_name_source));
	o["vram_total_bytes"] = json_opt(d.vram_total_bytes);
	o["gtt_total_bytes"] = json_opt(d.gtt_total_bytes);
	o["kfd_node"] = json_opt(d.kfd_node);
	o["kfd_gpu_index"] = json_opt(d.kfd_gpu_index);
	o["kfd_gpu_id"] = json_opt(d.kfd_gpu_id);
	o["kfd_gfx_target_version"] = json_opt(d.kfd_gfx_target_version);
	o["libdrm_family_id"] = json_opt(d.libdrm_family_id);
	o["libdrm_external_rev"] = json_opt(d.libdrm_external_rev);
	if (d.hwdb) { // only then: a --root tree has no udev database
		auto &h = o["hwdb"];
		h["gfx_target"] = json_opt(d.hwdb->gfx_target);
		h["generation"] = json_opt(d.hwdb->generation);
		h["apu"] = json_opt(d.hwdb->apu);
		h["differs_from_builtin"] = ordered_json::array();
		for (const auto &x : d.hwdb->differences)
			h["differs_from_builtin"].push_back({{"key", x.key},
							     {"hwdb", json_str_or_null(x.hwdb)},
							     {"builtin", json_str_or_null(x.builtin)}});
	}
	if (d.is_amd)
		o["hw"] = d.hw;
	o["unreadable"] = d.unreadable;
}

void to_json(ordered_json &j, const DeviceHw &h)
{
	j = ordered_json::object();
	j["firmware"] = h.firmware;
	j["iommu_group"] = json_opt(h.iommu_group);
	j["iommu_group_type"] = json_opt(h.iommu_group_type);
	j["io_links"] = ordered_json::array();
	for (const auto &l : h.io_links)
		j["io_links"].push_back(
			{{"node_from", l.node_from}, {"node_to", l.node_to}, {"type", l.type}, {"flags", l.flags}});
	const auto &v = h.drm_version;
	if (v.source == DrmVersionSource::none)
		j["drm_version"] = nullptr;
	else if (v.source == DrmVersionSource::derived)
		j["drm_version"] = {{"source", to_string(v.source)},
				    {"minor_at_least", json_opt(v.minor_at_least)},
				    {"minor_at_most", json_opt(v.minor_at_most)},
				    {"from", v.from}};
	else
		j["drm_version"] = {{"source", to_string(v.source)},
				    {"version", fmt::format("{}.{}.{}", v.major, v.minor, v.patch)},
				    {"from", v.from}};
}

void to_json(ordered_json &j, const HwFacts &h)
{
	j = ordered_json::object();
	j["iommu"] = {
		{"cmdline", h.iommu.cmdline}, {"units", h.iommu.units}, {"class_readable", h.iommu.class_readable}};
	j["kernel_config"] = {{"path", json_str_or_null(h.kernel_config.path)}, {"values", h.kernel_config.values}};
	j["unreadable"] = h.unreadable;
}

void to_json(ordered_json &o, const Param &p)
{
	const bool set = p.source != ParamSource::default_value;
	o = ordered_json::object();
	o["module"] = p.module;
	o["name"] = p.name;
	o["value"] = json_opt(p.live_value);
	if (p.root_only)
		o["root_only"] = true; // only then: the key is absent for readable parameters
	o["source"] = std::string(to_string(p.source));
	o["configured_value"] = set ? ordered_json(p.configured_value) : ordered_json(nullptr);
	o["source_file"] = json_str_or_null(p.source_file);
	o["source_line"] = p.source_line ? ordered_json(p.source_line) : ordered_json(nullptr);
	if (!p.overridden_file.empty())
		o["overridden"] = {{"value", p.overridden_value},
				   {"source_file", p.overridden_file},
				   {"source_line", p.overridden_line}};
	else
		o["overridden"] = nullptr;
}

void to_json(ordered_json &j, const Driver &d)
{
	j = {{"amdgpu_loaded", d.amdgpu_loaded},
	     {"initstate", json_opt(d.initstate)},
	     {"kernel_release", json_str_or_null(d.kernel_release)},
	     {"kernel_version", json_str_or_null(d.kernel_version_line)},
	     {"cmdline", d.cmdline},
	     {"params", d.params},
	     {"ttm_pages_limit", json_opt(d.ttm_pages_limit)},
	     {"amdttm_pages_limit", json_opt(d.amdttm_pages_limit)},
	     {"ttm_limit_bytes", json_opt(d.ttm_limit_bytes)},
	     {"mem_total_bytes", json_opt(d.mem_total_bytes)},
	     {"unreadable", d.unreadable}};
}

void to_json(ordered_json &o, const RdnafixDevice &d)
{
	o = ordered_json::object();
	o["pci_bdf"] = d.pci_bdf;
	for (const auto &[k, v] : d.values) {
		// Counters and numeric settings as numbers, the rest as text.
		bool numeric = !v.empty() && (std::isdigit(static_cast<unsigned char>(v[0])) || v[0] == '-') &&
			       v.find_first_not_of("-0123456789") == std::string::npos && k != "pci_id";
		if (numeric)
			if (auto n = core::parse_i64(v)) {
				o[k] = *n;
				continue;
			}
		o[k] = v;
	}
}

void to_json(ordered_json &j, const RdnafixHookCounts &c)
{
	j = {{"seen", json_opt(c.seen)},
	     {"refused", json_opt(c.refused)},
	     {"missed_instance", json_opt(c.missed_instance)},
	     {"missed_recursion", json_opt(c.missed_recursion)}};
}

void to_json(ordered_json &j, const Rdnafix &r)
{
	j = {{"installed", r.installed},
	     {"installed_paths", r.installed_paths},
	     {"loaded", r.loaded},
	     {"loaded_evidence", json_str_or_null(to_string(r.loaded_evidence))},
	     {"version", json_opt(r.version)},
	     {"abi_version", json_opt(r.abi_version)},
	     {"amdgpu_state", json_opt(r.amdgpu_state)},
	     {"dry_run", json_opt(r.dry_run)},
	     {"hooks", r.hooks},
	     {"hook_counts", r.hook_counts},
	     {"evidence", r.evidence},
	     {"leaks_total", json_opt(r.leaks_total)},
	     {"leaks", r.leaks},
	     {"parameters", r.params},
	     {"devices", r.devices},
	     {"unreadable", r.unreadable}};
}

void to_json(ordered_json &o, const DevNode &n)
{
	o = ordered_json::object();
	o["path"] = n.path;
	o["exists"] = n.exists;
	o["stat_source"] = json_str_or_null(to_string(n.stat_source));
	o["type"] = n.type ? ordered_json(std::string(1, n.type)) : ordered_json(nullptr);
	o["major"] = json_opt(n.major);
	o["minor"] = json_opt(n.minor);
	o["mode"] = n.mode ? ordered_json(fmt::format("{:04o}", *n.mode)) : ordered_json(nullptr);
	o["owner"] = json_str_or_null(n.owner);
	o["group"] = json_str_or_null(n.group);
	if (!n.file_kind.empty()) // only where it is not a device node
		o["file_kind"] = n.file_kind;
}

void to_json(ordered_json &j, const Access &a)
{
	j = {{"subject", std::string(to_string(a.subject))},
	     {"user", json_str_or_null(a.user)},
	     {"uid", json_opt(a.uid)},
	     {"session_groups", a.session_groups},
	     {"configured_groups", a.configured_groups},
	     {"relogin_groups", a.relogin_groups},
	     {"container", a.container.detected()},
	     {"container_evidence",
	      a.container.evidence.empty() ? ordered_json(nullptr) : ordered_json(a.container.evidence[0].source)},
	     {"nodes", a.nodes},
	     {"unreadable", a.unreadable}};
	if (a.container.detected())
		j["container_facts"] = a.container;
	if (a.userns.read && !a.userns.initial())
		j["userns"] = a.userns;
}

void to_json(ordered_json &j, const Container &c)
{
	ordered_json ev = ordered_json::array();
	for (const auto &m : c.evidence)
		ev.push_back({{"source", m.source}, {"value", m.value}});
	j = {{"kind", std::string(to_string(c.kind))}, {"evidence", ev},
	     {"rootless", json_opt(c.rootless)},       {"engine", json_str_or_null(c.engine)},
	     {"name", json_str_or_null(c.name)},       {"image", json_str_or_null(c.image)}};
}

void to_json(ordered_json &j, const UserNamespace &n)
{
	auto map = [](const std::vector<IdMapRange> &v) {
		ordered_json a = ordered_json::array();
		for (const auto &r : v)
			a.push_back({r.inside, r.outside, r.count});
		return a;
	};
	j = {{"uid_map", map(n.uid_map)},
	     {"gid_map", map(n.gid_map)},
	     {"overflow_uid", json_opt(n.overflow_uid)},
	     {"overflow_gid", json_opt(n.overflow_gid)}};
}

void to_json(ordered_json &j, const Wsl &w)
{
	j = {{"kind", std::string(to_string(w.kind))},
	     {"evidence", w.evidence},
	     {"dxg", w.dxg_exists ? ordered_json{{"type", w.dxg_type ? std::string(1, w.dxg_type) : std::string("?")},
						 {"major", json_opt(w.dxg_major)},
						 {"minor", json_opt(w.dxg_minor)},
						 {"mode", w.dxg_mode ? ordered_json(fmt::format("{:04o}", *w.dxg_mode))
								     : ordered_json(nullptr)},
						 {"owner", json_str_or_null(w.dxg_owner)},
						 {"group", json_str_or_null(w.dxg_group)}}
				  : ordered_json(nullptr)},
	     {"interop", w.interop},
	     {"wsl_libs", w.wsl_libs},
	     {"env", w.env},
	     {"rocdxg", w.rocdxg},
	     {"rocr4wsl", json_str_or_null(w.rocr4wsl)},
	     {"hsa_runtimes", w.hsa_runtimes},
	     {"rocm_version", json_str_or_null(w.rocm_version)},
	     {"unreadable", w.unreadable}};
}

void to_json(ordered_json &x, const OverrideVar &o)
{
	x = ordered_json::object();
	x["name"] = o.name;
	x["value"] = o.value;
	x["node"] = json_opt(o.node);
	x["valid"] = o.target.has_value();
	x["error"] = json_str_or_null(o.error);
	x["gfx_target"] = o.target ? ordered_json(o.target->name()) : ordered_json(nullptr);
}

void to_json(ordered_json &j, const VisibleVar &v)
{
	j = {{"name", v.name},
	     {"value", v.value},
	     {"indices", v.indices},
	     {"parsed", v.parsed},
	     {"error", json_str_or_null(v.error)}};
}

void to_json(ordered_json &j, const Environment &e)
{
	j = {{"source", e.source},
	     {"variables", e.vars},
	     {"overrides", e.overrides},
	     {"visible_devices", e.visible},
	     {"unreadable", e.unreadable}};
	if (!e.sudo_user.empty())
		j["sudo"] = {{"user", e.sudo_user}, {"environ_read", e.sudo_environ_read}, {"dropped", e.sudo_dropped}};
}

void to_json(ordered_json &j, const ModuleFile &m)
{
	j = {{"path", "/" + m.path},
	     {"signature", json_str_or_null(to_string(m.signature))},
	     {"signer", json_str_or_null(m.signer)},
	     {"reason", json_str_or_null(m.signature_reason)},
	     {"version", json_str_or_null(m.version)},
	     {"built_for", json_str_or_null(m.built_for)},
	     {"modinfo_error", json_str_or_null(m.modinfo_error)}};
}

void to_json(ordered_json &j, const DkmsBuild &d)
{
	j = {{"version", d.version},
	     {"arch", d.arch},
	     {"dir", "/" + d.dir},
	     {"module", d.module},
	     {"installed", d.installed}};
}

void to_json(ordered_json &j, const DkmsLog &l)
{
	j = {{"path", "/" + l.path},
	     {"version", l.version},
	     {"failed", l.failed},
	     {"tail", l.tail},
	     {"error", json_str_or_null(l.error)}};
}

void to_json(ordered_json &j, const InitramfsListing &l)
{
	j = {{"command", l.command}, {"ok", l.ok},           {"error", json_str_or_null(l.error)},
	     {"amdgpu", l.amdgpu},   {"rdnafix", l.rdnafix}, {"conf", l.conf}};
}

namespace {

std::vector<std::string> slash_paths(const std::vector<std::string> &rel)
{
	std::vector<std::string> out;
	for (const auto &p : rel)
		out.push_back("/" + p);
	return out;
}

} // namespace

void to_json(ordered_json &j, const InstalledKernel &k)
{
	j = {{"release", k.release},
	     {"running", k.running},
	     {"default_boot", k.default_boot},
	     {"headers", k.headers},
	     {"initramfs_image",
	      k.initramfs_image.empty() ? ordered_json(nullptr) : ordered_json("/" + k.initramfs_image)},
	     {"image", k.image.empty() ? ordered_json(nullptr) : ordered_json("/" + k.image)},
	     {"rdnafix_modules", k.rdnafix_modules},
	     {"dkms", k.dkms},
	     {"dkms_log", k.dkms_log ? ordered_json(*k.dkms_log) : ordered_json(nullptr)},
	     {"amdgpu_module", k.amdgpu_module.empty() ? ordered_json(nullptr) : ordered_json("/" + k.amdgpu_module)},
	     {"amdgpu_builtin", k.amdgpu_builtin},
	     {"amdgpu_dkms_modules", slash_paths(k.amdgpu_dkms_modules)}};
}

void to_json(ordered_json &j, const CmdlineVar &v)
{
	j = {{"file", "/" + v.file}, {"variable", json_str_or_null(v.variable)}, {"line", v.line}, {"value", v.value}};
}

void to_json(ordered_json &j, const SettingSource &v)
{
	j = {{"value", v.value},
	     {"file", "/" + v.file},
	     {"line", v.line ? ordered_json(v.line) : ordered_json(nullptr)}};
}

void to_json(ordered_json &j, const Setting &x)
{
	// The value the next boot uses and where it comes from.
	const SettingSource *src = next_boot_source(x);
	j = ordered_json::object();
	j["module"] = x.module;
	j["name"] = x.name;
	j["configured"] = json_opt(x.next_boot);
	j["source"] = !src ? ordered_json(nullptr)
			   : ordered_json(x.modprobe && src == &*x.modprobe ? "modprobe.d" : "cmdline");
	j["file"] = src ? ordered_json("/" + src->file) : ordered_json(nullptr);
	j["line"] = src && src->line ? ordered_json(src->line) : ordered_json(nullptr);
	j["live"] = json_opt(x.live);
	j["state"] = std::string(to_string(x.state));
	j["owned"] = x.owned;
	j["modprobe"] = x.modprobe ? ordered_json(*x.modprobe) : ordered_json(nullptr);
	j["modprobe_overridden"] = x.modprobe_others;
	j["cmdline_now"] = x.cmdline_now ? ordered_json(x.cmdline_now->value) : ordered_json(nullptr);
	j["cmdline_next"] = x.cmdline_next ? ordered_json(*x.cmdline_next) : ordered_json(nullptr);
}

} // namespace rdnafix::machine
