#pragma once
// Raw strings as a collector found them, before any parsing.  Both collectors
// (the --root directory walk and the live libudev/libdrm path) produce these
// records; interpret.hpp turns them into the snapshot with the same parsers.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rdnafix::machine {

// One attribute: its text (trailing whitespace removed) or why it is missing.
struct RawValue {
	std::optional<std::string> text;
	std::string path;     // root-relative path (or udev syspath + attribute)
	std::string reason;   // "unreadable: ..." when !text
	bool missing = false; // the file does not exist (ENOENT), as opposed to unreadable
};

// What libdrm said about an amdgpu render node (live path only).
struct LibdrmInfo {
	std::optional<std::uint32_t> family_id, external_rev, asic_id, pci_rev;
	std::optional<bool> apu; // AMDGPU_IDS_FLAGS_FUSION
	std::optional<std::string> marketing_name;
	std::optional<std::uint64_t> vram_total_bytes, gtt_total_bytes;
	// DRM_IOCTL_VERSION (drmGetVersion) of the render node
	std::optional<int> drm_major, drm_minor, drm_patch;
	std::string error; // "" or why the query failed
};

// A PCI device (display class, or the parent of a DRM node), or a DRM node
// without a PCI parent (bdf empty).
struct RawPciDevice {
	std::string bdf;                       // "0000:03:00.0"
	std::string sys_path;                  // root-relative canonical dir
	std::map<std::string, RawValue> attrs; // "vendor", "ip_discovery/die/0/GC/0/major", ...
	std::string driver;                    // basename of the driver link, "" unbound
	std::vector<std::string> drm_nodes;    // "card0", "renderD128" (sorted)
	std::optional<LibdrmInfo> libdrm;
	// udev properties ID_RDNAFIX_* of the PCI device (udev/70-rdnafix.rules;
	// live path only), raw: hostile until interpret_hwdb() has seen them.
	std::map<std::string, std::string> udev_props;
};

// Attributes read for every display/DRM PCI device.
inline const std::vector<std::string> &pci_identity_attrs()
{
	static const std::vector<std::string> a{"vendor",           "device",   "subsystem_vendor",
						"subsystem_device", "revision", "class"};
	return a;
}
// Attributes read in addition for devices bound to amdgpu.
inline const std::vector<std::string> &amdgpu_attrs()
{
	static const std::vector<std::string> a{"mem_info_vram_total", "mem_info_gtt_total",
						"ip_discovery/die/0/GC/0/major", "ip_discovery/die/0/GC/0/minor",
						"ip_discovery/die/0/GC/0/revision"};
	return a;
}

} // namespace rdnafix::machine
