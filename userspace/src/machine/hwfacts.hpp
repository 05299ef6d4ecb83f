#pragma once
// Hardware facts beside the device records (docs/hwfacts.md): firmware
// versions, the DRM driver version, IOMMU, KFD io_links, the kernel
// configuration.  Facts only; status/ judges them.
#include "machine/unreadable.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::machine {

// One KFD io_link of a GPU's node (topology/nodes/<N>/io_links/<M>/properties).
struct KfdIoLink {
	std::uint64_t node_from = 0, node_to = 0;
	std::uint64_t type = 0;  // CRAT_IOLINK_TYPE_*: 2 PCIe, 11 XGMI
	std::uint64_t flags = 0; // CRAT_IOLINK_FLAGS_* (core/hwfacts.hpp)
	std::string path;        // root-relative properties file
};

// Where a device's DRM driver version comes from.
enum class DrmVersionSource { none, ioctl, file, derived };
std::string_view to_string(DrmVersionSource s); // "", "ioctl", "file", "derived"

struct DrmVersion {
	DrmVersionSource source = DrmVersionSource::none;
	int major = 0, minor = 0, patch = 0; // ioctl / file
	// derived: the bounds of the minor (major 3) for this kernel release
	std::optional<int> minor_at_least, minor_at_most;
	std::string from; // "/dev/dri/renderD128", "var/log/rdnafix-drm-version", "kernel 6.12.117"
};

// Per AMD device.
struct DeviceHw {
	// device/fw_version/<name>_fw_version, raw ("0x00000083"), keyed by <name> ("mes").
	std::map<std::string, std::string> firmware;
	std::optional<std::string> iommu_group;      // "12" (device/iommu_group link)
	std::optional<std::string> iommu_group_type; // kernel/iommu_groups/<N>/type: DMA, DMA-FQ, identity, ...
	std::vector<KfdIoLink> io_links;
	DrmVersion drm_version;
};

struct KernelConfig {
	std::string path;                          // "boot/config-6.12.0", "proc/config.gz"; "" none readable
	std::map<std::string, std::string> values; // CONFIG_HSA_AMD -> "y" | "m" | "n" (is not set)
};

struct Iommu {
	std::vector<std::string> cmdline; // iommu-related command-line words: amd_iommu=, intel_iommu=, iommu=
	std::vector<std::string> units;   // sys/class/iommu entries ("ivhd0", "dmar0")
	bool class_readable = false;      // sys/class/iommu exists
};

struct HwFacts {
	Iommu iommu;
	KernelConfig kernel_config;
	std::vector<Unreadable> unreadable;
};

} // namespace rdnafix::machine
