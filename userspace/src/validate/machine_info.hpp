#pragma once
// The facts about the machine that are recorded with each validation run,
// taken from the same machine Snapshot that `rdnactl status` reads (one
// reader for every command): kernel, amdgpu/rdnafix parameters and, per AMD
// GPU, its gfx target and effective noretry.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "machine/snapshot.hpp"
#include "software/stack.hpp"

namespace rdnafix::validate {

struct RunDevice {
	std::string pci_bdf;                        // "0000:03:00.0"
	std::optional<std::string> gfx_target;      // "gfx1031"
	std::optional<int> noretry_effective;       // the effective gmc.noretry (core::rules::device_noretry)
	std::optional<int> rdnafix_noretry_applied; // what rdnafix applied, when it is loaded
};
void to_json(nlohmann::json &j, const RunDevice &d);
void from_json(const nlohmann::json &j, RunDevice &d);

struct RunMachineInfo {
	std::string kernel_release;                               // osrelease; "unknown" when unreadable
	nlohmann::json amdgpu_params = nlohmann::json::object();  // /sys/module/amdgpu/parameters {"name": "value"}
	nlohmann::json rdnafix_params = nlohmann::json::object(); // /sys/module/rdnafix/parameters
	std::optional<int> noretry_param;                         // amdgpu.noretry as the module holds it (-1: default)
	std::vector<RunDevice> devices;                           // every AMD GPU, in BDF order
	Stack stack; // collect_stack of the snapshot (read_run_machine_info only)
};

// Pure: the run's view of a snapshot.
RunMachineInfo run_machine_info(const machine::Snapshot &snap);
// machine::collect() of this machine ("/", libudev/libdrm), then
// run_machine_info() and collect_stack().
RunMachineInfo read_run_machine_info();

} // namespace rdnafix::validate
