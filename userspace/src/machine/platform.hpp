#pragma once
// Facts about where rdnactl runs: a container (which kind, the files that
// show it, rootless or not), the user namespace (uid_map, gid_map, the
// overflow ids) and WSL (the kernel, /dev/dxg, the WSL libraries, the
// ROCm-on-WSL runtime files).  Facts only: status/ judges.  No I/O here.
#include "machine/unreadable.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::machine {

// Which container runtime made the tree this process sees.
enum class ContainerKind { none, docker, podman, distrobox, toolbox, flatpak, snap, lxc, systemd_nspawn, other };
std::string_view to_string(ContainerKind k); // "", "docker", "podman", ..., "systemd-nspawn", "other"

// One thing that shows a container: a root-relative path ("/.dockerenv",
// "/run/.containerenv") or an environment variable ("$SNAP"), with the value
// read there ("" when only its presence counts).
struct ContainerMarker {
	std::string source;
	std::string value;
};

struct Container {
	ContainerKind kind = ContainerKind::none;
	std::vector<ContainerMarker> evidence;
	// /run/.containerenv (Podman): rootless=1|0, engine="podman-4.9.3",
	// name="...", image="..."; nullopt / "" when not said.
	std::optional<bool> rootless;
	std::string engine, name, image;
	[[nodiscard]] bool detected() const { return kind != ContainerKind::none; }
};

// One line of /proc/self/uid_map or gid_map: ids [inside, inside+count) of
// this namespace are ids [outside, outside+count) of the parent namespace.
struct IdMapRange {
	std::uint64_t inside = 0, outside = 0, count = 0;
};

struct UserNamespace {
	bool read = false; // uid_map and gid_map were read
	std::vector<IdMapRange> uid_map, gid_map;
	// proc/sys/kernel/overflowuid, overflowgid: what an unmapped id shows as
	// (65534 unless changed).
	std::optional<unsigned> overflow_uid, overflow_gid;
	// The initial namespace maps every id to itself ("0 0 4294967295").
	[[nodiscard]] bool initial() const
	{
		return read && uid_map.size() == 1 && uid_map[0].inside == 0 && uid_map[0].outside == 0 &&
		       uid_map[0].count == 4294967295u;
	}
};

// Which Windows Subsystem for Linux the kernel is.
enum class WslKind { none, wsl1, wsl2 };
std::string_view to_string(WslKind k); // "", "wsl1", "wsl2"

struct Wsl {
	WslKind kind = WslKind::none;
	std::string evidence; // "proc/sys/kernel/osrelease" or "proc/version"
	// /dev/dxg, the paravirtualised GPU of WSL2 (a misc character device).
	bool dxg_exists = false;
	char dxg_type = 0; // 'c' | 'b' | 0 unknown or not a device
	std::optional<unsigned> dxg_major, dxg_minor, dxg_mode;
	std::string dxg_owner, dxg_group;
	std::string dxg_error; // "unreadable: ..." when stat failed other than "no such file"
	bool interop = false;  // proc/sys/fs/binfmt_misc/WSLInterop or WSLInterop-late
	// The files of usr/lib/wsl/lib (libdxcore.so, libd3d12.so, ...), sorted.
	std::vector<std::string> wsl_libs;
	// WSL_DISTRO_NAME, WSL_INTEROP from the environment audited.
	std::map<std::string, std::string> env;
	// ROCm on WSL: librocdxg (ROCm 7.2.1 and later) and the WSL runtime
	// package of ROCm 6.1.3-7.2.0 (hsa-runtime-rocr4wsl-amdgpu, known by its
	// dpkg file list), root-relative paths.
	std::vector<std::string> rocdxg;
	std::string rocr4wsl; // "var/lib/dpkg/info/hsa-runtime-rocr4wsl-amdgpu.list" when present
	// libhsa-runtime64.so* found in opt/rocm*/lib and the distribution's
	// library directory (usr/lib/x86_64-linux-gnu), root-relative.
	std::vector<std::string> hsa_runtimes;
	std::string rocm_version; // opt/rocm/.info/version ("" when absent)
	std::vector<Unreadable> unreadable;
};

} // namespace rdnafix::machine
