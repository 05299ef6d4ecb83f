#pragma once
// The status snapshot: plain records filled by a collector (root walk or live
// udev/libdrm path) and read by the decision function and the renderers.
// No I/O here.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rdnafix::machine {

// An item that could not be read: which record field, from which path, and why.
struct Unreadable {
	std::string item;   // JSON key of the field that stays null, e.g. "vram_total_bytes"
	std::string path;   // path relative to the root ("sys/bus/pci/devices/.../mem_info_vram_total")
	std::string reason; // e.g. "No such file or directory", "not a number: 'garbage'"
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
	std::string gfx_target_source;         // "kfd" | "libdrm" | "pci-id-table" | ""
	std::optional<std::string> gc_version; // "10.3.2" from ip_discovery (or libdrm)
	std::string generation;                // rdna1|rdna2|...|"" unknown
	std::optional<bool> apu;
	std::string codename; // from the GPU database
	std::optional<std::string> marketing_name;
	std::string marketing_name_source; // "libdrm" | "amdgpu.ids" | ""
	std::optional<std::uint64_t> vram_total_bytes, gtt_total_bytes;
	std::optional<int> kfd_node;      // KFD topology node id
	std::optional<int> kfd_gpu_index; // index among KFD GPU nodes (ROCR_VISIBLE_DEVICES)
	std::optional<std::uint32_t> kfd_gpu_id;
	std::optional<std::uint32_t> kfd_gfx_target_version; // 100301
	std::optional<std::uint32_t> libdrm_family_id, libdrm_external_rev;

	// Effective noretry for this device (module value or per-kernel default).
	std::optional<int> noretry_effective;
	std::string noretry_rule;                   // one line: how it was derived
	std::optional<int> rdnafix_noretry_applied; // from /sys/kernel/rdnafix, overrides the above

	std::vector<Unreadable> unreadable;
};

// One amdgpu (or ttm) parameter and where its value comes from.
struct Param {
	std::string module; // "amdgpu", "ttm", "amdttm"
	std::string name;
	std::optional<std::string> live_value; // /sys/module/<m>/parameters/<name>
	std::string source = "default";        // "cmdline" | "modprobe.d" | "default"
	std::string configured_value;          // value from cmdline/modprobe.d
	std::string source_file;               // "etc/modprobe.d/amdgpu.conf" or "proc/cmdline"
	int source_line = 0;                   // 1-based line in source_file
	// A modprobe.d setting that the command line overrides (empty if none).
	std::string overridden_value, overridden_file;
	int overridden_line = 0;
};

struct Driver {
	bool amdgpu_loaded = false;           // /sys/module/amdgpu or proc/modules
	std::optional<std::string> initstate; // "live"
	std::string kernel_release;           // proc/sys/kernel/osrelease
	std::string kernel_version_line;      // proc/version (first line)
	std::string cmdline;                  // proc/cmdline
	std::vector<Param> params;            // the parameters that matter
	std::optional<std::uint64_t> ttm_pages_limit, amdttm_pages_limit;
	std::optional<std::uint64_t> ttm_limit_bytes; // the pages_limit in effect * 4096
	std::optional<std::uint64_t> mem_total_bytes; // proc/meminfo MemTotal
	std::vector<Unreadable> unreadable;
};

struct RdnafixDevice {
	std::string pci_bdf;
	std::map<std::string, std::string> values; // every ABI v1 file, raw (trailing newline stripped)
};

struct Rdnafix {
	bool installed = false;
	std::vector<std::string> installed_paths; // lib/modules/<rel>/.../rdnafix.ko*
	bool loaded = false;
	std::string loaded_evidence; // "proc/modules" | "sys/module/rdnafix" | ""
	std::optional<std::string> version, abi_version, amdgpu_state, dry_run;
	std::map<std::string, std::string> hooks;  // name -> "active" | "inactive: ..."
	std::map<std::string, std::string> params; // /sys/module/rdnafix/parameters/*
	std::vector<RdnafixDevice> devices;
	std::vector<Unreadable> unreadable;
};

struct DevNode {
	std::string path; // "/dev/kfd"
	bool exists = false;
	std::string stat_source;                    // "stat" | "manifest" | ""
	char type = 0;                              // 'c' | 'b' | 0 unknown
	std::optional<unsigned> major, minor, mode; // mode = permission bits (e.g. 0660)
	std::string owner, group;                   // names ("" if unknown)
	std::optional<unsigned> uid, gid;
	bool can_open = false;     // judged for the subject (read+write)
	std::string verdict;       // one line: why / why not
	std::string missing_group; // group the subject would need
};

struct Access {
	std::string subject; // "process" | "user"
	std::string user;    // user name ("" unknown)
	std::optional<unsigned> uid;
	std::vector<std::string> session_groups;    // groups the subject has now
	std::vector<std::string> configured_groups; // groups etc/group gives the user
	std::vector<std::string> relogin_groups;    // in configured but not in session
	std::vector<DevNode> nodes;                 // /dev/kfd first, then render nodes
	bool container = false;                     // evidence of a container
	std::string container_evidence;
	std::vector<Unreadable> unreadable;
};

struct OverrideVar {
	std::string name; // HSA_OVERRIDE_GFX_VERSION or ..._<N>
	std::string value;
	std::optional<int> node; // N for the _<N> form
	bool valid = false;
	std::string error; // why invalid
	std::string gfx;   // "gfx1030" when valid
	struct Verdict {
		std::string device; // BDF of the device judged
		std::string native; // native gfx target
		std::string
			verdict; // core rules::to_string(OverrideVerdict): pointless, isa_safe, works_not_guaranteed, unsafe, unknown
		std::string reason;
	};
	std::vector<Verdict> verdicts;
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
	std::vector<Unreadable> unreadable;
};

struct Snapshot {
	std::string root;            // "/" or the --root dir
	std::string collector;       // "live" | "root"
	std::vector<Device> devices; // every DRM device, AMD or not
	Driver driver;
	Rdnafix rdnafix;
	Access access;
	Environment environment;
	bool nothing_readable = false; // set by the collector: exit 2
	std::string nothing_readable_reason;
};

} // namespace rdnafix::machine
