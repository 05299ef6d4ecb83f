#pragma once
// The facts about the machine that are recorded with each validation run.
// read_run_machine_info() is the one place validate reads them; it is to be
// replaced by a view of the machine Snapshot that `status` reads (one reader
// for every command), which will also fill the optional fields below.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace rdnafix::validate {

struct RunMachineInfo {
	std::string kernel_release;                               // uname -r; "unknown" if uname fails
	nlohmann::json amdgpu_params = nlohmann::json::object();  // /sys/module/amdgpu/parameters {"name": "value"}
	nlohmann::json rdnafix_params = nlohmann::json::object(); // /sys/module/rdnafix/parameters
	std::optional<int> noretry_param;                         // amdgpu.noretry as the module holds it (-1: default)
	// Not read here yet (they need the device list and kernel rules of the Snapshot):
	std::optional<std::string> gfx_target;      // "gfx1031"
	std::optional<int> noretry_effective;       // the effective gmc.noretry of the device
	std::optional<int> rdnafix_noretry_applied; // what rdnafix applied, when it is loaded
};

RunMachineInfo read_run_machine_info();

} // namespace rdnafix::validate
