// rdnafix core: small value types shared by the parsers, the GPU database and
// the rules.  No I/O.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

namespace rdnafix::core {

// A hardware IP version as amdgpu's IP discovery reports it
// (sysfs ip_discovery/die/0/GC/0/{major,minor,revision}), e.g. GC 10.3.2.
struct GcVersion {
	unsigned major = 0;
	unsigned minor = 0;
	unsigned revision = 0;

	auto operator<=>(const GcVersion &) const = default;
	// "10.3.2"
	[[nodiscard]] std::string to_string() const;
};

// An ISA target as ROCr / KFD / LLVM name it: major.minor.stepping.
// KFD encodes it as gfx_target_version = major*10000 + minor*100 + stepping
// (docs/rocm-facts.md §5), the LLVM/ROCr name is "gfx" + major (decimal) +
// minor (one hex digit) + stepping (one hex digit): {10,3,1} = gfx1031,
// {9,0,10} = gfx90a.
struct GfxTarget {
	unsigned major = 0;
	unsigned minor = 0;
	unsigned stepping = 0;

	auto operator<=>(const GfxTarget &) const = default;
	// "gfx1031".  Minor/stepping above 15 cannot be written as one hex digit;
	// they are then printed in hex in full (never produced by real hardware).
	[[nodiscard]] std::string name() const;
	// 100301 for gfx1031.
	[[nodiscard]] std::uint32_t kfd_version() const { return major * 10000U + minor * 100U + stepping; }
	// "10.3.1": the HSA_OVERRIDE_GFX_VERSION spelling.
	[[nodiscard]] std::string dotted() const;
};

// A Linux kernel version: the numeric part of a release string plus the rest.
// "6.12.117+deb12-amd64" -> {6,12,117, extra "+deb12-amd64"}.
struct KernelVersion {
	unsigned major = 0;
	unsigned minor = 0;
	unsigned patch = 0;
	std::string extra; // everything after major.minor.patch, verbatim ("-27-generic")

	// Ordering on the numbers only.
	[[nodiscard]] std::strong_ordering compare(unsigned mj, unsigned mn, unsigned p = 0) const;
	[[nodiscard]] bool at_least(unsigned mj, unsigned mn, unsigned p = 0) const { return compare(mj, mn, p) >= 0; }
	// "6.12.117"
	[[nodiscard]] std::string numeric() const;
};

// The kind of a file system object, as stat() classifies it (or as the
// device-node manifest of a captured tree states it).
enum class FileType { regular, directory, symlink, char_device, block_device, fifo, socket, other };
// "regular", "directory", ..., "char_device", ...
std::string_view to_string(FileType type);

} // namespace rdnafix::core
