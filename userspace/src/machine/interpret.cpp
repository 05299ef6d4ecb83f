// Raw strings -> snapshot records, shared by the two device sources (the --root
// walk and libudev/libdrm) so that both parse identically: PCI identity, gfx
// target and where it came from, generation, names, memory; module parameters
// with provenance; the environment variables.  Facts only; no I/O.
#include "machine/interpret.hpp"
#include "machine/interpret_hwdb.hpp"

#include "core/env_vars.hpp"

#include "core/gpudb.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace rdnafix::machine {

namespace {

// Parse an attribute as an unsigned number; record why not in `u`.
std::optional<std::uint64_t> num(const RawPciDevice &raw, const std::string &attr, const std::string &item,
				 std::vector<Unreadable> &u, bool expected)
{
	auto it = raw.attrs.find(attr);
	if (it == raw.attrs.end())
		return std::nullopt;
	const RawValue &v = it->second;
	if (!v.text) {
		if (expected)
			u.push_back({item, v.path, v.reason});
		return std::nullopt;
	}
	auto r = core::parse_u64(*v.text);
	if (!r) {
		u.push_back({item, v.path, "unreadable: " + r.error().message});
		return std::nullopt;
	}
	return *r;
}

// A value of at most `max` (the width of the hardware field), else recorded
// as "unreadable: out of range" and absent: never truncated into a valid id.
std::optional<std::uint32_t> bounded(const RawPciDevice &raw, const std::string &attr, const std::string &item,
				     std::vector<Unreadable> &u, bool expected, std::uint32_t max, const char *what)
{
	auto v = num(raw, attr, item, u, expected);
	if (!v)
		return std::nullopt;
	if (*v > max) {
		auto it = raw.attrs.find(attr);
		u.push_back({item, it->second.path,
			     fmt::format("unreadable: out of range: {:#x} is larger than {:#x}, the largest {}", *v,
					 max, what)});
		return std::nullopt;
	}
	return std::uint32_t(*v);
}

} // namespace

