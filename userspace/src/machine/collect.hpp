#pragma once
// Collectors: read the machine (or a captured tree) and fill a Snapshot.
// They read; they never decide (findings.hpp decides).
#include "machine/raw.hpp"
#include "machine/snapshot.hpp"

#include "io/rootfs.hpp"

#include <optional>
#include <string>
#include <vector>

namespace rdnafix::machine {

struct CollectOptions {
	std::string root = "/";
	bool live = true;                    // devices via libudev + libdrm (only with root "/")
	std::optional<std::string> env_file; // --env FILE (a host path; NUL-separated: an environ file)
	std::optional<long long> pid;        // --pid PID: <root>/proc/PID/environ is the environment
	std::optional<std::string> user;     // --user NAME
	bool all_amdgpu_params = false;      // also list every amdgpu parameter (Driver::amdgpu_all_params)
	// The variables table of the knowledge base (machine/variables.hpp,
	// load_variables); nullptr: none (only prefixes make a variable relevant).
	std::shared_ptr<const core::VarTable> variables = nullptr;
	// Problems of the overlay files it was read from, shown as unreadable
	// items of the environment.
	struct Note {
		std::string file, what;
	};
	std::vector<Note> variable_notes = {};
};

// The whole snapshot.  Never throws for bad input; unreadable items are
// recorded per item and `nothing_readable` is set when the root is unusable.
Snapshot collect(const CollectOptions &opts);

// Device sources (both produce the same raw records).
// `class_prefix` selects the PCI devices listed besides DRM parents: "0x03"
// (display controllers) in rdnactl; tests use "0x" (every PCI device) to compare
// the two sources on machines without a GPU.
// A device list that cannot be read (sys/class/drm, sys/bus/pci/devices, a
// sys/class/drm/<node> link) is recorded in `u` (items "drm_devices",
// "pci_devices", "drm_node"): the result may then be incomplete, and the
// checks that need it say "unknown".  At most kMaxDevices DRM nodes and PCI
// devices are read; more are recorded as item "device_count".
inline constexpr std::size_t kMaxDevices = 256;
std::vector<RawPciDevice> raw_devices_from_sysfs(io::RootFs &fs, const std::string &class_prefix = "0x03",
						 std::vector<Unreadable> *u = nullptr);
// libudev enumeration of the drm subsystem and display-class PCI devices,
// attributes read through udev; `with_libdrm` also queries each amdgpu render
// node through libdrm.  Returns nullopt with `error` set when udev is unusable.
std::optional<std::vector<RawPciDevice>> raw_devices_from_udev(bool with_libdrm, std::string &error,
							       const std::string &class_prefix = "0x03");

} // namespace rdnafix::machine
