#pragma once
// The machine snapshot: the facts one collection found (devices, driver,
// rdnafix module, access, environment), filled by machine::collect() and read
// by every verb.  Facts only: no verdict and no advice (status/ judges).
// Closed sets are enums; each has one spelling function, to_string(), that
// only renderers call.  No I/O here.
#include "machine/boot.hpp"
#include "machine/hwfacts.hpp"
#include "machine/platform.hpp"
#include "machine/unreadable.hpp"

#include "core/env_vars.hpp"
#include "core/gpudb.hpp"
#include "core/parse_kernel_log.hpp"
#include "core/types.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::machine {

// Where a device's gfx target comes from, in the order they are tried.
enum class GfxTargetSource { unknown, kfd, libdrm, pci_id_table, gc_version };
std::string_view to_string(GfxTargetSource s); // "", "kfd", "libdrm", "pci-id-table", "gc-version"

// Where a device's product name comes from.
enum class NameSource { none, libdrm, amdgpu_ids };
std::string_view to_string(NameSource s); // "", "libdrm", "amdgpu.ids"

// The properties udev/60-rdnafix.hwdb gives a GPU (ID_RDNAFIX_GFX_TARGET,
// _GENERATION, _APU; live path only: a --root tree has no udev database), as
// udev stores them, capped and made valid UTF-8 (interpret_hwdb.hpp), and
// where they disagree with rdnactl's own GPU database for the same PCI id (a
// hwdb left from another rdnactl version, or one edited by hand).
struct HwdbDifference {
	std::string key;     // "gfx_target", "generation", "apu", or "entry" (one side has no row)
	std::string hwdb;    // the hwdb's value ("" when absent)
	std::string builtin; // rdnactl's value ("" when absent)
};
struct HwdbFacts {
	std::optional<std::string> gfx_target, generation, apu;
	std::vector<HwdbDifference> differences;
};

struct Device {
	std::string pci_bdf;     // "0000:03:00.0"; empty for a non-PCI DRM device
	std::string card;        // "card0" ("" if none)
	std::string render_node; // "renderD128" ("" if none)
	std::optional<std::uint32_t> vendor_id, device_id, subsystem_vendor_id, subsystem_device_id;
	std::optional<std::uint32_t> revision, pci_class;
	std::string driver;  // "amdgpu", "i915", ... ("" when unbound)
	bool is_amd = false; // vendor 0x1002 and a display-class device

	// AMD-only below.
	std::optional<std::string> gfx_target; // "gfx1031"
	GfxTargetSource gfx_target_source = GfxTargetSource::unknown;
	std::optional<std::string> gc_version; // "10.3.2" from ip_discovery (or the GPU database)
	std::optional<gpudb::Generation> generation;
	std::optional<bool> apu;
	std::string codename; // from the GPU database
	std::optional<std::string> marketing_name;
	NameSource marketing_name_source = NameSource::none;
	std::optional<std::uint64_t> vram_total_bytes, gtt_total_bytes;
	std::optional<int> kfd_node;      // KFD topology node id
	std::optional<int> kfd_gpu_index; // index among KFD GPU nodes (ROCR_VISIBLE_DEVICES)
	std::optional<std::uint32_t> kfd_gpu_id;
	std::optional<std::uint32_t> kfd_gfx_target_version; // 100301
	std::optional<std::uint32_t> libdrm_family_id, libdrm_external_rev;
	// noretry that rdnafix applied to this device (sys/kernel/rdnafix/devices/
	// <BDF>/noretry_applied, when it is 0 or more).
	std::optional<int> rdnafix_noretry_applied;
	std::optional<HwdbFacts> hwdb; // absent: udev gave none of the ID_RDNAFIX_ properties
	DeviceHw hw;                   // firmware, IOMMU group, KFD io_links, DRM version (hwfacts.hpp)

	std::vector<Unreadable> unreadable;
};

// Where a module parameter's configured value comes from.
enum class ParamSource { default_value, modprobe_d, cmdline };
std::string_view to_string(ParamSource s); // "default", "modprobe.d", "cmdline"

// One amdgpu (or ttm) parameter and where its value comes from.
struct Param {
	std::string module; // "amdgpu", "ttm", "amdttm"
	std::string name;
	std::optional<std::string> live_value; // /sys/module/<m>/parameters/<name>
	ParamSource source = ParamSource::default_value;
	std::string configured_value; // value from cmdline/modprobe.d
	std::string source_file;      // "/etc/modprobe.d/amdgpu.conf" or "proc/cmdline"
	int source_line = 0;          // 1-based line in source_file
	// A modprobe.d setting that the command line overrides (empty if none).
	std::string overridden_value, overridden_file;
	int overridden_line = 0;
	// The kernel registers the parameter root-only (mode 0600) and this reader
	// was refused: not a fault, the value is simply not shown to other users.
	bool root_only = false;
};