Device build_device(const RawPciDevice &raw, const std::vector<KfdNodeInfo> &kfd, const core::AmdgpuIds *ids)
{
	Device d;
	d.pci_bdf = raw.bdf;
	for (const auto &n : raw.drm_nodes) {
		if (n.rfind("card", 0) == 0 && d.card.empty())
			d.card = n;
		else if (n.rfind("renderD", 0) == 0 && d.render_node.empty())
			d.render_node = n;
	}
	d.driver = raw.driver;
	if (raw.bdf.empty())
		return d; // a DRM device without a PCI parent: nothing more to read

	constexpr const char *id16 = "16-bit PCI id";
	d.vendor_id = bounded(raw, "vendor", "vendor_id", d.unreadable, true, 0xffff, id16);
	d.device_id = bounded(raw, "device", "device_id", d.unreadable, true, 0xffff, id16);
	d.subsystem_vendor_id =
		bounded(raw, "subsystem_vendor", "subsystem_vendor_id", d.unreadable, true, 0xffff, id16);
	d.subsystem_device_id =
		bounded(raw, "subsystem_device", "subsystem_device_id", d.unreadable, true, 0xffff, id16);
	d.revision = bounded(raw, "revision", "revision", d.unreadable, true, 0xff, "8-bit PCI revision");
	d.pci_class = bounded(raw, "class", "pci_class", d.unreadable, true, 0xffffff, "24-bit PCI class code");
	d.is_amd = d.vendor_id == 0x1002u && (!d.pci_class || (*d.pci_class >> 16) == 0x03);
	if (!d.is_amd)
		return d;

	const bool bound = d.driver == "amdgpu";
	d.vram_total_bytes = num(raw, "mem_info_vram_total", "vram_total_bytes", d.unreadable, bound);
	d.gtt_total_bytes = num(raw, "mem_info_gtt_total", "gtt_total_bytes", d.unreadable, bound);
	// IP discovery keeps major, minor and revision in 8 bits each
	// (drivers/gpu/drm/amd/include/discovery.h: struct ip_v4, uint8_t major,
	// minor, revision; Linux 6.12).
	constexpr const char *ip8 = "8-bit IP version field";
	auto gmaj = bounded(raw, "ip_discovery/die/0/GC/0/major", "gc_version", d.unreadable, bound, 0xff, ip8);
	auto gmin = bounded(raw, "ip_discovery/die/0/GC/0/minor", "gc_version", d.unreadable, bound, 0xff, ip8);
	auto grev = bounded(raw, "ip_discovery/die/0/GC/0/revision", "gc_version", d.unreadable, bound, 0xff, ip8);
	std::optional<core::GcVersion> gc;
	if (gmaj && gmin && grev)
		gc = core::GcVersion{unsigned(*gmaj), unsigned(*gmin), unsigned(*grev)};

	// The GPU database row for this PCI id.
	const gpudb::Entry *row = nullptr;
	if (d.device_id && d.revision)
		row = gpudb::lookup(std::uint16_t(*d.device_id), std::uint8_t(*d.revision));
	if (row) {
		d.codename = std::string(row->codename);
		d.apu = row->apu;
		if (!gc)
			gc = row->gc;
	}
	if (gc)
		d.gc_version = gc->to_string();

	// KFD node of this device (matched by PCI address).
	int gpu_index = 0;
	for (const auto &n : kfd) {
		if (!n.props.is_gpu())
			continue;
		if (n.props.pci_bdf() == raw.bdf) {
			d.kfd_node = n.node_id;
			d.kfd_gpu_index = gpu_index;
			d.kfd_gpu_id = n.gpu_id;
			if (n.props.gfx_target_version > 0xffffffffu)
				d.unreadable.push_back(
					{"kfd_gfx_target_version",
					 fmt::format("sys/class/kfd/kfd/topology/nodes/{}/properties", n.node_id),
					 fmt::format("unreadable: out of range: gfx_target_version {} is larger than "
						     "4294967295",
						     n.props.gfx_target_version)});
			else if (n.props.gfx_target_version)
				d.kfd_gfx_target_version = std::uint32_t(n.props.gfx_target_version);
			if (!d.vram_total_bytes && n.local_mem_bytes)
				d.vram_total_bytes = n.local_mem_bytes;
		}
		++gpu_index;
	}

	// gfx target: KFD first, then libdrm family/external rev, then the PCI-id table,
	// then the GC version.
	if (d.kfd_gfx_target_version) {
		if (auto t = gpudb::decode_gfx_target_version(*d.kfd_gfx_target_version)) {
			d.gfx_target = t->name();
			d.gfx_target_source = GfxTargetSource::kfd;
		}
	}
	if (raw.libdrm) {
		const auto &l = *raw.libdrm;
		d.libdrm_family_id = l.family_id;
		d.libdrm_external_rev = l.external_rev;
		if (!d.gfx_target && l.family_id && l.external_rev) {
			if (auto chip = gpudb::chip_from_drm(*l.family_id, *l.external_rev)) {
				d.gfx_target = chip->gfx.name();
				d.gfx_target_source = GfxTargetSource::libdrm;
			}
		}
		if (l.apu)
			d.apu = l.apu;
		if (l.marketing_name && !l.marketing_name->empty()) {
			d.marketing_name = l.marketing_name;
			d.marketing_name_source = NameSource::libdrm;
		}
		if (l.drm_major && l.drm_minor && l.drm_patch)
			d.hw.drm_version = {DrmVersionSource::ioctl,
					    *l.drm_major,
					    *l.drm_minor,
					    *l.drm_patch,
					    {},
					    {},
					    "/dev/dri/" +
						    (d.render_node.empty() ? std::string("renderD?") : d.render_node)};
		if (!d.vram_total_bytes && l.vram_total_bytes)
			d.vram_total_bytes = l.vram_total_bytes;
		if (!d.gtt_total_bytes && l.gtt_total_bytes)
			d.gtt_total_bytes = l.gtt_total_bytes;
		if (!l.error.empty())
			d.unreadable.push_back({"libdrm", "/dev/dri/" + d.render_node, "unreadable: " + l.error});
	}
	if (!d.gfx_target && row) {
		d.gfx_target = row->gfx.name();
		d.gfx_target_source = GfxTargetSource::pci_id_table;
	}
	if (!d.gfx_target && gc) {
		if (auto t = gpudb::kfd_target_for_gc(*gc)) {
			d.gfx_target = t->name();
			d.gfx_target_source = GfxTargetSource::gc_version;
		}
	}
	if (row)
		d.generation = row->generation;
	else if (gc)
		d.generation = gpudb::generation_for_gc(*gc);

	// udev's hwdb properties (live path), compared with the database row.
	d.hwdb = interpret_hwdb(raw.udev_props, d.device_id, d.revision);

	if (!d.marketing_name && ids && d.device_id && d.revision) {
		if (const auto *e = ids->lookup(std::uint16_t(*d.device_id), std::uint8_t(*d.revision))) {
			d.marketing_name = e->name;
			d.marketing_name_source = NameSource::amdgpu_ids;
		}
	}
	// Unreadable gc_version is reported once (a value out of range always).
	auto &u = d.unreadable;
	bool seen = false;
	u.erase(std::remove_if(u.begin(), u.end(),
			       [&](const Unreadable &x) {
				       if (x.item != "gc_version" || x.reason.find("out of range") != std::string::npos)
					       return false;
				       if (seen || d.gc_version)
					       return true;
				       seen = true;
				       return false;
			       }),
		u.end());
	return d;
}

