// Device source 1: a plain walk of sys/ below the root (used with --root).
#include "machine/collect.hpp"

#include <algorithm>
#include <map>
#include <cctype>

#include <fmt/format.h>

namespace rdnafix::machine {

namespace {

bool is_bdf(std::string_view s)
{
	// dddd:bb:dd.f (hex)
	if (s.size() != 12 || s[4] != ':' || s[7] != ':' || s[10] != '.')
		return false;
	for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9, 11})
		if (!std::isxdigit(static_cast<unsigned char>(s[i])))
			return false;
	return true;
}

bool is_drm_node_name(std::string_view s)
{
	auto digits = [](std::string_view d) {
		return !d.empty() && std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; });
	};
	if (s.rfind("card", 0) == 0)
		return digits(s.substr(4));
	if (s.rfind("renderD", 0) == 0)
		return digits(s.substr(7));
	return false;
}

RawValue read_attr(io::RootFs &fs, const std::string &dir, const std::string &attr)
{
	RawValue v;
	v.path = dir + "/" + attr;
	auto r = fs.read_value(v.path);
	if (r) {
		v.text = *r;
	} else {
		v.reason = r.error().reason();
		v.missing = r.error().kind == io::FsErrorKind::not_found;
	}
	return v;
}

std::string basename_of(const std::string &p)
{
	auto s = p.find_last_of('/');
	return s == std::string::npos ? p : p.substr(s + 1);
}

} // namespace

std::vector<RawPciDevice> raw_devices_from_sysfs(io::RootFs &fs, const std::string &class_prefix,
						 std::vector<Unreadable> *u)
{
	std::map<std::string, RawPciDevice> pci;     // by BDF
	std::map<std::string, RawPciDevice> non_pci; // by parent path
	auto note = [&](const char *item, const io::FsError &e) {
		if (u && e.kind != io::FsErrorKind::not_found)
			u->push_back({item, e.path, e.reason()});
	};
	auto over_cap = [&](const char *what, const std::string &path, std::size_t n) {
		if (u)
			u->push_back({"device_count", path,
				      fmt::format("unreadable: out of range: {} {} (only the first {} are read)", n,
						  what, kMaxDevices)});
	};

	auto names = fs.list_dir("sys/class/drm");
	if (!names)
		note("drm_devices", names.error());
	if (names) {
		std::size_t seen = 0;
		for (const auto &name : *names) {
			if (!is_drm_node_name(name))
				continue;
			if (++seen > kMaxDevices)
				continue;
			auto canon = fs.canonical("sys/class/drm/" + name);
			if (!canon) {
				note("drm_node", canon.error());
				continue;
			}
			std::string path = *canon;
			std::string suffix = "/drm/" + name;
			std::string parent = path.size() > suffix.size() && path.compare(path.size() - suffix.size(),
											 suffix.size(), suffix) == 0
						     ? path.substr(0, path.size() - suffix.size())
						     : path.substr(0, path.find_last_of('/'));
			std::string bdf = basename_of(parent);
			if (is_bdf(bdf)) {
				auto &r = pci[bdf];
				r.bdf = bdf;
				r.drm_nodes.push_back(name);
			} else {
				auto &r = non_pci[parent];
				r.sys_path = parent;
				r.drm_nodes.push_back(name);
			}
		}
		if (seen > kMaxDevices)
			over_cap("DRM nodes", "sys/class/drm", seen);
	}
	auto bdfs = fs.list_dir("sys/bus/pci/devices");
	if (!bdfs)
		note("pci_devices", bdfs.error());
	if (bdfs) {
		std::size_t seen = 0;
		for (const auto &bdf : *bdfs) {
			if (!is_bdf(bdf))
				continue;
			auto cls = fs.read_value("sys/bus/pci/devices/" + bdf + "/class");
			if (!cls || cls->rfind(class_prefix, 0) != 0)
				continue;
			if (pci.count(bdf) == 0 && ++seen > kMaxDevices)
				continue;
			pci[bdf].bdf = bdf;
		}
		if (seen > kMaxDevices)
			over_cap("PCI display devices", "sys/bus/pci/devices", seen);
	}

	std::vector<RawPciDevice> out;
	for (auto &[bdf, r] : pci) {
		std::string dir = "sys/bus/pci/devices/" + bdf;
		if (auto c = fs.canonical(dir))
			r.sys_path = *c;
		for (const auto &a : pci_identity_attrs())
			r.attrs[a] = read_attr(fs, dir, a);
		if (auto l = fs.read_link(dir + "/driver"))
			r.driver = basename_of(*l);
		if (r.driver == "amdgpu")
			for (const auto &a : amdgpu_attrs())
				r.attrs[a] = read_attr(fs, dir, a);
		std::sort(r.drm_nodes.begin(), r.drm_nodes.end());
		out.push_back(std::move(r));
	}
	for (auto &[p, r] : non_pci) {
		std::sort(r.drm_nodes.begin(), r.drm_nodes.end());
		out.push_back(std::move(r));
	}
	return out;
}

} // namespace rdnafix::machine
