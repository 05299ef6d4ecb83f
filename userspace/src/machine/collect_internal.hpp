#pragma once
// The readers behind machine::collect(), one per source; collect.cpp calls
// them in order.  Each reads through the RootFs it is given and records what
// it could not read; none of them decides anything.
#include "machine/interpret.hpp"
#include "machine/snapshot.hpp"

#include "core/parse.hpp"
#include "io/rootfs.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::machine::detail {

// Records an unreadable item.
void note(std::vector<Unreadable> &u, std::string item, const io::FsError &e);
// read_value that records a failure other than "does not exist".
std::optional<std::string> value(io::RootFs &fs, const std::string &path, std::vector<Unreadable> &u,
				 const std::string &item, bool missing_is_error = false);

// collect_driver.cpp: proc/modules, modprobe.d, kernel, amdgpu/ttm parameters, RAM.
std::vector<core::LoadedModule> read_modules(io::RootFs &fs, std::vector<Unreadable> &u);
bool has_module(const std::vector<core::LoadedModule> &mods, std::string_view name);
std::vector<ModprobeFile> read_modprobe_d(io::RootFs &fs, std::vector<Unreadable> &u);
void collect_driver(io::RootFs &fs, Driver &d, const std::vector<core::LoadedModule> &mods,
		    std::vector<ModprobeFile> &modprobe);

// Every readable file of sys/module/<module>/parameters, raw ("" for an empty
// string parameter); {} when the module is not loaded.  A parameter that
// cannot be read (e.g. write-only) is left out and, when `u` is given, recorded
// there as item "<module>.parameters.<name>".
std::map<std::string, std::string> read_module_params(io::RootFs &fs, const std::string &module,
						      std::vector<Unreadable> *u = nullptr);

// collect_rdnafix.cpp: the installed module, its parameters and /sys/kernel/rdnafix.
void collect_rdnafix(io::RootFs &fs, Rdnafix &r, const std::string &release,
		     const std::vector<core::LoadedModule> &mods);

// collect_boot.cpp: the boot configuration (machine/boot.hpp).
void collect_boot(io::RootFs &fs, BootConfig &b, const std::string &running_release,
		  const std::vector<ModprobeFile> &modprobe);
// The rdnafix.ko* files of one installed kernel, root-relative (also the
// "installed" evidence of collect_rdnafix).
std::vector<std::string> rdnafix_module_paths(io::RootFs &fs, const std::string &release);

// collect_modules.cpp: what is built for each installed kernel.
// One module file: its appended signature and .modinfo (version, vermagic).
ModuleFile read_module_file(io::RootFs &fs, const std::string &path);
// The kernel image of `release` (boot/vmlinuz-<rel>, lib/modules/<rel>/vmlinuz,
// boot/vmlinuz-<pkgbase>), root-relative; "" when none exists.
std::string kernel_image(io::RootFs &fs, const std::string &release, const std::string &pkgbase);
// Which amdgpu modprobe loads for `k` (modules.dep, else depmod's default
// search order), whether it is built in (modules.builtin), and amdgpu-dkms's
// copies in updates/dkms/.
void read_amdgpu_module(io::RootFs &fs, InstalledKernel &k);
// The version directories of var/lib/dkms/amdgpu (amdgpu-dkms added to DKMS).
std::vector<std::string> amdgpu_dkms_versions(io::RootFs &fs);
// The version directories of var/lib/dkms/rdnafix (sorted).
std::vector<std::string> dkms_versions(io::RootFs &fs);
// DKMS's builds of rdnafix for `k` and, when `k` has no rdnafix module, the
// newest make.log that names it (with its tail).  Call after k.rdnafix_modules is set.
void read_dkms_builds(io::RootFs &fs, InstalledKernel &k, const std::vector<std::string> &versions);

// collect_kfd.cpp: the KFD topology nodes.
std::vector<KfdNodeInfo> collect_kfd(io::RootFs &fs, std::vector<Unreadable> &u);

// collect_access.cpp: the subject (process or --user), groups, containers, device nodes.
void collect_access(io::RootFs &fs, Access &a, const std::vector<Device> &devices,
		    const std::optional<std::string> &user);

// collect_platform.cpp: the container, the user namespace and WSL (after
// the driver and the environment are read).
void collect_platform(io::RootFs &fs, Snapshot &s);

// collect_env.cpp: run under sudo?  Only when this process is root and
// SUDO_USER names another user; `invoking_environ` is /proc/<pid>/environ of
// the topmost sudo process above this one (the environment sudo was called
// with), when readable.
struct SudoContext {
	std::string user;
	std::optional<std::string> invoking_environ;
};
std::optional<SudoContext> detect_sudo();

// collect_kernel_log.cpp: the amdgpu events of this boot (/dev/kmsg live, a
// captured dmesg file under a root).
void collect_kernel_log(io::RootFs &fs, KernelLog &k, bool live);

// collect_hwfacts.cpp: firmware, IOMMU, io_links, DRM version per AMD device;
// IOMMU and kernel configuration of the machine.  After the devices are built.
void collect_hwfacts(io::RootFs &fs, Snapshot &s);

// collect_env.cpp: this process's environment, the --env file, or under sudo
// the environment of the sudo call.
Environment collect_environment(io::RootFs &fs, const std::optional<std::string> &file, std::optional<long long> pid,
				const std::optional<SudoContext> &sudo,
				const std::shared_ptr<const core::VarTable> &table);

} // namespace rdnafix::machine::detail