std::vector<Device> build_devices(const std::vector<RawPciDevice> &raws, const std::vector<KfdNodeInfo> &kfd,
				  const core::AmdgpuIds *ids)
{
	std::vector<Device> out;
	for (const auto &r : raws)
		out.push_back(build_device(r, kfd, ids));
	std::stable_sort(out.begin(), out.end(), [](const Device &a, const Device &b) {
		if (a.pci_bdf.empty() != b.pci_bdf.empty())
			return b.pci_bdf.empty();
		if (a.pci_bdf != b.pci_bdf)
			return a.pci_bdf < b.pci_bdf;
		return a.card < b.card;
	});
	return out;
}

void attach_rdnafix(std::vector<Device> &devices, const Rdnafix &rdnafix)
{
	for (auto &d : devices) {
		if (!d.is_amd)
			continue;
		for (const auto &rd : rdnafix.devices)
			if (rd.pci_bdf == d.pci_bdf) {
				auto it = rd.values.find("noretry_applied");
				if (it != rd.values.end())
					if (auto v = core::parse_i64(it->second); v && *v >= 0)
						d.rdnafix_noretry_applied = int(*v);
			}
	}
}

const std::vector<std::pair<std::string, std::string>> &reported_params()
{
	static const std::vector<std::pair<std::string, std::string>> p{
		{"amdgpu", "noretry"},
		{"amdgpu", "vm_fragment_size"},
		{"amdgpu", "gttsize"},
		{"amdgpu", "mtype_local"},
		{"amdgpu", "lockup_timeout"},
		{"amdgpu", "ppfeaturemask"},
		{"amdgpu", "sg_display"},
		{"amdgpu", "vm_update_mode"},
		{"amdgpu", "no_system_mem_limit"},
		{"amdgpu", "cwsr_enable"},
		{"amdgpu", "runpm"},
		{"ttm", "pages_limit"},
		{"ttm", "page_pool_size"},
		{"amdttm", "pages_limit"},
		{"amdttm", "page_pool_size"},
	};
	return p;
}