struct Driver {
	bool amdgpu_loaded = false;           // /sys/module/amdgpu or proc/modules
	std::optional<std::string> initstate; // "live"
	std::string kernel_release;           // proc/sys/kernel/osrelease
	std::string kernel_version_line;      // proc/version (first line)
	std::string cmdline;                  // proc/cmdline
	std::vector<Param> params;            // the parameters that matter
	// Every readable /sys/module/amdgpu/parameters/<name>, raw; filled only
	// with CollectOptions::all_amdgpu_params (validate records it with a run).
	std::map<std::string, std::string> amdgpu_all_params;
	std::optional<std::uint64_t> ttm_pages_limit, amdttm_pages_limit;
	std::optional<std::uint64_t> ttm_limit_bytes; // the pages_limit in effect * 4096
	std::optional<std::uint64_t> mem_total_bytes; // proc/meminfo MemTotal
	std::vector<Unreadable> unreadable;
};

struct RdnafixDevice {
	std::string pci_bdf;
	std::map<std::string, std::string> values; // every ABI v1 file, raw (trailing newline stripped)
};

// One hook's counters (sys/kernel/rdnafix/calls and missing); nullopt: not printed.
struct RdnafixHookCounts {
	std::optional<std::uint64_t> seen, refused;                     // calls
	std::optional<std::uint64_t> missed_instance, missed_recursion; // missing
};

// What shows that rdnafix is loaded.
enum class LoadEvidence { none, proc_modules, sys_module };
std::string_view to_string(LoadEvidence e); // "", "proc/modules", "sys/module/rdnafix"

struct Rdnafix {
	bool installed = false;
	std::vector<std::string> installed_paths; // lib/modules/<rel>/.../rdnafix.ko*
	bool loaded = false;
	LoadEvidence loaded_evidence = LoadEvidence::none;
	std::optional<std::string> version, abi_version, amdgpu_state, dry_run;
	std::map<std::string, std::string> hooks;  // name -> "active" | "inactive: ..."
	std::map<std::string, std::string> params; // /sys/module/rdnafix/parameters/*
	std::vector<RdnafixDevice> devices;
	// sys/kernel/rdnafix/not_covered, one line each: the PTE paths its MTYPE hook does not see
	std::vector<std::string> not_covered;
	// sys/kernel/rdnafix/calls and missing (ABI v1, issue 22; absent from older
	// modules): per hook, the calls seen and refused, and the calls the kprobe
	// core never gave the handler (instance: no free kretprobe instance;
	// recursion: a probe hit inside a probe handler).
	std::map<std::string, RdnafixHookCounts> hook_counts;
	// sys/kernel/rdnafix/evidence: "key: value" lines (amdgpu_origin,
	// amdgpu_path, prototypes, pte_audit): what the module was built against.
	std::map<std::string, std::string> evidence;
	// sys/kernel/rdnafix/leaks: reads of the swapped amdgpu_noretry by other
	// code while rdnafix's per-device value was in place (total, newest last).
	std::optional<std::uint64_t> leaks_total;
	std::vector<std::string> leaks;
	std::vector<Unreadable> unreadable;
};

// Where a device node's type, mode and owner come from.
enum class StatSource { none, stat, manifest };
std::string_view to_string(StatSource s); // "", "stat", "manifest"

struct DevNode {
	std::string path; // "/dev/kfd"
	bool exists = false;
	std::string stat_error; // "unreadable: ..." when stat failed other than by "no such file"
	StatSource stat_source = StatSource::none;
	char type = 0;                              // 'c' | 'b' | 0 unknown
	std::optional<unsigned> major, minor, mode; // mode = permission bits (e.g. 0660)
	std::string owner, group;                   // names ("" if unknown)
	std::optional<unsigned> uid, gid;
	// What the path is when it is not a character or block device:
	// "directory", "FIFO", "regular file", "socket", "other" ("" for a device
	// node, or when it could not be stat'ed).
	std::string file_kind;
	// The kernel's major:minor for the node (sys/class/kfd/kfd/dev,
	// sys/class/drm/<node>/dev) and that file; nullopt when not readable.
	std::optional<unsigned> expected_major, expected_minor;
	std::string expected_from;
	// The kernel's own answer for this process on the live machine (ACLs,
	// capabilities): may it open the node read-write?  nullopt when not asked
	// (--root, --user, or the node could not be stat'ed).
	std::optional<bool> kernel_allows_rw;
	std::string kernel_refusal; // strerror of the refusal
};

