// Reader: the hardware facts of docs/hwfacts.md, for the live machine and a
// --root tree alike (everything through RootFs): per AMD GPU the firmware
// versions (device/fw_version), the IOMMU group and its type, the KFD
// io_links of its node and, where the ioctl gave none, the DRM driver
// version from a captured file or derived from the kernel release; for the
// machine the IOMMU words of the command line, sys/class/iommu and the
// kernel configuration (boot/config-<release>, proc/config.gz).
#include "machine/collect_internal.hpp"

#include "core/hwfacts.hpp"
#include "io/decompress.hpp"

#include <fmt/format.h>

namespace rdnafix::machine::detail {

namespace {

constexpr std::string_view kDrmVersionFile = "var/log/rdnafix-drm-version";

void read_firmware(io::RootFs &fs, Device &d, const std::string &dev_dir)
{
	auto names = fs.list_dir(dev_dir + "/fw_version");
	if (!names) {
		if (names.error().kind != io::FsErrorKind::not_found)
			note(d.unreadable, "firmware", names.error());
		return;
	}
	constexpr std::string_view suffix = "_fw_version";
	std::size_t n = 0;
	for (const auto &f : *names) {
		if (f.size() <= suffix.size() || !f.ends_with(suffix) || ++n > 64)
			continue;
		if (auto v = value(fs, dev_dir + "/fw_version/" + f, d.unreadable, "firmware." + f))
			if (v->size() <= 64)
				d.hw.firmware[f.substr(0, f.size() - suffix.size())] = *v;
	}
}

void read_iommu_group(io::RootFs &fs, Device &d, const std::string &dev_dir)
{
	auto link = fs.read_link(dev_dir + "/iommu_group");
	if (!link)
		return; // no IOMMU group: IOMMU off or not translating this device
	const auto slash = link->rfind('/');
	const std::string group = slash == std::string::npos ? *link : link->substr(slash + 1);
	if (group.empty() || group.find_first_not_of("0123456789") != std::string::npos)
		return;
	d.hw.iommu_group = group;
	if (auto t = value(fs, "sys/kernel/iommu_groups/" + group + "/type", d.unreadable, "iommu_group_type"))
		d.hw.iommu_group_type = *t;
}

void read_io_links(io::RootFs &fs, Device &d)
{
	if (!d.kfd_node)
		return;
	const std::string dir = fmt::format("sys/class/kfd/kfd/topology/nodes/{}/io_links", *d.kfd_node);
	auto links = fs.list_dir(dir);
	if (!links) {
		if (links.error().kind != io::FsErrorKind::not_found)
			note(d.unreadable, "io_links", links.error());
		return;
	}
	for (const auto &l : *links) {
		if (d.hw.io_links.size() >= 64)
			break;
		const std::string path = dir + "/" + l + "/properties";
		auto t = fs.read_text(path);
		if (!t) {
			note(d.unreadable, "io_links", t.error());
			continue;
		}
		auto p = core::parse_kfd_properties(*t);
		if (!p) {
			d.unreadable.push_back({"io_links", path, "unreadable: " + p.error().message});
			continue;
		}
		KfdIoLink k;
		k.path = path;
		k.type = p->get("type").value_or(0);
		k.node_from = p->get("node_from").value_or(0);
		k.node_to = p->get("node_to").value_or(0);
		if (auto f = p->get("flags"))
			k.flags = *f;
		else
			continue; // no flags line: nothing to say about atomics
		d.hw.io_links.push_back(k);
	}
}

void drm_version_from_file(const std::vector<core::DrmVersionLine> &lines, Device &d)
{
	for (const auto &l : lines)
		if ((!d.pci_bdf.empty() && l.device == d.pci_bdf) ||
		    (!d.render_node.empty() && l.device == d.render_node)) {
			d.hw.drm_version = {
				DrmVersionSource::file,      l.version.major, l.version.minor, l.version.patch, {}, {},
				std::string(kDrmVersionFile)};
			return;
		}
}

void read_kernel_config(io::RootFs &fs, HwFacts &h, const std::string &release)
{
	static const std::vector<std::string> wanted{"CONFIG_HSA_AMD", "CONFIG_HSA_AMD_SVM", "CONFIG_HSA_AMD_P2P",
						     "CONFIG_DRM_AMDGPU", "CONFIG_AMD_IOMMU"};
	if (!release.empty() && release.find('/') == std::string::npos) {
		const std::string p = "boot/config-" + release;
		if (auto t = fs.read_text(p, {.max_bytes = 4 << 20})) {
			h.kernel_config = {p, core::parse_kernel_config(*t, wanted)};
			return;
		} else if (t.error().kind != io::FsErrorKind::not_found)
			note(h.unreadable, "kernel_config", t.error());
	}
	auto gz = fs.read_bytes("proc/config.gz", 1 << 20);
	if (!gz) {
		if (gz.error().kind != io::FsErrorKind::not_found)
			note(h.unreadable, "kernel_config", gz.error());
		return;
	}
	auto text = io::decompress_tail(*gz, 16u << 20, 16u << 20);
	if (!text) {
		h.unreadable.push_back({"kernel_config", "proc/config.gz", "unreadable: " + text.error().message});
		return;
	}
	h.kernel_config = {"proc/config.gz", core::parse_kernel_config(text->tail, wanted)};
}

} // namespace

void collect_hwfacts(io::RootFs &fs, Snapshot &s)
{
	for (const auto &a : core::parse_kernel_cmdline(s.driver.cmdline).args)
		if (a.value && (a.param == "amd_iommu" || a.param == "intel_iommu" || a.param == "iommu" ||
				a.param == "iommu.passthrough" || a.param == "iommu.strict"))
			s.hw.iommu.cmdline.push_back(a.param + "=" + *a.value);
	if (auto units = fs.list_dir("sys/class/iommu")) {
		s.hw.iommu.class_readable = true;
		s.hw.iommu.units = *units;
	} else if (units.error().kind != io::FsErrorKind::not_found)
		note(s.hw.unreadable, "iommu", units.error());
	read_kernel_config(fs, s.hw, s.driver.kernel_release);

	std::vector<core::DrmVersionLine> drm_lines;
	if (auto t = fs.read_text(kDrmVersionFile)) {
		std::vector<std::string> problems;
		drm_lines = core::parse_drm_version_file(*t, &problems);
		for (const auto &p : problems)
			s.hw.unreadable.push_back({"drm_version", std::string(kDrmVersionFile), "unreadable: " + p});
	} else if (t.error().kind != io::FsErrorKind::not_found)
		note(s.hw.unreadable, "drm_version", t.error());
	const auto derived = core::derived_drm_minor(s.driver.kernel_release);
	for (auto &d : s.devices) {
		if (!d.is_amd || d.pci_bdf.empty())
			continue;
		const std::string dev_dir = "sys/bus/pci/devices/" + d.pci_bdf;
		read_firmware(fs, d, dev_dir);
		read_iommu_group(fs, d, dev_dir);
		read_io_links(fs, d);
		if (d.hw.drm_version.source == DrmVersionSource::none)
			drm_version_from_file(drm_lines, d);
		if (d.hw.drm_version.source == DrmVersionSource::none && d.driver == "amdgpu" &&
		    (derived.at_least || derived.at_most))
			d.hw.drm_version = {
				DrmVersionSource::derived,          3, 0, 0, derived.at_least, derived.at_most,
				"kernel " + s.driver.kernel_release};
	}
}

} // namespace rdnafix::machine::detail