std::vector<Param> build_params(const core::KernelCmdline &cmdline, const std::vector<ModprobeFile> &modprobe,
				const std::map<std::string, std::optional<std::string>> &live)
{
	std::vector<Param> out;
	auto find = [&](const std::string &m, const std::string &n) -> Param & {
		for (auto &p : out)
			if (p.module == m && p.name == n)
				return p;
		Param p;
		p.module = m;
		p.name = n;
		auto it = live.find(m + "." + n);
		if (it != live.end())
			p.live_value = it->second;
		out.push_back(std::move(p));
		return out.back();
	};
	for (const auto &[m, n] : reported_params())
		if (m == "amdgpu" || live.count(m + "." + n))
			find(m, n);
	std::vector<core::ModprobeConfig> configs;
	for (const auto &f : modprobe)
		configs.push_back(f.config);
	for (const char *mod : {"amdgpu", "ttm", "amdttm"}) {
		for (const auto &[name, set] : core::module_options(configs, mod)) {
			Param &p = find(mod, name);
			p.source = ParamSource::modprobe_d;
			p.configured_value = set.value;
			p.source_file = set.where.file;
			p.source_line = int(set.where.line);
		}
		for (const auto &[name, arg] : cmdline.module_params(mod)) {
			Param &p = find(mod, name);
			if (p.source == ParamSource::modprobe_d) {
				p.overridden_value = p.configured_value;
				p.overridden_file = p.source_file;
				p.overridden_line = p.source_line;
			}
			p.source = ParamSource::cmdline;
			p.configured_value = arg.value.value_or("");
			p.source_file = "proc/cmdline";
			p.source_line = 0;
		}
	}
	return out;
}

bool is_relevant_env(std::string_view n, const core::VarTable &table)
{
	// Every name of the table (those that do nothing on ROCm too: the checks
	// name them), every name with a ROCm/PyTorch/application prefix (listed as
	// unknown when the table lacks it), and misspellings of table names.
	return core::find_var(table, n) || core::looks_relevant(n) || core::hsa_override_node(n).has_value() ||
	       core::near_miss(n, table).has_value() || core::invalid_override_node(n, table).has_value();
}

Environment build_environment(const core::Environment &env, std::string source,
			      std::shared_ptr<const core::VarTable> table)
{
	Environment e;
	e.source = std::move(source);
	e.table = table ? std::move(table) : std::make_shared<const core::VarTable>();
	// One pass (an env file may hold many lines): the value getenv would see.
	for (const auto &v : env.vars) {
		if (!is_relevant_env(v.name, *e.table))
			continue;
		if (!env.last_wins)
			e.vars.emplace(v.name, v.value); // environ: the first one
		else if (v.unset)
			e.vars.erase(v.name);
		else
			e.vars[v.name] = v.value;
	}
	for (const char *name : {"PATH", "VIRTUAL_ENV", "CONDA_PREFIX", "HOME", "ROCM_PATH", "LD_LIBRARY_PATH"})
		if (auto val = env.get(name))
			e.locate[name] = *val;
	for (const char *name : {"WSL_DISTRO_NAME", "WSL_INTEROP", "SNAP", "SNAP_NAME", "FLATPAK_ID", "container",
				 "TOOLBOX_PATH", "DISTROBOX_ENTER_PATH", "HSA_ENABLE_DXG_DETECTION"})
		if (auto val = env.get(name))
			e.platform[name] = *val;
	for (const auto &p : env.problems)
		e.unreadable.push_back({"environment", e.source, "unreadable: " + p});

	for (const auto &[name, value] : e.vars) {
		auto node = core::hsa_override_node(name);
		if (name != "HSA_OVERRIDE_GFX_VERSION" && !node)
			continue;
		OverrideVar o;
		o.name = name;
		o.value = value;
		if (node)
			o.node = int(*node);
		if (auto t = core::parse_hsa_override(value))
			o.target = *t;
		else
			o.error = t.error().message;
		e.overrides.push_back(o);
	}
	for (const char *name : {"ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"}) {
		auto it = e.vars.find(name);
		if (it == e.vars.end())
			continue;
		VisibleVar v;
		v.name = name;
		v.value = it->second;
		auto r = core::parse_visible_devices(it->second, name);
		if (!r) {
			v.parsed = false;
			v.error = r.error().message;
		} else {
			for (const auto &dv : r->devices) {
				if (!dv.index) {
					v.parsed = false;
					v.error = "UUID entries (" + dv.uuid + ") are not matched to devices";
					break;
				}
				v.indices.push_back(int(*dv.index));
			}
		}
		e.visible.push_back(v);
	}
	return e;
}

} // namespace rdnafix::machine
