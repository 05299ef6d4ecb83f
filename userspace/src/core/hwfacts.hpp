#pragma once
// Pure parsers and tables for the hardware facts of docs/hwfacts.md: the
// kernel configuration (/boot/config-<release>, /proc/config.gz), the
// captured DRM driver version file, KFD io_link flags, the amdgpu DRM
// interface version of a kernel release (derived), and version comparison.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::core {

// "CONFIG_HSA_AMD=y" -> {"CONFIG_HSA_AMD", "y"}; "# CONFIG_HSA_AMD_SVM is not
// set" -> "n".  Only the keys in `wanted` are kept (all when empty).
std::map<std::string, std::string> parse_kernel_config(std::string_view text,
						       const std::vector<std::string> &wanted = {});

// A DRM driver version as DRM_IOCTL_VERSION reports it.
struct DrmVersionNumber {
	int major = 0, minor = 0, patch = 0;
};
// "3.61.0" (also "3.61"); nullopt when not of that form.
std::optional<DrmVersionNumber> parse_drm_version(std::string_view text);

// One line of the captured file var/log/rdnafix-drm-version:
// "<BDF|renderDN> <driver name> <major.minor.patch>".
struct DrmVersionLine {
	std::string device, name;
	DrmVersionNumber version;
};
// Lines that are empty or start with '#' are skipped; a malformed line is an
// entry of `problems` ("line 2: expected '<device> <name> <M.m.p>', got ...").
std::vector<DrmVersionLine> parse_drm_version_file(std::string_view text, std::vector<std::string> *problems);

// The amdgpu KMS_DRIVER_MINOR that a kernel release series builds, where it
// is known (docs/hwfacts.md, "DRM version"): the bounds for `release`
// ("6.12.117+deb12-amd64"), from the nearest known series at or below and at
// or above it.  Both nullopt when the release cannot be read.
struct DrmMinorBounds {
	std::optional<int> at_least, at_most;
	bool exact = false; // the release's own series is in the table
};
DrmMinorBounds derived_drm_minor(std::string_view kernel_release);

// KFD io_link flags (kfd_crat.h CRAT_IOLINK_FLAGS_*).
inline constexpr std::uint32_t kIolinkEnabled = 1u << 0;
inline constexpr std::uint32_t kIolinkNonCoherent = 1u << 1;
inline constexpr std::uint32_t kIolinkNoAtomics32 = 1u << 2;
inline constexpr std::uint32_t kIolinkNoAtomics64 = 1u << 3;
inline constexpr std::uint32_t kIolinkNoPeerToPeerDma = 1u << 4;

// Compares two versions part by part: dotted decimal ("6.12.117", "2.7.0+rocm6.3"
// up to the first character that is neither digit nor '.'), or hexadecimal
// ("0x00000083") when both start with 0x.  nullopt when either has no number.
std::optional<int> compare_versions(std::string_view a, std::string_view b);

} // namespace rdnafix::core
