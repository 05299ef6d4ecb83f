// Device source 2: the live machine through libudev (enumeration, sysfs
// attributes) and libdrm (amdgpu_device_initialize on the render node).
// The strings land in the same RawPciDevice records as the sysfs walk.
#include "machine/collect.hpp"
#include "io/fs_error.hpp"
#include "machine/interpret_hwdb.hpp"

#include <amdgpu.h>
#include <amdgpu_drm.h>
#include <libudev.h>
#include <xf86drm.h>

#include "io/unique_fd.hpp"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <string>

namespace rdnafix::machine {

namespace {

struct UdevDeleter {
	void operator()(udev *u) const { udev_unref(u); }
	void operator()(udev_enumerate *e) const { udev_enumerate_unref(e); }
	void operator()(udev_device *d) const { udev_device_unref(d); }
};
template <class T> using UPtr = std::unique_ptr<T, UdevDeleter>;

class AmdgpuDevice {
public:
	AmdgpuDevice() = default;
	~AmdgpuDevice()
	{
		if (dev_)
			amdgpu_device_deinitialize(dev_);
	}
	AmdgpuDevice(const AmdgpuDevice &) = delete;
	AmdgpuDevice &operator=(const AmdgpuDevice &) = delete;
	amdgpu_device_handle *out() { return &dev_; }
	amdgpu_device_handle get() const { return dev_; }

private:
	amdgpu_device_handle dev_ = nullptr;
};

std::string basename_of(const char *p)
{
	std::string s = p ? p : "";
	auto i = s.find_last_of('/');
	return i == std::string::npos ? s : s.substr(i + 1);
}

RawValue udev_attr(udev_device *dev, const std::string &attr)
{
	RawValue v;
	v.path = std::string(udev_device_get_syspath(dev)) + "/" + attr;
	errno = 0;
	const char *s = udev_device_get_sysattr_value(dev, attr.c_str());
	if (s) {
		std::string t = s;
		while (!t.empty() && (t.back() == '\n' || t.back() == ' ' || t.back() == '\t'))
			t.pop_back();
		if (t.empty())
			v.reason = "unreadable: empty file";
		else
			v.text = t;
	} else {
		int e = errno ? errno : ENOENT;
		v.missing = e == ENOENT;
		v.reason = std::string("unreadable: ") + io::errno_text(e);
	}
	return v;
}

LibdrmInfo query_libdrm(const std::string &node)
{
	LibdrmInfo info;
	io::unique_fd fd(::open(node.c_str(), O_RDWR | O_CLOEXEC));
	if (!fd) {
		info.error = "open " + node + ": " + io::errno_text(errno);
		return info;
	}
	// DRM_IOCTL_VERSION: the interface version userspace (libhsakmt) checks.
	if (drmVersionPtr v = drmGetVersion(fd.get())) {
		info.drm_major = v->version_major;
		info.drm_minor = v->version_minor;
		info.drm_patch = v->version_patchlevel;
		drmFreeVersion(v);
	}
	std::uint32_t major = 0, minor = 0;
	AmdgpuDevice dev;
	if (int r = amdgpu_device_initialize(fd.get(), &major, &minor, dev.out()); r != 0) {
		info.error = "amdgpu_device_initialize: " + io::errno_text(-r);
		return info;
	}
	amdgpu_gpu_info gi{};
	if (amdgpu_query_gpu_info(dev.get(), &gi) == 0) {
		info.family_id = gi.family_id;
		info.external_rev = gi.chip_external_rev;
		info.asic_id = gi.asic_id;
		info.pci_rev = gi.pci_rev_id;
		info.apu = (gi.ids_flags & AMDGPU_IDS_FLAGS_FUSION) != 0;
	}
	if (const char *name = amdgpu_get_marketing_name(dev.get()))
		info.marketing_name = name;
	drm_amdgpu_info_vram_gtt vg{};
	if (amdgpu_query_info(dev.get(), AMDGPU_INFO_VRAM_GTT, sizeof vg, &vg) == 0) {
		info.vram_total_bytes = vg.vram_size;
		info.gtt_total_bytes = vg.gtt_size;
	}
	return info;
}

} // namespace

std::optional<std::vector<RawPciDevice>> raw_devices_from_udev(bool with_libdrm, std::string &error,
							       const std::string &class_prefix)
{
	UPtr<udev> u(udev_new());
	if (!u) {
		error = "udev_new failed";
		return std::nullopt;
	}
	std::map<std::string, RawPciDevice> pci;
	std::map<std::string, RawPciDevice> non_pci;
	std::map<std::string, UPtr<udev_device>> pci_dev; // keeps the parents alive

	auto keep_pci = [&](udev_device *p) -> RawPciDevice & {
		std::string bdf = udev_device_get_sysname(p);
		auto &r = pci[bdf];
		if (r.bdf.empty()) {
			r.bdf = bdf;
			pci_dev[bdf] = UPtr<udev_device>(udev_device_ref(p));
		}
		return r;
	};

	{
		UPtr<udev_enumerate> e(udev_enumerate_new(u.get()));
		if (!e) {
			error = "udev_enumerate_new failed";
			return std::nullopt;
		}
		udev_enumerate_add_match_subsystem(e.get(), "drm");
		if (int r = udev_enumerate_scan_devices(e.get()); r < 0) {
			error = std::string("udev scan of drm: ") + io::errno_text(-r);
			return std::nullopt;
		}
		for (auto *l = udev_enumerate_get_list_entry(e.get()); l; l = udev_list_entry_get_next(l)) {
			UPtr<udev_device> d(udev_device_new_from_syspath(u.get(), udev_list_entry_get_name(l)));
			if (!d)
				continue;
			std::string name = udev_device_get_sysname(d.get());
			const char *devtype = udev_device_get_devtype(d.get());
			if (!devtype || std::string(devtype) != "drm_minor")
				continue; // connectors (card0-DP-1) and the like
			if (!(name.rfind("card", 0) == 0 || name.rfind("renderD", 0) == 0))
				continue;
			udev_device *parent = udev_device_get_parent(d.get()); // owned by d
			const char *sub = parent ? udev_device_get_subsystem(parent) : nullptr;
			if (parent && sub && std::string(sub) == "pci") {
				keep_pci(parent).drm_nodes.push_back(name);
			} else {
				std::string key = parent ? udev_device_get_syspath(parent) : name;
				auto &r = non_pci[key];
				r.drm_nodes.push_back(name);
			}
		}
	}
	{
		UPtr<udev_enumerate> e(udev_enumerate_new(u.get()));
		if (e) {
			udev_enumerate_add_match_subsystem(e.get(), "pci");
			udev_enumerate_add_match_sysattr(e.get(), "class", (class_prefix + "*").c_str());
			if (udev_enumerate_scan_devices(e.get()) >= 0)
				for (auto *l = udev_enumerate_get_list_entry(e.get()); l;
				     l = udev_list_entry_get_next(l)) {
					UPtr<udev_device> d(
						udev_device_new_from_syspath(u.get(), udev_list_entry_get_name(l)));
					if (d)
						keep_pci(d.get());
				}
		}
	}

	std::vector<RawPciDevice> out;
	for (auto &[bdf, r] : pci) {
		udev_device *d = pci_dev[bdf].get();
		for (const auto &a : pci_identity_attrs())
			r.attrs[a] = udev_attr(d, a);
		r.driver = basename_of(udev_device_get_driver(d));
		// udev/70-rdnafix.rules + 60-rdnafix.hwdb (absent when not installed).
		for (const char *key : {kHwdbGfxTarget, kHwdbGeneration, kHwdbApu})
			if (const char *v = udev_device_get_property_value(d, key))
				r.udev_props[key] = v;
		if (r.driver == "amdgpu") {
			for (const auto &a : amdgpu_attrs())
				r.attrs[a] = udev_attr(d, a);
		}
		std::sort(r.drm_nodes.begin(), r.drm_nodes.end());
		if (with_libdrm && r.driver == "amdgpu")
			for (const auto &n : r.drm_nodes)
				if (n.rfind("renderD", 0) == 0) {
					r.libdrm = query_libdrm("/dev/dri/" + n);
					break;
				}
		out.push_back(std::move(r));
	}
	for (auto &[k, r] : non_pci) {
		std::sort(r.drm_nodes.begin(), r.drm_nodes.end());
		out.push_back(std::move(r));
	}
	return out;
}

} // namespace rdnafix::machine