// Whose access is judged.
enum class AccessSubject { process, user };
std::string_view to_string(AccessSubject s); // "process", "user"

struct Access {
	AccessSubject subject = AccessSubject::process;
	std::string user; // user name ("" unknown)
	std::optional<unsigned> uid;
	std::vector<unsigned> session_gids;         // gids the subject has now (sorted for a process)
	std::vector<std::string> session_groups;    // their names
	std::vector<std::string> configured_groups; // groups etc/group gives the user
	std::vector<std::string> relogin_groups;    // in configured but not in session
	std::vector<DevNode> nodes;                 // /dev/kfd first, then render nodes
	Container container;                        // machine/platform.hpp
	UserNamespace userns;                       // this process's (live) or the tree's proc/self
	std::vector<Unreadable> unreadable;
};

struct OverrideVar {
	std::string name; // HSA_OVERRIDE_GFX_VERSION or ..._<N>
	std::string value;
	std::optional<int> node;               // N for the _<N> form
	std::optional<core::GfxTarget> target; // the parsed value (ROCr's rules)
	std::string error;                     // why the value is invalid
};

struct VisibleVar {
	std::string name, value;
	std::vector<int> indices; // parsed integer indices (in order)
	bool parsed = true;       // false: contains UUIDs or garbage
	std::string error;
};

struct Environment {
	std::string source;                      // "process" | the --env file path
	std::map<std::string, std::string> vars; // the relevant variables that are set
	std::vector<OverrideVar> overrides;
	std::vector<VisibleVar> visible;
	// Where software is found (PATH, VIRTUAL_ENV, CONDA_PREFIX, HOME,
	// ROCM_PATH, LD_LIBRARY_PATH): read by the software picture (coverage
	// scan, library-load check), not shown by status.
	std::map<std::string, std::string> locate;
	// What shows the platform (WSL_DISTRO_NAME, WSL_INTEROP, SNAP, SNAP_NAME,
	// FLATPAK_ID, container, TOOLBOX_PATH, DISTROBOX_ENTER_PATH,
	// HSA_ENABLE_DXG_DETECTION): read by the
	// platform reader, not shown by status.
	std::map<std::string, std::string> platform;
	std::vector<Unreadable> unreadable;
	// Run under sudo (live, root, SUDO_USER set, no --user): the user judged,
	// whether the environment of the sudo call was read (then it is the one
	// audited) and the relevant variables that sudo did not pass on.
	std::string sudo_user;
	bool sudo_environ_read = false;
	std::vector<std::string> sudo_dropped;
	// The variables table (knowledge base) the variables were chosen with;
	// status judges them with it.  Never null once collected.
	std::shared_ptr<const core::VarTable> table;
};

// Which reader filled the snapshot.
// The kernel log of the current boot (machine/collect_kernel_log.cpp): live
// from /dev/kmsg, under --root from a captured `dmesg` file
// (<root>/var/log/rdnafix-dmesg, tests/fixtures/README.md).
enum class KernelLogSource { none, kmsg, file };
std::string_view to_string(KernelLogSource s); // "", "kmsg", "file"

struct KernelLog {
	KernelLogSource source = KernelLogSource::none; // none: no log to read (a root without the file)
	std::string path;                               // "/dev/kmsg", "var/log/rdnafix-dmesg"
	std::optional<core::KernelLogEvents> events;    // nullopt when it could not be read
	std::string error;                              // why not
	bool truncated = false;                         // only the first part was read
};

enum class CollectorKind { none, live, root };
std::string_view to_string(CollectorKind k); // "", "live", "root"

struct Snapshot {
	std::string root;                              // "/" or the --root dir
	CollectorKind collector = CollectorKind::none; // none when nothing could be read
	std::vector<Device> devices;                   // every DRM device, AMD or not
	Driver driver;
	Rdnafix rdnafix;
	Access access;
	Environment environment;
	BootConfig boot;               // what the next boot will do, and what may stop rdnafix loading
	KernelLog kernel_log;          // amdgpu faults, timeouts, resets of the current boot
	HwFacts hw;                    // IOMMU, kernel configuration (hwfacts.hpp)
	Wsl wsl;                       // WSL1/WSL2 facts (machine/platform.hpp)
	bool nothing_readable = false; // the root is unusable: exit 2
	std::string nothing_readable_reason;
};

} // namespace rdnafix::machine
