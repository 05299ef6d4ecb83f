#pragma once
// machine::capture_tree: copy what `rdnactl status --root` reads from a
// machine (or from a captured tree) into memory, laid out like a root file
// system in exactly the format `--root` replays (tests/fixtures/README.md).
// `rdnactl report` archives it; tests/fixtures/capture.sh writes it out.
//
// Reads only through io::RootFs (never outside the root, never writes).
// What is copied (the same list capture.sh had):
//  * proc/{cmdline,version,modules,meminfo,sys/kernel/osrelease}, etc/{group,
//    passwd,os-release,modprobe.d/*.conf}, usr/share/libdrm/amdgpu.ids, the
//    user namespace and container/WSL markers, the validation histories;
//  * sys/module/<gpu drivers, ttm, rdnafix>/{initstate,version,taint,parameters/*},
//    sys/kernel/rdnafix (files), rdnafix.ko of the running kernel (empty stand-in);
//  * the KFD topology, the DRM nodes with their PCI devices (attributes, driver
//    links, ip_discovery GC block, fw_version, IOMMU group), sys/class/iommu,
//    the kernel configuration, var/log/rdnafix-drm-version;
//  * device nodes as empty files plus dev/.devnodes (type, numbers, mode, owner).
// Sysfs/procfs files are read whole (their st_size is not their size).
#include "io/rootfs.hpp"

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace rdnafix::machine {

struct CapturedEntry {
	enum class Kind { file, symlink, directory };
	Kind kind = Kind::file;
	std::string data; // file: the content; symlink: the target text; directory: ""
};

struct Capture {
	// Root-relative path (no leading '/') -> entry; the first entry of a path wins.
	std::map<std::string, CapturedEntry> entries;
	std::size_t files_copied = 0;
	// "proc/x: unreadable: permission denied (EACCES)": present but not readable.
	std::vector<std::string> skipped;
};

// Largest file copied (a larger one is skipped and named): the history databases.
inline constexpr std::size_t kCaptureMaxFile = 64u << 20;

Capture capture_tree(io::RootFs &fs);

} // namespace rdnafix::machine
